"""Two chained ``@`` (flash attention's forward: ``s = q @ k``, an online softmax, then
``acc += p @ v`` with ``p`` computed in registers) compile on every arch. On sm_90a both dots
run on wgmma, the second one with its A operand in registers (the register form of
``wgmma.mma_async``); with mma.sync the first dot's accumulator fragments are the second dot's
A fragments (warps stacked along M). It was an internal compiler error on sm_90a (issue 14).
The attention loop is pinned by FileCheck on its tile IR: one barrier per trip, the score
tile, ``p``, the row statistics and the accumulator in the mma layout and its row slice, no
conversion and no shared-memory buffer of them. The interpreter's result is checked against
numpy (softmax(q k^T * scale) v) and the SIMT simulator's against the interpreter."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from test_mma_ptx import filecheck  # tests/codegen is on sys.path
from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.ir.printer import print_module
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

SOURCE = Path(__file__).resolve().parents[1] / "data" / "attention_fwd.tri"


@pytest.mark.parametrize("arch, num_warps, bm", [("sm_90a", 4, 64), ("sm_90a", 8, 128), ("sm_90", 4, 64),
                                                 ("sm_80", 4, 64)])
def test_attention_compiles_with_tensor_cores(arch, num_warps, bm):
    comp = Compilation(SOURCE, CompileOptions(arch=arch, num_warps=num_warps, defines={"BM": str(bm), "BN": "64"}))
    ptx = comp.ptx
    if arch == "sm_90a":
        # per warp group: q @ k is 4 k16 steps (D = 64), p @ v 4 more (BN = 64), each N = 64
        assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16", ptx)) == 8, ptx
        # p @ v: A (p) from registers, four 32-bit words per instruction
        assert len(re.findall(r"m64n64k16\.f32\.f16\.f16 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx)) == 4
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx


def test_attention_interpreted_matches_numpy():
    S, BH, D = 100, 2, 64
    comp = Compilation(SOURCE, CompileOptions(defines={"BM": "64", "BN": "32"}))
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((BH, S, D)).astype(np.float16) for _ in range(3))
    out = np.full((BH, S, D), np.nan, np.float16)
    run_function(comp.ttir, "attention", ((S + 63) // 64, BH), [q, k, v, out, np.float32(0.125), S])
    s = np.einsum("bmd,bnd->bmn", q.astype(np.float64), k.astype(np.float64)) * 0.125
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), ref, atol=2e-3, rtol=1e-2)


# The loop of the attention forward on sm_90a (4 warps, BM = BN = D = 64, 2 stages): one
# barrier per trip (the pipeliner's, after the copies' wait), q @ k on wgmma, the scale, the
# mask, the row max and sum (reductions on the mma layout giving its row slice), exp, the
# accumulator rescale and p @ v with p converted to its A-operand layout in registers; nothing
# in the loop converts a layout through shared memory or allocates a buffer, so neither the
# accumulator nor the row statistics nor p go through shared memory.
ATTENTION_LOOP_CHECKS = """
CHECK: #[[MMA:mma[0-9]+]] = #ttg.mma<version=3, warps_per_cta=[4,1], instr_shape=[16,64]>
CHECK: #[[AOP:dot_op[0-9]+]] = #ttg.dot_op<op_idx=0, parent=#[[MMA]], k_width=2>
CHECK: scf.for {{.*}} : f32[64] #[[ROW:slice[0-9]+]], f32[64] #[[ROW]], f32[64,64] #[[MMA]], i32, i32 {
CHECK-NEXT: ^(%n_1: i32, %m_i_1: f32[64] #[[ROW]], %l_i_1: f32[64] #[[ROW]], %acc_1: f32[64,64] #[[MMA]],
CHECK-NEXT: ttg.async_wait
CHECK-NEXT: gpu.barrier
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.local_alloc
CHECK-NOT: ttg.local_store
CHECK: tt.dot {{.*}} : f32[64,64] #[[MMA]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: tt.reduce %s_1 {axis = 1, combine = "maxnumf"} : f32[64] #[[ROW]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: %m_new = arith.maxnumf %m_i_1, {{.*}} : f32[64] #[[ROW]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: %alpha = math.exp {{.*}} : f32[64] #[[ROW]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: %p = math.exp {{.*}} : f32[64,64] #[[MMA]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: tt.reduce %p {axis = 1, combine = "addf"} : f32[64] #[[ROW]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: %acc_2 = arith.mulf %acc_1, {{.*}} : f32[64,64] #[[MMA]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK: %ph = arith.truncf %p : f16[64,64] #[[MMA]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.local_alloc
CHECK-NEXT: %[[PA:[0-9]+]] = ttg.convert_layout %ph : f16[64,64] #[[AOP]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.local_alloc
CHECK: %acc_3 = tt.dot %[[PA]], {{.*}}, %acc_2 {{.*}} : f32[64,64] #[[MMA]]
CHECK-NOT: gpu.barrier
CHECK-NOT: ttg.convert_layout
CHECK-NOT: ttg.local_alloc
CHECK: scf.yield %m_new, %l_i_2, %acc_3,
"""


def test_attention_loop_keeps_tensor_core_layouts(tmp_path):
    comp = Compilation(SOURCE, CompileOptions(arch="sm_90a", num_warps=4, num_stages=2,
                                              defines={"BM": "64", "BN": "64"}))
    filecheck(print_module(comp.ttgir), ATTENTION_LOOP_CHECKS, tmp_path)


@pytest.mark.parametrize("arch, num_warps", [("sm_80", 4), ("sm_90", 8), ("sm_90a", 4), ("sm_90a", 8)])
def test_attention_loop_barriers_per_trip(arch, num_warps):
    """At most 4 barriers per loop trip (issue 14's target; 1 is reached) and the p -> A
    conversion is a register renumbering on every tensor-core path."""
    bm = 16 * num_warps
    comp = Compilation(SOURCE, CompileOptions(arch=arch, num_warps=num_warps, num_stages=2,
                                              defines={"BM": str(bm), "BN": "64"}))
    loop = next(op for op in comp.ttgir.walk() if op.name == "scf.for")
    inner = list(loop.walk())
    assert sum(op.name == "gpu.barrier" for op in inner) <= 1
    assert not any(op.name in ("ttg.local_alloc", "ttg.local_store") for op in inner)
    assert not any(op.name == "ttg.convert_layout" and op.attrs.get("smem_offset") is not None for op in inner)


@pytest.mark.parametrize("arch, num_warps, bm, bn", [("sm_80", 4, 64, 64), ("sm_90", 8, 128, 32),
                                                     ("sm_90a", 4, 64, 64), ("sm_90a", 8, 128, 64),
                                                     ("sm_90a", 4, 64, 32)])
def test_attention_simulated_matches_interpreter(arch, num_warps, bm, bn):
    S, BH, D = 100, 1, 64
    opts = CompileOptions(arch=arch, num_warps=num_warps, num_stages=2, defines={"BM": str(bm), "BN": str(bn)})
    comp = Compilation(SOURCE, opts)
    rng = np.random.default_rng(bm + bn)
    q, k, v = (rng.standard_normal((BH, S, D)).astype(np.float16) for _ in range(3))
    grid = ((S + bm - 1) // bm, BH)
    got = np.full((BH, S, D), np.nan, np.float16)
    run_kernel(comp.ttgir, "attention", grid, [q, k, v, got, np.float32(0.125), S], arch=arch)
    want = np.full((BH, S, D), np.nan, np.float16)
    run_function(comp.ttir, "attention", grid, [q, k, v, want, np.float32(0.125), S])
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=2e-3, rtol=1e-2)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "attention.tri"


@pytest.mark.parametrize("arch, num_warps, defines", [
    ("sm_90a", 4, {"CAUSAL": "1", "BM": "64", "BN": "32"}),
    ("sm_90a", 8, {"TYPE": "bfloat16", "D": "128", "BM": "128", "BN": "64"}),
    ("sm_80", 4, {"TYPE": "bfloat16", "CAUSAL": "1", "BM": "64", "BN": "64"}),
])
def test_attention_example_simulated_matches_interpreter(arch, num_warps, defines):
    """examples/attention.tri (causal, bf16, D = 128) through the whole compiler in the SIMT
    simulator, against the interpreter, at a ragged sequence length."""
    import ml_dtypes
    dt = ml_dtypes.bfloat16 if defines.get("TYPE") == "bfloat16" else np.float16
    S, BH, d, bm = 90, 1, int(defines.get("D", "64")), int(defines["BM"])
    comp = Compilation(EXAMPLE, CompileOptions(arch=arch, num_warps=num_warps, num_stages=2, defines=defines))
    loop = next(op for op in comp.ttgir.walk() if op.name == "scf.for")
    assert sum(op.name == "gpu.barrier" for op in loop.walk()) <= 1
    rng = np.random.default_rng(d)
    q, k, v = (rng.standard_normal((BH, S, d)).astype(dt) for _ in range(3))
    grid = ((S + bm - 1) // bm, BH)
    got = np.full((BH, S, d), np.nan, dt)
    run_kernel(comp.ttgir, "attention", grid, [q, k, v, got, np.float32(d ** -0.5), S, BH], arch=arch)
    want = np.full((BH, S, d), np.nan, dt)
    run_function(comp.ttir, "attention", grid, [q, k, v, want, np.float32(d ** -0.5), S, BH])
    assert not np.isnan(got.astype(np.float32)).any()
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=2e-2, rtol=2e-2)


# examples/attention.tri on sm_90a, 8 warps, 4 stages: the unmasked loop (whole key blocks, no
# select) leaves p @ v running into the next trip (`pending = 1`); it is waited for
# (`wgmma_wait {num = 0}`) after the next trip's q @ k, right before `acc * alpha`, and after
# the loop. The copies go out after p @ v into the slot of two trips before (`no_war`: one
# barrier a trip), two trips ahead (two prologue groups, `async_wait {num = 1}`).
EXAMPLE_LOOP_CHECKS = """
CHECK-COUNT-2: ttg.async_commit_group
CHECK: scf.for
CHECK-NEXT: ^(
CHECK-NEXT: ttg.async_wait {{.*}} {num = 1}
CHECK-NEXT: gpu.barrier
CHECK-NOT: arith.select
CHECK: %s = tt.dot {{.*}} {input_precision = "ieee"} :
CHECK-NOT: arith.select
CHECK: %[[W:.*]] = ttg.wgmma_wait %acc_1 {num = 0}
CHECK-NEXT: arith.mulf %[[W]],
CHECK-NOT: gpu.barrier
CHECK: %acc_2 = tt.dot {{.*}} {input_precision = "ieee", pending = 1}
CHECK-NOT: gpu.barrier
CHECK: ttg.async_copy_global_to_local {{.*}} no_war
CHECK: scf.yield %m_new, %l_i_2, %acc_2,
CHECK-NEXT: }
CHECK-NEXT: ttg.wgmma_wait {{.*}} {num = 0}
CHECK: scf.for
CHECK: arith.select
CHECK: tt.dot {{.*}} pending = 1
"""


def test_attention_example_leaves_p_v_running(tmp_path):
    comp = Compilation(EXAMPLE, CompileOptions(arch="sm_90a", num_warps=8, num_stages=4,
                                               defines={"BM": "128", "BN": "64"}))
    filecheck(print_module(comp.ttgir), EXAMPLE_LOOP_CHECKS, tmp_path)
    for loop in (op for op in comp.ttgir.walk() if op.name == "scf.for"):
        assert sum(op.name == "gpu.barrier" for op in loop.walk()) == 1


@pytest.mark.parametrize("defines, num_stages", [({"BN": "64"}, 4), ({"CAUSAL": "1", "BN": "64"}, 3),
                                                 ({"D": "128", "BN": "128"}, 2)])
def test_attention_example_assembles_without_wgmma_serialisation(defines, num_stages):
    """ptxas neither serialises the wgmma (C7519: a conversion of p between two register-A
    wgmma) nor spills; the chained-dot occupancy hint bounds D = 64 at 128 registers."""
    from tritonc.codegen.cubin import assemble_ptx
    from tritonc.codegen.target import Target
    comp = Compilation(EXAMPLE, CompileOptions(arch="sm_90a", num_warps=8, num_stages=num_stages,
                                               defines={"BM": "128", **defines}))
    out = assemble_ptx(comp.ptx, Target("sm_90a"))
    res = out.resources["attention"]
    assert not res.spills and res.stack_bytes == 0, res
    assert not [w for w in out.warnings if "wgmma" in w or "GMMA" in w], out.warnings
    if "D" not in defines:  # D = 64
        assert ".minnctapersm 2" in comp.ptx and res.registers <= 128, res


@pytest.mark.parametrize("defines, num_stages", [({"BN": "64"}, 4), ({"CAUSAL": "1", "BN": "64"}, 3)])
def test_attention_example_running_p_v_simulated(defines, num_stages):
    """The loop with p @ v left running (3 and 4 stages, 8 warps: two warp groups) in the SIMT
    simulator against the interpreter, at ragged sequence lengths (whole blocks and a tail)."""
    S, BH, d, bm = 150, 1, 64, 128
    defines = {"BM": str(bm), **defines}
    comp = Compilation(EXAMPLE, CompileOptions(arch="sm_90a", num_warps=8, num_stages=num_stages, defines=defines))
    assert any(op.attrs.get("pending") for op in comp.ttgir.walk() if op.name == "tt.dot")
    rng = np.random.default_rng(num_stages)
    q, k, v = (rng.standard_normal((BH, S, d)).astype(np.float16) for _ in range(3))
    grid = ((S + bm - 1) // bm, BH)
    got = np.full((BH, S, d), np.nan, np.float16)
    run_kernel(comp.ttgir, "attention", grid, [q, k, v, got, np.float32(d ** -0.5), S, BH], arch="sm_90a")
    want = np.full((BH, S, d), np.nan, np.float16)
    run_function(comp.ttir, "attention", grid, [q, k, v, want, np.float32(d ** -0.5), S, BH])
    assert not np.isnan(got.astype(np.float32)).any()
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=2e-2, rtol=2e-2)
