"""``tritonc-tune FILE.tri --sizes sizes.toml [-o table.json]``: measure every variant of a kernel
on a GPU at the sizes a TOML file lists, and write a tuning table (tritonc/tuning/table.py) that
``tritonc FILE.tri --tuning table.json --emit=header,py`` turns into dispatching launchers.

Steps (docs/tuning.md, "Tuning on a GPU"):

1. The variant space is every combination of the free ``const tunable`` candidates (those not
   fixed by ``-D`` or a one-value ``--tune``), the ``--tune`` lists and the ``--num-warps`` /
   ``--num-stages`` lists; the variants are compiled in parallel (``-j``), pruned and linked by
   :class:`tritonc.variants.VariantBuild`, through the compile cache, into one Python launcher
   module, which is then imported.
2. For each size, the arguments are built from the sizes file (each pointer parameter: shape,
   dtype, strides, initial values; each scalar: a number or an expression over the sizes), or
   by ``make_inputs(size)`` of the ``--inputs`` file; they are copied to the GPU with the CUDA
   driver API (cuda-python; torch is not needed).
3. Each variant runs once, and its outputs (every pointer parameter not marked ``__readonly``)
   are compared with the first variant's (tolerance by element type,
   :data:`tritonc.tools.tune_inputs.RTOL`).
4. Each variant is timed: its launch is captured in a CUDA graph; each repetition restores
   every pointer argument not marked ``__readonly`` from a saved copy, writes a 256 MiB buffer
   to evict the L2 cache, then launches the graph between two CUDA events; warm-up
   repetitions first, then the median of the timed ones (microseconds).
5. The table's key is the kernel's ``__retune`` parameters (or the sizes file's ``key``); each
   size's key values fall into a bucket (powers of two, or the file's ranges).

Errors in the inputs (the sizes file, the ``--inputs`` file, the table path) are
``file:line:col: error:`` / ``tritonc-tune: error:`` messages with exit status 1 and no table
written; bad usage exits with 2.

The inputs (the sizes file, the arguments, the output check, :class:`TuneError`) are in
:mod:`tritonc.tools.tune_inputs`, the GPU and its timing (steps 2 and 4) in
:mod:`tritonc.tools.tune_timing`; this module builds the variants, runs them, writes the table
and is the command line.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from ..diagnostics import CompileError, SourceManager, UsageError
from .tune_inputs import (SizesFile, TuneError, check_inputs, evaluate, host_arguments, load_make_inputs,
                          outputs_match, parse_sizes)
from .tune_timing import STICKY_ERRORS, Gpu


# ---------------------------------------------------------------------------------------------
# compiling and loading the variants


def build_variants(text: str, path: str, options, warps, stages, jobs: int | None, use_cache: bool):
    """Compile the variant space (see the module docstring) into a Python module's source;
    returns ``(source, the build's -v explanation)``, through the compile cache."""
    from dataclasses import replace

    from ..cache import CompileCache, cache_key
    from ..diagnostics import DiagnosticSink
    from ..frontend.preprocess import preprocess
    from ..variants import VariantBuild, tunable_space

    tune = dict(options.tune)
    for name, values in tunable_space(text, path, options).items():
        if name not in tune and values and len(values) > 1:
            tune[name] = values
    options = replace(options, tune=tune, specialize=True)
    key = None
    if use_cache:
        pre = preprocess(text, path, dict(options.defines), list(options.include_dirs), SourceManager(),
                         DiagnosticSink()).text
        key = cache_key(text, pre, options, {"num_warps": warps, "num_stages": stages, "tool": "tritonc-tune"})
        hit = CompileCache().get(key, ["py"])
        if hit is not None:
            return hit[0]["py"].decode("utf-8"), hit[1]
    build = VariantBuild(text, path, options, warps, stages, jobs).build()
    source, explain = build.emit("py"), build.explain() + "\n"
    if key is not None:
        CompileCache().put(key, {"py": source}, explain)
    return source, explain


def import_module(source: str, folder: str, name: str = "tritonc_tuned_variants"):
    import importlib.util

    path = os.path.join(folder, f"{name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_facts(text: str, path: str, options, kernel: str | None):
    """``(kernel name, its KernelParams, its __retune parameter names, has a declared grid)``."""
    from ..driver import Compilation
    from ..launcher.build import kernel_signature

    comp = Compilation(text, options, path=path)
    kernels = [f for f in comp.frontend_module.functions if f.kind == "kernel"]
    if kernel is not None:
        kernels = [f for f in kernels if f.name == kernel]
        if not kernels:
            raise TuneError(f"{path}: no kernel named '{kernel}'")
    if len(kernels) > 1:
        names = ", ".join(f.name for f in kernels)
        raise TuneError(f"{path} has several kernels ({names}); name one with --kernel or kernel = in the sizes file")
    f = kernels[0]
    sig = kernel_signature(f)
    retune = [a.name for a, attrs in zip(f.args, f.arg_attrs) if attrs.get("retune")]
    return f.name, list(sig.params), retune, f.name in comp.grids


# ---------------------------------------------------------------------------------------------
# the run


@dataclass
class Measurement:
    """One size: per variant the median microseconds, or None and why (``errors``)."""

    size: dict
    key: dict
    us: list
    errors: dict = field(default_factory=dict)


def measure(module, name: str, params, variants: list[dict], sizes: list[dict], make_args, grid_exprs,
            gpu: Gpu, warmup: int, reps: int, progress=None) -> list[Measurement]:
    """Run and time every variant at every size (steps 2-4 of the module docstring)."""
    import numpy as np

    launcher = getattr(module, name)
    out = []
    for size in sizes:
        host = make_args(size)
        ptrs = {i: gpu.upload(a) for i, (p, a) in enumerate(zip(params, host)) if p.is_pointer}
        saved = {i: gpu.upload(host[i]) for i, p in enumerate(params) if p.is_pointer and not p.readonly}
        args = [ptrs.get(i, v) for i, v in enumerate(host)]
        key = {}

        def restore():
            for i, src in saved.items():
                gpu.copy(ptrs[i], src, host[i].nbytes)

        m = Measurement(size, key, [None] * len(variants))
        reference, reference_index = None, None
        for vi, meta in enumerate(variants):
            grid = None
            if grid_exprs is not None:
                names = dict(size, **meta)
                grid = tuple(int(evaluate(e, names, "grid")) for e in grid_exprs)

            def launch(stream, vi=vi, grid=grid):
                launcher(*args, grid=grid, stream=stream, variant=vi)

            try:
                restore()
                launch(int(gpu.stream))
                gpu.sync()
                results = {}
                for i in saved:
                    a = np.empty_like(host[i])
                    gpu.download(a, ptrs[i])
                    results[i] = a
                if reference is None:
                    reference, reference_index = results, vi
                else:
                    for i, a in results.items():
                        ok, why = outputs_match(reference[i], a, params[i].dtype)
                        if not ok:
                            raise ValueError(f"'{params[i].name}' differs from variant {reference_index}'s: {why}")
                m.us[vi] = gpu.time(launch, restore, warmup, reps)
            except Exception as e:  # a wrong output, or a launch the driver or the launcher refused
                m.errors[vi] = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                if any(w in str(e) for w in STICKY_ERRORS):  # the context is lost: nothing more can run
                    raise TuneError(f"variant {vi} ({_meta(meta)}) at {size} broke the CUDA context: "
                                    f"{m.errors[vi]}") from None
            if progress is not None:
                progress()
        gpu.free_all()
        out.append(m)
    return out


def table_for(name: str, key: list[str], buckets: dict, variants: list[dict], measurements, text: str,
              source: str, arch: str):
    from ..tuning.table import KernelTable, Table, source_sha256

    kt = KernelTable(list(key), {k: buckets.get(k, "pow2") for k in key}, variants)
    for m in measurements:
        kt.add(m.key, m.us)
    return Table(os.path.basename(source), source_sha256(text), arch, {name: kt})


def run_tuner(source: str, sizes_path: str, output: str, inputs: str | None, options, warps, stages,
              jobs: int | None, use_cache: bool, warmup: int, reps: int, verbose: bool, echo) -> None:
    """The whole ``tritonc-tune`` run; raises TuneError / CompileError / UsageError."""
    import tempfile

    import numpy as np

    from ..frontend_stage import read_source
    from ..files import write_atomically

    text, path = read_source(source)
    try:
        sizes_text = Path(sizes_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TuneError(f"{sizes_path}: cannot read the sizes file: {getattr(e, 'strerror', None) or e}") from None
    spec = parse_sizes(sizes_text, sizes_path)
    name, params, retune, has_grid = kernel_facts(text, path, options, options.kernel or spec.kernel)
    key = resolve_key(spec, params, retune, name)
    if not has_grid and spec.grid is None:
        raise TuneError(f"{sizes_path}: kernel '{name}' declares no __grid; give grid = [\"cdiv(N, BLOCK)\", ...] "
                        "in the sizes file")
    make_inputs = load_make_inputs(inputs) if inputs else None
    rng = np.random.default_rng(0)

    def make_args(size):
        if make_inputs is None:
            return host_arguments(params, spec, size, rng)
        try:
            values = make_inputs(dict(size))
        except Exception as e:
            raise TuneError(f"{inputs}: make_inputs({size}) raised {type(e).__name__}: {e}") from None
        return check_inputs(params, values, inputs, size)

    keyed = []
    for size in spec.sizes:  # every size's arguments are checked before anything compiles
        host = make_args(size)
        k = {}
        for kname in key:
            i = next(i for i, p in enumerate(params) if p.name == kname)
            k[kname] = int(host[i])
        keyed.append(k)
    from dataclasses import replace

    module_source, explain = build_variants(text, path, replace(options, kernel=name), warps, stages, jobs,
                                            use_cache)
    if verbose:
        echo(explain.rstrip("\n"))
    try:
        gpu = Gpu()
    except Exception as e:  # no driver library, no GPU
        raise TuneError(f"no usable CUDA GPU here ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                        "tritonc-tune measures on a GPU") from None
    with tempfile.TemporaryDirectory(prefix="tritonc-tune-") as folder:
        module = import_module(module_source, folder)
        variants = [dict(v) for v in getattr(module, name).variants]
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(stderr=True), transient=not sys.stderr.isatty()) as bar:
            task = bar.add_task(f"tuning {name}", total=len(variants) * len(spec.sizes))
            ms = measure(module, name, params, variants, spec.sizes, make_args, spec.grid, gpu, warmup, reps,
                         progress=lambda: bar.advance(task))
    for m, k in zip(ms, keyed):
        m.key = k
        for vi, why in sorted(m.errors.items()):
            echo(f"tritonc-tune: warning: {name} at {m.size}: variant {vi} ({_meta(variants[vi])}) is left out: {why}")
        timed = [(t, i) for i, t in enumerate(m.us) if t is not None]
        if timed:
            t, i = min(timed)
            echo(f"tritonc-tune: {name} at {m.size}: variant id {i} ({_meta(variants[i])}) {t:.1f} us")
    table = table_for(name, key, spec.buckets, variants, ms, text, path, options.arch)
    write_atomically(output, table.dumps())


def _meta(meta: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in meta.items())


def resolve_key(spec: SizesFile, params, retune: list[str], name: str) -> list[str]:
    """The table's key: the kernel's ``__retune`` parameters, else the sizes file's ``key``.

    Raises:
        TuneError: neither, a ``key`` that differs from the ``__retune`` parameters, or a key
            name that is not an integer scalar parameter.
    """
    if retune and spec.key is not None and spec.key != retune:
        raise TuneError(f"{spec.path}: key = {spec.key}, but kernel '{name}' marks {retune} __retune")
    key = retune or spec.key
    if not key:
        raise TuneError(f"{spec.path}: kernel '{name}' has no __retune parameter; name the table's key "
                        "with key = [\"M\", ...] in the sizes file")
    by_name = {p.name: p for p in params}
    for k in key:
        p = by_name.get(k)
        if p is None or p.is_pointer or not p.scalar_type.is_integer or p.dtype == "bool":
            raise TuneError(f"{spec.path}: the key '{k}' is not an integer scalar parameter of '{name}'")
    unknown = sorted(set(spec.buckets) - set(key))
    if unknown:
        raise TuneError(f"{spec.path}: [buckets] names '{unknown[0]}', which is not in the key {key}")
    return list(key)


# ---------------------------------------------------------------------------------------------
# the command line


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--sizes", "sizes", required=True, metavar="SIZES.toml",
              help="The sizes to measure and how to build each argument (docs/tuning.md).")
@click.option("-o", "--output", metavar="TABLE.json", help="The tuning table (default: SOURCE's stem + .tuning.json).")
@click.option("--inputs", metavar="FILE.py", help="A Python file with make_inputs(size: dict) -> list of arguments.")
@click.option("-j", "--jobs", type=int, default=None, metavar="N", help="Processes compiling variants (default: CPUs).")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a preprocessor macro.")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add a directory to the #include path.")
@click.option("--tune", multiple=True, metavar="NAME=a,b,...", help="Candidates of a meta-parameter.")
@click.option("--num-warps", default="auto", metavar="N[,N...]", help="Warps per program instance (a list: variants).")
@click.option("--num-stages", default="auto", metavar="N[,N...]", help="Software-pipelining depths (a list: variants).")
@click.option("--kernel", metavar="NAME", help="The kernel to tune in a file of several.")
@click.option("--arch", default=None, metavar="ARCH", help="Target architecture (default: tritonc's).")
@click.option("--allow-tf32", is_flag=True, help="Let '@' on float operands use TF32 tensor cores.")
@click.option("--warmup", type=int, default=5, show_default=True, help="Untimed repetitions per variant and size.")
@click.option("--reps", type=int, default=30, show_default=True, help="Timed repetitions (the median is kept).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the compile cache.")
@click.option("-v", "--verbose", is_flag=True, help="List the variants and the pruned ones.")
def tune_command(source, sizes, output, inputs, jobs, defines, include_dirs, tune, num_warps, num_stages, kernel,
                 arch, allow_tf32, warmup, reps, no_cache, verbose):
    """Measure every variant of the kernel in SOURCE at the sizes of SIZES.toml on this machine's
    GPU and write a tuning table for `tritonc SOURCE --tuning TABLE.json`."""
    from .. import cli_args as cli

    options = tune_options(defines, include_dirs, tune, kernel, arch, allow_tf32)
    warps = None if num_warps == "auto" else cli.parse_int_list(num_warps, "--num-warps")
    stages = None if num_stages == "auto" else cli.parse_int_list(num_stages, "--num-stages")
    for w in warps or ():
        if not (1 <= w <= 32 and w & (w - 1) == 0):
            raise click.BadParameter(f"{w} is not a power of two from 1 to 32", param_hint="--num-warps")
    for st in stages or ():
        if st < 1:
            raise click.BadParameter(f"{st} is not a positive number of stages", param_hint="--num-stages")
    if jobs is not None and jobs < 1:
        raise click.BadParameter(f"{jobs} is not a positive number of processes", param_hint="-j")
    if warmup < 0 or reps < 1:
        raise click.BadParameter("--warmup must be >= 0 and --reps >= 1", param_hint="--reps")
    output = output or str(Path(source).with_suffix("").name) + ".tuning.json"
    sources = SourceManager()
    echo = lambda line: click.echo(line, err=True)  # noqa: E731
    try:
        run_tuner(source, sizes, output, inputs, options, warps, stages, jobs, not no_cache, warmup, reps,
                  verbose, echo)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint=e.option) from None
    except CompileError as e:
        click.echo(sources.render(e.diagnostic).replace("tritonc: error", "tritonc-tune: error", 1), err=True)
        sys.exit(1)
    except Exception as e:  # a tritonc bug (or a driver failure outside any variant's run)
        if os.environ.get("TRITONC_TRACEBACK"):
            raise
        click.echo(f"tritonc-tune: internal error: {type(e).__name__}: {e}", err=True)
        click.echo("tritonc-tune: note: TRITONC_TRACEBACK=1 shows the Python traceback", err=True)
        sys.exit(3)


def tune_options(defines, include_dirs, tune, kernel, arch, allow_tf32):
    """The :class:`~tritonc.options.CompileOptions` of a tuner run (click errors for bad values)."""
    from ..options import ARCHS, DEFAULT_ARCH, CompileOptions

    arch = arch or DEFAULT_ARCH
    if arch not in ARCHS:
        raise click.BadParameter(f"'{arch}' is not one of {', '.join(ARCHS)}", param_hint="--arch")
    from .. import cli_args as cli

    return CompileOptions(defines=dict(cli.parse_define(d) for d in defines), include_dirs=list(include_dirs),
                          tune=dict(cli.parse_tune(t) for t in tune), kernel=kernel, arch=arch,
                          allow_tf32=allow_tf32)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``tritonc-tune``)."""
    try:
        tune_command.main(args=argv, prog_name="tritonc-tune", standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
