"""The ``tritonc`` command line (click).

Exit status: 0 on success, 1 for an error in the input program (printed as
``file:line:col: error: message`` with the source line and a caret), 2 for bad usage,
3 for an internal compiler error. No Python traceback reaches the user (set
``TRITONC_TRACEBACK=1`` to see one for an internal error), and no output file is left
half-written: every output is computed first, then written to a temporary file and renamed.
"""
from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import click

from .version import __version__
from .diagnostics import WARNING_FLAGS, CompileError, InternalCompilerError, SourceManager, UsageError, parse_warning_flags
from . import depfile
from .diagnostics import DiagnosticSink
from .files import same_file_as, write_all_atomically
from .options import ARCHS, DEFAULT_ARCH, CompileOptions, codegen_flags_help, parse_codegen_flags
from .cli_args import (check_output_suffixes, emit_kinds, join_error_limit, multi_arch_kinds, output_paths,
                       parse_archs, parse_define, parse_hints, parse_int_list, parse_kernel_warps, parse_tune,
                       split_error_limit)

EXAMPLES = """\b
Examples:
  tritonc matmul.tri -o matmul.cubin                    # cubin for sm_90a (H100/H200)
  tritonc matmul.tri -o build/matmul --emit=cubin,ptx,header,py
  tritonc softmax.tri -D BLOCK=1024 --emit=ttir -o -    # print the tile IR
  tritonc matmul.tri --arch sm_80 -D TM=128 --num-warps 8 -o mm.ptx
  tritonc matmul.tri --arch sm_80,sm_90a,sm_100 -o build/mm --emit=fatbin,header,py
  tritonc kernels.tri --kernel add --print-ir-after=canonicalize --emit=ttir -o -

\b
Output kinds (--emit, or the suffix of -o): ttir (.ttir), ttgir (.ttgir), llir (.ll),
ptx (.ptx), cubin (.cubin), fatbin (.fatbin), header (.h), py (.py). With several kinds each is written next
to the -o base name with its own suffix.

\b
Code-generation flags (-f<name> / -fno-<name>, -f<name>=VALUE; the defaults are measured best):
""" + codegen_flags_help() + "\n"


def _explain_choice(comp) -> str:
    """``-v``: what the cost model chose (or that everything was fixed)."""
    choice = comp.choice
    if choice is None:
        head = "tritonc: every meta-parameter was fixed on the command line; the cost model did not run"
    else:
        head = choice.explain()
    warps = {k: w for k, w in comp.kernel_num_warps.items() if "__" not in k}
    per_kernel = f" ({', '.join(f'{k} {w}' for k, w in warps.items())})" if len(set(warps.values())) > 1 else ""
    return (f"{head}\ntritonc: compiled with {' '.join(f'{k}={v}' for k, v in comp.tunables.items())}"
            f"{' ' if comp.tunables else ''}num_warps={comp.num_warps}{per_kernel} num_stages={comp.num_stages} "
            f"for {comp.options.arch}{_explain_retune(comp.retune_plan)}")


def _explain_retune(plan) -> str:
    """``-v``: the cost model's choice per ``__retune`` bucket (runs of equal choices merged)."""
    if plan is None:
        return ""
    lines = []
    for kernel, td in plan.dispatch.items():
        runs: list[list] = []   # [first coordinates, last coordinates, variant]
        for coords, variant in td.entries:
            if runs and runs[-1][2] == variant:
                runs[-1][1] = coords
            else:
                runs.append([coords, coords, variant])
        parts = []
        for i, (first, last, variant) in enumerate(runs):
            if len(td.key) == 1 and i == 0:        # the nearest bucket: the end runs reach on
                where = f"{td.key[0]} <= 2^{last[0]}"
            elif len(td.key) == 1 and i == len(runs) - 1:
                where = f"{td.key[0]} > 2^{first[0] - 1}"
            else:
                where = ", ".join(f"{k} in (2^{a - 1}, 2^{b}]" for k, a, b in zip(td.key, first, last))
            meta = plan.configs[variant]
            parts.append(f"{where}: " + " ".join(f"{k}={v}" for k, v in meta.items() if v is not None))
        lines.append(f"tritonc: kernel '{kernel}' chooses at launch by its __retune argument(s) "
                     f"{', '.join(td.key)} (nearest bucket; {len(plan.configs)} variants): " + "; ".join(parts))
    return "\n" + "\n".join(lines)


