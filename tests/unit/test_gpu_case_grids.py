"""The gpu-check cases launch most kernels on their declared grid now (tritonc/tools/gpu_cases.py):
each such grid, compiled with the case's own options, equals the grid the case used to pass
explicitly (the formulas below), at ragged sizes. No GPU needed: only the frontend runs."""
import pytest

from tritonc.driver import Compilation
from tritonc.launcher.grid import evaluate_grid
from tritonc.tools.examples import by_name
from tritonc.tools.gpu_cases import CASES, cdiv
from tritonc.tools.gpu_check import CompileOptions

CASE_BY_NAME = {c.name: c for c in (f() for f in CASES)}


def grids(case_name, arch="sm_90a"):
    case = CASE_BY_NAME[case_name]
    comp = Compilation(by_name(case.example).path,
                       CompileOptions(defines=dict(case.defines), tune=dict(case.tune), arch=arch,
                                      num_warps=case.num_warps, specialize=True, hint=dict(case.hint),
                                      allow_tf32=case.allow_tf32))
    return comp.grids, comp.tunables


@pytest.mark.parametrize("case, kernel, args, old", [
    ("vector_add", "vector_add", dict(N=98_765), (cdiv(98_765, 1024), 1, 1)),
    ("transpose", "transpose", dict(M=1000, N=777), (cdiv(1000, 32), cdiv(777, 32), 1)),
    ("row_sum", "row_sum", dict(M=1000, N=777), (cdiv(1000, 8), 1, 1)),
    ("col_sum", "col_sum", dict(M=1000, N=777), (cdiv(777, 256), 16, 1)),  # rows split over SPLIT=16
    ("permute_201", "permute_201", dict(D0=5, D1=33, D2=17), (cdiv(5, 4), cdiv(33, 32), cdiv(17, 32))),
    ("copy3d", "copy3d", dict(D0=5, D1=33, D2=17), (cdiv(5, 4), cdiv(33, 32), cdiv(17, 32))),
])
def test_declared_grid_equals_the_old_explicit_grid(case, kernel, args, old):
    if case not in CASE_BY_NAME:
        pytest.skip(f"no case {case}")
    g, _ = grids(case)
    got = evaluate_grid(g[kernel], args)
    assert got + (1,) * (3 - len(got)) == old


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_default_build_matmul_grid_follows_the_chosen_tile(arch):
    g, tun = grids("matmul (default build)", arch)
    assert evaluate_grid(g["matmul"], dict(M=1001, N=776, K=552)) == (cdiv(1001, tun["TM"]), cdiv(776, tun["TN"]))
    assert (tun["TM"], tun["TN"], tun["TK"]) == (128, 256, 64)  # the cost model's choice (docs/tuning.md)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_splitk_grid_follows_the_chosen_tiles_and_split(arch):
    """splitk_matmul's case passes no tile -D: its grid is the chosen tiles' and SPLITK's, the
    split ranked by the cost model from the kernel's grid at the case's hint."""
    g, tun = grids("splitk_matmul", arch)
    got = evaluate_grid(g["splitk_matmul"], dict(M=1001, N=776, K=550))
    assert got == (cdiv(1001, tun["TM"]) * cdiv(776, tun["TN"]), 1, tun["SPLITK"])
    # the cost model's split at the case's hint: 1024x1024 is at most 64 output tiles, too few
    # for the GPU (sm_90a: 128x256 tiles in 4 slices; sm_80: 128x128 in 8)
    assert tun["SPLITK"] == {"sm_90a": 4, "sm_80": 8}[arch]


def test_bmm_grid_follows_the_tiles():
    """bmm's case passes no tile -D: the grid is that of the cost model's tiles (it ranks the
    batched dot as the 2-D dots unbatch-dots makes of it)."""
    g, tun = grids("bmm")
    assert (tun["TM"], tun["TN"], tun["TK"], tun["TB"]) == (128, 128, 64, 1)
    assert evaluate_grid(g["bmm"], dict(M=100, N=70, K=50, BATCH=3)) == (cdiv(100, 128), cdiv(70, 128), 3)


