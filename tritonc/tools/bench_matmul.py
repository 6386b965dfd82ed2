"""``python -m tritonc.tools.bench_matmul``: the tensor-core matmul rows, checked and timed.

Each row compiles ``benchmarks/kernels/matmul.tri`` (``mma.sync`` through ``accelerate-matmul``,
``cp.async`` rings through ``software-pipeline``) with the row's element type, operand layouts
(row-major, or column-major read through ``^``) and tile configuration, imports the generated
Python launcher, and

1. checks it on fresh random inputs with the output poisoned (NaN) and a poisoned guard region
   after it: ``||C - ref|| / ||ref|| < 1e-2`` against a float64 reference, every element
   written, the guard untouched;
2. times it with ``triton.testing.do_bench`` (median) next to cuBLAS (``torch.matmul``) and
   OpenAI Triton (``benchmarks/triton_ref.py``'s ``matmul_strided``: tutorial 03's kernel at
   128x256x64, 8 warps, 4 stages), and prints one table with TFLOP/s and the ratios.

Leading dimensions are rounded up to multiples of 8 elements (the kernel promises
``__multipleof(8)``; the views handed to torch and Triton have the logical shapes).
Needs torch, triton and a GPU. ``--rows NAME,...`` selects rows; ``--quick`` skips timing.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from tritonc.driver import Compilation
from tritonc.options import CodegenOptions, CompileOptions

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "benchmarks" / "kernels" / "matmul.tri"
sys.path.insert(0, str(ROOT / "benchmarks"))


@dataclass(frozen=True)
class Config:
    """A tile configuration: ``TM x TN x TK`` tiles, warps, pipeline stages, L2 group size."""

    tm: int = 128
    tn: int = 256
    tk: int = 64
    num_warps: int = 8
    num_stages: int = 3
    group_m: int = 8

    def __str__(self) -> str:
        return f"{self.tm}x{self.tn}x{self.tk} w{self.num_warps} s{self.num_stages}"


@dataclass(frozen=True)
class Row:
    name: str
    dtype: str          # "float16" | "bfloat16"
    a_col: bool         # A column-major
    b_col: bool         # B column-major
    size: tuple[int, int, int]
    config: Config = field(default_factory=Config)
    arch: str | None = None  # None: the GPU's own (mma.sync); "sm_90a": wgmma

    @property
    def layout(self) -> str:
        return ("T" if self.a_col else "N") + ("T" if self.b_col else "N")


BIG = Config(128, 256, 32, 8, 4)
ROWS = [
    Row("fp16 NN 4096", "float16", False, False, (4096, 4096, 4096), BIG),
    Row("bf16 NN 4096", "bfloat16", False, False, (4096, 4096, 4096), BIG),
    Row("fp16 NN 8192", "float16", False, False, (8192, 8192, 8192), BIG),
    Row("bf16 NN 8192", "bfloat16", False, False, (8192, 8192, 8192), BIG),
    Row("fp16 TN 4096", "float16", True, False, (4096, 4096, 4096), BIG),
    Row("fp16 NT 4096", "float16", False, True, (4096, 4096, 4096), BIG),
    Row("bf16 TT 4096", "bfloat16", True, True, (4096, 4096, 4096), BIG),
    Row("fp16 NN ragged", "float16", False, False, (4095, 4097, 1000), BIG),
    Row("bf16 TN ragged", "bfloat16", True, False, (4095, 4097, 1000), BIG),
]

#: The configuration of the wgmma rows (fastest of ``--experiments --arch sm_90a``, RESULTS.md).
WGMMA = Config(128, 256, 64, 8, 4)

#: The same rows on Hopper's wgmma (``--arch sm_90a``), run where the GPU is an sm_90.
WGMMA_ROWS = [replace(r, name=r.name + " wgmma", config=WGMMA, arch="sm_90a") for r in ROWS]


def rows_for(arch: str) -> list[Row]:
    """The table rows on a GPU of ``arch``: mma.sync everywhere, wgmma too on Hopper."""
    return ROWS + (WGMMA_ROWS if arch in ("sm_90", "sm_90a") else [])


def mma_sync_arch(arch: str) -> str:
    """The architecture the mma.sync rows compile for on a GPU of ``arch`` (sm_90a has wgmma)."""
    return "sm_90" if arch == "sm_90a" else arch

#: Candidate configurations of ``--autotune`` (default code generation): the rows run in
#: the one that is fastest at fp16 4096^3 NN.
CANDIDATES = [Config(128, 256, 32, 8, 4), Config(128, 256, 32, 16, 4), Config(128, 256, 64, 8, 3)]

#: Configurations tried by ``--sweep`` (fp16 4096^3, row-major).
SWEEP = [Config(128, 256, 32, 8, 4), Config(128, 256, 64, 8, 3), Config(256, 128, 32, 8, 4),
         Config(128, 128, 32, 4, 4), Config(128, 256, 64, 8, 4), Config(128, 128, 64, 4, 4), Config(128, 128, 64, 8, 4),
         Config(256, 128, 64, 8, 3)]

TYPE_MACRO = {"float16": "half", "bfloat16": "bfloat16"}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def round_up(x: int, m: int = 8) -> int:
    return cdiv(x, m) * m


def load_module(name: str, source, options: CompileOptions, outdir: Path):
    """Import the generated launcher module ``name`` of ``source`` compiled with ``options``:
    from ``$TRITONC_PREBUILT/<name>.py`` when that exists (modules built on another machine
    by ``--prebuild``, for a GPU machine without the compiler's dependencies), else compiled
    now. Returns ``(module, seconds spent compiling)``."""
    t0 = time.perf_counter()
    prebuilt = os.environ.get("TRITONC_PREBUILT")
    if prebuilt and (Path(prebuilt) / f"{name}.py").exists():
        text = (Path(prebuilt) / f"{name}.py").read_text()
    else:
        text = Compilation(source, options).python_module
    seconds = time.perf_counter() - t0
    path = outdir / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, seconds


def row_options(row: Row, arch: str) -> tuple[str, CompileOptions]:
    """The module name and compile options of ``row``'s kernel."""
    c = row.config
    defines = {"TYPE": TYPE_MACRO[row.dtype], "A_COL": str(int(row.a_col)), "B_COL": str(int(row.b_col)),
               "GROUP_M": str(c.group_m)}
    options = CompileOptions(defines=defines, tune={"TM": [c.tm], "TN": [c.tn], "TK": [c.tk]},
                             num_warps=c.num_warps, num_stages=c.num_stages, arch=arch)
    name = f"mm_{row.dtype}_{row.layout}_{c.tm}_{c.tn}_{c.tk}_{c.num_warps}_{c.num_stages}_{c.group_m}_{arch}"
    return name, options


def compile_row(row: Row, arch: str, outdir: Path):
    """The generated launcher module of ``row``'s kernel (and the compile time)."""
    name, options = row_options(row, row.arch or arch)
    return load_module(name, KERNEL, options, outdir)


def make_inputs(torch, row: Row, seed: int | None = None, guard: int = 64):
    """Random A, B (padded storage, logical views) and a NaN-poisoned C with a guard region."""
    M, N, K = row.size
    dt = getattr(torch, row.dtype)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed if seed is not None else int(time.time_ns() % (1 << 31)))
    if row.a_col:
        a_store = torch.randn(K, round_up(M), device="cuda", generator=gen).to(dt)
        a = a_store[:, :M].t()
    else:
        a_store = torch.randn(M, round_up(K), device="cuda", generator=gen).to(dt)
        a = a_store[:, :K]
    if row.b_col:
        b_store = torch.randn(N, round_up(K), device="cuda", generator=gen).to(dt)
        b = b_store[:, :K].t()
    else:
        b_store = torch.randn(K, round_up(N), device="cuda", generator=gen).to(dt)
        b = b_store[:, :N]
    ldc = round_up(N)
    c_buf = torch.full((M * ldc + guard,), float("nan"), device="cuda", dtype=dt)
    c_store = c_buf[:M * ldc].view(M, ldc)
    return dict(a=a, b=b, a_store=a_store, b_store=b_store, c=c_store[:, :N], c_store=c_store, c_buf=c_buf,
                guard=guard)