def _prestart_llvm(jobs: int | None, specialize: bool | None) -> None:
    """Start the LLVM worker processes now (``codegen.target.prestart_worker``): they load LLVM
    while this process runs the frontend and the tile-IR passes. Two when ``jobs`` allows and
    the kernels get specialised variants (a kernel and its ``__spec16`` twin compile at once),
    else one; a module with more kernels starts more on demand."""
    from .codegen.target import prestart_worker

    prestart_worker(min(2 if specialize else 1, max(1, jobs or os.cpu_count() or 1)))


def _file_digest(path: str | None) -> str | None:
    """The SHA-256 of file ``path`` (``--tuning``'s table, part of the cache key), ``None`` for
    no file or one that cannot be read (the build then reports it)."""
    if path is None:
        return None
    import hashlib

    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _tuned_build(comp, options, warps_list, stages_list, jobs, table_path):
    """``--tuning``: the :class:`~tritonc.variants.VariantBuild` of a tuning table's variants
    (every surviving variant of the command line's space when the table picked none), whose
    dispatchers choose by the table (tritonc/tuning/table.py)."""
    from .tuning.table import check_space, load_table, plan
    from .variants import VariantBuild, tunable_space

    table = load_table(table_path)
    kernels = [f.name for f in comp.frontend_module.functions if f.kind == "kernel"]
    p = plan(table, table_path, comp.text, kernels, options.arch)
    check_space(p.configs, tunable_space(comp.text, comp.path, options), warps_list, stages_list, table_path)
    return VariantBuild(comp.text, comp.path, options, warps_list, stages_list, jobs, configs=p.configs,
                        tuning=p.dispatch).build(require_all=bool(p.configs))


def _cache_key(comp, options, sources, warps_list, stages_list, verbose, resource_usage=False,
               tuning_digest=None, archs=()) -> str | None:
    """The compile cache's key for this run (tritonc/cache.py), or None when the source does not
    preprocess (the compilation then reports the error; errors are never cached)."""
    import re

    from .cache import cache_key

    preprocessed = ""
    if re.search(r"^[ \t]*#[ \t]*include", comp.text, re.MULTILINE):
        # included files count: their text is in the preprocessed output. Without an #include
        # the output is a function of the source, the defines (in the options) and the
        # preprocessor's version (in the key), so the source stands for it.
        from .diagnostics import DiagnosticSink
        from .frontend.preprocess import preprocess

        try:
            preprocessed = preprocess(comp.text, comp.path, dict(options.defines), list(options.include_dirs),
                                      SourceManager(), DiagnosticSink()).text
        except CompileError:
            return None
    return cache_key(comp.text, preprocessed, options,
                     {"num_warps": warps_list, "num_stages": stages_list, "verbose": verbose,
                      "resource_usage": resource_usage, "archs": list(archs),
                      **({"tuning": tuning_digest} if tuning_digest else {})})


