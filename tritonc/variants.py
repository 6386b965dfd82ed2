"""Variants: every combination of ``--tune`` lists, ``--num-warps`` and ``--num-stages`` lists,
compiled in parallel (``-j``), pruned, linked into one cubin, dispatched by the launchers.

A build has variants when a ``--tune`` list, ``--num-warps`` or ``--num-stages`` has more than
one value. Variant ``i`` fixes each listed meta-parameter to one of its values (the first list
varies slowest) and leaves the rest to the cost model as a single compilation would; its
kernels are compiled with the symbol suffix ``__v<i>`` (``matmul__v3``), each variant to PTX in
its own process, and the surviving ones are linked by nvJitLink into one cubin.

Pruned, each with its reason (``-v`` lists them):

* a variant the frontend rejects (a candidate that makes a tile shape invalid);
* a variant whose kernel needs more dynamic shared memory than a CTA may have on the target;
* on ``sm_90a``, a variant whose ``@`` could run on wgmma with 4 warps but not with its own
  warp count (wgmma stacks warp groups along M: ``TM`` must be a multiple of ``16 * warps``);
* a variant whose kernel spills registers, read from nvJitLink's report
  (:func:`tritonc.codegen.cubin.parse_resource_usage`). A specialised copy of a kernel
  (``K__v0__spec16_le``) that spills where the kernel itself does not is only taken out of the
  launchers' choice: the variant stays, and its launches run the next copy whose facts hold.

The default variant, the one ``<kernel>(...)`` launches, is the survivor the cost model ranks
fastest (:mod:`tritonc.tuning.cost_model`); the others are reachable by index
(``<kernel>_by_id`` in C, ``variant=`` in Python). IR and PTX outputs show the default variant.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field, replace

from .diagnostics import CompileError, SourceManager
from .options import CompileOptions


@dataclass(frozen=True)
class VariantSpec:
    """Variant ``index``: the listed meta-parameters' values (``None``: left to the model)."""

    index: int
    tune: tuple[tuple[str, int], ...]
    num_warps: int | None
    num_stages: int | None

    @property
    def suffix(self) -> str:
        return f"__v{self.index}"

    def options(self, base: CompileOptions) -> CompileOptions:
        tune = {k: v for k, v in base.tune.items() if len(v) == 1}
        tune.update({k: [v] for k, v in self.tune})
        return replace(base, tune=tune, num_warps=self.num_warps, num_stages=self.num_stages,
                       kernel_suffix=self.suffix, specialize=True)

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in self.tune]
        if self.num_warps is not None:
            parts.append(f"num_warps={self.num_warps}")
        if self.num_stages is not None:
            parts.append(f"num_stages={self.num_stages}")
        return " ".join(parts)


def has_variants(options: CompileOptions, warps: list[int] | None, stages: list[int] | None) -> bool:
    """True when a ``--tune`` list, ``warps`` or ``stages`` has more than one value."""
    return any(len(v) > 1 for v in options.tune.values()) or len(warps or ()) > 1 or len(stages or ()) > 1


def variant_specs(options: CompileOptions, warps: list[int] | None, stages: list[int] | None) -> list[VariantSpec]:
    """Every combination of the lists, in order (the first ``--tune`` list varies slowest)."""
    listed = {k: list(dict.fromkeys(v)) for k, v in options.tune.items() if len(v) > 1}
    w = list(dict.fromkeys(warps)) if warps else [options.num_warps]
    s = list(dict.fromkeys(stages)) if stages else [options.num_stages]
    out = []
    for values in itertools.product(*listed.values(), w, s):
        *tune, nw, ns = values
        out.append(VariantSpec(len(out), tuple(zip(listed, tune)), nw, ns))
    return out


@dataclass
class VariantResult:
    """One variant compiled to PTX (in a worker process), or why it was pruned."""

    spec: VariantSpec
    ptx: str | None = None
    kernels: list[dict] = field(default_factory=list)   # launcher.build.kernel_descriptions
    tunables: dict[str, int] = field(default_factory=dict)
    num_warps: int | None = None
    num_stages: int | None = None
    dots: list = field(default_factory=list)            # workload.DotTile
    wgmma_at_4: list = field(default_factory=list)      # per dot: could it run on wgmma at 4 warps
    warnings: list[str] = field(default_factory=list)   # rendered
    dropped: list[str] = field(default_factory=list)    # specialised copies not launched, and why
    pruned: str | None = None

    def config(self) -> str:
        parts = [f"{k}={v}" for k, v in self.tunables.items()]
        parts += [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}"]
        return " ".join(parts)