def test_conv_cases_grid():
    """The convolution cases pass no tile -D: their grids follow the chosen tiles."""
    seen = 0
    for name, case in CASE_BY_NAME.items():
        if case.example in ("conv2d", "conv2d_krsc", "conv2d_nchw", "conv2d_nhwc", "shift_conv"):
            assert not {"TM", "TN", "TK", "HH", "WW"} & set(case.defines), name
            g, tun = grids(name)
            kernel = case.example
            args = {"conv2d": dict(M=25_000, N=100, K=99), "conv2d_krsc": dict(M=25_000, N=100),
                    "conv2d_nhwc": dict(M=25_000, N=100), "conv2d_nchw": dict(M=25_000, N=100),
                    "shift_conv": dict(M=25_000, K=100)}[kernel]
            assert evaluate_grid(g[kernel], args) == (cdiv(25_000, tun["TM"]), cdiv(100, tun["TN"]))
            if kernel == "conv2d":
                assert evaluate_grid(g["conv2d_splitk"], args) == (
                    cdiv(25_000, tun["TM"]), cdiv(100, tun["TN"]), tun["SPLITK"])
                assert evaluate_grid(g["nhwc_to_nchw"], dict(K=100, PQ=49, NB=3)) == (
                    cdiv(49, tun["TP"]), cdiv(100, tun["TC"]), 3)
            if kernel == "conv2d_nhwc":
                assert evaluate_grid(g["conv2d_nhwc_splitk"], args) == (
                    cdiv(25_000, tun["TM"]), cdiv(100, tun["TN"]), tun["SPLITK"])
            if kernel == "conv2d_nchw":
                assert evaluate_grid(g["nchw_to_nhwc"], dict(C=100, HW=784, NB=3)) == (
                    cdiv(784, tun["TP"]), cdiv(100, tun["TC"]), 3)
                assert evaluate_grid(g["nchw_to_nhwc_zero"], dict(C=100, HW=784, NB=3)) == (
                    cdiv(784, tun["TP"]), cdiv(100, tun["TC"]), 3)
                assert evaluate_grid(g["conv2d_nchw_splitk"], args) == (
                    cdiv(25_000, tun["TM"]), cdiv(100, tun["TN"]), tun["SPLITK"])
                assert evaluate_grid(g["nhwc_to_nchw"], dict(K=100, PQ=49, NB=3)) == (
                    cdiv(49, tun["TP"]), cdiv(100, tun["TC"]), 3)
            seen += 1
    assert seen == 11


#: the memory-bound cases compiled with no option: (case, kernel, sizes, grid from the chosen tunables)
MEMORY_BOUND = [
    ("layernorm", "layernorm", dict(M=77, N=3000), lambda t: (77,)),
    ("layernorm_bwd", "layernorm_bwd", dict(M=77, N=3000), lambda t: (min(77, t["G"]),)),
    ("rmsnorm_bwd", "rmsnorm_bwd", dict(M=77, N=3000), lambda t: (min(77, t["G"]),)),
    ("softmax_bwd", "softmax_bwd", dict(M=333, N=1000), lambda t: (333,)),
    ("softmax", "softmax", dict(M=333, N=1000), lambda t: (333,)),
    ("cross_entropy_forward", "forward", dict(rows=5, n_cols=131_075), lambda t: (5,)),
    ("dropout", "dropout", dict(N=1_000_003), lambda t: (cdiv(1_000_003, t["BLOCK"]),)),
    ("batchnorm", "batchnorm_stats", dict(C=64, N=8), lambda t: (64, t["SPLIT"])),
    ("col_sum", "col_sum", dict(M=8192, N=8192), lambda t: (cdiv(8192, t["BN"]), t["SPLIT"])),
    ("transpose", "transpose", dict(M=1000, N=777), lambda t: (cdiv(1000, t["TM"]), cdiv(777, t["TN"]))),
    ("copy3d", "copy3d", dict(D0=5, D1=33, D2=17), lambda t: (cdiv(5, t["T0"]), cdiv(33, t["T1"]), cdiv(17, t["T2"]))),
]


@pytest.mark.parametrize("case, kernel, args, want", MEMORY_BOUND, ids=[f"{m[0]}-{m[1]}" for m in MEMORY_BOUND])
def test_memory_bound_cases_use_no_options_and_the_declared_grid(case, kernel, args, want):
    """Issue 13's acceptance for the memory-bound cases: no -D, --tune or warps in the case, and
    the kernel declares its grid (computed from the tunables the compiler chose)."""
    c = CASE_BY_NAME[case]
    assert (c.defines, c.tune, c.num_warps) == ({}, {}, None)
    g, tun = grids(case)
    got = evaluate_grid(g[kernel], args)
    assert got == want(tun)
