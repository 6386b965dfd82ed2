"""Unit tests of the shared-memory packing (``analysis/allocation.py``, first fit over live
intervals) on synthetic buffers; the passes themselves are tested by FileCheck under
``tests/passes/allocate-shared`` and ``tests/passes/insert-barriers``."""
from __future__ import annotations

import itertools

import pytest

from tritonc.analysis.allocation import align_up, first_fit
from tritonc.analysis.liveness import Buffer
from tritonc.ir.core import Operation


def buf(size: int, start: int, end: int, alignment: int = 16) -> Buffer:
    return Buffer(Operation("test.op", [], []), size, alignment, None, start, end)


def check_no_overlap(offsets: dict[Buffer, int]) -> None:
    for a, b in itertools.combinations(offsets, 2):
        if a.interferes(b):
            assert offsets[a] + a.size <= offsets[b] or offsets[b] + b.size <= offsets[a], (a, b)
    for b, off in offsets.items():
        assert off % b.alignment == 0


def test_buffers_never_live_together_share_offset_zero():
    bufs = [buf(16, 0, 1), buf(4096, 1, 2), buf(2048, 2, 3)]
    assert list(first_fit(bufs).values()) == [0, 0, 0]


def test_interfering_buffers_are_stacked_largest_first():
    a, b, c = buf(100, 0, 10), buf(300, 2, 5), buf(50, 4, 8)
    offsets = first_fit([a, b, c])
    check_no_overlap(offsets)
    assert offsets[b] == 0  # the largest goes first, at 0
    assert offsets[a] == 304  # after b, aligned to 16
    assert offsets[c] == 304 + 112  # after a (b and a are both live at 4)


def test_a_hole_left_by_dead_buffers_is_reused():
    long = buf(64, 0, 10)
    early = buf(256, 0, 3)
    late = buf(128, 5, 8)  # early is dead by then: late fits in its hole below 'long'
    offsets = first_fit([long, early, late])
    check_no_overlap(offsets)
    assert offsets[early] == 0 and offsets[long] == 256 and offsets[late] == 0


def test_alignment_of_swizzled_buffers():
    small = buf(20, 0, 4)
    swizzled = buf(16, 0, 4, alignment=128)
    offsets = first_fit([small, swizzled])
    assert offsets[small] == 0 and offsets[swizzled] == 128
    assert align_up(20, 16) == 32 and align_up(32, 16) == 32


@pytest.mark.parametrize("seed", range(20))
def test_random_intervals_never_overlap(seed):
    import random

    rng = random.Random(seed)
    bufs = []
    for _ in range(12):
        start = rng.randrange(20)
        bufs.append(buf(rng.choice([4, 16, 100, 512, 4096]), start, start + rng.randrange(1, 8),
                        rng.choice([16, 16, 128])))
    check_no_overlap(first_fit(bufs))


def test_print_analysis_allocation_on_the_ttg_ir():
    import io

    from tritonc.driver import Compilation, PassOptions
    from tritonc.tools.examples import by_name
    from tritonc.tools.golden import golden_options

    stream = io.StringIO()
    example = by_name("softmax")
    comp = Compilation(example.path, golden_options(example), PassOptions(stream=stream, print_analysis=("allocation",)))
    comp.ttgir
    text = stream.getvalue()
    assert text.startswith("// -----// Analysis allocation //----- //\n")
    assert text.count("// smem offset=0 size=16") == 4  # the four cross-warp reductions (one tile; loop)