def _compile_variant(job: tuple[str, str, CompileOptions, VariantSpec, int]) -> VariantResult:
    """Compile one variant to PTX with ``jobs`` LLVM workers for its kernels (runs in a worker
    process; returns plain data)."""
    from .driver import Compilation
    from .launcher.build import kernel_descriptions
    from .tuning.workload import dot_tiles

    text, path, base, spec, jobs = job
    sources = SourceManager()
    result = VariantResult(spec)
    try:
        comp = Compilation(text, spec.options(base), sources=sources, path=path, jobs=jobs)
        ptx = comp.ptx
        result.kernels = kernel_descriptions(comp)
        result.ptx = ptx
        result.tunables = dict(result.kernels[0]["tunables"]) if result.kernels else comp.tunables
        result.num_warps, result.num_stages = comp.num_warps, comp.num_stages
        result.dots = dot_tiles(comp.frontend_module, (comp.num_warps, 4), base.allow_tf32)
        result.wgmma_at_4 = [d.mma_k_width is not None and d.wgmma_n(4) is not None for d in result.dots]
        result.warnings = [sources.render(w) for w in comp.diag.warnings]
    except CompileError as e:
        result.pruned = f"the frontend rejects it: {e.diagnostic.message}"
    return result


class VariantBuild:
    """Compile, prune and link the variants of one source file (see the module docstring).

    Args:
        text, path: the source and the name its diagnostics show.
        options: the command line's options (``tune`` lists included).
        warps, stages: the ``--num-warps`` / ``--num-stages`` lists (``None``: auto).
        jobs: worker processes (``-j``; default: the CPU count).

    Raises (from :meth:`build`):
        CompileError: every variant was pruned (the reasons are listed).
    """

    def __init__(self, text: str, path: str, options: CompileOptions, warps: list[int] | None,
                 stages: list[int] | None, jobs: int | None = None, *,
                 configs: list[dict] | None = None, tuning: dict | None = None):
        self.text, self.path, self.options = text, path, options
        # configs (a --tuning table's variants, each its meta-parameters) replace the lists' product
        self.specs = specs_from_configs(configs) if configs else variant_specs(options, warps, stages)
        #: kernel name -> tuning.dispatch.TunedDispatch over the specs (``--tuning``)
        self.tuning = dict(tuning or {})
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.results: list[VariantResult] = []
        self.survivors: list[VariantResult] = []
        self.default = 0       # index into survivors
        self.cubin = b""
        self.kernels = []      # CompiledKernel of every surviving variant
        self.dispatchers = []  # launcher.signature.Dispatcher per kernel name

    # -- building ---------------------------------------------------------------------------------

    def build(self, require_all: bool = False) -> "VariantBuild":
        """Compile, prune, link. ``require_all`` (a tuning table's variants): a pruned variant
        is an error naming it and the reason."""
        from .codegen.cubin import link_ptx_modules
        from .codegen.target import Target
        from .tuning.workload import GPU_MODELS, WGMMA_ARCHS

        processes = min(self.jobs, len(self.specs)) if len(self.specs) > 1 else 1
        # the -j processes are shared out: a variant's kernels compile at once in what is left
        jobs = [(self.text, self.path, self.options, spec, max(1, self.jobs // processes)) for spec in self.specs]
        if self.jobs > 1 and len(jobs) > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork")) as ex:
                self.results = list(ex.map(_compile_variant, jobs))
        else:
            self.results = [_compile_variant(j) for j in jobs]
        gpu = GPU_MODELS[self.options.arch]
        for r in self.results:
            if r.pruned:
                continue
            big = max((d["shared_bytes"] for d in r.kernels), default=0)
            if big > gpu.smem_per_cta:
                r.pruned = (f"{big // 1024} KiB of shared memory, over the {gpu.smem_per_cta // 1024} KiB "
                            f"per CTA of {gpu.arch}")
            elif self.options.arch in WGMMA_ARCHS and any(
                    ok4 and d.wgmma_n(r.num_warps) is None for d, ok4 in zip(r.dots, r.wgmma_at_4)):
                d = next(d for d, ok4 in zip(r.dots, r.wgmma_at_4) if ok4 and d.wgmma_n(r.num_warps) is None)
                r.pruned = (f"its {d.m}x{d.n}x{d.k} @ cannot run on wgmma with {r.num_warps} warps "
                            f"(warp groups stack along M: M must be a multiple of {16 * r.num_warps})")
        target = Target(self.options.arch)
        live = [r for r in self.results if not r.pruned]
        linked = None
        while live:
            linked = link_ptx_modules([(f"variant{r.spec.index}.ptx", r.ptx) for r in live], target)
            for r in live:  # a specialised copy that spills where its kernel does not is not launched
                r.dropped += _drop_spilling_copies(r, linked.resources)
            spilling = [r for r in live if _spills(r, linked.resources)]
            if not spilling:
                break
            for r in spilling:
                r.pruned = _spills(r, linked.resources)
            live = [r for r in live if not r.pruned]
        if require_all and len(live) < len(self.results):
            r = next(r for r in self.results if r.pruned)
            raise CompileError(f"the tuning table's variant {r.spec.describe()} cannot be built: {r.pruned}")
        if self.tuning and len(live) < len(self.results):
            self.tuning = _without_pruned(self.tuning, self.results)
        if not live:
            reasons = "; ".join(f"v{r.spec.index} ({r.spec.describe()}): {r.pruned}" for r in self.results)
            raise CompileError(f"every variant was pruned: {reasons}")
        self.survivors = live
        self.cubin = linked.cubin
        #: per-kernel resource usage of the linked cubin, by symbol (``matmul__v1``)
        self.resources = dict(linked.resources)
        self.default = self._rank_default()
        self._make_kernels()
        return self

    def _rank_default(self) -> int:
        """The survivor the cost model ranks fastest (the first one for kernels without a dot)."""
        from .tuning.cost_model import Config, choose

        space = [(Config(tuple(r.tunables.items()), r.num_warps, r.num_stages), r.dots) for r in self.survivors]
        if not any(r.dots for r in self.survivors):
            return 0
        choice = choose(space, self.options.arch, self.options.hint)
        if choice.config is None:
            return 0
        return next(i for i, (c, _) in enumerate(space) if c == choice.config)

    def _make_kernels(self) -> None:
        from .launcher.signature import CompiledKernel, Dispatcher

        self.kernels = []
        names: dict[str, list[str]] = {}
        metas: dict[str, list[dict]] = {}
        for r in self.survivors:
            for d in r.kernels:
                k = CompiledKernel(cubin=self.cubin, ptx=r.ptx, **d)
                self.kernels.append(k)
                base = k.name[:-len(r.spec.suffix)]
                names.setdefault(base, []).append(k.name)
                metas.setdefault(base, []).append(k.meta())
        self.dispatchers = [Dispatcher(base, tuple(v), self.default, self.tuning.get(base))
                            for base, v in names.items()]
        for d in self.dispatchers:
            if d.tuning is not None:
                _check_tuning_key(d, self.kernels)

    # -- outputs ----------------------------------------------------------------------------------

    def default_compilation(self):
        """The default variant as a :class:`~tritonc.driver.Compilation` (for IR / PTX outputs)."""
        from .driver import Compilation

        spec = self.survivors[self.default].spec
        return Compilation(self.text, replace(spec.options(self.options), kernel_suffix=""), path=self.path,
                           jobs=self.jobs)

    def emit(self, kind: str) -> str | bytes:
        if kind == "cubin":
            return self.cubin
        if kind == "header":
            from .launcher.c_header import generate_c_header

            return generate_c_header(self.kernels, dispatchers=self.dispatchers,
                                     symbol_prefix=self.options.symbol_prefix,
                                     cpp_namespace=self.options.cpp_namespace)
        if kind == "py":
            from .launcher.python_module import generate_python_module

            return generate_python_module(self.kernels, dispatchers=self.dispatchers,
                                          symbol_prefix=self.options.symbol_prefix)
        return self.default_compilation().emit(kind)

    @property
    def warnings(self) -> list[str]:
        return self.survivors[self.default].warnings if self.survivors else []

    def resource_usage_report(self) -> list[str]:
        """``--resource-usage``: one line per kernel symbol of each surviving variant
        (:func:`tritonc.resource_report.format_resource_usage`), the variant's parameters after its name."""
        from .resource_report import format_resource_usage

        lines = []
        for r in self.survivors:
            dynamic = {}
            for d in r.kernels:
                dynamic[d["signature"].name] = d["shared_bytes"]
                dynamic.update({v.name: v.shared_bytes for v in d["variants"]})
            mine = {k: u for k, u in self.resources.items() if k in dynamic}
            lines += format_resource_usage(mine, self.options.arch, dynamic,
                                           f" (variant v{r.spec.index}: {r.spec.describe()})")
        return lines

    def explain(self) -> str:
        """Lines for ``-v``: every variant, what it compiled with or why it was pruned."""
        lines = [f"tritonc: {len(self.specs)} variant(s), {len(self.survivors)} kept, compiled with "
                 f"{min(self.jobs, len(self.specs))} process(es)"]
        default = self.survivors[self.default].spec.index if self.survivors else None
        ids = {r.spec.index: i for i, r in enumerate(self.survivors)}  # K_by_id's numbering
        for r in self.results:
            head = f"tritonc:   v{r.spec.index} {r.spec.describe()}"
            if r.pruned:
                lines.append(f"{head}: pruned, {r.pruned}")
            else:
                lines.append(f"{head}: {r.config()}, variant id {ids[r.spec.index]}"
                             + (" (default)" if r.spec.index == default else ""))
        return "\n".join(lines)


def specs_from_configs(configs: list[dict]) -> list[VariantSpec]:
    """One :class:`VariantSpec` per meta-parameter dict (a tuning table's variants: every
    tunable, ``num_warps`` and ``num_stages`` fixed)."""
    return [VariantSpec(i, tuple((k, v) for k, v in c.items() if k not in ("num_warps", "num_stages")),
                        c["num_warps"], c["num_stages"]) for i, c in enumerate(configs)]


def explain_pruned(build: "VariantBuild | None") -> str:
    """``-v``: the variants of a ``__retune`` plan (:func:`retune_build`) left out, and why, and
    the specialised copies of the others that are not launched (:func:`_drop_spilling_copies`)."""
    if build is None:
        return ""
    return "".join([f"\ntritonc:   left out of the launch-time choice: {r.spec.describe()}: {r.pruned}; "
                    "its buckets take the nearest other variant" for r in build.results if r.pruned]
                   + [f"\ntritonc:   {r.spec.describe()}: {note}" for r in build.results if not r.pruned
                      for note in r.dropped])


def _without_pruned(tuning: dict, results: list[VariantResult]) -> dict:
    """``tuning`` (kernel name -> :class:`~tritonc.tuning.dispatch.TunedDispatch` over the
    variants in build order) with the pruned variants' entries dropped and the survivors
    renumbered in survivor order: the buckets of a pruned variant take the nearest remaining
    entry's variant, as any key between the table's buckets does. A dispatch left without
    entries is dropped (the default variant serves every size)."""
    from .tuning.dispatch import TunedDispatch

    index = {}
    for r in results:
        if not r.pruned:
            index[r.spec.index] = len(index)
    out = {}
    for name, d in tuning.items():
        entries = tuple((c, index[v]) for c, v in d.entries if v in index)
        if entries:
            out[name] = TunedDispatch(d.key, d.rules, entries)
    return out


def _check_tuning_key(d, kernels) -> None:
    """A tuning table's key must name integer scalar parameters of its kernel."""
    k = next(k for k in kernels if k.name == d.variants[0])
    params = {p.name: p for p in k.params}
    for name in d.tuning.key:
        p = params.get(name)
        if p is None or p.is_pointer or not p.scalar_type.is_integer or p.dtype == "bool":
            what = "is not a parameter" if p is None else f"is a {p.dtype}{' pointer' if p.is_pointer else ''}"
            raise CompileError(f"the tuning table's key '{name}' of kernel '{d.name}' {what}; a key names "
                               "integer scalar parameters")


def tunable_space(text: str, path: str, options: CompileOptions) -> dict[str, list[int] | None]:
    """The meta-parameter names a variant may set, with their allowed values: every ``const
    tunable`` (its ``--tune`` list, else its ``-D`` value, else its candidates; ``None`` when a
    candidate is not an integer literal), every ``--tune`` name, and every macro the
    preprocessed source uses (``None``: any value) that ``-D`` does not define.

    Raises:
        CompileError: the source does not preprocess or parse.
    """
    from .diagnostics import DiagnosticSink
    from .frontend.parser import parse_preprocessed
    from .frontend.preprocess import preprocess

    pre = preprocess(text, path, dict(options.defines), list(options.include_dirs), SourceManager(),
                     DiagnosticSink())
    tu = parse_preprocessed(pre, path, options.kernel)
    space: dict[str, list[int] | None] = {k: list(v) for k, v in options.tune.items()}
    for name in sorted(pre.used_names):
        if name not in space and name not in options.defines:
            space[name] = None
    for decl in tu.tunables:
        if decl.name in space:
            continue
        if decl.override is not None:
            try:
                space[decl.name] = [int(decl.override.strip(), 0)]
            except ValueError:
                space[decl.name] = None
            continue
        values = []
        for c in decl.candidates:
            if type(getattr(c, "value", None)) is not int:
                values = None
                break
            values.append(c.value)
        space[decl.name] = values
    return space


def _drop_spilling_copies(r: VariantResult, resources: dict) -> list[str]:
    """Take out of ``r``'s kernel descriptions each specialised copy (``K__v0__spec16_le``)
    that spills registers while its kernel does not: the launchers then run the copy below it
    (or the kernel) where its facts hold, rather than the whole variant being left out for it.
    Its code stays in the cubin, unused. Returns a note per copy taken out (``-v``)."""
    notes = []
    for d in r.kernels:
        kernel = resources.get(d["signature"].name)
        if kernel is None or kernel.spills:
            continue
        keep = []
        for v in d["variants"]:
            u = resources.get(v.name)
            if u is not None and u.spills:
                notes.append(f"'{v.name}' spills registers ({u.spill_store_bytes} bytes spill stores in "
                             f"nvJitLink's report) where '{d['signature'].name}' does not: not launched")
            else:
                keep.append(v)
        d["variants"] = tuple(keep)
    return notes


def _spills(r: VariantResult, resources: dict) -> str | None:
    for d in r.kernels:
        names = [d["signature"].name] + [v.name for v in d["variants"]]
        for name in names:
            u = resources.get(name)
            if u is not None and u.spills:
                return (f"'{name}' spills registers ({u.registers} registers, {u.spill_store_bytes} bytes "
                        f"spill stores, {u.spill_load_bytes} bytes spill loads in nvJitLink's report)")
    return None


#: Output kinds that come from a :func:`retune_build` when there is one (IR and PTX outputs
#: show the default variant, as for any variant build).
RETUNE_KINDS = ("cubin", "header", "py")


def retune_build(comp) -> VariantBuild | None:
    """The :class:`VariantBuild` of ``comp``'s :attr:`~tritonc.driver.Compilation.retune_plan`
    (the cost model's choice per bucket of the ``__retune`` arguments, each compiled as a
    variant, the launchers dispatching as for a ``--tuning`` table), or ``None`` without a
    plan. A variant that cannot be built (it spills, say) is pruned as any variant is (``-v``
    says which and why, :func:`explain_pruned`): its buckets take the nearest other bucket's
    variant. When the default variant itself, or all but it, cannot be built, the plan is
    dropped with a ``-Wspill`` warning and the one default variant serves every size.

    Raises:
        CompileError: from the frontend (errors in the program).
    """
    from .diagnostics import SourceLoc

    plan = comp.retune_plan
    if plan is None:
        return None
    if comp.options.kernel_warps:
        comp.kernel_num_warps  # a --kernel-warps name the file lacks is the user's error, not a pruned variant
    try:
        build = VariantBuild(comp.text, comp.path, comp.options, None, None, comp.jobs, configs=plan.configs,
                             tuning=plan.dispatch).build()
    except CompileError as e:
        comp.diag.warn("spill", f"no launch-time choice over the __retune arguments: {e.diagnostic.message}",
                       SourceLoc(comp.path, 1, 1))
        return None
    if len(build.survivors) < 2 or build.survivors[0].spec.index != 0:
        # only one variant left, or the default (the plan's first) itself pruned: no plan
        reasons = "; ".join(f"{r.spec.describe()}: {r.pruned}" for r in build.results if r.pruned)
        comp.diag.warn("spill", f"no launch-time choice over the __retune arguments: {reasons}",
                       SourceLoc(comp.path, 1, 1))
        return None
    return build
