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
KERNEL = """
module {
  tt.func @k(%X: ptr<f32>, %Y: ptr<f32>, %Z: ptr<f32>, %c: i32, %neg: i64, %n: i32) attributes {kernel} {
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %rm = tt.make_range {end = 4, start = 0} : i32[4]
    %rk = tt.make_range {end = 8, start = 0} : i32[8]
    %rm2 = tt.expand_dims %rm {axis = 1} : i32[4,1]
    %c8 = arith.constant {value = 8} : i32[4,1]
    %rm8 = arith.muli %rm2, %c8 : i32[4,1]
    %cs1 = tt.splat %c : i32[4,1]
    %t1 = arith.addi %cs1, %rm8 : i32[4,1]
    %rk2 = tt.expand_dims %rk {axis = 0} : i32[1,8]
    %cs2 = tt.splat %c : i32[1,8]
    %t2s = arith.addi %cs2, %rk2 : i32[1,8]
    %t2 = tt.broadcast %t2s : i32[4,8]
    %x0 = tt.splat %X : ptr<f32>[4,1]
    %x1 = tt.addptr %x0, %t1 : ptr<f32>[4,1]
    %x2 = tt.broadcast %x1 : ptr<f32>[4,8]
    %x3 = tt.addptr %x2, %t2 : ptr<f32>[4,8]
    %u = tt.splat %neg : i64[4,8]
    %px = tt.addptr %x3, %u : ptr<f32>[4,8]
    %zero = arith.constant {value = 0.0} : f32[4,8]
    %st = arith.constant {value = 32} : i32[4,8]
    %r:2 = scf.for %c0, %n, %c1, %px, %zero {predicate = "slt"} : ptr<f32>[4,8], f32[4,8] {
    ^(%k: i32, %p: ptr<f32>[4,8], %acc: f32[4,8]):
      %x = tt.load %p : f32[4,8]
      %s = arith.addf %acc, %x : f32[4,8]
      %p2 = tt.addptr %p, %st : ptr<f32>[4,8]
      scf.yield %p2, %s
    }
    %idx0 = tt.broadcast %rm8 : i32[4,8]
    %idx = arith.addi %idx0, %t2 : i32[4,8]
    %cs3 = tt.splat %c : i32[4,8]
    %idx1 = arith.subi %idx, %cs3 : i32[4,8]
    %y0 = tt.splat %Y : ptr<f32>[4,8]
    %py = tt.addptr %y0, %idx1 : ptr<f32>[4,8]
    tt.store %py, %r#1
    %last = tt.load %r#0 : f32[4,8]
    %z0 = tt.splat %Z : ptr<f32>[4,8]
    %pz = tt.addptr %z0, %idx1 : ptr<f32>[4,8]
    tt.store %pz, %last
    tt.return
  }
}
"""


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