def run_tritonc(mod, row: Row, t) -> None:
    M, N, K = row.size
    c = row.config
    mod.matmul(t["a_store"], t["b_store"], t["c_store"], M, N, K, t["a_store"].stride(0), t["b_store"].stride(0),
               t["c_store"].stride(0), grid=(cdiv(M, c.tm) * cdiv(N, c.tn),))


def run_torch(torch, t) -> None:
    torch.matmul(t["a"], t["b"])


def run_triton(t) -> None:
    import triton_ref
    triton_ref.matmul_strided(t["c"], t["a"], t["b"], 128, 256, 64, num_warps=8, num_stages=4)


def check(torch, mod, row: Row, seed: int | None = None) -> tuple[bool, float, str]:
    """Run once on fresh inputs; ``(ok, relative error, message)``."""
    t = make_inputs(torch, row, seed)
    run_tritonc(mod, row, t)
    torch.cuda.synchronize()
    got = t["c"].double()
    ref = t["a"].double() @ t["b"].double()
    if not torch.isfinite(got).all():
        return False, math.inf, "unwritten or non-finite outputs"
    if not torch.isnan(t["c_buf"][-t["guard"]:]).all():
        return False, math.inf, "wrote past the end of C"
    if row.size[1] != t["c_store"].shape[1] and not torch.isnan(t["c_store"][:, row.size[1]:]).all():
        return False, math.inf, "wrote into the padding of C"
    err = ((got - ref).norm() / ref.norm()).item()
    return err < 1e-2, err, "" if err < 1e-2 else f"relative error {err:.3g}"


