"""The size guard (tritonc/analysis/tile_budget.py): a tile of more than 1024 32-bit values per
thread at the kernel's warps is an error at the op that makes it, before any long compile."""
from __future__ import annotations

import time

from pathlib import Path

import pytest

from cli_helpers import assert_clean, quoted, tritonc

HUGE = """\
__global__ void huge(float *X __readonly, float *Y) {
  int r[512] = 0 ... 512;
  int c[512] = 0 ... 512;
  float x[512, 512] = *(X + r[:, newaxis] * 512 + c[newaxis, :]);
  *(Y + r[:, newaxis] * 512 + c[newaxis, :]) = x;
}
"""

#: 128x128 at 1 warp (32 threads): 512 values per thread of the float tile, 1024 (exactly the
#: bound) of its pointer tile: legal, and assembled (ptxas spills it, tests/cli/test_resource_usage.py).
AT_BOUND = (Path(__file__).resolve().parents[1] / "data" / "big_tile.tri").read_text()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_huge_tile_rejected_quickly(in_tmp):
    src = in_tmp / "huge.tri"
    src.write_text(HUGE)
    start = time.perf_counter()
    run = tritonc("huge.tri", "-o", "huge.cubin", "--no-cache", "--num-warps", "4")
    assert time.perf_counter() - start < 20  # no LLVM or ptxas ran (they take minutes on this tile)
    assert_clean(run)
    assert run.status == 1 and run.stdout == ""
    assert list(in_tmp.iterdir()) == [src]
    # 512*512 pointers of 64 bits over 128 threads: 4096 32-bit values per thread
    assert run.err_lines[0] == ("huge.tri:4:49: error: a 512x512 tile of ptr<f32> needs 4096 32-bit values per "
                                "thread at 4 warp(s) (128 threads), over the limit of 1024 (4x the 255-register "
                                "file of a thread); use smaller tiles or more warps (--num-warps)")
    assert run.err_lines[1:3] == quoted(src, 4, 49)


def test_huge_tile_rejected_for_ptx_too(in_tmp):
    (in_tmp / "huge.tri").write_text(HUGE)
    run = tritonc("huge.tri", "--emit=ttgir", "-o", "-", "--num-warps", "8")
    assert run.status == 1 and run.stdout == ""
    assert "needs 2048 32-bit values per thread at 8 warp(s)" in run.err_lines[0]


def test_auto_warps_are_the_chosen_ones(in_tmp):
    # --num-warps auto: the tile rule gives this kernel 16 warps (512 threads), so the float tile
    # is 512 values per thread and the pointer tile 1024: legal, up to the IR (no assembly here).
    (in_tmp / "huge.tri").write_text(HUGE)
    run = tritonc("huge.tri", "--emit=ttgir", "-o", "huge.ttgir", "--no-cache")
    assert_clean(run)
    assert run.status == 0, run.stderr
    assert "module attributes {num_warps = 16}" in (in_tmp / "huge.ttgir").read_text()


def test_large_legal_tile_compiles(in_tmp):
    (in_tmp / "big.tri").write_text(AT_BOUND)
    run = tritonc("big.tri", "-o", "big.cubin", "--no-cache", "--num-warps", "1", "-Wno-spill")
    assert_clean(run)
    assert run.status == 0 and (in_tmp / "big.cubin").exists()


def test_shared_memory_over_the_targets_limit_is_a_warning(in_tmp):
    """192 KiB of pipeline buffers fit an sm_90 CTA (227 KiB) but not an A100's (sm_80: 163 KiB):
    -Wshared-memory at the kernel (the sm_80 cubin still runs on an H100), an error with -Werror."""
    matmul = Path(__file__).resolve().parents[2] / "examples" / "matmul.tri"
    big = ("-D", "TM=128", "-D", "TN=256", "-D", "TK=64", "--num-stages", "4", "--num-warps", "8", "--no-cache")
    run = tritonc(matmul, *big, "--arch", "sm_80", "-o", "m.cubin")
    assert_clean(run)
    assert run.status == 0 and (in_tmp / "m.cubin").exists()
    assert "matmul.tri:6:17: warning: kernel 'matmul' needs 196608 bytes (192 KiB) of shared memory, more than " \
           "a CTA has on sm_80 GPUs (166912 bytes, 163 KiB)" in run.stderr
    assert "[-Wshared-memory]" in run.stderr and "^" in run.stderr
    run = tritonc(matmul, *big, "--arch", "sm_80", "-Werror", "-o", "e.cubin")
    assert run.status == 1 and not (in_tmp / "e.cubin").exists()
    assert tritonc(matmul, *big, "--arch", "sm_80", "-Wno-shared-memory", "-o", "q.cubin").stderr == ""
    run = tritonc(matmul, *big, "--arch", "sm_90a", "-o", "m90.cubin")
    assert run.status == 0 and "shared-memory" not in run.stderr
