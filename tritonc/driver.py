"""The compilation pipeline, as one list.

::

    .tri --preprocess (pcpp)--> tokens --parse (lark)--> AST --sema+irgen--> tile IR (tt)
      --TT_PIPELINE--> optimised tt IR                                         (--emit=ttir)
      --TTG_PIPELINE--> GPU tile IR with layouts (ttg)                          (--emit=ttgir)
      --lower-to-llvm--> LLVM IR                                                (--emit=llir)
      --llvmlite NVPTX--> PTX                                                   (--emit=ptx)
      --nvJitLink (or ptxas)--> cubin                                           (--emit=cubin)
      + launchers: C header (cubin embedded) and Python module                  (--emit=header,py)

The frontend stage (reading, preprocessing, parsing, the cost model, sema and irgen, the
declared grids) is :mod:`tritonc.frontend_stage`; this module runs the passes, the lowering,
the assembler and the launchers. :class:`Compilation` runs the stages lazily: asking for the PTX runs everything up to PTX
once, and a later request for the cubin reuses it. Every stage after the frontend runs
through a :class:`~tritonc.passes.PassManager` that verifies the IR after each pass and
honours ``--print-ir-after`` / ``--time-passes``.

Launch-time specialisation (``CompileOptions.specialize``, ``transforms/specialize.py``): the
``specialize`` pass runs first, before ``inline``, and adds to each kernel ``K`` a variant
``K__spec16`` assuming 16-byte-aligned pointers and integers divisible by 16, so every later
pass and axis info see the assumptions as parameter promises; both kernels go through the
rest of the pipeline into one cubin, and the launchers pick one per launch. With
``specialize=None`` (the API's default) the IR outputs (``ttir`` ... ``ptx``) stay generic
while ``cubin``, ``kernels`` and the launchers come from a second chain of passes with the
variants (:attr:`Compilation.launch_compilation`, sharing the frontend's module); the CLI
decides on/off from the requested outputs, so it runs one chain.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .diagnostics import CompileError, DiagnosticSink, SourceLoc, SourceManager, recursion_headroom
from .frontend_stage import FrontendResult, StageTimer, frontend_result, read_source
from .options import CodegenOptions, CompileOptions
from .resource_report import format_resource_usage, warn_shared_memory, warn_spills
from .target import Target

if TYPE_CHECKING:  # the IR (and numpy under it) is imported on first use: a cache hit needs none of it
    from .ir.core import Module

#: Machine-independent passes on the tt level, in order. ``inline`` comes first so that the
#: other passes see whole kernels; ``canonicalize`` and ``cse`` run again after ``licm`` because
#: hoisting puts equal loop invariants (and their splat/broadcast chains) into one block.
TT_PIPELINE = ("inline", "group-program-order", "canonicalize", "cse", "licm", "canonicalize-pointers", "canonicalize", "cse", "dce")

#: GPU passes: from tt IR to ttg IR with a layout on every tile, then the shared-memory plan.
#: ``unbatch-dots`` splits batched dots into 2-D ones that ``accelerate-matmul`` can take;
#: ``accelerate-matmul`` moves eligible dots to tensor cores right after the layouts are
#: assigned (so the accumulator's conversions can be cleaned up with the rest);
#: ``software-pipeline`` (``num_stages``) turns their operand loads into cp.async rings once the
#: IR is clean, and the clean-up runs again for what it leaves behind (the dead address
#: recurrences of the loads it replaced). ``allocate-shared`` runs once layouts are final
#: (scratch sizes follow from them) and nothing after it may change ops; ``insert-barriers``
#: comes last because it reads the offsets.
TTG_PIPELINE = ("assign-layouts", "unbatch-dots", "accelerate-matmul", "remove-layout-conversions", "canonicalize", "cse", "dce",
                "software-pipeline", "canonicalize", "cse", "dce", "allocate-shared", "insert-barriers")


@dataclass
class PassOptions:
    """Debugging output of the pass manager (``--print-ir-after``, ``--time-passes``)."""

    print_ir_after: set[str] | str | None = None
    time_passes: bool = False
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    #: ``--print-analysis``: analyses (``tritonc.analysis.PRINTABLE_ANALYSES`` names) whose facts
    #: are printed, one comment per op: on the optimised tt IR, or on the ttg IR for the GPU-level
    #: ones (``TTG_ANALYSES``: liveness, allocation).
    print_analysis: tuple[str, ...] = ()


def run_pipeline(module: Module, names: tuple[str, ...], popts: PassOptions | None = None, **pass_options) -> Module:
    """Run the named passes over ``module`` in order (verifying after each one)."""
    from .passes import PassManager, get_pass

    popts = popts or PassOptions()
    passes = []
    for n in names:
        cls_opts = {k: v for k, v in pass_options.items() if k in _pass_fields(n)}
        passes.append(get_pass(n, **cls_opts))
    PassManager(passes, print_ir_after=popts.print_ir_after, time_passes=popts.time_passes,
                stream=popts.stream).run(module)
    return module


def pass_codegen_options(codegen: CodegenOptions) -> dict[str, object]:
    """The :class:`~tritonc.options.CodegenOptions` fields as pass options: a pass that has a
    field of the same name (``software-pipeline``'s ``slice_prefetch``, ...) gets its value
    (:func:`run_pipeline` gives each pass only its own fields)."""
    import dataclasses

    return {f.name: getattr(codegen, f.name) for f in dataclasses.fields(codegen)}


def _pass_fields(name: str) -> set[str]:
    import dataclasses

    from .passes import all_passes

    cls = all_passes()[name]
    return {f.name for f in dataclasses.fields(cls)}


class Compilation:
    """One source file compiled with one set of options; each stage is computed on first use.

    Args:
        source_or_path: a ``.tri`` path or the source text itself.
        options: see :class:`~tritonc.options.CompileOptions`.
        pass_options: ``--print-ir-after`` / ``--time-passes`` settings.
        sources: where the text of every file read is kept for diagnostics.
        path: with source text, the file name its diagnostics show (default ``<source>``).
        jobs: LLVM worker processes compiling the kernels of the module at once, and threads
            of the PTX assembler (``-j``; default: the number of CPUs). It changes no output.

    Stages (properties): ``ttir`` (optimised tt IR module), ``ttgir``, ``llir`` (text),
    ``ptx`` (text), ``cubin`` (bytes), ``kernels`` (launcher descriptions), ``header`` and
    ``python_module`` (text). Each raises :class:`CompileError` for user errors and
    :class:`~tritonc.diagnostics.InternalCompilerError` for tritonc bugs.
    """

    def __init__(self, source_or_path: str | Path, options: CompileOptions | None = None,
                 pass_options: PassOptions | None = None, sources: SourceManager | None = None,
                 path: str | None = None, jobs: int | None = None):
        import os

        self.options = options or CompileOptions()
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.pass_options = pass_options or PassOptions()
        self.sources = sources or SourceManager()
        self.diag = DiagnosticSink(self.options.warnings_off, self.options.werror, self.options.error_limit)
        if path is not None:  # source text with the name diagnostics should show (``<stdin>``)
            self.text, self.path = str(source_or_path), path
        else:
            self.text, self.path = read_source(source_or_path)
        self.sources.register(self.path, self.text)
        #: seconds per stage (``--time-passes`` prints :meth:`StageTimer.report`)
        self.timer = StageTimer()

    #: What a compilation derived with other options shares with this one (see :meth:`_derived`).
    _INPUTS = ("options", "pass_options", "sources", "diag", "text", "path", "_front", "_frontend", "timer", "jobs")

    @cached_property
    def _front(self) -> FrontendResult:
        return frontend_result(self.text, self.path, self.options, self.sources, self.diag, self.timer)

    @cached_property
    def _frontend(self) -> Module:
        """The module as the frontend made it; never mutated (each chain of passes clones it)."""
        return self._front.module

    @property
    def frontend_module(self) -> Module:
        """The tt IR module as the frontend made it (before any pass); do not mutate it."""
        return self._frontend

    @property
    def choice(self):
        """The cost model's :class:`~tritonc.tuning.cost_model.Choice` (what it chose and why;
        ``-v`` prints it), or ``None`` when the user fixed every meta-parameter."""
        return self._front.choice

    @property
    def grids(self) -> dict[str, tuple]:
        """The launch grid of each kernel that declares one (``tritonc.frontend.grid`` form)."""
        return dict(self._front.grids)

    @property
    def tunables(self) -> dict[str, int]:
        """The value of every ``const tunable`` of the file in this compilation."""
        return dict(self._front.tunables)

    @property
    def retune_plan(self):
        """The cost model's variants and dispatch over the kernels' ``__retune`` arguments (a
        :class:`~tritonc.tuning.table.TablePlan`; :func:`~tritonc.meta_parameters.retune_dispatch`), or ``None``; the
        launchers' build of it is :func:`tritonc.variants.retune_build`."""
        return self._front.retune

    @cached_property
    def ttir(self) -> Module:
        # ``specialize`` goes first: the variants' assumptions must be in place for every pass.
        names = (("specialize",) if self.options.specialize else ()) + TT_PIPELINE
        from .ir.clone import clone_module

        module = clone_module(self._frontend)
        with self.timer("tt passes"):
            run_pipeline(module, names, self.pass_options, **pass_codegen_options(self.options.codegen))
        self._print_analyses(module, ttg=False)
        return module

    def _print_analyses(self, module: Module, ttg: bool) -> None:
        """``--print-analysis``: the requested analyses of this level (GPU-level ones,
        ``analysis.TTG_ANALYSES``, on the ttg IR; the others on the optimised tt IR)."""
        from .analysis import TTG_ANALYSES, print_with_analysis

        for name in self.pass_options.print_analysis:
            if (name in TTG_ANALYSES) == ttg:
                self.pass_options.stream.write(f"// -----// Analysis {name} //----- //\n")
                self.pass_options.stream.write(print_with_analysis(module, name) + "\n")

    @cached_property
    def launch_compilation(self) -> "Compilation":
        """The compilation whose cubin the launchers embed: this one, unless ``specialize`` is
        ``None``; then this one with ``specialize=True`` (same frontend module and diagnostics)."""
        if self.options.specialize is not None:
            return self
        return self._derived(specialize=True)

    def for_arch(self, arch: str) -> "Compilation":
        """This compilation for another architecture (a fatbin's other images, ``tritonc.multiarch``):
        the same frontend module, meta-parameters and diagnostics, ``options.arch`` replaced."""
        return self if arch == self.options.arch else self._derived(arch=arch)

    def _derived(self, **option_changes) -> "Compilation":
        import copy
        import dataclasses

        self._frontend  # computed once, shared
        other = copy.copy(self)
        other.__dict__ = {k: v for k, v in self.__dict__.items() if k in self._INPUTS}
        other.options = dataclasses.replace(self.options, **option_changes)
        return other

    @cached_property
    def ttgir(self) -> Module:
        from .ir.parser import parse_module
        from .ir.printer import print_module

        self._require_kernel()
        from .analysis.tile_budget import check_tile_budget

        warps_of = self.kernel_num_warps
        for f in self._frontend.functions:  # before the long part of the compile
            check_tile_budget(f, warps_of.get(f.name, self.num_warps))
        # A copy through the text (the tt module stays as it was): the ttg IR then names its
        # values as the printed tt IR does (clone_module would keep the name hints, and the
        # printer would number them differently).
        module = parse_module(print_module(self.ttir))
        if self.options.lineinfo:  # the text has no locations: bring them over for the line table
            copy_locations(self.ttir, module)
        module.attrs["num_warps"] = self.num_warps
        if len(set(warps_of.values())) > 1:  # kernels of their own warp counts: each says its own
            for f in module.functions:
                if f.name in warps_of:
                    f.attrs["num_warps"] = warps_of[f.name]
        with self.timer("ttg passes"):
            run_pipeline(module, TTG_PIPELINE, self.pass_options, num_warps=self.num_warps,
                         allow_tf32=self.options.allow_tf32, num_stages=self.num_stages, arch=self.target.arch,
                         **pass_codegen_options(self.options.codegen))
        self._print_analyses(module, ttg=True)
        return module

    @cached_property
    def num_warps(self) -> int:
        """The most warps any kernel takes (:attr:`kernel_num_warps`; the ttg module's
        ``num_warps`` attribute): without ``options.kernel_warps``, every kernel's."""
        return max(self.kernel_num_warps.values(), default=self._file_num_warps)

    @cached_property
    def _file_num_warps(self) -> int:
        """``options.num_warps``, or the cost model's choice (kernels with a dot), or the default
        chosen from the optimised tile IR of the whole file (:mod:`tritonc.analysis.num_warps`)."""
        if self.options.num_warps is not None:
            return self.options.num_warps
        if self._front.num_warps is not None:
            return self._front.num_warps
        from .analysis.num_warps import default_num_warps

        return default_num_warps(self.ttir)

    @cached_property
    def kernel_num_warps(self) -> dict[str, int]:
        """Warps per CTA of each kernel (specialised copies take their kernel's), by name:
        ``options.kernel_warps[name]`` for a kernel named there, else the file's count
        (``options.num_warps``, or the automatic choice over the whole file). Each kernel's
        launch block is its own count (the launchers' metadata is per kernel).

        The automatic choice is one count per file on purpose: the tile rule applied to each
        kernel alone measured worse on an H100 (2026-11-27, ``make bench`` rows):
        ``rmsnorm_fwd`` 0.0814 ms at its own 4 warps against 0.0506 ms at the file's 8, while
        ``layernorm_bwd`` gained 1.4% (0.1612 ms, from 0.1635).

        Raises:
            CompileError: ``options.kernel_warps`` names a kernel the file does not define.
        """
        kernels = [f for f in self.ttir.functions if f.kind == "kernel"]
        suffix = self.options.kernel_suffix  # a variant's kernels: --kernel-warps names the source's

        def source_name(f) -> str:
            name = f.attrs.get("variant_of", f.name)
            return name[:-len(suffix)] if suffix and name.endswith(suffix) else name

        names = {source_name(f) for f in kernels}
        unknown = sorted(set(self.options.kernel_warps) - names)
        if unknown:
            raise CompileError(f"--kernel-warps names no kernel of this file: {', '.join(unknown)} "
                               f"(kernels: {', '.join(sorted(names)) or 'none'})")
        base = self._file_num_warps
        return {f.name: self.options.kernel_warps.get(source_name(f), base) for f in kernels}

    @property
    def num_stages(self) -> int:
        """``options.num_stages``, or the cost model's choice, or 3."""
        if self.options.num_stages is not None:
            return self.options.num_stages
        from .tuning.cost_model import DEFAULT_NUM_STAGES

        return self._front.num_stages or DEFAULT_NUM_STAGES

    @cached_property
    def lowered(self):
        """The whole module lowered to one LLVM module (``--emit=llir``; the PTX of a
        compilation without ``-lineinfo`` comes from :attr:`_ptx_and_kernels` instead)."""
        ttgir = self.ttgir
        with self.timer("lowering to LLVM IR"):
            from .codegen.llvm import lower_module

            return lower_module(ttgir, self.target, self.options.codegen, lineinfo=self.options.lineinfo)

    @property
    def llir(self) -> str:
        return self.lowered.llvm_ir

    @cached_property
    def target(self) -> Target:
        """The :class:`~tritonc.target.Target` of ``options.arch``."""
        return self.options.target

    @property
    def ptx(self) -> str:
        return self._ptx_and_kernels[0]

    @property
    def kernel_infos(self) -> dict:
        """Each kernel's :class:`~tritonc.codegen.llvm.KernelInfo` (parameters, warps, shared
        memory), by symbol, as lowered for :attr:`ptx`."""
        return self._ptx_and_kernels[1]

    @cached_property
    def _ptx_and_kernels(self) -> tuple[str, dict]:
        """The PTX of the module and each kernel's ``KernelInfo``.

        The kernels are lowered one at a time, each into an LLVM module of its own
        (:func:`~tritonc.codegen.llvm.lower_kernels`) that goes to an LLVM worker process as
        soon as it is lowered, up to ``jobs`` at once (:class:`~tritonc.codegen.target.PTXJobs`),
        so a kernel's LLVM optimisation and NVPTX emission overlap the lowering of the next and
        the other kernels' LLVM work; the PTX of the parts is joined into the text one LLVM
        module of all kernels gives (:func:`~tritonc.codegen.target.join_ptx`). With
        ``-lineinfo`` (whose debug metadata is per LLVM module) the whole module goes to LLVM
        at once (:attr:`lowered`). ``--time-passes`` counts the lowering and, under ``LLVM (opt
        + NVPTX)``, the time spent waiting for LLVM (all of it with ``jobs == 1``). When the
        cubin is wanted (:attr:`_assembler_wanted`), nvJitLink is loaded while the workers run.
        """
        from .codegen.target import PTXJobs, join_ptx, llvm_to_ptx

        if self.options.lineinfo:
            lowered = self.lowered
            with self.timer("LLVM (opt + NVPTX)"):
                return llvm_to_ptx(lowered.llvm_ir, self.target), dict(lowered.kernels)
        ttgir = self.ttgir
        kernels: dict = {}
        futures = []
        with PTXJobs(self.target, self.jobs) as jobs:
            with self.timer("lowering to LLVM IR"):
                from .codegen.llvm import lower_kernels

                parts = lower_kernels(ttgir, self.target, self.options.codegen)
            while True:
                with self.timer("lowering to LLVM IR"):
                    part = next(parts, None)
                if part is None:
                    break
                kernels.update(part.kernels)
                with self.timer("LLVM (opt + NVPTX)"):  # compiles now only with jobs == 1
                    futures.append(jobs.submit(part.llvm_ir))
            if self._assembler_wanted and jobs.jobs > 1:  # this process waits for the workers now
                from .codegen.cubin import load_nvjitlink

                with self.timer("nvJitLink"):
                    load_nvjitlink(self.target)
            with self.timer("LLVM (opt + NVPTX)"):
                ptx = join_ptx([future.result()[0] for future in futures])
        return ptx, kernels

    #: Set by :attr:`assembled` before it asks for the PTX: nvJitLink will be needed, so the
    #: PTX step loads it while it waits for the LLVM workers (:func:`~tritonc.codegen.cubin.load_nvjitlink`).
    _assembler_wanted = False

    @cached_property
    def assembled(self):
        """The launchers' PTX assembled for the target: a
        :class:`~tritonc.codegen.cubin.AssembledPTX` (cubin, the assembler's log and each
        kernel's :class:`~tritonc.codegen.cubin.ResourceUsage`). A kernel that spills registers
        is reported once with ``-Wspill``, at its definition."""
        from .codegen.cubin import assemble_ptx

        if self.launch_compilation is not self:
            return self.launch_compilation.assembled
        self._assembler_wanted = not self.options.use_ptxas
        ptx = self.ptx
        warn_shared_memory(self.kernel_infos, self.target, self._frontend, self.diag)
        with self.timer("ptxas" if self.options.use_ptxas else "nvJitLink"):
            result = assemble_ptx(ptx, self.target, use_ptxas=self.options.use_ptxas, threads=self.jobs,
                                  extra_options=("-lineinfo",) if self.options.lineinfo else ())
        warn_spills(result.resources, self._frontend, self.diag)
        return result

    @property
    def cubin(self) -> bytes:
        return self.assembled.cubin

    @property
    def resources(self) -> dict:
        """Per-kernel :class:`~tritonc.codegen.cubin.ResourceUsage` of the cubin, by symbol
        (specialised variants ``K__spec16`` included)."""
        return dict(self.assembled.resources)

    def resource_usage_report(self) -> list[str]:
        """``--resource-usage``'s lines for this compilation's cubin (:func:`~tritonc.resource_report.format_resource_usage`)."""
        launch = self.launch_compilation
        resources = launch.resources
        dynamic = {name: k.shared_bytes for name, k in launch.kernel_infos.items()}
        return format_resource_usage(resources, self.target.arch, dynamic)

    @cached_property
    def kernels(self):
        """One :class:`~tritonc.launcher.signature.CompiledKernel` per kernel of the module
        (specialised variants are listed in their kernel's ``variants``)."""
        from .launcher.build import compiled_kernels

        return compiled_kernels(self.launch_compilation)

    @property
    def header(self) -> str:
        from .launcher.c_header import generate_c_header

        kernels = self.kernels
        with self.timer("launchers"):
            return generate_c_header(kernels, symbol_prefix=self.options.symbol_prefix,
                                     cpp_namespace=self.options.cpp_namespace)

    @property
    def python_module(self) -> str:
        from .launcher.python_module import generate_python_module

        kernels = self.kernels
        with self.timer("launchers"):
            return generate_python_module(kernels, symbol_prefix=self.options.symbol_prefix)

    def _require_kernel(self) -> None:
        """Every output after ``ttir`` is for launching kernels: a file without one is an error
        (its tt IR, device functions only, can still be printed)."""
        if not any(f.kind == "kernel" for f in self.ttir.functions):
            raise CompileError("no kernel in this file", SourceLoc(self.path, 1, 1))

    def emit(self, kind: str) -> str | bytes:
        """The output of kind ``kind`` (a key of :data:`~tritonc.options.EMIT_SUFFIXES`)."""
        with recursion_headroom():  # lowering recurses into nested regions, like the passes
            return self._emit(kind)

    def _emit(self, kind: str) -> str | bytes:
        from .ir.printer import print_module

        if kind == "ttir":
            return print_module(self.ttir)
        if kind == "ttgir":
            return print_module(self.ttgir)
        if kind == "llir":
            return self.llir
        if kind == "ptx":
            return self.ptx
        if kind == "cubin":
            return self.cubin
        if kind == "fatbin":  # this arch's SASS plus forward-compatible PTX (tritonc.multiarch)
            from .multiarch import FatbinBuild

            return FatbinBuild(self, (self.options.arch,)).fatbin
        if kind == "header":
            return self.header
        if kind == "py":
            return self.python_module
        raise ValueError(f"unknown output kind {kind!r}")


