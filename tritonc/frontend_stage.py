"""The driver's frontend stage: one source file to tt IR, with its meta-parameters chosen.

::

    .tri --read (UTF-8)--> text --preprocess (pcpp)--> tokens --parse (lark)--> AST
      --cost model (free tunables, num_warps, num_stages)--> values
      --sema+irgen--> tile IR (tt), and each kernel's launch grid (``__grid`` / ``--grid``)

:func:`frontend_result` runs it for :class:`tritonc.driver.Compilation` (which then runs the
passes, the lowering and the launchers) and returns a :class:`FrontendResult`; the cost model
is :mod:`tritonc.meta_parameters`. :class:`StageTimer` times its stages (and the driver's) for
``--time-passes``. Source text is read as UTF-8 (:func:`read_source`, :func:`decode_source`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import CompileError, DiagnosticSink, SourceLoc, SourceManager, UsageError
from .meta_parameters import choose_meta_parameters, select_kernel
from .options import CompileOptions

if TYPE_CHECKING:  # the IR (and numpy under it) is imported on first use: a cache hit needs none of it
    from .ir.core import Module


def read_source(source_or_path: str | Path) -> tuple[str, str]:
    """``(text, path)`` for a path to a ``.tri`` file or for source text itself.

    A :class:`~pathlib.Path` is a path. A string is a path when it is one line that names an
    existing file or ends in ``.tri`` (so a missing ``kernel.tri`` is reported as missing);
    any other string is source text (path ``<source>``).

    Raises:
        CompileError: the file cannot be read.
    """
    if isinstance(source_or_path, Path) or _names_a_file(source_or_path):
        path = str(source_or_path)
        try:
            return decode_source(Path(path).read_bytes(), path), path
        except OSError as e:
            raise CompileError(f"cannot read '{path}': {e.strerror or e}") from None
    return str(source_or_path), "<source>"


def _names_a_file(text: str) -> bool:
    if "\n" in text or not text.strip():
        return False
    if text.endswith(".tri"):
        return True
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # not a usable path (too long, a NUL byte): source text
        return False


def decode_source(data: bytes, path: str) -> str:
    """The text of a source file read as ``data``: UTF-8 (newlines normalised as by ``open()``).

    Raises:
        CompileError: ``data`` is not UTF-8; located at the first bad byte.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[start:e.start].decode("utf-8", errors="replace")) + 1
        raise CompileError(f"invalid UTF-8 byte 0x{data[e.start]:02x} in source file; "
                           "Triton-C sources are UTF-8", SourceLoc(path, line, col)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _tunable_values(tu, options: CompileOptions) -> dict[str, int]:
    """Values the user fixed for ``const tunable`` names: ``-D`` first, then a one-value ``--tune``.

    Raises:
        CompileError: ``-D NAME=text`` for a tunable where ``text`` is not an integer.
    """
    values: dict[str, int] = {}
    for decl in tu.tunables:
        if decl.override is not None:
            text = decl.override.strip()
            try:
                values[decl.name] = int(text, 0)
            except ValueError:
                raise CompileError(f"-D {decl.name}={text}: a tunable needs an integer value", decl.loc) from None
        elif len(options.tune.get(decl.name, ())) == 1:
            values[decl.name] = options.tune[decl.name][0]
    return values


def _candidate_values(decl) -> list[int] | None:
    """The integer candidates of a ``const tunable`` declaration, or ``None`` when one of them
    is not an integer literal (such a tunable takes its first candidate, as sema decides)."""
    from .frontend import ast

    out = []
    for c in decl.candidates:
        if isinstance(c, ast.IntLiteral):
            out.append(int(c.value))
        else:
            return None
    return out


@dataclass
class FrontendResult:
    """The frontend's module, the tunable values it was built with, and the cost model's
    :class:`~tritonc.tuning.cost_model.Choice` (``None`` when the user fixed everything)."""

    module: Module
    tunables: dict[str, int]
    choice: object | None = None
    #: the launch grid of each kernel that declares one (``__grid`` or ``--grid``), by name
    grids: dict[str, tuple] = field(default_factory=dict)
    #: the cost model's choice per bucket of the kernels' ``__retune`` arguments
    #: (:func:`~tritonc.meta_parameters.retune_dispatch`), ``None`` when one variant serves every bucket
    retune: object | None = None

    @property
    def num_warps(self) -> int | None:
        """Warps the cost model chose (``None``: the user's, or the tile rule's)."""
        c = self.choice
        return None if c is None or c.config is None or "num_warps" not in c.free else c.config.num_warps

    @property
    def num_stages(self) -> int | None:
        c = self.choice
        return None if c is None or c.config is None or "num_stages" not in c.free else c.config.num_stages


def frontend(text: str, path: str, options: CompileOptions, sources: SourceManager,
             diag: DiagnosticSink) -> Module:
    """Preprocess, parse, check and translate one source file into tt IR (before any pass).

    See :func:`frontend_result`, which also returns the meta-parameters chosen.
    """
    return frontend_result(text, path, options, sources, diag).module


class StageTimer:
    """Wall time per compilation stage, for ``--time-passes``'s stage table: ``with
    timer("parse"): ...`` adds the seconds to that stage (in first-use order)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, stage: str):
        import contextlib
        import time

        @contextlib.contextmanager
        def timed():
            start = time.perf_counter()
            try:
                yield
            finally:
                self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start

        return timed()

    def report(self) -> str:
        from .passes import format_timings

        return format_timings(list(self.seconds.items()), "Compilation stage timing report")


def frontend_result(text: str, path: str, options: CompileOptions, sources: SourceManager,
                    diag: DiagnosticSink, timer: StageTimer | None = None) -> FrontendResult:
    """Preprocess, parse, check and translate one source file into tt IR (before any pass).

    ``--tune NAME=a,b`` values for names that are not ``const tunable`` become macros
    (the first candidate), unless ``-D NAME`` already defines the macro. Meta-parameters the
    user left free (``const tunable`` names without ``-D`` or a one-value ``--tune``, and
    ``num_warps`` / ``num_stages`` when ``None``) are chosen by the cost model
    (:mod:`tritonc.tuning.cost_model`) for ``options.arch`` and ``options.hint``.

    Raises:
        CompileError: any error in the user's program, with its location.
        UsageError: a ``--tune`` name that is neither a ``const tunable`` nor a macro the
            preprocessed source uses (expands or tests in a conditional).
    """
    timer = timer or StageTimer()
    with timer("imports (frontend)"):
        from .analysis.pointer_origins import warn_readonly_stores
        from .frontend.irgen import generate_ir
        from .frontend.parser import parse_preprocessed
        from .frontend.preprocess import preprocess

    defines: dict[str, str | None] = dict(options.defines)
    with timer("preprocess"):
        pre = preprocess(text, path, defines, list(options.include_dirs), sources, diag)
    with timer("parse"):
        tu = parse_preprocessed(pre, path, options.kernel)  # --kernel: the other functions are not parsed
    declared = {d.name for d in tu.tunables}
    extra = {k: str(v[0]) for k, v in options.tune.items() if k not in declared and k not in defines}
    used = set(pre.used_names)
    if extra:
        defines.update(extra)
        with timer("preprocess"):
            pre = preprocess(text, path, defines, list(options.include_dirs), sources, diag)
        with timer("parse"):
            tu = parse_preprocessed(pre, path, options.kernel)  # --kernel: the other functions are not parsed
        used |= pre.used_names
    unused = [k for k in options.tune if k not in declared and k not in used]
    if unused:
        raise UsageError(f"'{unused[0]}' is neither a const tunable of {path} nor a macro its source uses",
                         "--tune")
    fixed = _tunable_values(tu, options)
    choice = None
    values = dict(fixed)
    free: dict[str, list[int]] = {}
    for decl in tu.tunables:
        if decl.name in fixed:
            continue
        cands = options.tune.get(decl.name) or _candidate_values(decl)
        if cands:
            free[decl.name] = list(cands)
    retune = None
    if free or options.num_warps is None or options.num_stages is None:
        with timer("cost model"):
            choice, retune = choose_meta_parameters(tu, fixed, free, options)
        if choice.config is not None:
            values.update(dict(choice.config.tunables))
        else:
            values.update({k: v[0] for k, v in free.items()})
    warps = options.num_warps or (choice.config.num_warps if choice is not None and choice.config is not None
                                  and "num_warps" in choice.free else None) or 4
    with timer("sema + irgen"):
        module = generate_ir(tu, tunables=values, diag=diag, num_warps=warps)
        warn_readonly_stores(module, diag)
    if options.kernel is not None:
        select_kernel(module, options.kernel)
    with timer("grids"):
        grids = _kernel_grids(tu, module, values, options, sources, diag, pre.final_macros)
    if options.kernel_suffix:
        for f in module.functions:
            if f.kind == "kernel":
                f.name += options.kernel_suffix
        grids = {k + options.kernel_suffix: g for k, g in grids.items()}
    return FrontendResult(module, values, choice, grids, retune)


#: The file name diagnostics in a ``--grid`` expression show.
GRID_OPTION_PATH = "<--grid>"


def _kernel_grids(tu, module: Module, tunables: dict[str, int], options: CompileOptions,
                  sources: SourceManager, diag: DiagnosticSink, macros: dict[str, str]) -> dict[str, tuple]:
    """Each kernel's launch grid: ``--grid`` (``options.grid``) for every kernel, else its own
    ``__grid``. ``--grid`` text goes through the preprocessor with the macros defined at the
    end of the file (``macros``: the command line's and the file's).

    Raises:
        CompileError: a grid expression that is not one (``tritonc.frontend.grid``), a
            ``__grid`` on a device function, or ``--grid`` text that does not parse.
    """
    from .frontend.grid import lower_grid

    kernels = {f.name: f for f in module.functions if f.kind == "kernel"}
    override = None
    if options.grid is not None:
        from .frontend.parser import parse_preprocessed
        from .frontend.preprocess import preprocess

        text = f"__grid({options.grid}) void __tritonc_grid(void) {{}}\n"
        pre = preprocess(text, GRID_OPTION_PATH, macros, list(options.include_dirs), sources, diag)
        override = parse_preprocessed(pre, GRID_OPTION_PATH).functions[0].grid
    grids = {}
    for fdef in tu.functions:
        exprs = override if override is not None else fdef.grid
        if fdef.grid is not None and fdef.name not in kernels and fdef.name in {f.name for f in module.functions}:
            raise CompileError(f"__grid on '{fdef.name}', which is not a kernel", fdef.grid[0].loc)
        if exprs is not None and fdef.name in kernels:
            grids[fdef.name] = lower_grid(exprs, kernels[fdef.name], tunables)
    return grids
