"""The memory-bound ``make bench`` rows built from gpu-check cases (tritonc/tools/bench.py,
``case_row``): each moves at least 8 MB at its size (issue 16's acceptance), compiles with no -D,
--tune or warps (issue 13), and counts each input read once and each output written once. No GPU:
only the row descriptions are built."""
import pytest

from tritonc.tools.bench import case_row

#: (case, bytes the row must count at its bench size)
ROWS = {
    "col_sum": 4 * 8192 * 8192 + 4 * 8192,
    "layernorm": 2 * 2 * 8192 * 4096,
    "layernorm_bwd": 3 * 2 * 8192 * 4096,
    "rmsnorm_fwd": 2 * 2 * 8192 * 4096,
    "rmsnorm_bwd": 3 * 2 * 8192 * 4096,
    "softmax_bwd": 3 * 4 * 4096 * 4096,
    "cross_entropy_forward": 4 * 512 * 131_072,
    "cross_entropy_backward": 2 * 4 * 512 * 131_072,
    "dropout": 2 * 4 * (1 << 25),
    "batchnorm": 2 * 4 * 32 * 256 * 56 * 56,
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_memory_bound_bench_row(name):
    row = case_row(name)(None)  # the factory only closes over torch
    assert row.nbytes == ROWS[name] and row.nbytes >= 8 << 20
    assert (row.defines, row.tune, row.num_warps, row.flops) == ({}, {}, None, 0)
    assert row.example is not None


def test_bench_overrides_name_and_set_flags_and_warps():
    """``bench --flags`` / ``--num-warps`` (experiments): the row's name says what was changed;
    warps only for memory-bound rows, and rows with their own compile function are untouched."""
    import dataclasses

    from tritonc.tools.bench import with_overrides

    row = case_row("layernorm_bwd")(None)
    got = with_overrides(row, ("load-prefetch=L2::256B",), 4)
    assert got.name == "layernorm_bwd -fload-prefetch=L2::256B -w4"
    assert (got.flags, got.num_warps) == (row.flags + ("load-prefetch=L2::256B",), 4)
    assert with_overrides(row, (), None) is row
    dot = dataclasses.replace(row, flops=1)
    assert with_overrides(dot, (), 8).num_warps is None
    own = dataclasses.replace(row, compile=lambda arch: None)
    assert with_overrides(own, ("no-exp-ftz",), 8) is own
