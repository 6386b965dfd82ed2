"""The spec's matmul kernel (half in, float accumulate, masked K loop counting down) as tile IR:
checked against numpy on ragged sizes, and timed (a 4x4 grid with K=256 must be fast)."""
import time

import numpy as np
import pytest

from interp_helpers import module
from tritonc.interpreter import run_function


def matmul_ir(TM: int, TN: int, TK: int) -> str:
    a, b, c = f"[{TM},{TK}]", f"[{TK},{TN}]", f"[{TM},{TN}]"
    return f"""  tt.func @matmul(%A: ptr<f16> {{aligned = 16, noalias}}, %B: ptr<f16>, %C: ptr<f16>, %M: i32, %N: i32,
                    %K: i32, %lda: i32, %ldb: i32, %ldc: i32) attributes {{kernel}} {{
    %pid0 = tt.get_program_id {{axis = 0}} : i32
    %pid1 = tt.get_program_id {{axis = 1}} : i32
    %tm = arith.constant {{value = {TM}}} : i32
    %tn = arith.constant {{value = {TN}}} : i32
    %m0 = arith.muli %pid0, %tm : i32
    %n0 = arith.muli %pid1, %tn : i32
    %rmr = tt.make_range {{end = {TM}, start = 0}} : i32[{TM}]
    %m0s = tt.splat %m0 : i32[{TM}]
    %rm = arith.addi %m0s, %rmr : i32[{TM}]
    %rnr = tt.make_range {{end = {TN}, start = 0}} : i32[{TN}]
    %n0s = tt.splat %n0 : i32[{TN}]
    %rn = arith.addi %n0s, %rnr : i32[{TN}]
    %rk = tt.make_range {{end = {TK}, start = 0}} : i32[{TK}]
    %rm_c = tt.expand_dims %rm {{axis = 1}} : i32[{TM},1]
    %rm_a = tt.broadcast %rm_c : i32{a}
    %rk_r = tt.expand_dims %rk {{axis = 0}} : i32[1,{TK}]
    %rk_a = tt.broadcast %rk_r : i32{a}
    %lda_s = tt.splat %lda : i32{a}
    %am = arith.muli %rm_a, %lda_s : i32{a}
    %aoff = arith.addi %am, %rk_a : i32{a}
    %pa0 = tt.splat %A : ptr<f16>{a}
    %pa = tt.addptr %pa0, %aoff : ptr<f16>{a}
    %rk_c = tt.expand_dims %rk {{axis = 1}} : i32[{TK},1]
    %rk_b = tt.broadcast %rk_c : i32{b}
    %rn_r = tt.expand_dims %rn {{axis = 0}} : i32[1,{TN}]
    %rn_b = tt.broadcast %rn_r : i32{b}
    %ldb_s = tt.splat %ldb : i32{b}
    %bk = arith.muli %rk_b, %ldb_s : i32{b}
    %boff = arith.addi %bk, %rn_b : i32{b}
    %pb0 = tt.splat %B : ptr<f16>{b}
    %pb = tt.addptr %pb0, %boff : ptr<f16>{b}
    %acc0 = arith.constant {{value = 0.0}} : f32{c}
    %zero = arith.constant {{value = 0}} : i32
    %negtk = arith.constant {{value = -{TK}}} : i32
    %res:3 = scf.for %K, %zero, %negtk, %acc0, %pa, %pb {{predicate = "sgt"}} : f32{c}, ptr<f16>{a}, ptr<f16>{b} {{
    ^(%k: i32, %acc: f32{c}, %pa_i: ptr<f16>{a}, %pb_i: ptr<f16>{b}):
      %M_a = tt.splat %M : i32{a}
      %k_a = tt.splat %k : i32{a}
      %ma1 = arith.cmpi %rm_a, %M_a {{predicate = "slt"}} : i1{a}
      %ma2 = arith.cmpi %rk_a, %k_a {{predicate = "slt"}} : i1{a}
      %ma = arith.andi %ma1, %ma2 : i1{a}
      %za = arith.constant {{value = 0.0}} : f16{a}
      %av = tt.load %pa_i, %ma, %za : f16{a}
      %N_b = tt.splat %N : i32{b}
      %k_b = tt.splat %k : i32{b}
      %mb1 = arith.cmpi %rk_b, %k_b {{predicate = "slt"}} : i1{b}
      %mb2 = arith.cmpi %rn_b, %N_b {{predicate = "slt"}} : i1{b}
      %mb = arith.andi %mb1, %mb2 : i1{b}
      %zb = arith.constant {{value = 0.0}} : f16{b}
      %bv = tt.load %pb_i, %mb, %zb : f16{b}
      %d = tt.dot %av, %bv, %acc {{input_precision = "ieee"}} : f32{c}
      %tka = arith.constant {{value = {TK}}} : i32{a}
      %pa2 = tt.addptr %pa_i, %tka : ptr<f16>{a}
      %tk = arith.constant {{value = {TK}}} : i32
      %tkldb = arith.muli %tk, %ldb : i32
      %tkb = tt.splat %tkldb : i32{b}
      %pb2 = tt.addptr %pb_i, %tkb : ptr<f16>{b}
      scf.yield %d, %pa2, %pb2
    }}
    %cv = arith.truncf %res#0 : f16{c}
    %rm_cc = tt.broadcast %rm_c : i32{c}
    %rn_cc = tt.broadcast %rn_r : i32{c}
    %ldc_s = tt.splat %ldc : i32{c}
    %cm = arith.muli %rm_cc, %ldc_s : i32{c}
    %coff = arith.addi %cm, %rn_cc : i32{c}
    %pc0 = tt.splat %C : ptr<f16>{c}
    %pc = tt.addptr %pc0, %coff : ptr<f16>{c}
    %M_c = tt.splat %M : i32{c}
    %N_c = tt.splat %N : i32{c}
    %mc1 = arith.cmpi %rm_cc, %M_c {{predicate = "slt"}} : i1{c}
    %mc2 = arith.cmpi %rn_cc, %N_c {{predicate = "slt"}} : i1{c}
    %mc = arith.andi %mc1, %mc2 : i1{c}
    tt.store %pc, %cv, %mc
    tt.return
  }}"""


def reference(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).astype(np.float16)


@pytest.mark.parametrize("M,N,K", [(100, 72, 90), (64, 64, 32)])
def test_matmul_ragged_sizes_match_numpy(M, N, K):
    rng = np.random.default_rng(M + N + K)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    m = module(matmul_ir(32, 32, 16))
    grid = (-(-M // 32), -(-N // 32))
    run_function(m, "matmul", grid, [a, b, c, M, N, K, K, N, N])
    np.testing.assert_allclose(c.astype(np.float32), reference(a, b).astype(np.float32), rtol=2e-3, atol=2e-3)


def test_matmul_4x4_grid_k256_is_fast():
    M = N = K = 256
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    m = module(matmul_ir(64, 64, 32))
    start = time.perf_counter()
    run_function(m, "matmul", (4, 4), [a, b, c, M, N, K, K, N, N])
    elapsed = time.perf_counter() - start
    np.testing.assert_allclose(c.astype(np.float32), reference(a, b).astype(np.float32), rtol=2e-3, atol=2e-3)
    # About 0.07 s on an idle 2-core machine; the bound leaves room for a loaded CI machine
    # (parallel test workers) while still catching a per-element (non-vectorised) evaluator.
    assert elapsed < 5.0, f"matmul took {elapsed:.2f} s"
