"""``-lineinfo``: LLVM debug locations that make NVPTX write ``.file`` / ``.loc`` directives.

Line tables only, as ``clang -gline-directives-only`` makes them: a ``DICompileUnit`` with
``emissionKind: DebugDirectivesOnly`` (NVPTX then emits ``.file`` and ``.loc`` and no DWARF
sections), one ``DIFile`` per source file, one distinct ``DISubprogram`` per kernel attached to
its function, and a ``DILocation`` (line, column) on every instruction lowered from an op with a
source location (``op.loc``); an instruction of an op without one keeps the previous location.
A location in another file than the kernel's (an ``#include``d device function, inlined) is
scoped by a ``DILexicalBlockFile``. The module flag ``"Debug Info Version" = 3`` makes LLVM
keep the metadata (LLVM Language Reference, "Debug Info Version"; LLVM's NVPTX usage guide).
ptxas then keeps the lines in the cubin with ``-lineinfo`` (Nsight Compute, compute-sanitizer).
"""
from __future__ import annotations

import os

import llvmlite.ir as ir

from tritonc.diagnostics import SourceLoc

#: ``DEBUG_METADATA_VERSION`` of LLVM (the value every LLVM since 3.6 expects).
DEBUG_INFO_VERSION = 3
_I32 = ir.IntType(32)


class LineInfo:
    """The debug metadata of one LLVM module: files, the compile unit, and per kernel a
    subprogram and its locations (cached per (file, line, column))."""

    def __init__(self, module: ir.Module, main_file: str, producer: str = "tritonc"):
        self.module = module
        self.files: dict[str, ir.DIValue] = {}
        self.main = self.file(main_file)
        self.cu = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C99"), "file": self.main, "producer": producer,
            "isOptimized": True, "runtimeVersion": 0,
            "emissionKind": ir.DIToken("DebugDirectivesOnly")}, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.cu)
        module.add_named_metadata("llvm.module.flags", module.add_metadata(
            [_I32(2), "Debug Info Version", _I32(DEBUG_INFO_VERSION)]))
        self._subroutine_type = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})

    def file(self, path: str) -> ir.DIValue:
        """The ``DIFile`` of ``path`` (split into directory and name; ``<stdin>`` stays as is)."""
        if path not in self.files:
            if path.startswith("<"):
                directory, name = "", path
            else:
                full = os.path.abspath(path)
                directory, name = os.path.dirname(full), os.path.basename(full)
            self.files[path] = self.module.add_debug_info("DIFile", {"filename": name, "directory": directory})
        return self.files[path]

    def subprogram(self, fn: ir.Function, name: str, loc: SourceLoc | None) -> "KernelLines":
        """Attach a ``DISubprogram`` for kernel ``name`` (defined at ``loc``) to ``fn``."""
        file = self.file(loc.file) if loc is not None else self.main
        line = loc.line if loc is not None else 0
        sp = self.module.add_debug_info("DISubprogram", {
            "name": name, "scope": file, "file": file, "line": line, "type": self._subroutine_type,
            "scopeLine": line, "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.cu}, is_distinct=True)
        fn.set_metadata("dbg", sp)
        return KernelLines(self, sp, loc.file if loc is not None else None)


class KernelLines:
    """The locations of one kernel: :meth:`location` gives the ``DILocation`` of a source position."""

    def __init__(self, info: LineInfo, subprogram: ir.DIValue, file: str | None):
        self.info = info
        self.subprogram = subprogram
        self.file = file
        self._scopes: dict[str, ir.DIValue] = {}
        self._locations: dict[tuple[str, int, int], ir.DIValue] = {}

    def _scope(self, path: str) -> ir.DIValue:
        if path == self.file or self.file is None:
            return self.subprogram
        if path not in self._scopes:
            self._scopes[path] = self.info.module.add_debug_info("DILexicalBlockFile", {
                "scope": self.subprogram, "file": self.info.file(path), "discriminator": 0})
        return self._scopes[path]

    def location(self, loc: SourceLoc) -> ir.DIValue:
        key = (loc.file, loc.line, loc.col)
        if key not in self._locations:
            self._locations[key] = self.info.module.add_debug_info("DILocation", {
                "line": loc.line, "column": loc.col, "scope": self._scope(loc.file)})
        return self._locations[key]
