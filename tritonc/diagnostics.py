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
from typing import Iterable, Iterator


@dataclass(frozen=True, order=True)
class SourceLoc:
    """A position in a user's source file: 1-based ``line`` and ``col`` (columns count characters).

    A position produced by a macro expansion is the invocation's (where the user wrote the macro's
    name); then ``macro`` names the macro whose body spelled the token and ``spelling`` is where
    in that body (rendered as a note "expanded from macro"). Neither takes part in comparisons.
    """

    file: str
    line: int
    col: int
    macro: str | None = field(default=None, compare=False, repr=False)
    spelling: "SourceLoc | None" = field(default=None, compare=False, repr=False)

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

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every error this exception reports, in the order found: this one alone
        (:class:`CompileErrors` holds several)."""
        return [self.diagnostic]


#: Errors reported in one run before the compiler stops (``-ferror-limit``; clang's default is 20).
DEFAULT_ERROR_LIMIT = 20


class CompileErrors(CompileError):
    """Several errors in the user's program, found by a check that keeps going after an error
    (the semantic checks, up to ``-ferror-limit``). It is the :class:`CompileError` of the first
    error (``diagnostic``, ``message``, ``loc``); :attr:`diagnostics` lists them all in order.

    Args:
        errors: the errors, in the order found (at least one).
        limit: the ``-ferror-limit`` that stopped the check, or ``None`` when it ran to the end.
    """

    def __init__(self, errors: list[CompileError], limit: int | None = None):
        if not errors:
            raise ValueError("CompileErrors needs at least one error")
        first = errors[0].diagnostic
        super().__init__(first.message, first.loc, first.notes)
        self.errors = list(errors)
        self.limit = limit

    @property
    def diagnostics(self) -> list[Diagnostic]:
        out = [d for e in self.errors for d in e.diagnostics]
        if self.limit is not None:
            out.append(Diagnostic("fatal error", f"too many errors emitted, stopping now [-ferror-limit={self.limit}]"))
        return out


class InternalCompilerError(Exception):
    """A bug in tritonc itself (never the user's fault). The CLI reports it and exits with status 3."""


class SourceManager:
    """Remembers the text of every source file read, so diagnostics can quote the offending line.

    Files are registered by the preprocessor (main file and every ``#include``); a file that was
    never registered is read from disk on demand.
    """

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}
        self._included_at: dict[str, SourceLoc] = {}

    def register(self, path: str, text: str) -> None:
        self._lines[path] = text.splitlines()

    def register_include(self, path: str, site: SourceLoc) -> None:
        """Record that file ``path`` was ``#include``d at ``site`` (the first time counts)."""
        self._included_at.setdefault(path, site)

    def include_stack(self, path: str) -> list[SourceLoc]:
        """Where ``path`` was ``#include``d, then where that file was, up to the main file."""
        stack: list[SourceLoc] = []
        while (site := self._included_at.get(path)) is not None and len(stack) < 256:  # a cycle is cut
            stack.append(site)
            path = site.file
        return stack

    def paths(self) -> list[str]:
        """Every file registered so far (the main file and each ``#include``d one), in order;
        names in angle brackets (``<stdin>``) are not files and are left out."""
        return [p for p in self._lines if not (p.startswith("<") and p.endswith(">"))]

    def line(self, path: str, lineno: int) -> str | None:
        if path not in self._lines:
            try:
                self._lines[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                return None
        lines = self._lines[path]
        return lines[lineno - 1] if 1 <= lineno <= len(lines) else None

    def render(self, diag: Diagnostic) -> str:
        """Render ``diag`` as ``file:line:col: severity: message``, the source line and a caret.

        As gcc does, an error or warning in an ``#include``d file is preceded by
        ``In file included from main.tri:3:`` (one ``from`` line per level); a location made
        by a macro expansion is followed by a note ``expanded from macro 'NAME'`` at the
        spelling in the macro's body (clang's note; gcc says "in expansion of macro"); then
        the diagnostic's own notes.
        """
        out = []
        if diag.loc is not None and diag.severity != "note":
            stack = self.include_stack(diag.loc.file)
            for i, site in enumerate(stack):
                lead = "In file included from " if i == 0 else " " * len("In file included ") + "from "
                out.append(f"{lead}{site.file}:{site.line}{':' if i == len(stack) - 1 else ','}")
        head = f"{diag.loc}: " if diag.loc else "tritonc: "
        out.append(f"{head}{diag.severity}: {diag.message}")
        if diag.loc is not None:
            text = self.line(diag.loc.file, diag.loc.line)
            if text is not None:
                text = printable(text.expandtabs(1))
                out.append("    " + text)
                out.append("    " + " " * max(diag.loc.col - 1, 0) + "^")
            if diag.loc.spelling is not None:
                out.append(self.render(Diagnostic("note", f"expanded from macro '{diag.loc.macro}'",
                                                  diag.loc.spelling)))
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


#: The named warnings, all on by default: ``-W<name>`` turns one on, ``-Wno-<name>`` off (the
#: last flag for a name wins), ``-Werror`` makes every warning an error (``-Wno-error`` undoes
#: it). A name not listed here is a usage error. A new warning adds its name here and calls
#: ``DiagnosticSink.warn(name, ...)``.
WARNING_FLAGS: dict[str, str] = {
    "double-promotion": "an unsuffixed floating literal turns a float or half tile into double arithmetic",
    "return-type": "a non-void __device__ function may end without returning a value",
    "shadow": "a declaration reuses the name of a parameter or of a variable of an enclosing block",
    "readonly-store": "a store or atomic writes through a pointer declared __readonly (the store is kept "
                      "and the promise is not used for that pointer)",
    "cpp": "a #warning directive",
    "spill": "a kernel spills registers to local memory (nvJitLink's or ptxas's report; --resource-usage "
             "shows the bytes)",
    "shared-memory": "a kernel needs more shared memory per CTA than GPUs of the target architecture have "
                     "(it launches only on later GPUs with more)",
    "output-suffix": "an output file's suffix names another output kind than the one written to it "
                     "('-o k.ptx --emit=cubin')",
}


def parse_warning_flags(flags: Iterable[str], disabled: Iterable[str] = ()) -> tuple[frozenset[str], bool]:
    """The warnings switched off and whether ``-Werror`` is on, from ``-W`` arguments.

    Args:
        flags: the arguments without their ``-W``, in command-line order: ``error``,
            ``no-error``, ``<name>`` or ``no-<name>`` for a name of :data:`WARNING_FLAGS`.
        disabled: names already off before these flags.

    Returns:
        ``(disabled names, werror)``.

    Raises:
        ValueError: an unknown name; the message quotes the flag as ``-W<flag>``.
    """
    off = set(disabled)
    werror = False
    for flag in flags:
        name = flag[3:] if flag.startswith("no-") else flag
        if name == "error":
            werror = not flag.startswith("no-")
        elif name in WARNING_FLAGS:
            (off.add if flag.startswith("no-") else off.discard)(name)
        else:
            raise ValueError(f"unknown warning flag '-W{flag}'")
    return frozenset(off), werror


class DiagnosticSink:
    """Collects warnings during one compilation; errors are raised as :class:`CompileError`.

    ``disabled`` holds warning flags switched off with ``-Wno-<flag>`` (names of
    :data:`WARNING_FLAGS`); ``werror`` turns every warning into an error. ``error_limit``
    (``-ferror-limit``, 0: none) is how many errors a check that keeps going after an error
    (the semantic checks) reports before it stops (:class:`CompileErrors`).
    """

    def __init__(self, disabled: frozenset[str] = frozenset(), werror: bool = False,
                 error_limit: int = DEFAULT_ERROR_LIMIT) -> None:
        self.warnings: list[Diagnostic] = []
        self.disabled = disabled
        self.werror = werror
        self.error_limit = error_limit

    def warn(self, flag: str, message: str, loc: SourceLoc | None, notes: list[Diagnostic] | None = None) -> None:
        """Report warning ``flag`` (a :data:`WARNING_FLAGS` name) unless it is disabled; under
        ``-Werror`` raise it as a :class:`CompileError` instead. ``notes`` follow the message."""
        assert flag in WARNING_FLAGS, f"unregistered warning flag {flag!r}"
        if flag in self.disabled:
            return
        text = f"{message} [-W{flag}]"
        if self.werror:
            raise CompileError(text, loc, notes)
        self.warnings.append(Diagnostic("warning", text, loc, list(notes or [])))
