"""``python3 -m tritonc.tools.tune_compare``: tritonc-tune's dispatching launcher against the best
variant it measured, OpenAI Triton's ``@triton.autotune`` over the same configurations, and
cuBLAS, for ``examples/matmul.tri`` in fp16, in one process (issue 13's acceptance).

1. ``tritonc-tune`` (:func:`tritonc.tools.tune.run_tuner`) measures the variants of
   ``--tune TM=64,128 --tune TN=64,128,256 --tune TK=32,64 --num-warps 4,8 --num-stages 4``
   (:data:`SPACE`: 24 configurations before pruning; the pruned ones are listed) at
   4096x4096x4096, 512x512x16384 and 8192x8192x512 (:data:`SIZES`), keyed by ``M, N, K``.
2. ``tritonc examples/matmul.tri --tuning table.json --emit=py`` builds the dispatching module.
3. Each size is timed on torch tensors with one method for every side: the launch captured in
   a CUDA graph, each repetition after writing a 256 MiB buffer (an L2 flush), between two CUDA
   events; the median of :data:`REPS`. Sides: the dispatched ``matmul(...)``; the variant the
   table picked, launched by id; Triton's ``_matmul`` (``benchmarks/triton_ref.py``, the same
   kernel) under ``@triton.autotune`` over the surviving configurations; ``torch.matmul``.
4. Prints a markdown table (:func:`render`): microseconds, TFLOP/s, dispatched / best (the
   acceptance asks for at most 1.03) and each side against cuBLAS.

Needs a GPU, torch and triton (the tuner itself needs neither). ``--quick`` runs one size.
About 2-4 minutes on an H100 (most of it the output checks at 8192x8192).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "matmul.tri"
SPACE = {"tune": ["TM=64,128", "TN=64,128,256", "TK=32,64"], "num_warps": [4, 8], "num_stages": [4]}
SIZES = [(4096, 4096, 4096), (512, 512, 16384), (8192, 8192, 512)]
REPS = 50
FLUSH_BYTES = 256 << 20


def space_size() -> int:
    n = 1
    for t in SPACE["tune"]:
        n *= len(t.split("=")[1].split(","))
    return n * len(SPACE["num_warps"]) * len(SPACE["num_stages"])


def sizes_toml(sizes) -> str:
    """The sizes file for ``examples/matmul.tri`` (row-major fp16 operands)."""
    lines = ['key = ["M", "N", "K"]', ""]
    for m, n, k in sizes:
        lines += ["[[sizes]]", f"M = {m}", f"N = {n}", f"K = {k}", ""]
    lines += ["[args]",
              'A = { shape = ["M", "K"], dtype = "float16" }',
              'B = { shape = ["K", "N"], dtype = "float16" }',
              'C = { shape = ["M", "N"], dtype = "float16", init = "zeros" }',
              'lda = "K"', 'ldb = "N"', 'ldc = "N"']
    return "\n".join(lines) + "\n"


@dataclass
class Row:
    """One size's results (microseconds; None: not measured)."""

    size: tuple[int, int, int]
    picked: str = ""
    dispatched: float | None = None
    best: float | None = None
    tuner_best: float | None = None
    triton: float | None = None
    triton_config: str = ""
    cublas: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def flops(self) -> float:
        m, n, k = self.size
        return 2.0 * m * n * k


def _us(t: float | None) -> str:
    return "-" if t is None else f"{t:.1f}"


def _tflops(row: Row, t: float | None) -> str:
    return "-" if t is None else f"{row.flops / (t * 1e-6) / 1e12:.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a / b:.3f}"


def render(rows: list[Row], survivors: int, total: int, device: str) -> str:
    """The markdown report: one row per size."""
    out = [f"tritonc-tune on examples/matmul.tri, fp16, {device}: {total} configurations, {survivors} "
           "after pruning; median of CUDA-graph launches after an L2 flush (us).", "",
           "| M x N x K | tuned variant | dispatched us | best by id us | dispatched / best | tuner's us "
           "| Triton @autotune us (config) | cuBLAS us | dispatched TFLOP/s | cuBLAS / dispatched "
           "| cuBLAS / Triton |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        m, n, k = r.size
        out.append(f"| {m}x{n}x{k} | {r.picked} | {_us(r.dispatched)} | {_us(r.best)} | "
                   f"{_ratio(r.dispatched, r.best)} | {_us(r.tuner_best)} | {_us(r.triton)} ({r.triton_config}) | "
                   f"{_us(r.cublas)} | {_tflops(r, r.dispatched)} | {_ratio(r.cublas, r.dispatched)} | "
                   f"{_ratio(r.cublas, r.triton)} |")
    notes = [f"* {r.size[0]}x{r.size[1]}x{r.size[2]}: {note}" for r in rows for note in r.notes]
    if notes:
        out += [""] + notes
    return "\n".join(out) + "\n"


def parse_args(argv: list[str] | None):
    p = argparse.ArgumentParser(prog="python3 -m tritonc.tools.tune_compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="only the first size")
    p.add_argument("--reps", type=int, default=REPS, help="timed repetitions per side (median)")
    p.add_argument("--arch", default=None, help="target (default: the GPU's; sm_90a on sm_90)")
    p.add_argument("-j", "--jobs", type=int, default=None, help="processes compiling variants")
    p.add_argument("--keep", metavar="DIR", help="keep the sizes file, the table and the module in DIR")
    args = p.parse_args(argv)
    if args.reps < 1:
        p.error("--reps must be at least 1")
    return args


# ---------------------------------------------------------------------------------------------
# on the GPU


def time_graph(torch, fn, reps: int) -> float:
    """Median microseconds of ``fn()`` captured in a CUDA graph, each replay after an L2 flush."""
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    fn()
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # warm-up on the capture stream
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="relaxed"):  # cuda.core's launch sets the context
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(3):
        flush.fill_(i)
        graph.replay()
    for s, e in zip(starts, ends):
        flush.fill_(1)
        s.record()
        graph.replay()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1000.0 for s, e in zip(starts, ends))


