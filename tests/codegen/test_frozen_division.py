"""Signed integer division and remainder are followed by ``freeze`` in the LLVM IR
(``codegen/llvm/elementwise._int_binary``): one per distinct quotient (the numbering builder
shares it like the division), none after the unsigned forms, and the values are unchanged: the
lowered kernel runs in the SIMT simulator against the interpreter on negative and positive
operands, including the C rules for a negative dividend or divisor."""
from __future__ import annotations

import re

import numpy as np

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

SOURCE = """
__global__ void divide(int *Q __noalias, int *R __noalias, unsigned *U __noalias,
                       int *X __noalias __readonly, int d, unsigned e) {
  int r[64] = 0 ... 64;
  int x[64] = *(X + r);
  *(Q + r) = x / d + x / d;
  *(R + r) = x % d;
  *(U + r) = (unsigned) r / e + (unsigned) r % e;
}
"""


def _compile():
    return Compilation(SOURCE, CompileOptions(arch="sm_90", num_warps=1), path="divide.tri")


def test_signed_quotient_and_remainder_frozen_once_each():
    llir = _compile().llir
    frozen = re.findall(r'= freeze i32 (%"?[\w.]+"?)', llir)
    divisions = dict(re.findall(r'(%"?[\w.]+"?) = (sdiv|srem|udiv|urem) i32', llir))
    signed = [v for v, kind in divisions.items() if kind in ("sdiv", "srem")]
    # every signed quotient and remainder register frozen, each once; ``x / d + x / d`` shares
    # one division (and its freeze) per register
    assert sorted(frozen) == sorted(signed) and len(set(frozen)) == len(frozen)
    kinds = [divisions[v] for v in frozen]
    assert kinds.count("sdiv") == kinds.count("srem") > 0
    assert {"udiv", "urem"} <= set(divisions.values())


def test_values_unchanged_in_the_simulator():
    comp = _compile()
    x = np.arange(-32, 32, dtype=np.int32) * 7
    for d, e in ((5, 3), (-3, 7), (1, 64)):
        outs = {}
        for run, module in (("interp", comp.ttir), ("sim", comp.ttgir)):
            q, r, u = np.zeros(64, np.int32), np.zeros(64, np.int32), np.zeros(64, np.uint32)
            args = [q, r, u, x, d, e]
            if run == "interp":
                run_function(module, "divide", (1,), args)
            else:
                run_kernel(module, "divide", (1,), args, arch="sm_90")
            outs[run] = (q, r, u)
        for got, want in zip(outs["sim"], outs["interp"]):
            np.testing.assert_array_equal(got, want)
        want_q = 2 * (np.fix(x / d)).astype(np.int32)  # C: the quotient truncates toward zero
        np.testing.assert_array_equal(outs["sim"][0], want_q)
        np.testing.assert_array_equal(outs["sim"][1], x - np.fix(x / d).astype(np.int32) * d)
