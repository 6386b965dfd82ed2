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

import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator


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


class UsageError(Exception):
    """A command-line option the input shows to be wrong (``--tune`` of a name the file never
    uses): the CLI reports it as bad usage of ``option`` (exit status 2)."""

    def __init__(self, message: str, option: str = "--tune"):
        super().__init__(message, option)
        self.option = option

    def __str__(self) -> str:
        return self.args[0]


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
                text = printable(text.expandtabs(1))
                out.append("    " + text)
                out.append("    " + " " * max(diag.loc.col - 1, 0) + "^")
        for note in diag.notes:
            out.append(self.render(note))
        return "\n".join(out)


def printable(text: str) -> str:
    """``text`` with each control character (NUL, ESC, DEL, ...) shown as its one-column Unicode
    control picture (``\\0`` -> ``\u2400``), so a quoted source line cannot garble the terminal
    and the caret below it stays in its column."""
    if text.isprintable():
        return text
    return "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else "\u2421" if c == "\x7f" else c for c in text)


def spell_char(c: str) -> str:
    """A character as a message quotes it: itself if printable, else a C escape (``\\0``,
    ``\\x1b``, ``\\u200b``)."""
    if c.isprintable():
        return c
    if c == "\0":
        return "\\0"
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"


#: The recursion limit while :func:`recursion_headroom` is active. The frontend and the passes
#: recurse over nested statements, regions and expressions (a few Python frames per level); the
#: nesting limits of the parser (:data:`tritonc.frontend.parser.MAX_STATEMENT_NESTING`,
#: :data:`~tritonc.frontend.parser.MAX_EXPRESSION_NESTING`) and the preprocessor
#: (:data:`tritonc.frontend.preprocess.MAX_INCLUDE_DEPTH`) keep every accepted program well
#: inside it. It is bounded so that the C stack (8 MiB for the main thread) cannot overflow.
RECURSION_LIMIT = 12000

_headroom_lock = threading.Lock()
_headroom_users = 0
_headroom_saved: int | None = None


@contextmanager
def recursion_headroom(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise Python's recursion limit to at least ``limit`` while the block runs.

    Nesting and concurrent use from several threads are safe: the limit is raised by the first
    user and put back by the last one (Python's limit is one per interpreter). It is never
    lowered below what it was.
    """
    global _headroom_users, _headroom_saved
    with _headroom_lock:
        if _headroom_users == 0:
            _headroom_saved = sys.getrecursionlimit()
        _headroom_users += 1
        if sys.getrecursionlimit() < limit:
            sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        with _headroom_lock:
            _headroom_users -= 1
            if _headroom_users == 0 and _headroom_saved is not None:
                sys.setrecursionlimit(_headroom_saved)
                _headroom_saved = None


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
