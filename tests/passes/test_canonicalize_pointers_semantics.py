"""``canonicalize-pointers`` keeps what the loop computes, offsets that only cancel out in 64
bits included, and the matmul loops it rewrites still get 16-byte ``cp.async`` copies."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tritonc.driver import Compilation, run_pipeline
from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]

# X + t1 + t2 + u: t1 = c + 8 * rm (i32 [4,1]), t2 = c + rk (i32 [1,8]) with c = 2^31 - 32, and
# u = -2c (an i64 splat, folded into the carried base): the address is X + 8 * rm + rk, but
# t1 + t2 ~ 2^32 wraps if the two i32 offsets are added in i32 instead of i64.
# The loop reads blocks 0 .. n-1 of X; the tile it returns points at block n.
KERNEL = (ROOT / "tests" / "data" / "i32_offset_overflow.ttir").read_text()


def _run(module, n):
    c = 2**31 - 32
    X = np.arange(32 * (n + 1), dtype=np.float32)
    Y = np.full(32, np.nan, np.float32)
    Z = np.full(32, np.nan, np.float32)
    run_function(module, "k", 1, [X, Y, Z, c, -2 * c, n])
    return Y, Z


def test_offsets_summed_in_64_bits():
    module = parse_module(KERNEL)
    run_pipeline(module, ("canonicalize-pointers",))
    text = print_module(module)
    assert ": ptr<f32>, f32[4,8] {" in text  # the loop carries the scalar base
    for n in (0, 1, 3):
        X = np.arange(32 * (n + 1), dtype=np.float32)
        Y, Z = _run(module, n)
        Y_ref, Z_ref = _run(parse_module(KERNEL), n)
        np.testing.assert_array_equal(Y, Y_ref)
        np.testing.assert_array_equal(Z, Z_ref)
        np.testing.assert_array_equal(Y, X[:32 * n].reshape(n, 32).sum(axis=0) if n else np.zeros(32))
        np.testing.assert_array_equal(Z, X[32 * n:])


def test_matmul_loop_carries_scalar_bases_and_keeps_16_byte_copies():
    opts = CompileOptions(defines={"TM": "128", "TN": "128", "TK": "32"}, num_warps=4, num_stages=3, specialize=True)
    comp = Compilation(ROOT / "examples" / "matmul.tri", opts)
    ttir = print_module(comp.ttir)
    loops = [line for line in ttir.splitlines() if "scf.for" in line]
    assert loops and all(": ptr<f16>, ptr<f16>, f32[128,128] {" in line for line in loops)
    copies = [line for line in print_module(comp.ttgir).splitlines() if "ttg.async_copy_global_to_local" in line]
    assert copies and all("vec = 8" in line for line in copies)
