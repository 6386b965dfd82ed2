"""Helpers for the sema/irgen tests: compile a snippet to checked IR, run it, catch its error."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tritonc.diagnostics import CompileError, DiagnosticSink
from tritonc.frontend.irgen import generate_ir
from tritonc.frontend.parser import parse
from tritonc.frontend.sema import analyze
from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.ir.verifier import verify_module

SPEC_SECTION_8 = Path(__file__).resolve().parents[1] / "data" / "spec_section8"
#: The two reference kernels of spec section 8, verbatim (shared with the other test folders).
SOFTMAX = (SPEC_SECTION_8 / "softmax.tri").read_text()
MATMUL = (SPEC_SECTION_8 / "matmul.tri").read_text()



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
