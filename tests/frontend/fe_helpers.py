"""Helpers for the sema/irgen tests: compile a snippet to checked IR, run it, catch its error."""
from __future__ import annotations

import re

import pytest

from tritonc.diagnostics import CompileError, DiagnosticSink
from tritonc.frontend.irgen import generate_ir
from tritonc.frontend.parser import parse
from tritonc.frontend.sema import analyze
from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.ir.verifier import verify_module

SOFTMAX = """\
// y = softmax(x) along rows; one program per row. -D BLOCK=1024
__global__ void softmax(float *Y, float *X, int stride_y, int stride_x, int N) {
  int m = get_program_id(0);
  int n[BLOCK] = 0 ... BLOCK;
  bool check[BLOCK] = n < N;
  float x[BLOCK] = check ? *(X + m * stride_x + n) : -F32_INFINITY;
  float e[BLOCK] = exp(x - x[max]);
  *?(check)(Y + m * stride_y + n) = e / e[+];
}
"""

MATMUL = """\
// C[M,N] = A[M,K] @ B[K,N], half in, float accumulate, half out. Paper-style tunables.
const tunable int TM = {64, 128};
const tunable int TN = {64, 128};
const tunable int TK = {32, 64};
__global__ void matmul(half *A __noalias __readonly __aligned(16),
                       half *B __noalias __readonly __aligned(16),
                       half *C __noalias __aligned(16),
                       int M, int N, int K,
                       int lda __multipleof(8), int ldb __multipleof(8), int ldc __multipleof(8)) {
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rn[TN] = get_program_id(1) * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  half *pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
  half *pb[TK, TN] = B + rk[:, newaxis] * ldb + rn[newaxis, :];
  float acc[TM, TN] = 0;
  for (int k = K; k > 0; k -= TK) {
    half a[TM, TK] = (rm[:, newaxis] < M && rk[newaxis, :] < k) ? *pa : 0;
    half b[TK, TN] = (rk[:, newaxis] < k && rn[newaxis, :] < N) ? *pb : 0;
    acc += a @ b;
    pa += TK;
    pb += TK * ldb;
  }
  half c[TM, TN] = acc;
  bool checkc[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  @checkc *(C + rm[:, newaxis] * ldc + rn[newaxis, :]) = c;
}
"""


def compile_module(src: str, defines=None, tunables=None, diag=None):
    """Parse, check and lower ``src``; verify the module and its print/parse round trip."""
    tu = parse(src, "t.tri", defines=defines)
    module = generate_ir(tu, tunables=tunables, diag=diag)
    verify_module(module)
    text = print_module(module)
    again = parse_module(text)
    verify_module(again)
    assert print_module(again) == text, "print -> parse -> print differs"
    return module


def ir(src: str, defines=None, tunables=None, diag=None) -> str:
    """The printed IR of ``src`` (checked as in :func:`compile_module`)."""
    return print_module(compile_module(src, defines, tunables, diag))


def warnings_of(src: str, defines=None) -> list[str]:
    diag = DiagnosticSink()
    compile_module(src, defines, diag=diag)
    return [f"{w.loc.line}:{w.loc.col}: {w.message}" for w in diag.warnings]


def sema(src: str, defines=None, tunables=None):
    """``(translation unit, sema result)`` of ``src``."""
    tu = parse(src, "t.tri", defines=defines)
    return tu, analyze(tu, tunables=tunables)


def error_of(src: str, defines=None, tunables=None) -> CompileError:
    with pytest.raises(CompileError) as info:
        generate_ir(parse(src, "t.tri", defines=defines), tunables=tunables)
    return info.value


def run(src: str, kernel: str, grid, *args, defines=None, tunables=None):
    """Compile ``src`` and run ``kernel`` in the numpy interpreter (arrays updated in place)."""
    return run_function(compile_module(src, defines, tunables), kernel, grid, list(args))


def in_order(text: str, *patterns: str) -> None:
    """FileCheck-style: each regex matches somewhere after the previous match."""
    pos = 0
    for p in patterns:
        m = re.compile(p).search(text, pos)
        assert m is not None, f"pattern {p!r} not found after offset {pos} in:\n{text}"
        pos = m.end()


def ops_of(text: str) -> list[str]:
    """The op names of printed IR, in order."""
    return [op for op in re.findall(r"\b((?:arith|math|tt|scf|gpu)\.[a-z_]+)", text) if op != "tt.func"]