def _device_arch(torch) -> str:
    major, minor = torch.cuda.get_device_capability(0)
    arch = f"sm_{major}{minor}"
    return "sm_90a" if arch == "sm_90" else arch


def _import(path: str, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import triton
    import triton_ref

    from tritonc import cli
    from tritonc.cli_args import parse_tune
    from tritonc.options import CompileOptions
    from tritonc.tools.tune import run_tuner

    arch = args.arch or _device_arch(torch)
    sizes = SIZES[:1] if args.quick else SIZES
    folder = args.keep or tempfile.mkdtemp(prefix="tritonc-tune-compare-")
    os.makedirs(folder, exist_ok=True)
    sizes_path, table_path = os.path.join(folder, "sizes.toml"), os.path.join(folder, "matmul.tuning.json")
    Path(sizes_path).write_text(sizes_toml(sizes))
    tune = dict(parse_tune(t) for t in SPACE["tune"])
    options = CompileOptions(tune=tune, arch=arch)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    run_tuner(str(SOURCE), sizes_path, table_path, None, options, SPACE["num_warps"], SPACE["num_stages"],
              args.jobs, True, 5, 30, True, log)
    table = json.loads(Path(table_path).read_text())["kernels"]["matmul"]
    variants = [v["meta"] for v in table["variants"]]

    module_path = os.path.join(folder, "matmul_tuned.py")
    tune_args = [a for t in SPACE["tune"] for a in ("--tune", t)]
    try:
        cli.tritonc.main([str(SOURCE), "--tuning", table_path, "--emit=py", "-o", module_path, "--arch", arch,
                          *tune_args, "--num-warps", ",".join(map(str, SPACE["num_warps"])),
                          "--num-stages", ",".join(map(str, SPACE["num_stages"]))], standalone_mode=False)
    except SystemExit as e:
        if e.code:
            raise
    mod = _import(module_path, "matmul_tuned")

    configs = [triton.Config({"TM": v["TM"], "TN": v["TN"], "TK": v["TK"]}, num_warps=v["num_warps"],
                             num_stages=v["num_stages"]) for v in variants]
    autotuned = triton.autotune(configs=configs, key=["M", "N", "K"])(triton_ref._matmul)

    rows = []
    for m, n, k in sizes:
        row = Row((m, n, k))
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        entry = next(e for e in table["entries"].values() if e["sizes"][0] == {"M": m, "N": n, "K": k})
        if entry["variant"] is None:
            row.notes.append("the tuner could not run any variant at this size")
        else:
            row.tuner_best = entry["us"][entry["variant"]]
        pick = mod.matmul.tuned_variant(m, n, k)
        row.picked = " ".join(f"{key}={val}" for key, val in mod.matmul.variants[pick].items())

        def tritonc_launch(variant=None):
            mod.matmul(a, b, c, m, n, k, k, n, n, variant=variant)

        for name, fn in (("dispatched", tritonc_launch), ("best", lambda: tritonc_launch(pick))):
            c.zero_()
            fn()
            torch.cuda.synchronize()
            err = ((c.float() - ref).norm() / ref.norm()).item()
            if err > 1e-2:
                row.notes.append(f"{name}: relative error {err:.2e}")
            setattr(row, name, time_graph(torch, fn, args.reps))

        def triton_launch():
            autotuned[lambda meta: (triton.cdiv(m, meta["TM"]), triton.cdiv(n, meta["TN"]))](
                a, b, c, m, n, k, k, n, n)

        triton_launch()  # autotunes (outside the graph)
        torch.cuda.synchronize()
        row.triton = time_graph(torch, triton_launch, args.reps)
        best = autotuned.best_config
        row.triton_config = (f"{best.kwargs['TM']}x{best.kwargs['TN']}x{best.kwargs['TK']} "
                             f"w{best.num_warps} s{best.num_stages}")
        row.cublas = time_graph(torch, lambda: torch.matmul(a, b, out=c), args.reps)
        rows.append(row)
        log(f"tune_compare: {m}x{n}x{k} done")
    print(render(rows, len(variants), space_size(), torch.cuda.get_device_name(0)))
    ok = all(r.dispatched is not None and r.best is not None and r.dispatched <= 1.03 * r.best for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