@click.command(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLES)
@click.argument("source", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", metavar="PATH", help="Output file ('-' for stdout), or base name for several kinds.")
@click.option("--emit", metavar="KINDS", help="Comma-separated output kinds: ttir,ttgir,llir,ptx,cubin,fatbin,header,py.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a preprocessor macro.")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add a directory to the #include search path.")
@click.option("--tune", multiple=True, metavar="NAME=a,b,...", help="Candidate values of a meta-parameter (the first is compiled).")
@click.option("--kernel", metavar="NAME", help="Compile only this kernel of a multi-kernel file.")
@click.option("--num-warps", default="auto", metavar="N[,N...]", show_default=True,
              help="Warps per program instance; 'auto': the cost model's choice for kernels with '@', "
                   "else 4, or more for large tiles (docs/cli.md, docs/tuning.md).")
@click.option("--kernel-warps", "kernel_warps", multiple=True, metavar="NAME=N[,NAME=N...]",
              help="Warps of the named kernels of a multi-kernel file (the others take --num-warps or "
                   "the automatic choice); each kernel's launch block is its own.")
@click.option("--num-stages", default="auto", metavar="N[,N...]", show_default=True,
              help="Software-pipelining depth; 'auto': the cost model's choice (docs/tuning.md), 3 without a dot.")
@click.option("--hint", "hints", multiple=True, metavar="M=..,N=..,K=..",
              help="Problem sizes for the cost model (default: a large problem; docs/tuning.md).")
@click.option("--grid", "grid", metavar="'E0[,E1[,E2]]'",
              help="Launch grid of the kernels, e.g. 'cdiv(M,TM),cdiv(N,TN)': replaces their __grid; "
                   "the launchers then compute it from the arguments.")
@click.option("-j", "--jobs", type=int, default=None, metavar="N",
              help="Processes compiling in parallel: variants, the kernels of one compilation in LLVM, "
                   "and the assembler's threads (default: the number of CPUs).")
@click.option("--no-cache", is_flag=True,
              help="Neither read nor write the compile cache ($TRITONC_CACHE_DIR or the user cache directory; "
                   "TRITONC_NO_CACHE=1 does the same).")
@click.option("-v", "--verbose", is_flag=True, help="Say which meta-parameters the cost model chose and why.")
@click.option("--arch", "arch_list", default=DEFAULT_ARCH, show_default=True, metavar="ARCH[,ARCH...]",
              help="Target GPU architecture: " + ", ".join(ARCHS) + " (sm_90a: Hopper with wgmma; sm_90: "
                   "Hopper without it). A comma list (sm_80,sm_90a) writes a fatbin with each SASS image and "
                   "forward-compatible PTX; sm_100 and sm_120 may be listed as PTX-only targets.")
@click.option("--ptxas", "use_ptxas", is_flag=True, help="Assemble with ptxas from PATH instead of nvJitLink.")
@click.option("--allow-tf32", is_flag=True, help="Let '@' on float operands use TF32 tensor cores.")
@click.option("-f", "codegen_flags", multiple=True, metavar="FLAG",
              help="Code-generation flag, e.g. -fno-wide-addresses, -ff32-division=rn (listed below); "
                   "-ferror-limit N: stop after N errors (default 20, 0: no limit).")
@click.option("-W", "warning_flags", multiple=True, metavar="FLAG", help="-Werror; -W<name> / -Wno-<name> switch a warning on / off: "
                   + ", ".join(WARNING_FLAGS) + ".")
@click.option("--print-ir-after", "print_after", multiple=True, metavar="PASS", help="Print the IR after this pass (repeatable).")
@click.option("--print-ir-after-all", is_flag=True, help="Print the IR after every pass.")
@click.option("--time-passes", is_flag=True,
              help="Print the wall time of each pass, then of every stage (preprocess ... launchers).")
@click.option("--print-analysis", "print_analysis", multiple=True, metavar="NAME",
              help="Print the optimised tile IR with the facts of analysis NAME (axis-info) after each op, to stderr.")
@click.option("--specialize/--no-specialize", default=None,
              help="Also compile each kernel for 16-byte-aligned pointers and integers divisible by 16; "
                   "launchers run that variant when the arguments allow. Default: on when a cubin, header "
                   "or py is emitted (--specialize also shows it in IR and PTX outputs).")
@click.option("--resource-usage", is_flag=True,
              help="Print each kernel's registers, barriers, shared memory, stack frame and spill bytes "
                   "(nvJitLink's or ptxas's report) to stderr, one line per kernel and variant.")
@click.option("-lineinfo", "--lineinfo", "lineinfo", is_flag=True,
              help="Emit .file/.loc line information mapping the PTX and SASS to .tri lines (profilers).")
@click.option("--symbol-prefix", default="", metavar="P",
              help="Start every name the C header defines with P (launchers P<kernel>, types, macros), "
                   "so headers of one kernel built with different -D can share a program.")
@click.option("--cpp-namespace", default=None, metavar="NS",
              help="Declare the C header's launchers in C++ namespace NS (A or A::B) when compiled as C++.")
@click.option("--tuning", "tuning", metavar="TABLE.json",
              help="A tritonc-tune table: build its variants, and launchers that pick one by the key "
                   "arguments' bucket (docs/tuning.md).")
@depfile.click_options
@click.version_option(__version__, "--version", prog_name="tritonc")
def tritonc(source, output, emit, defines, include_dirs, tune, kernel, num_warps, kernel_warps, num_stages, hints,
            grid, jobs,
            no_cache, verbose, arch_list, use_ptxas, allow_tf32, codegen_flags, warning_flags, print_after,
            print_ir_after_all, time_passes, print_analysis, specialize, resource_usage, lineinfo, symbol_prefix,
            cpp_namespace, tuning, **make_deps):
    """Compile a Triton-C kernel file (SOURCE, '-' for stdin) to tile IR, PTX, a cubin and launchers."""
    from .driver import TT_PIPELINE, TTG_PIPELINE, Compilation, PassOptions
    from .frontend_stage import decode_source

    archs, arch = parse_archs(arch_list)
    multi_arch = len(archs) > 1
    kinds = emit_kinds(emit, output)
    if multi_arch:
        kinds = multi_arch_kinds(kinds, emit, output)
    paths = output_paths(kinds, output, source)
    deps = depfile.request_from_options(make_deps, paths, source)
    if deps.only:  # -M / -MM: the rule is the only output
        kinds, paths, no_cache = [], {}, True
    try:
        off, werror = parse_warning_flags(warning_flags)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="-W") from None
    check_output_suffixes(paths, off, werror)
    warps_list = None if num_warps == "auto" else parse_int_list(num_warps, "--num-warps")
    for warps in warps_list or ():
        if not (1 <= warps <= 32 and warps & (warps - 1) == 0):  # at most 1024 threads
            raise click.BadParameter(f"{warps} is not a power of two from 1 to 32", param_hint="--num-warps")
    per_kernel = parse_kernel_warps(kernel_warps)
    stages_list = None if num_stages == "auto" else parse_int_list(num_stages, "--num-stages")
    for stages in stages_list or ():
        if stages < 1:
            raise click.BadParameter(f"{stages} is not a positive number of stages", param_hint="--num-stages")
    warps = warps_list[0] if warps_list else None
    stages = stages_list[0] if stages_list else None
    if jobs is not None and jobs < 1:
        raise click.BadParameter(f"{jobs} is not a positive number of processes", param_hint="-j")
    codegen_flags, error_limit = split_error_limit(codegen_flags)
    try:
        codegen = parse_codegen_flags(codegen_flags)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="-f") from None
    pipeline = list(dict.fromkeys(("specialize",) + TT_PIPELINE + TTG_PIPELINE))
    for name in print_after:
        if name not in pipeline:
            raise click.BadParameter(f"unknown pass '{name}'; the passes are {', '.join(pipeline)}",
                                     param_hint="--print-ir-after")
    if print_analysis:  # the analyses import the IR, which a cache hit never needs
        from .analysis import PRINTABLE_ANALYSES, TTG_ANALYSES
    for name in print_analysis:
        if name not in PRINTABLE_ANALYSES:
            raise click.BadParameter(f"unknown analysis '{name}'; expected one of {', '.join(PRINTABLE_ANALYSES)}",
                                     param_hint="--print-analysis")
        if not paths:
            raise click.BadParameter(f"'{name}' cannot run: -M and -MM compile nothing", param_hint="--print-analysis")
        if name in TTG_ANALYSES and set(paths) == {"ttir"}:
            raise click.BadParameter(f"'{name}' runs on the GPU tile IR, which --emit=ttir does not build; "
                                     "emit ttgir or a later kind", param_hint="--print-analysis")
    for check_name, value, hint in (("check_symbol_prefix", symbol_prefix or None, "--symbol-prefix"),
                                    ("check_cpp_namespace", cpp_namespace, "--cpp-namespace")):
        if value is None:  # nothing to check (and a cache hit needs no launcher module)
            continue
        from .launcher import c_header

        check = getattr(c_header, check_name)
        try:
            check(value)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint=hint) from None
    if symbol_prefix and "py" in kinds:
        from .launcher.python_module import prefixed_names

        try:
            prefixed_names([], symbol_prefix)
        except ValueError as e:
            raise click.BadParameter(f"{e}, as the Python module needs", param_hint="--symbol-prefix") from None
    if specialize is None and any(k in ("cubin", "fatbin", "header", "py") for k in kinds):
        specialize = True  # one chain of passes: the IR/PTX printed is what the cubin holds
    options = CompileOptions(
        defines=dict(parse_define(d) for d in defines), include_dirs=list(include_dirs),
        tune=dict(parse_tune(t) for t in tune), kernel=kernel, num_warps=warps, kernel_warps=per_kernel,
        num_stages=stages,
        arch=arch, allow_tf32=allow_tf32, use_ptxas=use_ptxas, warnings_off=off, werror=werror,
        specialize=specialize, hint=parse_hints(hints), grid=grid, codegen=codegen, lineinfo=lineinfo,
        symbol_prefix=symbol_prefix, cpp_namespace=cpp_namespace, error_limit=error_limit)
    pass_opts = PassOptions(print_ir_after="all" if print_ir_after_all else (set(print_after) or None),
                            time_passes=time_passes, print_analysis=tuple(print_analysis))
    from .variants import has_variants

    variants = (has_variants(options, warps_list, stages_list) or tuning is not None) and not deps.only
    if variants and (multi_arch or "fatbin" in kinds):
        raise click.BadParameter("variants (--tune, --num-warps or --num-stages lists) are not built as fatbins, nor "
                                 "is --tuning; give one value per list or one architecture without --emit=fatbin",
                                 param_hint="'--arch'")
    if variants and use_ptxas:
        raise click.BadParameter("variants are linked into one cubin by nvJitLink; drop --ptxas or give one "
                                 "value per list", param_hint="--ptxas")
    sources = SourceManager()
    comp = None
    if any(k in ("ptx", "cubin", "fatbin", "header", "py") for k in kinds) and not (no_cache or os.environ.get("TRITONC_NO_CACHE")):
        pass  # a cache hit needs no LLVM: the worker is started on the first miss below
    elif any(k in ("ptx", "cubin", "fatbin", "header", "py") for k in kinds) and not variants:
        _prestart_llvm(jobs, specialize)  # (variants compile in processes of their own)
    try:
        if source == "-":
            data = sys.stdin.buffer.read()
            sources.register("<stdin>", data.decode("utf-8", errors="replace"))  # to quote even bad bytes
            text = decode_source(data, "<stdin>")
            comp = Compilation(text + ("\n" if not text.endswith("\n") else ""), options, pass_opts, sources,
                               path="<stdin>", jobs=jobs)
        else:
            comp = Compilation(Path(source), options, pass_opts, sources, jobs=jobs)
        cached = None
        key = None
        no_cache = no_cache or bool(os.environ.get("TRITONC_NO_CACHE"))
        if not no_cache and not (print_after or print_ir_after_all or time_passes or print_analysis):
            digest = _file_digest(tuning)
            if tuning is None or digest is not None:  # an unreadable table is reported below, uncached
                key = _cache_key(comp, options, sources, warps_list, stages_list, verbose, resource_usage, digest,
                                 archs)
        if key is not None:
            from .cache import CompileCache

            cached = CompileCache().get(key, kinds)
        if cached is not None:
            results, printed = cached
            click.echo(printed, err=True, nl=False)
        else:
            if key is not None and any(k in ("ptx", "cubin", "fatbin", "header", "py") for k in kinds) and not variants:
                _prestart_llvm(jobs, specialize)
            printed = []
            if variants:
                from .variants import VariantBuild

                comp.frontend_module  # errors in the program (and bad --tune names) as for one compilation
                if tuning is not None:
                    build = _tuned_build(comp, options, warps_list, stages_list, jobs, tuning)
                else:
                    build = VariantBuild(comp.text, comp.path, options, warps_list, stages_list, jobs).build()
                results = {kind: build.emit(kind) for kind in kinds}
                if verbose:
                    printed.append(build.explain())
                printed += build.warnings
                if resource_usage:
                    printed += build.resource_usage_report()
            elif multi_arch:
                from .multiarch import FatbinBuild

                build = FatbinBuild(comp, archs)
                results = {kind: build.emit(kind) for kind in kinds}
                if verbose:
                    printed.append(_explain_choice(comp))
                report = build.resource_usage_report() if resource_usage else []
                printed += [sources.render(w) for w in comp.diag.warnings] + report
            else:
                from .variants import RETUNE_KINDS, retune_build

                # the cost model's launch-time choice over __retune arguments, when it made one
                tuned = retune_build(comp) if any(k in RETUNE_KINDS for k in kinds) else None
                results = {kind: tuned.emit(kind) if tuned is not None and kind in RETUNE_KINDS else comp.emit(kind)
                           for kind in kinds}
                if time_passes:
                    click.echo(comp.timer.report(), err=True, nl=False)
                if verbose:
                    from .variants import explain_pruned

                    printed.append(_explain_choice(comp) + explain_pruned(tuned))
                # the cubin written is the variants' when there are: report what it holds
                report = (tuned or comp).resource_usage_report() if resource_usage else []
                printed += [sources.render(w) for w in comp.diag.warnings] + report
            for line in printed:
                click.echo(line, err=True)
            if key is not None:
                from .cache import CompileCache

                CompileCache().put(key, results, "".join(line + "\n" for line in printed))
        if deps.path is not None:  # -M, -MD: the make rule is one more output
            paths["depfile"] = deps.path
            results["depfile"] = deps.rule(depfile.included_files(comp, report_warnings=deps.only))
            if deps.only:  # -M compiles nothing: the preprocessor's #warning lines come from here
                for w in comp.diag.warnings:
                    click.echo(sources.render(w), err=True)
    except UsageError as e:  # an option the input shows to be wrong: bad usage, exit status 2
        raise click.BadParameter(str(e), param_hint=e.option) from None
    except CompileError as e:
        for w in comp.diag.warnings if comp is not None else ():  # warnings found before the error
            click.echo(sources.render(w), err=True)
        for d in e.diagnostics:  # several where the checks go on after an error (-ferror-limit)
            click.echo(sources.render(d), err=True)
        sys.exit(1)
    except Exception as e:  # InternalCompilerError, or any other crash: a tritonc bug either way
        if os.environ.get("TRITONC_TRACEBACK"):
            raise
        what = str(e) if isinstance(e, InternalCompilerError) else f"{type(e).__name__}: {e}"
        click.echo(f"tritonc: internal compiler error: {what}", err=True)
        click.echo("tritonc: note: this is a tritonc bug; TRITONC_TRACEBACK=1 shows the Python traceback",
                   err=True)
        sys.exit(3)
    files = {path: results[kind] for kind, path in paths.items() if path != "-"}
    for path in files:
        clash = same_file_as(path, sources.paths())
        if clash is not None:
            click.echo(f"tritonc: error: output '{path}' is the same file as the input '{clash}'; "
                       "nothing was written", err=True)
            sys.exit(1)
    try:
        write_all_atomically(files)
    except OSError as e:
        click.echo(f"tritonc: error: cannot write '{e.filename}': {e.strerror or e}", err=True)
        sys.exit(1)
    for kind, path in paths.items():
        if path == "-":
            data = results[kind]
            if isinstance(data, bytes):
                sys.stdout.buffer.write(data)
                sys.stdout.buffer.flush()
            else:
                sys.stdout.write(data)
                sys.stdout.flush()