def bench_row(torch, mod, row: Row, sides=("tritonc", "torch", "triton")) -> dict:
    from triton.testing import do_bench

    t = make_inputs(torch, row)
    out = {}
    fns = {"tritonc": lambda: run_tritonc(mod, row, t), "torch": lambda: run_torch(torch, t),
           "triton": lambda: run_triton(t)}
    for which, fn in ((s, fns[s]) for s in sides):
        try:
            fn()
            torch.cuda.synchronize()
            out[which] = do_bench(fn, warmup=100, rep=500, return_mode="median")
        except Exception as e:  # a reference that cannot run is reported, not fatal
            print(f"  ({row.name}: {which} failed: {type(e).__name__}: {e})", file=sys.stderr)
            out[which] = None
    return out


def tflops(row: Row, ms: float | None) -> str:
    if not ms:
        return "-"
    M, N, K = row.size
    return f"{2 * M * N * K / (ms * 1e-3) / 1e12:.0f}"


def bench_row_factories(bench_row_class) -> list:
    """``make bench`` rows (``tritonc.tools.bench``'s ``Row``) for :data:`ROWS`: each compiles
    ``benchmarks/kernels/matmul.tri`` in the row's configuration and reports TFLOP/s."""
    factories = []
    for row in ROWS + WGMMA_ROWS:
        def factory(torch, row=row):
            if row.arch == "sm_90a" and torch.cuda.get_device_capability() != (9, 0):
                return None  # wgmma rows only on Hopper
            M, N, K = row.size

            def make():
                t = make_inputs(torch, row)
                t["bufs"] = [t["c_buf"]] if t["c_store"].shape[1] == N else []
                return t

            def run(which, mod, t):
                if which == "tritonc":
                    run_tritonc(mod, row, t)
                    return [t["c"]]
                if which == "torch":
                    return [torch.matmul(t["a"], t["b"])]
                run_triton(t)
                return [t["c"]]

            def compile_(arch, row=row):
                with tempfile.TemporaryDirectory() as tmp:
                    mod, seconds = compile_row(row, mma_sync_arch(arch), Path(tmp))
                return mod, None, seconds

            esize = 2
            return bench_row_class(f"matmul {row.name}", f"{M}x{N}x{K} {row.config}", make, run,
                                   lambda t: [t["a"].double() @ t["b"].double()],
                                   esize * (M * K + K * N + M * N), "matmul", {}, row.config.num_warps, tol=1e-2,
                                   flops=2 * M * N * K, compile=compile_)
        factories.append(factory)
    return factories


