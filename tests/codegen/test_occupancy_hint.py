"""``.minnctapersm 2`` on kernels of 256-512 threads without ``tt.dot`` whose loaded data leaves
room under the two-CTA register bound (``codegen/llvm/lowering.min_ctas_per_sm``), CPU only.

The case that asked for it: softmax 4096x16384 (BLOCK=16384, 16 warps), which nvJitLink
(relocatable code) assembled to 75 registers, one CTA per SM, 0.86x Triton on an H200; with
the hint, 64 registers and 1.00x (``benchmarks/RESULTS.md``, 2026-11-21).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tritonc.codegen.cubin import assemble_ptx
from tritonc.driver import Compilation
from tritonc.options import CompileOptions, parse_codegen_flags
from tritonc.tools.examples import by_name

MIN_CTAS = re.compile(r"^\.minnctapersm 2$", re.M)


#: the one-tile softmax the hint was measured on (examples/softmax.tri has since gained a loop
#: for rows longer than BLOCK, whose tiles take registers of their own)
ONE_TILE_SOFTMAX = Path(__file__).resolve().parents[1] / "data" / "softmax_one_tile.tri"


def compile_example(name: str, num_warps: int, flags=(), **defines) -> Compilation:
    """An example (``softmax``: :data:`ONE_TILE_SOFTMAX`) for sm_90 at ``num_warps``."""
    if name == "softmax":
        path, base = ONE_TILE_SOFTMAX, {}
    else:
        path, base = by_name(name).path, by_name(name).defines
    return Compilation(path, CompileOptions(arch="sm_90", num_warps=num_warps, specialize=True,
                                            defines={**base, **defines},
                                            codegen=parse_codegen_flags(flags)))


@pytest.mark.parametrize("block, warps, hinted", [
    (16384, 16, True),   # 32 words loaded per thread <= 64 / 2
    (4096, 16, True),
    (2048, 8, True),     # bound 128: not binding here, harmless
    (1024, 4, False),    # 128 threads: two CTAs fit in any case
    (32768, 16, False),  # 64 words per thread: the bound of 64 would spill
])
def test_softmax_hint(block, warps, hinted):
    ptx = compile_example("softmax", warps, BLOCK=str(block)).ptx
    assert len(MIN_CTAS.findall(ptx)) == (2 if hinted else 0)  # the kernel and its __spec16 variant
    assert ptx.count(f".maxntid {32 * warps}") == 2


def test_no_hint_for_dot_kernels():
    ptx = compile_example("matmul", 8).ptx
    assert not MIN_CTAS.search(ptx)


def test_no_hint_when_switched_off():
    assert not MIN_CTAS.search(compile_example("softmax", 16, ["no-occupancy-hint"], BLOCK="16384").ptx)


def test_softmax_16384_fits_two_ctas_per_sm():
    """The regression itself: at most 64 registers (two CTAs of 512 threads) and no spills."""
    comp = compile_example("softmax", 16, BLOCK="16384")
    usage = assemble_ptx(comp.ptx, comp.target).resources
    if not usage:
        pytest.skip("this assembler's log has no resource report")
    for kernel in ("softmax", "softmax__spec16"):
        assert usage[kernel].registers <= 64 and not usage[kernel].spills, usage[kernel]


def test_half_loads_held_as_floats_count_as_floats():
    """rmsnorm's one-pass backward at BLOCK=8192 on 16 warps loads three half tiles and uses
    them as floats: 48 words a thread, over half the bound of 64, so no hint. Counted as halves
    (24 words) its one-tile variant (``__spec16_le``) was bounded at 64 registers and spilled."""
    comp = Compilation(by_name("rmsnorm").path,
                       CompileOptions(arch="sm_90a", num_warps=16, specialize=True, kernel="rmsnorm_bwd",
                                      defines={"BLOCK": "8192", "G": "512"}))
    assert not MIN_CTAS.search(comp.ptx)
    usage = assemble_ptx(comp.ptx, comp.target).resources
    if not usage:
        pytest.skip("this assembler's log has no resource report")
    assert set(usage) == {"rmsnorm_bwd", "rmsnorm_bwd__spec16_le", "rmsnorm_bwd__spec16"}
    assert not any(u.spills for u in usage.values()), usage
