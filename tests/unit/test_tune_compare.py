"""tritonc.tools.tune_compare without a GPU: its arguments, its sizes file (read by the tuner's
own parser) and the markdown table it prints, from made-up timings."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.launcher.signature import KernelParam
from tritonc.tools.tune_inputs import host_arguments, parse_sizes
from tritonc.tools.tune_compare import SIZES, Row, parse_args, render, sizes_toml, space_size


def test_the_space_is_capped_at_24_configurations():
    assert space_size() == 24


def test_sizes_file_builds_matmul_arguments():
    spec = parse_sizes(sizes_toml([(64, 32, 16)] + SIZES), "s.toml")
    assert spec.key == ["M", "N", "K"] and spec.sizes[1:] == [{"M": m, "N": n, "K": k} for m, n, k in SIZES]
    params = [KernelParam("A", "pointer", "float16", readonly=True), KernelParam("B", "pointer", "float16", readonly=True),
              KernelParam("C", "pointer", "float16")] + [KernelParam(n, "scalar", "int32")
                                                          for n in ("M", "N", "K", "lda", "ldb", "ldc")]
    a, b, c, m, n, k, lda, ldb, ldc = host_arguments(params, spec, spec.sizes[0], np.random.default_rng(0))
    assert (a.size, b.size, c.size) == (64 * 16, 16 * 32, 64 * 32) and (lda, ldb, ldc) == (16, 32, 32)
    assert not c.any()


def test_render():
    rows = [Row((4096, 4096, 4096), "TM=128 TN=256 TK=64 num_warps=8 num_stages=4", 800.0, 790.0, 795.0, 850.0,
                "128x256x64 w8 s4", 760.0),
            Row((512, 512, 16384), "TM=64 TN=64 TK=64 num_warps=4 num_stages=4", 100.0, None, 99.0, None, "", 50.0,
                ["dispatched: relative error 2.00e-01"])]
    text = render(rows, 14, 24, "H100")
    lines = text.splitlines()
    assert lines[0].startswith("tritonc-tune on examples/matmul.tri, fp16, H100: 24 configurations, 14 after pruning")
    assert lines[2].startswith("| M x N x K | tuned variant | dispatched us")
    assert lines[4] == ("| 4096x4096x4096 | TM=128 TN=256 TK=64 num_warps=8 num_stages=4 | 800.0 | 790.0 | 1.013 | "
                        "795.0 | 850.0 (128x256x64 w8 s4) | 760.0 | 172 | 0.950 | 0.894 |")
    assert "| 100.0 | - | - | 99.0 | - () | 50.0 | 86 | 0.500 | - |" in lines[5]
    assert lines[-1] == "* 512x512x16384: dispatched: relative error 2.00e-01"


def test_parse_args():
    a = parse_args(["--quick", "--reps", "7", "--arch", "sm_90a", "-j", "4"])
    assert (a.quick, a.reps, a.arch, a.jobs) == (True, 7, "sm_90a", 4)
    with pytest.raises(SystemExit):
        parse_args(["--reps", "0"])