PEAK_KERNEL = ROOT / "benchmarks" / "kernels" / "mma_peak.tri"


def peak_options(dtype: str, arch: str, tile=(128, 256, 64), num_warps: int = 8) -> tuple[str, CompileOptions]:
    tm, tn, tk = tile
    options = CompileOptions(defines={"TYPE": TYPE_MACRO[dtype]}, tune={"TM": [tm], "TN": [tn], "TK": [tk]},
                             num_warps=num_warps, arch=arch)
    return f"mma_peak_{dtype}_{tm}_{tn}_{tk}_{num_warps}_{arch}", options


#: Tile configurations of the GPU tests (tests/gpu/test_mma_gpu.py).
TEST_CONFIGS = [
    Config(64, 64, 32, 4, 3), Config(32, 32, 32, 1, 2), Config(128, 128, 32, 8, 4), Config(128, 256, 64, 8, 3),
    Config(64, 128, 64, 4, 1), Config(128, 128, 64, 8, 2), Config(128, 256, 32, 8, 4),
]


def test_cases() -> list[tuple[Config, str, bool, bool]]:
    """``(config, dtype, a_col, b_col)`` of the GPU tests: half of the cross product."""
    cases = []
    for i, cfg in enumerate(TEST_CONFIGS):
        for dtype in ("float16", "bfloat16"):
            for a_col, b_col in ((False, False), (True, False), (False, True), (True, True)):
                if (i + a_col + 2 * b_col + (dtype == "bfloat16")) % 2 == 0:
                    cases.append((cfg, dtype, a_col, b_col))
    return cases


#: Problem sizes of the GPU tests: ragged, K shorter than a 4-stage prologue, one row.
TEST_SIZES = [(333, 517, 250), (100, 70, 40), (64, 64, 16), (1, 8, 1000)]


