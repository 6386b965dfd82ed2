"""Diagnostics: source locations, compile errors and their caret-style rendering.

Every error a user can cause is a :class:`CompileError` carrying a :class:`SourceLoc`.
It never escapes to the user as a traceback: the CLI renders it as::

    examples/bad.tri:3:14: error: undeclared identifier 'x'
        float y[16] = x + 1;
                      ^

and exits with status 1. Warnings (for example ``-Wdouble-promotion``) are collected as
:class:`Diagnostic` values with severity ``"warning"`` and rendered the same way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, order=True)
class SourceLoc:
    """A position in a user's source file: 1-based ``line`` and ``col`` (columns count characters)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Diagnostic:
    """One message about the user's program. ``severity`` is ``"error"``, ``"warning"`` or ``"note"``."""

    severity: str
    message: str
    loc: SourceLoc | None = None
    notes: list["Diagnostic"] = field(default_factory=list)


class CompileError(Exception):
    """A defect in the user's program (or command line) that stops compilation.

    Args:
        message: what is wrong, in one sentence, without a trailing period.
        loc: where; ``None`` only for errors that have no place in a source file.
        notes: extra diagnostics (``severity="note"``) shown after the error.
    """

    def __init__(self, message: str, loc: SourceLoc | None = None, notes: list[Diagnostic] | None = None):
        super().__init__(message)
        self.diagnostic = Diagnostic("error", message, loc, list(notes or []))

    @property
    def message(self) -> str:
        return self.diagnostic.message

    @property
    def loc(self) -> SourceLoc | None:
        return self.diagnostic.loc

    def __str__(self) -> str:
        loc = f"{self.loc}: " if self.loc else ""
        return f"{loc}error: {self.message}"


class InternalCompilerError(Exception):
    """A bug in tritonc itself (never the user's fault). The CLI reports it and exits with status 3."""


class SourceManager:
    """Remembers the text of every source file read, so diagnostics can quote the offending line.

    Files are registered by the preprocessor (main file and every ``#include``); a file that was
    never registered is read from disk on demand.
    """

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}

    def register(self, path: str, text: str) -> None:
        self._lines[path] = text.splitlines()

    def line(self, path: str, lineno: int) -> str | None:
        if path not in self._lines:
            try:
                self._lines[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                return None
        lines = self._lines[path]
        return lines[lineno - 1] if 1 <= lineno <= len(lines) else None

    def render(self, diag: Diagnostic) -> str:
        """Render ``diag`` as ``file:line:col: severity: message``, the source line and a caret."""
        head = f"{diag.loc}: " if diag.loc else "tritonc: "
        out = [f"{head}{diag.severity}: {diag.message}"]
        if diag.loc is not None:
            text = self.line(diag.loc.file, diag.loc.line)
            if text is not None:
                text = text.expandtabs(1)
                out.append("    " + text)
                out.append("    " + " " * max(diag.loc.col - 1, 0) + "^")
        for note in diag.notes:
            out.append(self.render(note))
        return "\n".join(out)


class DiagnosticSink:
    """Collects warnings during one compilation; errors are raised as :class:`CompileError`.

    ``disabled`` holds warning flags switched off with ``-Wno-<flag>``; ``werror`` turns every
    warning into an error.
    """

    def __init__(self, disabled: frozenset[str] = frozenset(), werror: bool = False) -> None:
        self.warnings: list[Diagnostic] = []
        self.disabled = disabled
        self.werror = werror

    def warn(self, flag: str, message: str, loc: SourceLoc | None) -> None:
        if flag in self.disabled:
            return
        text = f"{message} [-W{flag}]"
        if self.werror:
            raise CompileError(text, loc)
        self.warnings.append(Diagnostic("warning", text, loc))
