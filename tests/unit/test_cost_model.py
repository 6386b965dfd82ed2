"""The cost models' choices per target (tritonc/tuning/cost_model.py, memory_model.py, docs/tuning.md); no GPU.

The sm_90a facts it must reproduce were measured on an H200 at 4096^3 fp16 (issue 13):
64x64x32 w4 s3 = 0.46x cuBLAS, 128x128x64 w4 s3 = 0.73x, 128x256x64 w8 s4 = 0.94x.
"""
import dataclasses
import math
from pathlib import Path

import pytest

from tritonc.diagnostics import CompileError
from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.tuning import cost_model as cm
from tritonc.tuning import memory_model as mm
from tritonc.tuning import workload as wl

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "examples" / "matmul.tri"


def tile(m, n, k, *, warps=(4, 8), wgmma=True, dtype_bytes=2, in_loop=True, batch=1):
    """A DotTile for an f16 ``[m, k] @ [k, n] -> f32`` dot (``batch`` of them: a batched dot),
    wgmma-eligible as accelerate-matmul decides it (M a multiple of 16 * warps, N <= 256, K >= 32)."""
    wg = tuple((w, (min(n, 256) if wgmma and m % (16 * w) == 0 and k >= 32 else None)) for w in warps)
    return wl.DotTile("k", m, n, k, dtype_bytes, dtype_bytes, 4, 2, False, wg, in_loop, batch=batch)


def matmul_choice(arch, hint=None, **opts):
    comp = Compilation(MATMUL, CompileOptions(arch=arch, hint=hint or {}, **opts))
    comp._frontend
    return comp


def chosen(comp):
    return (comp.tunables["TM"], comp.tunables["TN"], comp.tunables["TK"], comp.num_warps, comp.num_stages)


# ----------------------------------------------------------------------------- whole choices

def test_sm90a_default_is_the_measured_best_configuration():
    assert chosen(matmul_choice("sm_90a")) == (128, 256, 64, 8, 4)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_mma_sync_targets_take_the_large_tile_within_their_shared_memory(arch):
    comp = matmul_choice(arch)
    TM, TN, TK, w, s = chosen(comp)
    assert (TM, TN, TK, w) == (128, 256, 64, 8)
    gpu = wl.GPU_MODELS[arch]
    assert s * (TM * TK + TK * TN) * 2 <= gpu.smem_per_cta
    assert s == (3 if arch == "sm_80" else 4)  # 4 stages (192 KiB) is over the A100's 163 KiB


@pytest.mark.parametrize("arch", ["sm_86", "sm_89"])
def test_small_shared_memory_targets_fit_99_kib(arch):
    TM, TN, TK, w, s = chosen(matmul_choice(arch))
    assert s * (TM * TK + TK * TN) * 2 <= 99 * 1024