def run_tests(torch, arch: str, outdir: Path) -> int:
    """The GPU tests without pytest (same cases as tests/gpu/test_mma_gpu.py); returns failures."""
    failures = 0
    for cfg, dtype, a_col, b_col in test_cases():
        row = Row("test", dtype, a_col, b_col, TEST_SIZES[0], cfg)
        tag = f"{dtype} {row.layout} {cfg}"
        try:
            mod, _ = compile_row(row, arch, outdir)
        except Exception as e:
            print(f"test {tag}: FAIL compile {type(e).__name__}: {str(e)[:300]}", flush=True)
            failures += 1
            continue
        worst, bad = 0.0, []
        for size in TEST_SIZES:
            for seed in (0, 1):
                try:
                    ok, err, msg = check(torch, mod, Row("test", dtype, a_col, b_col, size, cfg), seed=seed)
                except Exception as e:
                    ok, err, msg = False, math.inf, f"{type(e).__name__}: {str(e)[:200]}"
                worst = max(worst, err)
                if not ok:
                    bad.append(f"{size}/{seed}: {msg}")
        failures += bool(bad)
        print(f"test {tag}: {'ok' if not bad else 'FAIL ' + '; '.join(bad[:3])} (worst {worst:.1e})", flush=True)
    splitk = CompileOptions(defines={"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "SPLITK": "4", "GROUP_M": "8"},
                            arch=arch, num_warps=4)
    mod, _ = load_module(f"splitk_matmul_{arch}", ROOT / "examples" / "splitk_matmul.tri", splitk, outdir)
    for M, N, K in [(33, 8, 1000), (1001, 776, 550), (100, 200, 3001)]:
        a = torch.randn(M, round_up(K), device="cuda").half()[:, :K]
        b = torch.randn(K, N, device="cuda").half()
        c = torch.zeros((M, N), device="cuda", dtype=torch.float32)  # the caller zeroes C
        mod.splitk_matmul(a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        err = ((c.double() - ref).norm() / ref.norm()).item() if torch.isfinite(c).all() else math.inf
        ok = err < 1e-2
        failures += not ok
        print(f"test splitk_matmul {M}x{N}x{K}: {'ok' if ok else 'FAIL'} (error {err:.1e})", flush=True)
    return failures


#: ``--experiments``: (tag, code-generation options, configuration) of fp16 4096^3 NN variants.
#: The options are :class:`~tritonc.options.CodegenOptions` (``tritonc -f`` flags):
#: ``fragment_prefetch``, ``slice_prefetch`` (mma.sync), ``wgmma_in_flight``,
#: ``wgmma_copies_after_dot``, ``wgmma_second_barrier`` (wgmma).
EXPERIMENTS = [
    # mma.sync (sm_90): the K-slice prefetch of 128x256x64 now that the cp.async source
    # addresses are formed at each copy (mad.wide.s32; ptxas: 254 registers, no spills)
    ("slice", CodegenOptions(slice_prefetch="on"), Config(128, 256, 64, 8, 3)),
    ("noslice", CodegenOptions(slice_prefetch="off"), Config(128, 256, 64, 8, 3)),
    ("auto", CodegenOptions(slice_prefetch="auto"), Config(128, 256, 32, 8, 4)),
    ("slice", CodegenOptions(slice_prefetch="on"), Config(128, 256, 64, 8, 4)),
]


def experiment_name(tag: str, cfg: Config, arch: str, what: str = "mm") -> str:
    return f"exp_{what}_{tag}_{cfg.tm}_{cfg.tn}_{cfg.tk}_{cfg.num_warps}_{cfg.num_stages}_{cfg.group_m}_{arch}"


def run_experiments(torch, arch: str, outdir: Path) -> None:
    """Time each of :data:`EXPERIMENTS` (prebuilt, or compiled with its flags) at fp16 4096^3
    and 8192^3."""
    for tag, codegen, cfg in EXPERIMENTS:
        row = Row("exp", "float16", False, False, (4096, 4096, 4096), cfg)
        name, options = row_options(row, arch)
        try:
            mod, _ = load_module(experiment_name(tag, cfg, arch), KERNEL, replace(options, codegen=codegen), outdir)
            ok, err, _ = check(torch, mod, row)
            ms = bench_row(torch, mod, row, sides=("tritonc",))["tritonc"] if ok else None
            big = Row("exp", "float16", False, False, (8192, 8192, 8192), cfg)
            ms8 = bench_row(torch, mod, big, sides=("tritonc",))["tritonc"] if ok else None
            print(f"experiment {tag} {cfg} g{cfg.group_m}: {'ok' if ok else 'FAIL'} 4096^3 {tflops(row, ms)} "
                  f"8192^3 {tflops(big, ms8)} TFLOP/s", flush=True)
        except Exception as e:
            print(f"experiment {tag} {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)


def prebuild(outdir: Path, arch: str = "sm_90") -> list[str]:
    """Write the launcher modules of every row, sweep configuration, test case and the peak
    kernel to ``outdir`` (for ``TRITONC_PREBUILT`` on a machine that cannot compile)."""
    outdir.mkdir(parents=True, exist_ok=True)
    jobs = [row_options(r, r.arch or arch) + (KERNEL,) for r in ROWS + WGMMA_ROWS]
    jobs += [row_options(replace(r, config=cfg), arch) + (KERNEL,) for r in ROWS for cfg in CANDIDATES]
    jobs += [row_options(Row("sweep", "float16", False, False, (4096,) * 3, cfg), arch) + (KERNEL,) for cfg in SWEEP]
    jobs += [row_options(Row("test", dt, a, b, (1, 1, 1), cfg), arch) + (KERNEL,) for cfg, dt, a, b in test_cases()]
    jobs += [peak_options(dt, arch) + (PEAK_KERNEL,) for dt in ("float16", "bfloat16")]
    jobs += [peak_options("float16", arch, num_warps=16) + (PEAK_KERNEL,)]
    splitk = CompileOptions(defines={"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "SPLITK": "4", "GROUP_M": "8"},
                            arch=arch, num_warps=4)
    jobs += [(f"splitk_matmul_{arch}", splitk, ROOT / "examples" / "splitk_matmul.tri")]
    for tag, codegen, cfg in EXPERIMENTS:
        name, options = row_options(Row("exp", "float16", False, False, (4096,) * 3, cfg), arch)
        jobs.append((experiment_name(tag, cfg, arch), replace(options, codegen=codegen), KERNEL))
    written = []
    for name, options, source in jobs:
        path = outdir / f"{name}.py"
        if not path.exists():
            t0 = time.perf_counter()
            path.write_text(Compilation(source, options).python_module)
            print(f"  {name}: {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
        written.append(name)
    return written


def mma_peak(torch, arch: str, outdir: Path, dtype: str = "float16", tile=(128, 256, 64), num_warps: int = 8,
             iters: int = 4096, module_name: str | None = None) -> float:
    """TFLOP/s of ``benchmarks/kernels/mma_peak.tri``: ldmatrix + mma.sync from shared memory,
    no global memory in the loop; 4 programs per SM."""
    from triton.testing import do_bench

    tm, tn, tk = tile
    name, options = peak_options(dtype, arch, tile, num_warps)
    mod, _ = load_module(module_name or name, PEAK_KERNEL, options, outdir)
    programs = 4 * torch.cuda.get_device_properties(0).multi_processor_count
    dt = getattr(torch, dtype)
    a = torch.randn(tm, tk, device="cuda").to(dt)
    b = torch.randn(tk, tn, device="cuda").to(dt)
    c = torch.empty(programs * tm * tn, device="cuda")
    mod.mma_peak(a, b, c, 1, grid=programs)
    torch.cuda.synchronize()
    want = (a.double() @ b.double()).float()
    got = c[:tm * tn].view(tm, tn)
    if not torch.allclose(got, want, rtol=1e-2, atol=1e-2):
        print("  (mma_peak: wrong result)", file=sys.stderr)
    ms = do_bench(lambda: mod.mma_peak(a, b, c, iters, grid=programs), warmup=100, rep=500, return_mode="median")
    return programs * iters * 2 * tm * tn * tk / (ms * 1e-3) / 1e12


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", default="", help="comma-separated row names (default: all)")
    p.add_argument("--quick", action="store_true", help="check only, no timing")
    p.add_argument("--peak", action="store_true", help="also measure the mma.sync ceiling (mma_peak.tri)")
    p.add_argument("--sweep", action="store_true", help="also time fp16 4096^3 in each of SWEEP's configurations")
    p.add_argument("--prebuild", metavar="DIR", help="only write every launcher module to DIR (no GPU needed)")
    p.add_argument("--test", action="store_true", help="first run the GPU test cases (tests/gpu/test_mma_gpu.py)")
    p.add_argument("--no-rows", action="store_true", help="skip the table rows")
    p.add_argument("--experiments", action="store_true", help="also time the EXPERIMENTS variants")
    p.add_argument("--autotune", action="store_true", help="run the rows in the fastest of CANDIDATES")
    p.add_argument("--arch", help="target architecture (default: the GPU's; sm_90a: wgmma on Hopper)")
    args = p.parse_args(argv)
    if args.prebuild:
        print(f"{len(prebuild(Path(args.prebuild), args.arch or 'sm_90'))} modules in {args.prebuild}")
        return 0
    import torch
    import triton

    major, minor = torch.cuda.get_device_capability()
    arch = args.arch or (f"sm_{major}{minor}" if f"sm_{major}{minor}" in ("sm_80", "sm_86", "sm_89", "sm_90") else "sm_80")
    rows = [] if args.no_rows else [r for r in rows_for(arch) if not args.rows or r.name in args.rows.split(",")]
    print(f"bench_matmul: {torch.cuda.get_device_name()} ({arch}), torch {torch.__version__}, triton {triton.__version__}")
    lines = ["| row | M x N x K | config | check | rel err | tritonc ms | cuBLAS ms | Triton ms | tritonc TFLOP/s "
             "| cuBLAS TFLOP/s | Triton TFLOP/s | vs cuBLAS | vs Triton |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.test:
            failed += run_tests(torch, arch, Path(tmp))
        for row in rows:
            try:
                mod, secs = compile_row(row, arch, Path(tmp))
                ok, err, msg = check(torch, mod, row)
            except Exception as e:
                mod, secs, ok, err, msg = None, 0.0, False, math.inf, f"{type(e).__name__}: {str(e)[:300]}"
            failed += not ok
            times = {} if args.quick or not ok else bench_row(torch, mod, row)
            tc, tt, tr = times.get("tritonc"), times.get("torch"), times.get("triton")
            ratio = lambda ref: f"{ref / tc:.2f}" if tc and ref else "-"  # noqa: E731
            ms = lambda x: f"{x:.3f}" if x else "-"  # noqa: E731
            lines.append(f"| {row.name} | {'x'.join(map(str, row.size))} | {row.config} | {'ok' if ok else 'FAIL'} "
                         f"| {err:.1e} | {ms(tc)} | {ms(tt)} | {ms(tr)} | {tflops(row, tc)} | {tflops(row, tt)} "
                         f"| {tflops(row, tr)} | {ratio(tt)} | {ratio(tr)} |")
            print(f"  {row.name}: compiled in {secs:.1f}s, {'ok' if ok else 'FAIL ' + msg}", file=sys.stderr, flush=True)
        if args.experiments:
            run_experiments(torch, arch, Path(tmp))
        if args.autotune and rows:
            best, best_ms = None, None
            for cfg in CANDIDATES:
                row = Row("autotune", "float16", False, False, (4096, 4096, 4096), cfg)
                try:
                    mod, _ = compile_row(row, arch, Path(tmp))
                    ok, _, _ = check(torch, mod, row)
                    ms = bench_row(torch, mod, row, sides=("tritonc",))["tritonc"] if ok else None
                except Exception as e:
                    ok, ms = False, None
                    print(f"autotune {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                print(f"autotune fp16 4096^3 {cfg}: {'ok' if ok else 'FAIL'} {tflops(row, ms)} TFLOP/s", flush=True)
                if ms and (best_ms is None or ms < best_ms):
                    best, best_ms = cfg, ms
            if best is not None:
                print(f"autotune: rows run in {best}", flush=True)
                rows = [replace(r, config=best) for r in rows]
        if args.sweep:
            for cfg in SWEEP:
                row = Row("sweep", "float16", False, False, (4096, 4096, 4096), cfg)
                try:
                    mod, _ = compile_row(row, arch, Path(tmp))
                    ok, err, _ = check(torch, mod, row)
                    ms = bench_row(torch, mod, row, sides=("tritonc",))["tritonc"] if ok else None
                    print(f"sweep fp16 4096^3 {cfg}: {'ok' if ok else 'FAIL'} {tflops(row, ms)} TFLOP/s", flush=True)
                except Exception as e:
                    print(f"sweep fp16 4096^3 {cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
        if args.peak:
            for dt in ("float16", "bfloat16"):
                print(f"mma.sync ceiling ({dt}, ldmatrix + mma from shared memory, 128x256x64 tile, 8 warps): "
                      f"{mma_peak(torch, arch, Path(tmp), dt):.0f} TFLOP/s", flush=True)
            print(f"mma.sync ceiling (float16, 128x256x64 tile, 16 warps): "
                  f"{mma_peak(torch, arch, Path(tmp), 'float16', num_warps=16):.0f} TFLOP/s", flush=True)
    print("\n".join(lines))
    print("'vs cuBLAS' / 'vs Triton': their time over tritonc's (above 1 means tritonc is faster).")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
