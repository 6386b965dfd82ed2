"""``make bench``: memory-bound kernels against torch and OpenAI Triton, one table, one run.

Each row compiles one example kernel with tritonc for the local GPU, checks it once at the
bench size (random inputs, outputs poisoned first, compared with a float64 torch reference:
``gpu_check.rel_error``), then times the tritonc kernel, the torch equivalent and the same
kernel written in Triton (``benchmarks/triton_ref.py``, same blocking and ``num_warps``) with
``triton.testing.do_bench`` (median; under 50 µs the median of CUDA-graph replays,
``gpu_check.median_ms``; each side timed in ``ROUNDS`` alternating rounds and the
best median kept, so a clock ramp or a neighbour's burst does not decide a ratio). The first
row measures the device copy bandwidth (``torch`` copy of a 2 GiB buffer, bytes read plus
written) in the same run: the floor of every memory-bound row is its bytes over that rate.

Columns: GB/s count each input read once and each output written once; ``vs triton`` is
Triton's time over tritonc's (at least 0.95 is the goal), ``vs copy`` tritonc's GB/s over the
copy's. Rows are made by the factories in :data:`ROWS`; add a factory to add a row (the
tensor-core rows go there too: a row with ``flops`` reports TFLOP/s).

``--experiments`` adds rows that time a kernel again with a code-generation choice switched
(``Row.flags``: ``tritonc -f`` flags, :class:`~tritonc.options.CodegenOptions`), softmax at
``-D BLOCK=N`` (the row in one tile): softmax with
IEEE ``div.rn.f32`` for ``/`` (``-ff32-division=rn``), to show what it costs; softmax
4096x16384 with plain ``ld.global`` instead of ``.nc`` (``-fno-read-only-cache``), with
Triton's uncorrected ``exp`` (``-fexp-uncorrected``, not accurate enough for the spec), with
``ex2.approx`` without ``.ftz`` in ``exp`` (``-fno-exp-ftz``: subnormal results kept), with ``.cg`` /
``.L1::no_allocate`` loads (``-fload-cache-op=cg`` / ``-fload-eviction=L1::no_allocate``) and
without the ``.minnctapersm 2`` occupancy hint (``-fno-occupancy-hint``), to find what costs
there (``benchmarks/RESULTS.md``, 2026-11-21: the hint is what mattered).

Needs torch, triton and a GPU; exit status 1 if a check failed.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tritonc.options import parse_codegen_flags
from tritonc.tools.gpu_cases import case_named, cdiv, poison
from tritonc.tools.gpu_check import load_launcher, local_arch, rel_error

#: Timed rounds per implementation (alternating); the best median is reported.
ROUNDS = 2


@dataclass
class Row:
    """One table row: ``make(torch)`` returns the inputs; ``run(which, mod, a)`` launches
    ``"tritonc"``, ``"torch"`` or ``"triton"`` and returns the output tensors;
    ``reference(a)`` computes the expected outputs in float64; ``nbytes`` (and ``flops``)
    are the work for the rate columns. ``example``/``defines``/``num_warps`` say what tritonc
    compiles (``example`` None: no tritonc kernel, as for the copy row)."""

    name: str
    size: str
    make: Callable
    run: Callable
    reference: Callable | None
    nbytes: int
    example: str | None = None
    defines: dict[str, str] = field(default_factory=dict)
    #: None: the CLI's own choice (``--num-warps auto``)
    num_warps: int | None = None
    tol: float = 1e-5
    flops: int = 0
    tune: dict = field(default_factory=dict)
    #: ``tritonc -f`` flags, without the ``-f``, this row is compiled with (experiments).
    flags: tuple[str, ...] = ()
    #: ``compile(arch) -> (module, compilation, seconds)`` for a kernel that is not an example
    #: (the tensor-core matmul rows of ``bench_matmul``); None: ``gpu_check.load_launcher``.
    compile: Callable | None = None


def _triton_ref():
    import triton_ref
    return triton_ref


# ---- rows -------------------------------------------------------------------------------

def copy_row(torch) -> Row:
    n = 1 << 29  # 2 GiB of fp32

    def make():
        return dict(x=torch.randn(n, device="cuda"), y=torch.empty(n, device="cuda"))

    def run(which, mod, a):
        if which == "torch":
            a["y"].copy_(a["x"])
            return [a["y"]]
        return None

    return Row("device copy", f"{n} fp32", make, run, None, 2 * 4 * n)


def vector_add_row(torch) -> Row:
    n = 1 << 28

    def make():
        z, zbuf = poison(torch, (n,), torch.float32)
        return dict(x=torch.randn(n, device="cuda"), y=torch.randn(n, device="cuda"), z=z, bufs=[zbuf])

    def run(which, mod, a):
        if which == "tritonc":
            mod.vector_add(a["z"], a["x"], a["y"], n)  # the declared grid
        elif which == "torch":
            torch.add(a["x"], a["y"], out=a["z"])
        else:
            _triton_ref().vector_add(a["z"], a["x"], a["y"], 1024)
        return [a["z"]]

    return Row("vector_add", f"2^28 fp32", make, run, lambda a: [a["x"].double() + a["y"].double()],
               3 * 4 * n, "vector_add", {})  # no -D: the file's BLOCK, 1024


def softmax_warps(block: int) -> int:
    """Warps for a one-row softmax of ``block`` columns (Triton's tutorial: 4, 8 from 2048
    columns, 16 from 4096)."""
    return 16 if block >= 4096 else 8 if block >= 2048 else 4


def softmax_row(torch, m: int, n: int, div_rn: bool = False, no_nc: bool = False, fast_exp: bool = False,
                no_exp_ftz: bool = False, cache_op: str = "", eviction: str = "", no_hint: bool = False,
                one_tile: bool = False) -> Row:
    """``examples/softmax.tri`` on ``m`` rows of ``n`` floats: the default build (no -D, the
    CLI's BLOCK and warps, the declared grid), or with ``one_tile`` at ``-D BLOCK=n`` and
    :func:`softmax_warps` (the row in one tile, as the experiments study it). Triton's kernel
    always takes the row in one tile of ``n`` at :func:`softmax_warps` (its tutorial's choice)."""
    flags = (("f32-division=rn",) if div_rn else ()) + (("no-read-only-cache",) if no_nc else ()) + \
            (("exp-uncorrected",) if fast_exp else ()) + (("no-exp-ftz",) if no_exp_ftz else ()) + \
            ((f"load-cache-op={cache_op}",) if cache_op else ()) + \
            ((f"load-eviction={eviction}",) if eviction else ()) + (("no-occupancy-hint",) if no_hint else ())
    warps = softmax_warps(n)

    def make():
        y, ybuf = poison(torch, (m, n), torch.float32)
        return dict(x=torch.randn(m, n, device="cuda"), y=y, bufs=[ybuf])

    def run(which, mod, a):
        x, y = a["x"], a["y"]
        if which == "tritonc":
            mod.softmax(y, x, y.stride(0), x.stride(0), n, m)  # the declared grid
        elif which == "torch":
            torch.softmax(x, dim=1, out=y)
        else:
            _triton_ref().softmax(y, x, n, num_warps=warps)
        return [y]

    name = "softmax" + (" div.rn" if div_rn else "") + (" no-nc" if no_nc else "") + (" fast-exp" if fast_exp else "") + \
        (" no-exp-ftz" if no_exp_ftz else "") + (f" {cache_op}" if cache_op else "") + \
        (f" {eviction.replace('L1::', '')}" if eviction else "") + (" no-hint" if no_hint else "")
    return Row(name, f"{m}x{n} fp32", make, run, lambda a: [torch.softmax(a["x"].double(), 1)],
               2 * 4 * m * n, "softmax", {"BLOCK": str(n)} if one_tile else {}, warps if one_tile else None,
               tol=1e-5, flags=flags)


def transpose_row(torch) -> Row:
    m = n = 8192

    def make():
        out, obuf = poison(torch, (n, m), torch.float32)
        return dict(x=torch.randn(m, n, device="cuda"), out=out, bufs=[obuf])

    def run(which, mod, a):
        x, out = a["x"], a["out"]
        if which == "tritonc":
            mod.transpose(out, x, m, n, x.stride(0), out.stride(0))
        elif which == "torch":
            out.copy_(x.t())
        else:
            meta = mod.transpose.meta
            _triton_ref().transpose(out, x, meta["TM"], meta["TN"], meta["num_warps"])
        return [out]

    return Row("transpose", f"{m}x{n} fp32", make, run, lambda a: [a["x"].t()], 2 * 4 * m * n, "transpose",
               {}, tol=0.0)


def matmul_default_build_row(torch) -> Row:
    """``examples/matmul.tri`` compiled exactly as ``tritonc examples/matmul.tri -o matmul.cubin``
    (no option: the cost model's tile, warps and stages for the GPU), launched on its declared
    grid; 4096^3 fp16 against cuBLAS (torch) and the same kernel in Triton with the same
    meta-parameters (issue 13's acceptance row)."""
    m = n = k = 4096

    def make():
        c, cbuf = poison(torch, (m, n), torch.float16)
        return dict(a=torch.randn(m, k, device="cuda", dtype=torch.float16),
                    b=torch.randn(k, n, device="cuda", dtype=torch.float16), c=c, bufs=[cbuf])

    def run(which, mod, t):
        a, b, c = t["a"], t["b"], t["c"]
        if which == "tritonc":
            mod.matmul(a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
        elif which == "torch":
            torch.matmul(a, b, out=c)
        else:
            meta = mod.matmul.meta
            _triton_ref().matmul(c, a, b, meta["TM"], meta["TN"], meta["TK"], meta["num_warps"], meta["num_stages"])
        return [c]

    return Row("matmul default build", f"{m}x{n}x{k} fp16", make, run,
               lambda t: [t["a"].double() @ t["b"].double()], 2 * (m * k + k * n + m * n), "matmul", {},
               tol=1e-2, flops=2 * m * n * k)


def case_row(case_name: str, label: str | None = None, size: tuple | None = None) -> Callable:
    """A row factory from the ``make gpu-check`` case ``case_name`` (``gpu_cases.case_named``): the case's
    inputs, launches and float64 reference at its ``bench_size`` (or ``size``), compiled as the
    case is (no -D or warps for the memory-bound examples: the CLI's own choices, launched on the
    declared grid); bytes are the case's ``work`` (each input read once, each output written
    once). The torch side's outputs are not checked (it may return other tensors)."""
    def factory(torch) -> Row:
        case = case_named(case_name)
        at = size or case.bench_size

        def make():
            return case.inputs(torch, at)

        def run(which, mod, a):
            return case.run(mod, torch, a, which)

        nbytes, flops = case.work(at)
        return Row(label or case.name, "x".join(map(str, at)), make, run, lambda a: case.reference(torch, a),
                   nbytes, case.example, dict(case.defines), case.num_warps, tol=case.tol, tune=dict(case.tune),
                   flops=0 if nbytes else flops)

    return factory


#: Row factories, in table order: ``factory(torch) -> Row`` (the matmul rows go at the end).
ROWS: list[Callable] = [
    copy_row,
    vector_add_row,
    lambda torch: softmax_row(torch, 4096, 1024),
    lambda torch: softmax_row(torch, 4096, 4096),
    lambda torch: softmax_row(torch, 16384, 2048),
    lambda torch: softmax_row(torch, 4096, 16384),
    case_row("layernorm", "layernorm fwd"),
    transpose_row,
    case_row("row_sum"),
    case_row("col_sum"),
    case_row("layernorm_bwd"),
    case_row("rmsnorm_fwd"),
    case_row("rmsnorm_bwd"),
    case_row("softmax_bwd"),
    case_row("cross_entropy_forward"),
    case_row("cross_entropy_backward"),
    case_row("dropout"),
    case_row("batchnorm"),
    matmul_default_build_row,
]

def _matmul_rows() -> list[Callable]:
    from tritonc.tools.bench_matmul import bench_row_factories
    return bench_row_factories(Row)


ROWS += _matmul_rows()


def _attention_rows(experiments: bool = False) -> list[Callable]:
    from tritonc.tools import bench_attention
    return (bench_attention.experiment_row_factories if experiments else bench_attention.bench_row_factories)(Row)


ROWS += _attention_rows()

#: Extra rows for ``--experiments``.
EXPERIMENT_ROWS: list[Callable] = [
    lambda torch: softmax_row(torch, 4096, 4096, div_rn=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, div_rn=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_nc=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, fast_exp=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_nc=True, fast_exp=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_exp_ftz=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_nc=True, cache_op="cg", one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, eviction="L1::no_allocate", one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_nc=True, eviction="L1::no_allocate", one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_hint=True, one_tile=True),
    lambda torch: softmax_row(torch, 4096, 16384, no_nc=True, no_exp_ftz=True, one_tile=True),
]
EXPERIMENT_ROWS += _attention_rows(experiments=True)


# ---- machinery --------------------------------------------------------------------------

def with_overrides(row: Row, flags: tuple[str, ...], num_warps: int | None) -> Row:
    """``row`` with ``bench --flags`` / ``--num-warps`` applied (its name says so): the flags to
    every row compiled through :func:`compile_row`'s launcher, the warps to the memory-bound
    ones among them. Rows with a compile function of their own (attention) are left as they are."""
    if row.example is None or row.compile is not None:
        return row
    if flags:
        row = dataclasses.replace(row, name=f"{row.name} " + " ".join(f"-f{f}" for f in flags),
                                  flags=row.flags + flags)
    if num_warps and not row.flops:
        row = dataclasses.replace(row, name=f"{row.name} -w{num_warps}", num_warps=num_warps)
    return row


def compile_row(row: Row, arch: str):
    """Compile and import ``row``'s tritonc kernel (``gpu_check.load_launcher``)."""
    if row.compile is not None:
        return row.compile(arch)
    outdir = Path(tempfile.mkdtemp(prefix="tritonc-bench-"))
    return load_launcher(row, arch, outdir, codegen=parse_codegen_flags(row.flags))


def check(row: Row, mod, torch) -> tuple[bool, float, str]:
    a = row.make()
    got = row.run("tritonc", mod, a)
    torch.cuda.synchronize()
    want = row.reference(a)
    worst = 0.0
    for g, w in zip(got, want):
        err = rel_error(torch, g, w)
        worst = max(worst, err)
        if err > row.tol:
            return False, err, f"max error {err:.3g}"
    for buf, out in zip(a.get("bufs", []), got):
        tail = buf[out.numel():]
        if not torch.isnan(tail).all():
            return False, worst, "wrote past the end of an output"
    return True, worst, ""


def _timing(row: Row) -> tuple[int, int]:
    """``(warm-up, repetition)`` milliseconds for ``do_bench``. Tensor-core rows run 200 ms
    warm and 500 ms timed: an H100 at full tensor load lowers its clock within ~100 ms (power
    limit), and a side timed inside that window would be measured at boost clock while the
    next is measured throttled (2026-11-24: cuBLAS 4096^3 read 0.182 ms with 25/100 and
    0.199 ms sustained, in the same session)."""
    return (200, 500) if row.flops else (25, 100)


def time_rows(row: Row, mod, torch, sides: list[str]) -> dict[str, float | None]:
    from tritonc.tools.gpu_check import median_ms

    a = row.make()
    best: dict[str, float | None] = {s: None for s in sides}
    for _ in range(ROUNDS):
        for side in sides:
            try:
                row.run(side, mod, a)  # warm-up (compiles Triton's kernel on first use)
                torch.cuda.synchronize()
                ms = median_ms(lambda: row.run(side, mod, a), torch, *_timing(row))
            except Exception as e:  # a reference that cannot run is reported, not fatal
                print(f"  ({row.name} {row.size}: {side} failed: {type(e).__name__}: {str(e)[:200]})",
                      file=sys.stderr)
                continue
            best[side] = ms if best[side] is None else min(best[side], ms)
    del a
    return best


def _rate(row: Row, ms: float | None) -> str:
    if not ms:
        return "-"
    if row.flops:
        return f"{row.flops / ms / 1e9:.1f} TFLOP/s"
    return f"{row.nbytes / ms / 1e6:.0f} GB/s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="row names to run (the copy row always runs)")
    parser.add_argument("--experiments", action="store_true",
                        help="also time rows with code-generation choices switched (IEEE division, no .nc, fast exp)")
    parser.add_argument("--flags", nargs="*", default=[],
                        help="tritonc -f flags (without the -f) added to every tritonc row, e.g. load-prefetch=L2::256B")
    parser.add_argument("--num-warps", type=int, default=None,
                        help="compile every memory-bound tritonc row at this many warps (a study of the warps rule)")
    args = parser.parse_args(argv)
    parse_codegen_flags(tuple(args.flags))  # a bad flag is an error now, not in every row
    import torch

    if not torch.cuda.is_available():
        print("bench: no GPU visible to torch", file=sys.stderr)
        return 2
    import triton

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    arch = local_arch(torch)
    torch.manual_seed(0)
    print(f"bench: {torch.cuda.get_device_name()} ({arch}), torch {torch.__version__}, triton {triton.__version__}, "
          f"{time.strftime('%Y-%m-%d')}", flush=True)
    factories = ROWS + (EXPERIMENT_ROWS if args.experiments else [])
    lines, failed, copy_gbs = [], 0, None
    for factory in factories:
        row = factory(torch)
        if row is None:  # not for this GPU
            continue
        if args.only and row.name not in args.only and row.example is not None:
            continue
        row = with_overrides(row, tuple(args.flags), args.num_warps)
        mod, ok, err, why, warps = None, True, 0.0, "", row.num_warps
        if row.example is not None:
            try:
                mod, comp, seconds = compile_row(row, arch)
                warps = getattr(comp, "num_warps", warps)  # what was compiled (auto: the CLI's choice)
                ok, err, why = check(row, mod, torch)
            except Exception as e:
                ok, err, why = False, float("nan"), f"{type(e).__name__}: {str(e)[:300]}"
        failed += not ok
        sides = ["torch"] if row.example is None else ["tritonc", "torch", "triton"]
        times = time_rows(row, mod, torch, sides) if ok else {}
        if row.example is None and times.get("torch"):
            copy_gbs = row.nbytes / times["torch"] / 1e6
        t_ms, tr_ms = times.get("tritonc"), times.get("triton")
        vs_triton = f"{tr_ms / t_ms:.2f}" if t_ms and tr_ms else "-"
        vs_torch = f"{times['torch'] / t_ms:.2f}" if t_ms and times.get("torch") and row.example else "-"
        vs_copy = f"{row.nbytes / t_ms / 1e6 / copy_gbs:.2f}" if t_ms and copy_gbs and not row.flops else "-"
        lines.append((row.name, row.size, warps if row.example else "-",
                      ("ok" if ok else "FAIL " + why) if row.example else "-",
                      f"{err:.1e}" if row.example else "-",
                      *(f"{times[s]:.4f}" if times.get(s) else "-" for s in ("tritonc", "torch", "triton")),
                      _rate(row, t_ms if row.example else times.get("torch")), _rate(row, tr_ms), vs_triton, vs_torch,
                      vs_copy))
        print(f"  {row.name} {row.size}: {lines[-1][3]} {lines[-1][5:]}", file=sys.stderr, flush=True)
    head = ("row", "size", "warps", "check", "max err", "tritonc ms", "torch ms", "triton ms",
            "tritonc rate", "triton rate", "vs triton", "vs torch", "vs copy")
    table = [head] + lines
    widths = [max(len(str(r[i])) for r in table) for i in range(len(head))]
    print()
    for i, r in enumerate(table):
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print("\nrates: bytes read once + written once over the median time (TFLOP/s for matmul rows); 'vs triton' / "
          "'vs torch': Triton's / torch's (cuBLAS for matmul) time over tritonc's; 'vs copy': tritonc's rate over "
          "the device copy's (first row), same run. Matmul rows marked wgmma are compiled for sm_90a, the others "
          "use mma.sync.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
