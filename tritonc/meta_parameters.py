"""Choosing a compilation's meta-parameters: the cost model driven over a translation unit.

The driver's frontend (:func:`tritonc.frontend_stage.frontend_result`) calls
:func:`choose_meta_parameters` with the tunables the user left free. Every combination of their
candidates is translated to tt IR (:class:`KernelTranslations`: each kernel once per combination
of the tunables it uses) and ranked: kernels with ``@`` by the tensor-core model
(:mod:`tritonc.tuning.cost_model`), the others by the memory-bound model
(:mod:`tritonc.tuning.memory_model`) at the problem size, whose traffic comes from
:mod:`tritonc.tuning.traffic` (:class:`MemorySpace`). For a memory-bound kernel with
``__retune`` arguments, :func:`retune_dispatch` also plans the choice per power-of-two bucket of
those arguments, which the launchers dispatch on (``docs/tuning.md``, "Re-tuning at launch").
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from .diagnostics import CompileError, DiagnosticSink
from .options import CompileOptions

if TYPE_CHECKING:
    from .ir.core import Module


def choose_meta_parameters(tu, fixed: dict[str, int], free: dict[str, list[int]], options: CompileOptions):
    """Run the cost model over every combination of the free meta-parameters (see
    :func:`tritonc.frontend_stage.frontend_result`); each tunable combination is translated once, quietly, to read its
    dots. Combinations the frontend rejects are reported as rejected.

    Returns:
        ``(choice, retune)``: the :class:`~tritonc.tuning.cost_model.Choice` at the problem
        size (``--hint``, else a large problem), and :func:`retune_dispatch`'s plan (``None``
        when there is none to make).
    """
    from .tuning import cost_model as cm
    from .tuning.memory_model import choose_memory_bound
    from .tuning.workload import dot_tiles

    warps = (options.num_warps,) if options.num_warps is not None else cm.WARP_CANDIDATES
    stages = (options.num_stages,) if options.num_stages is not None else cm.STAGE_CANDIDATES
    names = tuple(free) + (("num_warps",) if options.num_warps is None else ()) \
        + (("num_stages",) if options.num_stages is None else ())
    combos = 1
    for v in free.values():
        combos *= len(v)
    if combos > cm.MAX_COMBINATIONS:
        raise CompileError(f"{combos} combinations of tunable candidates ({', '.join(free)}) are too many for "
                           f"the cost model (at most {cm.MAX_COMBINATIONS}); fix some with -D NAME=VALUE")
    from .analysis.num_warps import default_num_warps

    space = []
    mem_space = []
    rejected = []
    any_dot = False
    translate = KernelTranslations(tu)
    tile_memo: dict = {}  # each translated function's dot tiles (dot_tiles), read once
    for config in cm.configurations(free, (warps[0],), (stages[0],)):
        values = dict(fixed, **dict(config.tunables))
        try:
            module = translate(values)
            if options.kernel is not None:
                select_kernel(module, options.kernel)
        except CompileError as e:
            for w in warps:
                for s in stages:
                    rejected.append(cm.Estimate(cm.Config(config.tunables, w, s),
                                                reason=f"the frontend rejects it: {e.diagnostic.message}"))
            continue
        tiles = _with_programs(dot_tiles(module, warps, options.allow_tf32, tile_memo), module, tu, values, options)
        # a batched (3-D) dot is no memory-bound kernel, though the model ranks only 2-D dots:
        # with no tile to rank, choose() keeps the source's candidate order
        any_dot = any_dot or bool(tiles) or any(op.name == "tt.dot" for f in module.functions for op in f.walk())
        for w in warps:
            for s in stages:
                space.append((cm.Config(config.tunables, w, s), tiles))
        # the memory-bound model's view of the same module: warps as the compile would take them
        # (the file's count, or a kernel's own from --kernel-warps)
        file_warps = options.num_warps if options.num_warps is not None else default_num_warps(module)
        kernel_warps = {f.name: options.kernel_warps.get(f.name, file_warps)
                        for f in module.functions if f.kind == "kernel"} if options.kernel_warps else None
        mem_warps = max(kernel_warps.values(), default=file_warps) if kernel_warps else file_warps
        mem_space.append((cm.Config(config.tunables, mem_warps,
                                    stages[0] if options.num_stages is not None else cm.DEFAULT_NUM_STAGES),
                          module, kernel_warps))
    if not any_dot:
        grid_exprs = {fdef.name: fdef.grid for fdef in tu.functions if fdef.grid is not None} \
            if options.grid is None else {}  # (--grid: traffic not estimated)
        mem_names = tuple(n for n in names if n != "num_warps")
        sizes = dict(cm.LARGE_PROBLEM, **(options.hint or {}))
        memory = MemorySpace(mem_space, translate.uses, grid_exprs)
        choice = choose_memory_bound(memory.at(sizes), options.arch, options.hint, mem_names)
        choice.rejected.extend(rejected)
        if choice.config is None:  # everything rejected: the first candidates, as for a dot
            choice.config = cm.Config(tuple((k, v[0]) for k, v in free.items()), warps[0],
                                      stages[0] if options.num_stages is not None else cm.DEFAULT_NUM_STAGES)
            return choice, None
        return choice, retune_dispatch(memory, sizes, choice, free, options)
    choice = cm.choose(space, options.arch, options.hint, names)
    choice.rejected.extend(rejected)
    return choice, None


def program_count(grid_expr, f, tunables: dict[str, int], sizes: dict[str, int]) -> int | None:
    """How many program instances kernel ``f``'s ``__grid`` (``grid_expr``, its AST) launches
    with ``tunables`` at problem ``sizes`` (scalar arguments by name); ``None`` where the sizes
    do not decide it."""
    from .frontend.grid import lower_grid
    from .launcher.grid import evaluate_grid

    try:
        grid = evaluate_grid(lower_grid(grid_expr, f, tunables), sizes)
    except (CompileError, KeyError, ValueError):
        return None
    return math.prod(max(0, g) for g in grid)


def _with_programs(tiles: list, module, tu, tunables: dict[str, int], options: CompileOptions) -> list:
    """``tiles`` with ``programs`` set: the program instances each kernel's ``__grid`` launches
    at the problem size (:data:`~tritonc.tuning.cost_model.LARGE_PROBLEM` and ``--hint``, read
    as the kernel's argument values), where the grid is declared (not replaced by ``--grid``)
    and those sizes decide it."""
    if options.grid is not None or not tiles:
        return tiles
    from .tuning import cost_model as cm

    grids = {fdef.name: fdef.grid for fdef in tu.functions if fdef.grid is not None}
    sizes = dict(cm.LARGE_PROBLEM, **(options.hint or {}))
    programs = {f.name: program_count(grids[f.name], f, tunables, sizes)
                for f in module.functions if f.kind == "kernel" and f.name in grids}
    return [replace(t, programs=programs.get(t.kernel)) for t in tiles]


def tunables_used(fdef, tunables: set[str]) -> set[str]:
    """The names of ``tunables`` that function ``fdef``'s source (AST) mentions."""
    from .frontend import ast

    return {n.name for n in fdef.walk() if isinstance(n, ast.Identifier)} & tunables


class KernelTranslations:
    """The frontend's modules of one translation unit for many tunable combinations (the cost
    model's space), each kernel translated once per combination of the tunables that its own
    source and the device functions use: a file whose kernels take different tunables
    (``layernorm_bwd``: ``BLOCK`` for one kernel, ``BM``, ``BN``, ``SPLIT`` for the other)
    translates ``6 + 54`` kernels, not ``6 * 54`` modules.

    Calling it with the tunable values returns a module made of the cached kernels'
    functions (and the device functions once), for the model to read; it is not compiled,
    and its functions' ``parent`` is their own translation's module. A file with one kernel
    is translated whole.

    Raises (on call):
        CompileError: the frontend rejects a kernel at these values.
    """

    def __init__(self, tu):
        self.tu = tu
        self.names = {d.name for d in tu.tunables}
        self.kernels: list[str] | None = None   # known after the first translation
        self._uses: dict[str, tuple[str, ...]] = {}
        self.cache: dict[tuple, object] = {}

    def __call__(self, values: dict[str, int]):
        from .frontend import ast
        from .frontend.irgen import generate_ir
        from .ir.core import Module

        if self.kernels is None:
            module = generate_ir(self.tu, tunables=values, diag=DiagnosticSink())
            self.kernels = [f.name for f in module.functions if f.kind == "kernel"]
            device = [d for d in self.tu.functions if d.name not in self.kernels]
            shared = set().union(*(tunables_used(d, self.names) for d in device)) if device else set()
            self._uses = {d.name: tuple(sorted(tunables_used(d, self.names) | shared))
                          for d in self.tu.functions if d.name in self.kernels}
            return module
        if len(self.kernels) < 2:
            return generate_ir(self.tu, tunables=values, diag=DiagnosticSink())
        parts = []
        for kernel in self.kernels:
            key = (kernel, tuple(values.get(n) for n in self.uses(kernel)))
            if key not in self.cache:
                sub = ast.TranslationUnit([d for d in self.tu.decls if not isinstance(d, ast.FunctionDef)
                                           or d.name == kernel or d.name not in self.kernels], loc=self.tu.loc)
                try:
                    self.cache[key] = generate_ir(sub, tunables=values, diag=DiagnosticSink())
                except CompileError as e:
                    self.cache[key] = e
            if isinstance(self.cache[key], CompileError):
                raise self.cache[key]
            parts.append(self.cache[key])
        module = Module(attrs=dict(parts[0].attrs))
        module.functions = [f for f in parts[0].functions if f.kind != "kernel"] + \
            [next(f for f in p.functions if f.name == k) for k, p in zip(self.kernels, parts)]
        return module

    def uses(self, kernel: str) -> tuple[str, ...]:
        """The tunables kernel ``kernel``'s translation depends on: those its own source and the
        device functions mention (every tunable before the first translation, or for a name
        that is not a kernel)."""
        return self._uses[kernel] if kernel in self._uses else tuple(sorted(self.names))


class MemorySpace:
    """The memory-bound model's ``(config, profiles)`` space at any problem size (scalar
    arguments by name), for :func:`choose_meta_parameters` and the ``__retune`` sweep.

    ``entries`` are ``(config, frontend module, per-kernel warps)``; ``uses(kernel)`` names the
    tunables a kernel's translation depends on (:meth:`KernelTranslations.uses`). Each kernel's
    traffic is its program instance's bytes (:func:`tritonc.tuning.traffic.program_bytes`)
    times its ``__grid`` at the sizes; unknown without a grid or where the sizes do not decide
    it. The profiles' size-independent part is read once per configuration, and a kernel's
    program bytes once per value of the tunables it depends on and of the sizes it reads (a
    file whose kernels use different tunables multiplies its configurations, not this work).
    """

    def __init__(self, entries, uses, grid_exprs: dict):
        from .tuning.memory_model import memory_profiles

        self.entries = entries
        self.grid_exprs = grid_exprs
        self.uses = uses
        self.profiles = [memory_profiles(module, kernel_warps) for _, module, kernel_warps in entries]
        self._bytes: dict[tuple, tuple[int | None, tuple[str, ...]]] = {}

    def _program_bytes(self, f, tunables: dict[str, int], sizes: dict[str, int]) -> int | None:
        from .tuning.traffic import program_bytes

        key = (f.name, tuple(tunables.get(n) for n in self.uses(f.name)))
        cached = self._bytes.get(key)
        if cached is not None and all(sizes.get(n) == v for n, v in cached[1]):
            return cached[0]
        read: set[str] = set()
        moved = program_bytes(f, sizes, read)
        self._bytes[key] = (moved, tuple((n, sizes.get(n)) for n in sorted(read)))
        return moved

    def at(self, sizes: dict[str, int]) -> list:
        """The space at problem ``sizes``."""
        space = []
        for (config, module, _), profiles in zip(self.entries, self.profiles):
            tunables = dict(config.tunables)
            traffic: dict[str, int | None] = {}
            for f in module.functions:
                if f.kind != "kernel" or f.name not in self.grid_exprs:
                    continue
                per_program = self._program_bytes(f, tunables, sizes)
                programs = program_count(self.grid_exprs[f.name], f, tunables, sizes)
                if per_program is not None and programs is not None:
                    traffic[f.name] = per_program * programs
            space.append((config, [replace(p, traffic=traffic.get(p.kernel)) for p in profiles]))
        return space


#: ``__retune`` buckets the cost model plans for: each key argument at the powers of two
#: ``2**RETUNE_LOG2[0]`` .. ``2**RETUNE_LOG2[1]`` (the launcher takes the nearest bucket, so
#: smaller and larger values go to the end ones).
RETUNE_LOG2 = (4, 20)
#: Most ``__retune`` arguments a plan is made for (their buckets multiply).
RETUNE_MAX_KEYS = 2


def retune_dispatch(memory: MemorySpace, sizes: dict[str, int], choice, free: dict[str, list[int]],
                     options: CompileOptions):
    """The cost model's dispatch over the ``__retune`` arguments of a memory-bound module
    (spec section 4: re-tune when this argument's value changes), made at compile time with no
    GPU: the choice at each power-of-two bucket of the key arguments (:data:`RETUNE_LOG2`), the
    other sizes as for the main choice. It is what ``tritonc-tune --tuning`` would give, with
    the model in place of measurements, so the launchers dispatch it the same way
    (:mod:`tritonc.tuning.dispatch`, nearest bucket).

    Returns a :class:`~tritonc.tuning.table.TablePlan` whose first variant is ``choice``'s
    configuration (the launchers' default), or ``None``: no free tunable, a variant build
    (``options.kernel_suffix``), ``--ptxas`` (variants are linked by nvJitLink), no kernel with
    ``__retune`` integer parameters, more than :data:`RETUNE_MAX_KEYS` of them, or the same
    choice at every bucket.
    """
    import itertools

    from .tuning.dispatch import TunedDispatch
    from .tuning.memory_model import choose_memory_bound
    from .tuning.table import TablePlan

    if not free or options.kernel_suffix or options.use_ptxas or not memory.entries:
        return None
    module = memory.entries[0][1]
    keys = {f.name: tuple(a.name for a, attrs in zip(f.args, f.arg_attrs)
                          if attrs.get("retune") and getattr(a.type, "is_int", False) and a.type.bits > 1)
            for f in module.functions if f.kind == "kernel"}
    keys = {k: v for k, v in keys.items() if v}
    names = sorted({n for v in keys.values() for n in v})
    if not names or len(names) > RETUNE_MAX_KEYS:
        return None

    def meta(config) -> dict:
        # warps and stages stay automatic: each variant's compile takes them as a build would
        return dict(config.tunables, num_warps=options.num_warps, num_stages=options.num_stages)

    configs = [meta(choice.config)]
    chosen: dict[tuple[int, ...], int] = {}
    lo, hi = RETUNE_LOG2
    mem_names = tuple(n for n in choice.free if n != "num_warps")
    for logs in itertools.product(range(lo, hi + 1), repeat=len(names)):
        at = dict(sizes, **{n: 2 ** e for n, e in zip(names, logs)})
        c = choose_memory_bound(memory.at(at), options.arch, at, mem_names)
        if c.config is None:
            continue
        m = meta(c.config)
        if m not in configs:
            configs.append(m)
        chosen[logs] = configs.index(m)
    if len(configs) < 2:
        return None
    dispatch = {}
    for kernel, key in keys.items():
        entries_k = {}
        for logs, variant in chosen.items():
            coords = tuple(logs[names.index(n)] for n in key)
            entries_k.setdefault(coords, variant)
        dispatch[kernel] = TunedDispatch(key, (None,) * len(key), tuple(sorted(entries_k.items())))
    return TablePlan(configs, dispatch)


def select_kernel(module: Module, name: str) -> None:
    """Keep only kernel ``name`` (and the device functions) in ``module``.

    Raises:
        CompileError: no kernel of that name; the message lists the kernels there are.
    """
    kernels = [f.name for f in module.functions if f.kind == "kernel"]
    if name not in kernels:
        listed = ", ".join(kernels) or "none"
        raise CompileError(f"no kernel named '{name}' in this file (kernels: {listed})")
    module.functions = [f for f in module.functions if f.kind != "kernel" or f.name == name]