def console_main() -> None:
    """The ``tritonc`` console script and ``python -m tritonc``: :func:`main`, then ``os._exit``.

    Once the outputs (and the compile cache's entry) are written and the streams flushed, the
    process ends without the interpreter's teardown of the compilation's objects and without
    waiting for the LLVM worker processes, which see their pipes close and exit on their own:
    that was 0.12-0.18 s of a 1.3-1.5 s cold compile of ``examples/matmul.tri`` on a 2-core
    machine (``benchmarks/RESULTS.md``, session 9). Python's cyclic garbage collector stays off
    to the end: enabled again after the command, its first collection walked the whole IR, 0.035 s
    of a 0.78 s compile (session 15). The exit status is :func:`main`'s. A caller
    in the same process uses :func:`main`, which returns (or raises ``SystemExit``).
    """
    gc.disable()  # for good: main() would enable it again, and its first collection then takes 0.035 s
    try:
        main()
        code = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:  # sys.exit("message"): printed, status 1, as the interpreter does
            print(e.code, file=sys.stderr)
            code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> None:
    """The command line (``tritonc``), in this process: returns, or raises ``SystemExit``
    with the exit status (the console script is :func:`console_main`).

    Python's cyclic garbage collector is off while the command runs (and on again after it,
    if it was, for a caller in the same process): a compilation keeps nearly everything it
    allocates until it ends, and the collector's passes over the IR objects cost 70-90 ms of
    the 1.1 s cold compile of ``examples/matmul.tri`` (275 collections), against 6 MB more
    peak memory without them.
    """
    args = join_error_limit(list(sys.argv[1:] if argv is None else argv))
    collecting = gc.isenabled()
    gc.disable()
    try:
        tritonc.main(args=args, prog_name="tritonc", standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        if collecting:
            gc.enable()
