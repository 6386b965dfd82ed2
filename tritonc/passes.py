"""Pass infrastructure: transform passes, cached analyses, the pass manager and the pass registry.

* A :class:`Pass` is a small dataclass: class attributes ``name`` (kebab-case, the CLI name
  and the ``tests/passes/<name>/`` folder), ``requires`` and ``preserves`` (analysis classes);
  options are dataclass fields; ``run(module, am) -> bool`` returns whether it changed the IR.
  Contract: the IR verifies before and after ``run``.
* An :class:`Analysis` computes everything in ``__init__(module, am)``, never mutates the IR,
  and answers queries afterwards; it may ask ``am.get(OtherAnalysis)``.
* The :class:`AnalysisManager` caches analyses by class; after a pass that changed the IR it
  drops every analysis the pass does not list in ``preserves`` (MLIR's PassManagement model).
* The :class:`PassManager` runs a list of passes and does the cross-cutting work: verification
  after each pass (a failure is an internal compiler error naming the pass), IR dumps after
  chosen passes (the whole module every time; the header says ``(unchanged)`` when the pass
  changed nothing), and a wall-time table (``--time-passes``).
* The registry maps pass names to classes: :func:`register_pass` (a class decorator),
  :func:`get_pass`, :func:`all_passes`, and :func:`parse_pipeline` for ``--passes=`` text such
  as ``canonicalize,licm,cse`` or ``software-pipeline{num-stages=4}``. Passes register
  themselves when their module is imported. By convention pass ``name`` lives in
  ``tritonc/transforms/<name with - as _>.py``: :func:`get_pass` imports that module on
  demand and :func:`all_passes` imports every module of :data:`PASS_PACKAGES`, so a new
  pass needs no edit here; a pass defined elsewhere adds its module to :data:`PASS_MODULES`.
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
import sys
import time
from typing import Any, ClassVar, Iterable, TextIO, TypeVar

from .diagnostics import CompileError, InternalCompilerError, recursion_headroom
from .ir.core import Module
from .ir.ops import VerifyError
from .ir.printer import print_module
from .ir.verifier import verify_module


class Analysis:
    """Facts about a module, computed once in ``__init__`` and queried afterwards; never mutates the IR."""

    name: ClassVar[str] = ""

    def __init__(self, module: Module, am: "AnalysisManager"):
        self.module = module


AnalysisT = TypeVar("AnalysisT", bound=Analysis)


class AnalysisManager:
    """Lazily computes and caches analyses of one module, keyed by analysis class."""

    def __init__(self, module: Module):
        self.module = module
        self._cache: dict[type[Analysis], Analysis] = {}

    def get(self, cls: type[AnalysisT]) -> AnalysisT:
        """The cached ``cls`` analysis of the module, computed now if absent or invalidated."""
        if cls not in self._cache:
            self._cache[cls] = cls(self.module, self)
        return self._cache[cls]  # type: ignore[return-value]

    def cached(self, cls: type[AnalysisT]) -> AnalysisT | None:
        """The cached analysis, or ``None`` (never computes)."""
        return self._cache.get(cls)  # type: ignore[return-value]

    def invalidate(self, preserved: Iterable[type[Analysis]] = ()) -> None:
        """Drop every cached analysis whose class is not in ``preserved``."""
        keep = set(preserved)
        self._cache = {cls: a for cls, a in self._cache.items() if cls in keep}


@dataclasses.dataclass
class Pass:
    """A module transformation. Subclasses are dataclasses; their fields are the pass options."""

    name: ClassVar[str] = ""
    requires: ClassVar[tuple[type[Analysis], ...]] = ()
    preserves: ClassVar[tuple[type[Analysis], ...]] = ()

    def run(self, module: Module, am: AnalysisManager) -> bool:
        """Transform ``module`` in place; return True if anything changed."""
        raise NotImplementedError(f"pass {type(self).__name__} does not implement run()")


# --- registry ----------------------------------------------------------------------------------

#: Packages whose every module may define passes (all imported by :func:`all_passes`).
PASS_PACKAGES: list[str] = ["tritonc.transforms"]
#: Further modules that define passes outside those packages.
PASS_MODULES: list[str] = []

_PASSES: dict[str, type[Pass]] = {}

PassT = TypeVar("PassT", bound=type[Pass])


def register_pass(cls: PassT) -> PassT:
    """Class decorator: make ``cls`` reachable by its ``name`` (which must be unique)."""
    if not cls.name:
        raise ValueError(f"pass class {cls.__name__} has no name")
    other = _PASSES.get(cls.name)
    if other is not None and (other.__module__, other.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"pass name '{cls.name}' is taken by {other.__name__}")
    _PASSES[cls.name] = cls
    return cls


_pass_modules_imported = False


def _import_pass_modules() -> None:
    """Import every module that registers passes, once per process (the driver asks for the
    pass table for each pass it runs)."""
    global _pass_modules_imported
    if _pass_modules_imported:
        return
    names = list(PASS_MODULES)
    for package_name in PASS_PACKAGES:
        package = importlib.import_module(package_name)
        names += [f"{package_name}.{m.name}" for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]
    for module_name in names:
        importlib.import_module(module_name)
    _pass_modules_imported = True


def _lookup(name: str) -> type[Pass] | None:
    """The pass class called ``name``, importing its conventional module if needed."""
    if name not in _PASSES and re.fullmatch(r"[a-z][a-z0-9-]*", name):
        for package_name in PASS_PACKAGES:
            module_name = f"{package_name}.{name.replace('-', '_')}"
            try:
                importlib.import_module(module_name)
            except ModuleNotFoundError as e:
                if e.name != module_name:
                    raise
    return _PASSES.get(name)


def all_passes() -> dict[str, type[Pass]]:
    """Every registered pass class by name, sorted by name."""
    _import_pass_modules()
    return dict(sorted(_PASSES.items()))


def get_pass(name: str, **options: Any) -> Pass:
    """An instance of the pass called ``name`` with the given options (dataclass fields).

    Raises:
        ValueError: unknown pass name or option.
    """
    cls = _lookup(name)
    if cls is None:
        raise ValueError(f"unknown pass '{name}' (known: {', '.join(all_passes())})")
    known = {f.name for f in dataclasses.fields(cls)}
    for key in options:
        if key not in known:
            raise ValueError(f"pass '{name}' has no option '{key}'" + (f" (options: {', '.join(sorted(known))})" if known else ""))
    return cls(**options)


def _convert_option(cls: type[Pass], key: str, text: str) -> Any:
    field = {f.name: f for f in dataclasses.fields(cls)}.get(key)
    kind = field.type if field is not None else "str"
    kind = kind if isinstance(kind, str) else getattr(kind, "__name__", "str")
    try:
        if kind == "bool":
            if text not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return text in ("true", "1")
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        wanted = {"bool": "true or false", "int": "an integer", "float": "a number"}[kind]
        raise ValueError(f"option '{key.replace('_', '-')}' of pass '{cls.name}' expects {wanted}, got '{text}'") from None
    return text


def parse_pipeline(text: str) -> list[Pass]:
    """Passes from ``name,name{opt=value,...},...`` (option names may use ``-`` for ``_``).

    Raises:
        ValueError: unknown pass or option, bad option value, or malformed text.
    """
    result: list[Pass] = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] not in ",{":
            j += 1
        name = text[i:j].strip()
        options: dict[str, str] = {}
        if j < len(text) and text[j] == "{":
            end = text.find("}", j)
            if end < 0:
                raise ValueError(f"unclosed '{{' in pass pipeline '{text}'")
            for item in filter(None, (s.strip() for s in text[j + 1:end].split(","))):
                key, eq, value = item.partition("=")
                options[key.strip().replace("-", "_")] = value.strip() if eq else "true"
            j = end + 1
        if not name:
            raise ValueError(f"empty pass name in pass pipeline '{text}'")
        cls = _lookup(name)
        if cls is None:
            get_pass(name)  # raises the unknown-pass error
        result.append(get_pass(name, **{k: _convert_option(cls, k, v) for k, v in options.items()}))  # type: ignore[arg-type]
        if j < len(text) and text[j] != ",":
            raise ValueError(f"expected ',' after pass '{name}' in pass pipeline '{text}'")
        i = j + 1
    return result


# --- pass manager ------------------------------------------------------------------------------

def dump_header(name: str, changed: bool = True) -> str:
    """The line printed before the IR dump after pass ``name`` (MLIR's spelling), with
    ``(unchanged)`` after the name when the pass changed nothing."""
    return f"// -----// IR Dump After {name}{'' if changed else ' (unchanged)'} //----- //"


class PassManager:
    """Runs passes in order with verification, IR dumps and timing.

    Args:
        passes: the pipeline, in order.
        verify_each: verify the module after every pass; a failure raises
            :class:`InternalCompilerError` naming the pass.
        print_ir_after: pass names after which to print the IR, or ``"all"``.
        time_passes: print a table of wall times per pass after the pipeline.
        stream: where dumps and the timing table go (default ``sys.stderr``).
    """

    def __init__(self, passes: Iterable[Pass], verify_each: bool = True,
                 print_ir_after: set[str] | str | None = None, time_passes: bool = False,
                 stream: TextIO | None = None):
        self.passes = list(passes)
        self.verify_each = verify_each
        self.print_ir_after = print_ir_after if print_ir_after == "all" else set(print_ir_after or ())
        self.time_passes = time_passes
        self.stream = stream
        #: ``(pass name, seconds)`` per pass run, plus ``("(verify)", seconds)`` in total.
        self.timings: list[tuple[str, float]] = []

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def _wants_dump(self, name: str) -> bool:
        return self.print_ir_after == "all" or name in self.print_ir_after  # type: ignore[operator]

    def run(self, module: Module, am: AnalysisManager | None = None) -> bool:
        """Run the pipeline on ``module`` in place; return True if any pass changed it."""
        with recursion_headroom():  # passes, printer and verifier recurse into nested regions
            return self._run(module, am or AnalysisManager(module))

    def _run(self, module: Module, am: AnalysisManager) -> bool:
        self.timings = []
        verify_time = 0.0
        any_changed = False
        for p in self.passes:
            start = time.perf_counter()
            changed = self._run_one(p, module, am)
            self.timings.append((p.name, time.perf_counter() - start))
            any_changed |= changed
            if changed:
                am.invalidate(p.preserves)
            if self.verify_each:
                start = time.perf_counter()
                try:
                    verify_module(module)
                except VerifyError as e:
                    raise InternalCompilerError(f"IR does not verify after pass '{p.name}': {e}") from e
                verify_time += time.perf_counter() - start
            if self._wants_dump(p.name):
                out = self._out()
                out.write(dump_header(p.name, changed) + "\n")
                out.write(print_module(module))
                out.write("\n")
        if self.verify_each:
            self.timings.append(("(verify)", verify_time))
        if self.time_passes:
            self._out().write(format_timings(self.timings))
        return any_changed

    @staticmethod
    def _run_one(p: Pass, module: Module, am: AnalysisManager) -> bool:
        try:
            for cls in p.requires:
                am.get(cls)
            return bool(p.run(module, am))
        except (CompileError, InternalCompilerError):
            raise
        except Exception as e:  # a crash inside a pass is a compiler bug: say which pass
            raise InternalCompilerError(f"pass '{p.name}' failed: {type(e).__name__}: {e}") from e


def format_timings(timings: list[tuple[str, float]], title: str = "Pass execution timing report") -> str:
    """The ``--time-passes`` table: one row per pass run (or stage), then the total."""
    total = sum(seconds for _, seconds in timings)
    rule = "===" + "-" * 73 + "==="
    lines = [rule, title.center(len(rule)).rstrip(), rule,
             f"  Total Execution Time: {total:.4f} seconds", "", "   Wall Time  Name"]
    for name, seconds in timings + [("Total", total)]:
        share = 100.0 * seconds / total if total > 0 else 0.0
        lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {name}")
    return "\n".join(lines) + "\n"