def test_a_small_output_takes_smaller_tiles_to_fill_the_sms():
    big = chosen(matmul_choice("sm_90a"))
    small = chosen(matmul_choice("sm_90a", {"M": 512, "N": 512, "K": 16384}))
    assert small[0] * small[1] < big[0] * big[1]
    # 512x512 in 128x256 tiles is 8 CTAs on 132 SMs; the choice makes at least 4x as many
    assert (512 // small[0]) * (512 // small[1]) >= 32


def test_fixed_parameters_are_kept_and_the_rest_chosen_around_them():
    comp = matmul_choice("sm_90a", defines={"TM": "64"}, num_warps=4)
    TM, TN, TK, w, s = chosen(comp)
    assert (TM, w) == (64, 4)
    assert "TM" not in comp.choice.free and "num_warps" not in comp.choice.free
    # 64 x 256 on one warp group: 128 accumulator registers per thread, the wgmma limit
    assert TN == 256


def test_everything_fixed_runs_no_model():
    comp = matmul_choice("sm_90a", defines={"TM": "64", "TN": "64", "TK": "32"}, num_warps=4, num_stages=3)
    assert comp.choice is None
    assert chosen(comp) == (64, 64, 32, 4, 3)


def test_a_kernel_without_a_dot_keeps_the_tile_rule_for_warps():
    src = ("const tunable int B = {512, 1024};\n"
           "__global__ void add(float *X, float *Y, int n) {\n"
           "  int i[B] = get_program_id(0) * B + 0 ... B;\n"
           "  *?(i < n)(Y + i) = *?(i < n)(X + i) + 1.0f;\n}\n")
    comp = Compilation(src, CompileOptions())
    assert comp.tunables == {"B": 512}  # both saturate the bandwidth: the source's order decides
    assert comp.choice.note and "no tt.dot" in comp.choice.note and "memory-bound" in comp.choice.note
    assert comp.num_warps == 4 and comp.num_stages == 3


def test_candidates_the_frontend_rejects_are_reported_not_fatal():
    # TK = 48 is not a power of two: that combination cannot be built, the others can
    src = MATMUL.read_text().replace("TK = {32, 64}", "TK = {48, 32}")
    comp = Compilation(src, CompileOptions(arch="sm_90a"))
    assert comp.tunables["TK"] == 32
    assert any("frontend rejects" in e.reason for e in comp.choice.rejected)


def test_explain_names_the_choice_and_the_reasons():
    text = matmul_choice("sm_90a").choice.explain()
    assert "chose TM=128 TN=256 TK=64 num_warps=8 num_stages=4: wgmma m64n256k16" in text
    assert "assumed large: no --hint" in text
    assert "accumulator needs 256 registers per thread at 4 warps" in text


def test_too_many_combinations_is_an_error():
    names = "ABCDEFGHIJKLM"
    src = "".join(f"const tunable int {n} = {{1, 2}};\n" for n in names) + "__global__ void k(int *X) { }\n"
    with pytest.raises(CompileError, match="too many for the cost model"):
        Compilation(src, CompileOptions())._frontend


# ----------------------------------------------------------------------------- single estimates

H = wl.GPU_MODELS["sm_90a"]
LARGE = cm.LARGE_PROBLEM


def est(t, w, s, gpu=H, problem=LARGE):
    return cm.estimate([t], cm.Config((), w, s), gpu, problem)


def test_measured_order_on_sm90a():
    small = est(tile(64, 64, 32), 4, 3)
    mid = est(tile(128, 128, 64), 4, 3)
    best = est(tile(128, 256, 64), 8, 4)
    assert small.cycles > mid.cycles > best.cycles
    # the measured ratios (0.46 : 0.73 : 0.94 of cuBLAS) within a loose band
    assert 0.3 < best.cycles / small.cycles < 0.6
    assert 0.7 < best.cycles / mid.cycles < 0.95


def test_shared_memory_over_the_limit_is_rejected():
    e = est(tile(128, 256, 64), 8, 5)
    assert not e.feasible and "240 KiB of shared memory (5 stages of 48 KiB) over the 227 KiB" in e.reason


def test_wgmma_accumulator_register_limit():
    e = est(tile(128, 256, 64), 4, 3)
    assert not e.feasible and "256 registers per thread at 4 warps (wgmma: at most 128)" in e.reason


def test_mma_sync_register_estimate_rejects_what_would_spill():
    e = est(tile(128, 256, 64), 4, 3, gpu=wl.GPU_MODELS["sm_80"])
    assert not e.feasible and "it would spill" in e.reason
    assert est(tile(128, 256, 64), 8, 3, gpu=wl.GPU_MODELS["sm_80"]).feasible


def test_a_tile_wgmma_cannot_run_falls_back_to_mma_sync_and_costs_more():
    on_wgmma = est(tile(128, 128, 64), 8, 3)
    not_wgmma = est(tile(128, 128, 64, wgmma=False), 8, 3)
    assert on_wgmma.dots[0].instruction == "wgmma m64n128k16"
    assert not_wgmma.dots[0].instruction == "mma.sync m16n8k16"
    assert not_wgmma.cycles > on_wgmma.cycles


def test_deeper_pipeline_wins_while_it_fits():
    assert est(tile(128, 256, 64), 8, 4).cycles < est(tile(128, 256, 64), 8, 3).cycles
    assert est(tile(128, 256, 64), 8, 3).cycles < est(tile(128, 256, 64), 8, 2).cycles


def test_waves_quantisation():
    # 4096 x 4096 in 128 x 256 tiles: 512 tiles, 1 CTA per SM: 4 waves over 132 SMs
    d = est(tile(128, 256, 64), 8, 4).dots[0]
    assert (d.tiles, d.ctas_per_sm, d.waves) == (512, 1, 4)


def test_occupancy_from_shared_memory_and_registers():
    d = est(tile(64, 64, 32), 4, 3).dots[0]  # 24 KiB, ~96 registers x 128 threads
    assert d.shared_bytes == 24 * 1024
    assert d.ctas_per_sm == min(228 * 1024 // (24 * 1024 + 1024), 65536 // (96 * 128))


def test_choose_keeps_source_order_on_ties_and_reports_none_when_all_rejected():
    t = tile(128, 256, 64)
    c = cm.choose([(cm.Config((("X", 1),), 4, 3), [t])], "sm_90a")
    assert c.config is None and c.rejected and "no candidate configuration is feasible" in c.explain()
    same = [(cm.Config((("X", i),), 8, 4), [t]) for i in (1, 2)]
    assert cm.choose(same, "sm_90a").config.tunables == (("X", 1),)


def test_configurations_enumerates_in_source_order():
    cfgs = cm.configurations({"A": [1, 2], "B": [3]}, (4, 8), (3,))
    assert [c.describe() for c in cfgs] == ["A=1 B=3 num_warps=4 num_stages=3", "A=1 B=3 num_warps=8 num_stages=3",
                                            "A=2 B=3 num_warps=4 num_stages=3", "A=2 B=3 num_warps=8 num_stages=3"]


# ----------------------------------------------------------------------------- memory-bound kernels

ADD = ("const tunable int B = {%s};\n"
       "__global__ void add(float *X, float *Y, int n) {\n"
       "  int i[B] = get_program_id(0) * B + 0 ... B;\n"
       "  *?(i < n)(Y + i) = *?(i < n)(X + i) + 1.0f;\n}\n")

ROWS = """const tunable int BLOCK = {64, 1024};
__global__ void rows(float *Y, float *X, float *S, int n) {
  int row = get_program_id(0);
  int c[BLOCK] = 0 ... BLOCK;
  float scale = *(S + row);
  float acc[BLOCK] = 0;
  for (int off = 0; off < n; off += BLOCK) {
    float x[BLOCK] = off + c < n ? *(X + row * n + off + c) : 0;
    acc += x;
  }
  float total = acc[+] * scale;
  for (int off = 0; off < n; off += BLOCK) {
    float x[BLOCK] = off + c < n ? *(X + row * n + off + c) : 0;
    float y[BLOCK] = off + c < n ? *(Y + row * n + off + c) : 0;
    *?(off + c < n)(Y + row * n + off + c) = x + y + total;
  }
}
"""


def test_memory_bound_a_too_small_first_candidate_is_passed_over():
    """64 floats per CTA keep ~3 KiB in flight per SM, far from saturating the bandwidth; 1024
    keep 32 KiB: the model takes 1024 though the source lists 64 first."""
    comp = Compilation(ADD % "64, 1024", CompileOptions(arch="sm_90a"))
    assert comp.tunables == {"B": 1024}
    ranked = comp.choice.ranked
    assert [dict(e.config.tunables)["B"] for e in ranked] == [1024, 64]
    assert ranked[0].efficiency == 1.0 and ranked[1].efficiency < 0.3


def test_memory_bound_profiles_count_loop_bodies_not_one_shot_loads():
    comp = Compilation(ROWS, CompileOptions(defines={"BLOCK": "256"}))
    (p,) = mm.memory_profiles(comp.ttir)
    # loop 1 loads X (256 floats), loop 2 loads X and Y; the scalar *(S + row) is not a step
    assert p.kernel == "rows" and p.steps == (1024, 2048) and p.largest_tile == 256


def test_memory_bound_loop_kernel_choice_and_explanation():
    comp = Compilation(ROWS, CompileOptions(arch="sm_90a"))
    assert comp.tunables == {"BLOCK": 1024}
    text = comp.choice.explain()
    assert "memory-bound" in text and "chose BLOCK=1024" in text and "of DRAM bandwidth" in text
    assert "next  BLOCK=64" in text


def test_memory_bound_estimate_occupancy_and_register_rejection():
    gpu = wl.GPU_MODELS["sm_90a"]
    small = mm.MemoryProfile("k", (4096,), 1024)
    e = mm.estimate_memory([small], cm.Config((), 4, 3), gpu)
    # 128 threads, ~64 registers each: 8 CTAs per SM (registers), 8 * 4 KiB in flight
    assert (e.ctas_per_sm, e.registers, e.in_flight, e.efficiency) == (8, 64, 32768, 1.0)
    huge = mm.MemoryProfile("k", (4 * 65536,), 65536)
    assert not mm.estimate_memory([huge], cm.Config((), 4, 3), gpu).feasible
    assert "spill" in mm.estimate_memory([huge], cm.Config((), 4, 3), gpu).reason
    assert mm.estimate_memory([huge], cm.Config((), 64, 3), gpu).reason.startswith("2048 threads")


def test_memory_bound_ties_within_ten_percent_keep_source_order():
    gpu = wl.GPU_MODELS["sm_90a"]
    a = (cm.Config((("B", 1),), 4, 3), [mm.MemoryProfile("k", (2300,), 1024)])  # ~95 %
    b = (cm.Config((("B", 2),), 4, 3), [mm.MemoryProfile("k", (4096,), 1024)])  # 100 %
    assert mm.choose_memory_bound([a, b], "sm_90a").config.tunables == (("B", 1),)
    c = (cm.Config((("B", 3),), 4, 3), [mm.MemoryProfile("k", (1024,), 1024)])  # ~43 %
    assert mm.choose_memory_bound([c, a], "sm_90a").config.tunables == (("B", 1),)
    assert gpu.dram_bytes * gpu.latency == 20000


@pytest.mark.parametrize("name, want", [
    ("reduce", {"BM": 8, "BN": 256, "SPLIT": 16}),
    # rows of N = 4096 (no --hint) fit one tile of 4096: read once (their __retune plans hold the
    # other row lengths; tests/cli/test_retune_dispatch.py)
    ("layernorm", {"BLOCK": 4096}),
    ("softmax_bwd", {"BLOCK": 4096}),
    ("cross_entropy", {"TILE": 2048}),
    ("batchnorm", {"BN": 4, "BHW": 256, "SPLIT": 8}),
    ("dropout", {"BLOCK": 1024}),
    ("layernorm_bwd", {"BLOCK": 4096, "G": 256}),
    ("rmsnorm", {"BLOCK": 4096, "G": 256}),
])
def test_memory_bound_examples_default_build(name, want):
    """What `tritonc examples/NAME.tri` compiles with no option on sm_90a (docs/tuning.md; the
    interpreter checks in tests/examples launch the no-option builds on grids of these)."""
    comp = Compilation(ROOT / "examples" / f"{name}.tri", CompileOptions(arch="sm_90a"))
    assert comp.tunables == want


# ----------------------------------------------------------------------------- chained dots

ATTENTION = ROOT / "examples" / "attention.tri"


def chained(m, n, d, chain=1, warps=(4, 8)):
    """Attention's two dots: ``[m, d] @ [d, n]`` (the score tile) and ``[m, n] @ [n, d]``."""
    return [dataclasses.replace(tile(m, n, d, warps=warps), chain=chain),
            dataclasses.replace(tile(m, d, n, warps=warps), chain=chain)]


@pytest.mark.parametrize("defines, want", [({}, (128, 64, 8, 2)), ({"CAUSAL": "1"}, (128, 64, 8, 2)),
                                           ({"D": "128"}, (128, 128, 8, 2))])
def test_attention_default_build_is_chosen_by_the_chained_model(defines, want):
    comp = Compilation(ATTENTION, CompileOptions(arch="sm_90a", defines=defines))
    comp._frontend
    assert (comp.tunables["BM"], comp.tunables["BN"], comp.num_warps, comp.num_stages) == want


def test_chained_registers_count_both_accumulators_and_p():
    gpu = wl.GPU_MODELS["sm_90a"]
    # BM=128 BN=D=64: 8 warps hold 32 + 32 accumulator words and 16 of p per thread: two CTAs
    # (16 warps); 4 warps twice as many (one warp group, two row repetitions): two CTAs of 4.
    e8 = cm.estimate_chained(chained(128, 64, 64), cm.Config((), 8, 2), gpu)
    e4 = cm.estimate_chained(chained(128, 64, 64), cm.Config((), 4, 2), gpu)
    assert e8.registers == 32 + 32 + 16 + cm.CHAIN_OTHER_REGISTERS and e8.ctas_per_sm == 2
    assert e4.registers == 64 + 64 + 32 + cm.CHAIN_OTHER_REGISTERS and e4.ctas_per_sm * 4 == 8
    assert e8.key < e4.key  # more resident warps first
    # q once, B of both dots per stage
    assert e8.shared_bytes == 128 * 64 * 2 + 2 * (64 * 64 * 2 + 64 * 64 * 2)
    # from 3 stages p @ v runs into the next trip: p's registers stay pinned until its wait
    e3 = cm.estimate_chained(chained(128, 64, 64), cm.Config((), 8, 3), gpu)
    assert e3.registers == e8.registers + 16 and e3.ctas_per_sm == 1


def test_chained_ranking_warps_then_trip_size_then_stages():
    gpu = wl.GPU_MODELS["sm_90a"]
    space = [(cm.Config((("BN", bn),), w, s), chained(128, bn, 64)) for bn in (128, 64) for w in (4, 8) for s in (2, 3, 4, 5)]
    choice = cm.choose(space, "sm_90a")
    assert choice.config == cm.Config((("BN", 64),), 8, 2)
    assert choice.note == cm.CHAINED_NOTE and "warps/SM" in choice.explain()
    # D = 128: one CTA of 8 warps at either BN; the larger trip wins
    space = [(cm.Config((("BN", bn),), 8, s), chained(128, bn, 128)) for bn in (64, 128) for s in (2, 3)]
    assert cm.choose(space, "sm_90a").config == cm.Config((("BN", 128),), 8, 2)


def test_chained_rejections():
    gpu = wl.GPU_MODELS["sm_90a"]
    assert "wgmma" in cm.estimate_chained(chained(64, 64, 64), cm.Config((), 8, 3), gpu).reason  # 64 rows, 2 groups
    assert "shared memory" in cm.estimate_chained(chained(128, 128, 128), cm.Config((), 8, 4), gpu).reason
    assert "registers" in cm.estimate_chained(chained(128, 256, 128, warps=(8,)), cm.Config((), 8, 2), gpu).reason
# ----------------------------------------------------------------------------- batched dots

def test_batched_dot_is_read_as_its_2d_slices():
    """bmm's [TM, TK, TB] @ [TK, TN, TB] is ranked as the TB 2-D dots unbatch-dots makes of it."""
    comp = Compilation(ROOT / "examples" / "bmm.tri", CompileOptions(arch="sm_90a", defines={"TYPE": "half"},
                                                                      tune={"TM": [64], "TN": [64], "TK": [32],
                                                                            "TB": [2]}))
    tiles = wl.dot_tiles(comp.ttir, (4, 8))
    assert [(t.m, t.n, t.k, t.batch, t.wgmma_n(4), t.wgmma_n(8)) for t in tiles] == [(64, 64, 32, 2, 64, None)]


def test_batched_dot_costs_its_batch():
    """A batch tile of TB products a trip: TB times the accumulator registers, the operand
    bytes a stage and the mma time, over TB times fewer tiles (the problem's B matrices)."""
    gpu = wl.GPU_MODELS["sm_90a"]
    problem = {"M": 512, "N": 512, "K": 512, "B": 64}
    one, _ = cm.estimate_dot(tile(64, 64, 32), 4, 3, gpu, problem)
    two, _ = cm.estimate_dot(tile(64, 64, 32, batch=2), 4, 3, gpu, problem)
    assert two.shared_bytes == 2 * one.shared_bytes
    assert two.registers - 64 == 2 * (one.registers - 64)
    assert two.tiles * 2 == one.tiles == 64 * 64
    assert two.problem_flops == one.problem_flops == 2.0 * 512 ** 3 * 64
    est, why = cm.estimate_dot(tile(64, 128, 32, batch=4), 4, 3, gpu, problem)
    assert est is None and "the 4 64x128 accumulators" in why


def test_bmm_default_build_is_the_measured_best():
    """examples/bmm.tri with no -D on sm_90a: 128x128x64 over one matrix, 4 warps, 3 stages,
    the fastest of the tiles measured on an H100 at 64 x 512^3 fp16 (0.0638 ms against 0.0817
    for the old first candidates, 64x128x32 over one matrix at 4 warps, 2 stages)."""
    comp = Compilation(ROOT / "examples" / "bmm.tri", CompileOptions(arch="sm_90a", defines={"TYPE": "half"}))
    assert (comp.tunables, comp.num_warps, comp.num_stages) == ({"TM": 128, "TN": 128, "TK": 64, "TB": 1}, 4, 3)
    hinted = Compilation(ROOT / "examples" / "bmm.tri", CompileOptions(arch="sm_90a", defines={"TYPE": "half"},
                                                                        hint={"M": 512, "N": 512, "K": 512, "B": 64}))
    assert hinted.tunables == comp.tunables
    assert "B=64 (--hint)" in hinted.choice.explain()


# ----------------------------------------------------------------------------- gathered operands

CONV2D = ROOT / "examples" / "conv2d.tri"


def test_conv2d_a_is_a_gather_and_b_is_not():
    comp = Compilation(CONV2D, CompileOptions(arch="sm_90a", defines={"TYPE": "half"}, tune={"TM": [64], "TN": [64]}))
    tiles = wl.dot_tiles(comp.ttir, (4, 8))  # conv2d and conv2d_splitk
    assert [(t.kernel, t.gather_a, t.gather_b) for t in tiles] == [("conv2d", True, False),
                                                                   ("conv2d_splitk", True, False)]
    (m,) = wl.dot_tiles(matmul_choice("sm_90a").ttir, (4, 8))
    assert (m.gather_a, m.gather_b) == (False, False)


def test_a_gather_costs_issue_cycles_and_staging_registers():
    """Per trip, gather_cycles per gathered element (the SM's issue slots); under 4 bytes,
    staged_registers per element a thread holds, at 4 bytes copied_gather_registers."""
    gpu = wl.GPU_MODELS["sm_90a"]
    plain, _ = cm.estimate_dot(tile(64, 64, 32), 4, 3, gpu, cm.LARGE_PROBLEM)
    gath = wl.DotTile(**{**plain.tile.__dict__, "gather_a": True})
    est, _ = cm.estimate_dot(gath, 4, 3, gpu, cm.LARGE_PROBLEM)
    assert est.registers - plain.registers == math.ceil(gpu.staged_registers * 64 * 32 / 128)
    assert est.cycles > plain.cycles
    f32 = wl.DotTile(**{**gath.__dict__, "a_bytes": 4, "b_bytes": 4})
    f32_plain = wl.DotTile(**{**plain.tile.__dict__, "a_bytes": 4, "b_bytes": 4})
    e32, _ = cm.estimate_dot(f32, 4, 3, gpu, cm.LARGE_PROBLEM)
    p32, _ = cm.estimate_dot(f32_plain, 4, 3, gpu, cm.LARGE_PROBLEM)
    # 4-byte elements go through cp.async, one element a copy: its address and mask, not a value
    assert e32.registers - p32.registers == math.ceil(gpu.copied_gather_registers * 64 * 32 / 128)


@pytest.mark.parametrize("defines, tf32, hint, want", [
    # fp16 28x28 (the gpu-check case's sizes, and no hint): 64x128x32 at 4 warps, measured the
    # fastest on an H100 (71 us; 64x64x32 108, 64x128x32 at 8 warps 94-96, 64x128x64 at 8 warps
    # 85; benchmarks/RESULTS.md, 2026-11-27)
    ({"TYPE": "half"}, False, {"M": 25088, "N": 128, "K": 1152}, (64, 128, 32, 4)),
    ({"TYPE": "half"}, False, {}, (64, 128, 32, 4)),
    # TF32 13x13 stride 2: 1568 output rows; 32x64x32 (0.038 ms) over 64x64x32 (0.067), 64x32x32 (0.056)
    ({"TYPE": "float"}, True, {"M": 1568, "N": 128, "K": 1152}, (32, 64, 32, 4)),
])
def test_conv2d_choices(defines, tf32, hint, want):
    comp = Compilation(CONV2D, CompileOptions(arch="sm_90a", defines=defines, allow_tf32=tf32, hint=hint))
    assert (comp.tunables["TM"], comp.tunables["TN"], comp.tunables["TK"], comp.num_warps) == want


def test_memory_bound_ranks_by_the_bytes_each_configuration_moves():
    """Equally busy bandwidth, but one configuration moves 1.5x the bytes (a second pass over
    the data): its efficiency is scaled by 1/1.5 and it loses, though the source lists it first."""
    a = (cm.Config((("B", 1),), 4, 3), [mm.MemoryProfile("k", (4096,), 1024, traffic=3 << 20)])
    b = (cm.Config((("B", 2),), 4, 3), [mm.MemoryProfile("k", (4096,), 1024, traffic=2 << 20)])
    choice = mm.choose_memory_bound([a, b], "sm_90a")
    assert choice.config.tunables == (("B", 2),)
    assert [round(e.efficiency, 3) for e in choice.ranked] == [1.0, 0.667]
    assert "3.0 MiB moved" in choice.explain()
    # one unknown traffic: the bytes are not compared at all (source order among the ties)
    c = (cm.Config((("B", 3),), 4, 3), [mm.MemoryProfile("k", (4096,), 1024)])
    assert mm.choose_memory_bound([a, b, c], "sm_90a").config.tunables == (("B", 1),)


def test_memory_bound_traffic_from_the_grid_and_the_problem():
    """ROWS at --hint N=64 (one 64-wide tile a row covers it) and N=4096: the traffic is each
    program instance's bytes times the grid, so a tile 16x wider than the row loses."""
    # the hints are the values of the parameters of the same name
    src = "#define n N\n" + ROWS.replace("__global__", "__grid(N)\n__global__")
    small = Compilation(src, CompileOptions(arch="sm_90a", hint={"N": 64}))
    assert small.tunables == {"BLOCK": 64}
    # a row: X read twice, Y read and written (one trip of each loop), and the scalar S
    assert [e.traffic for e in small.choice.ranked] == [64 * (4 * 64 * 4 + 4), 64 * (4 * 1024 * 4 + 4)]
    assert Compilation(src, CompileOptions(arch="sm_90a", hint={"N": 4096})).tunables == {"BLOCK": 1024}


def test_a_grid_that_splits_the_reduction_pays_only_where_the_tiles_leave_sms_idle():
    """``programs`` (the kernel's __grid at the problem size) above the output tiles is a split
    reduction: s instances a tile, each with 1/s of the K steps and an fp32 atomic epilogue.
    At 1024x1024x16384 (64 tiles of 128x128 for 132 SMs) a split of 4 is faster; at 4096^3
    (1024 tiles: waves enough) it only adds epilogues."""
    gpu = wl.GPU_MODELS["sm_90a"]

    def cycles(problem, split):
        t = tile(128, 128, 64)
        tiles = -(-problem["M"] // 128) * -(-problem["N"] // 128)
        t = dataclasses.replace(t, programs=tiles * split if split > 1 else None)
        est, reason = cm.estimate_dot(t, 4, 3, gpu, problem)
        assert reason is None
        return est.cycles, est.tiles

    small = dict(M=1024, N=1024, K=16384)
    (one, tiles_one), (four, tiles_four) = cycles(small, 1), cycles(small, 4)
    assert tiles_four == 4 * tiles_one and four < one / 2
    large = dict(M=4096, N=4096, K=4096)
    assert cycles(large, 4)[0] > cycles(large, 1)[0]


def test_conv2d_splitk_is_chosen_for_a_small_output():
    """examples/conv2d.tri (NCHW): as conv2d_nhwc.tri's, its split-K kernel's grid has SPLITK
    program instances a tile; at conv2d_s2's 1568 output rows the model splits, at 25088 x 16
    rows it does not."""
    path = ROOT / "examples" / "conv2d.tri"
    small = Compilation(path, CompileOptions(arch="sm_90a", defines={"TYPE": "float"}, allow_tf32=True,
                                             hint=dict(M=1568, N=128, K=1152)))
    large = Compilation(path, CompileOptions(arch="sm_90a", defines={"TYPE": "half"},
                                             hint=dict(M=25088 * 16, N=128, K=1152)))
    assert small.tunables["SPLITK"] > 1
    assert large.tunables["SPLITK"] == 1


def test_conv2d_nhwc_splitk_is_chosen_for_a_small_output():
    """examples/conv2d_nhwc.tri: its split-K kernel's grid has SPLITK program instances a tile;
    at conv2d_s2's 1568 output rows the model splits, at 25088 rows it does not."""
    path = ROOT / "examples" / "conv2d_nhwc.tri"
    small = Compilation(path, CompileOptions(arch="sm_90a", defines={"TYPE": "half"},
                                             hint=dict(M=1568, N=128, K=1152)))
    large = Compilation(path, CompileOptions(arch="sm_90a", defines={"TYPE": "half"},
                                             hint=dict(M=25088 * 16, N=128, K=1152)))
    assert small.tunables["SPLITK"] > 1
    assert large.tunables["SPLITK"] == 1


# ----------------------------------------------------------------------------- FMA dots

def fma_tile(m, n, k):
    """An f32 ``[m, k] @ [k, n]`` dot without TF32: CUDA cores."""
    return wl.DotTile("k", m, n, k, 4, 4, 4, None, False, ((4, None), (8, None)), True)


def test_fma_issue_share_prefers_more_fmas_per_load_and_store():
    """128x256 at 8 warps (a thread 16 rows and 2 x 4 columns: 4 + 2 vector loads for 128 FMAs
    a k) ranks above 128x128 at 4 (32 rows, 4 columns: 8 + 1 loads for 128), which ranks above
    128x128 at 8 (5 loads for 64): the order measured on an H100 at 4096^3 (0.81x, 0.75x,
    0.67x cuBLAS; benchmarks/RESULTS.md, session 15)."""
    share = {(m, n, w): cm._fma_issue_share(fma_tile(m, n, 32), w) for m, n, w in
             ((128, 256, 8), (128, 128, 4), (128, 128, 8))}
    assert share[(128, 256, 8)] > share[(128, 128, 4)] > share[(128, 128, 8)]
    assert cm._fma_issue_share(dataclasses.replace(fma_tile(128, 128, 32), batch=2), 4) == 1.0


def test_fma_registers_count_the_staged_operand_tiles():
    e = est(fma_tile(128, 256, 64), 8, 2)  # 128 + 96 + 32: spilled 80 bytes when it was taken
    assert not e.feasible and "it would spill" in e.reason
    assert est(fma_tile(128, 256, 32), 8, 4).feasible


def test_fp32_matmul_default_build_is_the_measured_best():
    src = (ROOT / "examples" / "matmul.tri").read_text().replace("half", "float")
    comp = Compilation(src, CompileOptions(arch="sm_90a"))
    comp._frontend
    assert chosen(comp) == (128, 256, 32, 8, 4)


def test_dot_tiles_read_each_shared_translation_once(monkeypatch):
    """conv2d_nchw's tunable combinations share kernel translations (``KernelTranslations``:
    a kernel is translated once per combination of the tunables it uses): with the memo each
    translated function's tiles, and its axis info, are computed once, and every combination
    gets the tiles it got without the memo."""
    from tritonc.analysis import axis_info
    from tritonc.meta_parameters import KernelTranslations
    from tritonc.frontend.parser import parse_preprocessed
    from tritonc.frontend.preprocess import preprocess
    from tritonc.tools.examples import by_name

    path = by_name("conv2d_nchw").path
    tu = parse_preprocessed(preprocess(path.read_text(), str(path), {"TYPE": "half"}), str(path))
    translate = KernelTranslations(tu)
    combos = [{"TM": tm, "TN": 64, "TK": 32, "TC": tc, "TP": 32, "SPLITK": s}
              for tm in (32, 64) for tc in (32, 64) for s in (1, 2)]
    modules = [translate(c) for c in combos]
    calls = []
    real = axis_info.AxisInfoAnalysis

    def counting(scope, am=None):
        calls.append(scope)
        return real(scope, am)

    monkeypatch.setattr(axis_info, "AxisInfoAnalysis", counting)
    memo: dict = {}
    with_memo = [wl.dot_tiles(m, (4, 8), False, memo) for m in modules]
    gemm = [f for m in modules for f in m.functions if any(op.name == "tt.dot" for op in f.walk())]
    assert len(calls) == len({id(f) for f in gemm}) < len(gemm)  # once per translation, not per module
    assert with_memo == [wl.dot_tiles(m, (4, 8), False) for m in modules]
    assert all(t.kernel.startswith("conv2d_nchw") for tiles in with_memo for t in tiles)