def copy_locations(source: Module, copy: Module) -> None:
    """Give the functions and ops of ``copy`` (``source`` printed and parsed again, which drops
    source locations) the locations of ``source``'s, pairing them in walk order.

    Raises:
        InternalCompilerError: the two modules do not have the same functions and ops.
    """
    from .diagnostics import InternalCompilerError

    pairs = list(zip(source.functions, copy.functions))
    ops_a = [op for f, _ in pairs for op in f.walk()]
    ops_b = [op for _, g in pairs for op in g.walk()]
    if len(source.functions) != len(copy.functions) or len(ops_a) != len(ops_b) \
            or any(a.name != b.name for a, b in zip(ops_a, ops_b)):
        raise InternalCompilerError("-lineinfo: the printed and parsed tile IR does not match the original")
    for f, g in pairs:
        g.loc = f.loc
    for a, b in zip(ops_a, ops_b):
        b.loc = a.loc


def compile_to_ttir(source_or_path: str | Path, *, kernel: str | None = None, defines: dict | None = None,
                    include_dirs=(), tunables: dict[str, int] | None = None, num_warps: int = 4) -> Module:
    """Source to optimised tt IR: what the interpreter runs and ``--emit=ttir`` prints.

    Args:
        source_or_path: a ``.tri`` path or source text.
        kernel: keep only this kernel.
        defines: ``-D`` macros; values may be strings or numbers (``None`` = bare ``-D NAME``).
        include_dirs: ``-I`` directories.
        tunables: values for meta-parameters (``const tunable`` names or ``--tune`` macros).
        num_warps: recorded in the module attributes.

    Raises:
        CompileError: an error in the program.
    """
    options = CompileOptions(
        defines={k: (None if v is None else str(v)) for k, v in (defines or {}).items()},
        include_dirs=list(include_dirs), tune={k: [int(v)] for k, v in (tunables or {}).items()},
        kernel=kernel, num_warps=num_warps)
    return Compilation(source_or_path, options).ttir


def interpret(path_or_source: str | Path, kernel: str | None, grid, *args, defines=None, num_warps: int = 4,
              tunables=None, include_dirs=(), order_seed: int | None = None):
    """Compile Triton-C source (a path or the text) to tile IR and run ``kernel`` on ``args``
    in the numpy interpreter (``tritonc.interpret``).

    ``kernel=None`` picks the only kernel of the file. The remaining keywords go to
    :func:`compile_to_ttir`; ``order_seed`` as in :func:`tritonc.interpreter.run_function`.

    Raises:
        tritonc.diagnostics.CompileError: the source does not compile.
        tritonc.interpreter.InterpreterError: as :func:`tritonc.interpreter.run_function`.
    """
    from .interpreter import InterpreterError, run_function

    module = compile_to_ttir(path_or_source, kernel=kernel, defines=defines, include_dirs=include_dirs,
                             tunables=tunables, num_warps=num_warps)
    if kernel is None:
        kernels = [g.name for g in module.functions if g.kind == "kernel"]
        if len(kernels) != 1:
            raise InterpreterError(f"name the kernel to run: the source has {len(kernels)} kernels ({', '.join(kernels)})")
        kernel = kernels[0]
    return run_function(module, kernel, grid, list(args), num_warps=num_warps, order_seed=order_seed)
