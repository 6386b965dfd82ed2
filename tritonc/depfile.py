"""Make dependency rules for ``-M``, ``-MM``, ``-MD``, ``-MMD``, ``-MF``, ``-MT``, ``-MQ``, ``-MP``.

What gcc's ``-M`` family does (GCC manual, "Options Controlling the Preprocessor"; the text
layout is that of libcpp's ``mkdeps.cc``), for a Triton-C source file:

* ``-M`` / ``-MM``: preprocess only, compile nothing, and write one rule
  ``TARGETS: SOURCE HEADERS...`` to standard output (or to the ``-MF`` file). Triton-C has
  no system headers, so every ``#include``d file is a user header and ``-MM`` lists exactly
  what ``-M`` lists.
* ``-MD`` / ``-MMD``: compile as usual and also write the rule to ``<output base>.d`` (the
  ``-o`` path with its suffix replaced by ``.d``, or the ``-MF`` file), together with the
  other outputs: all are written, or none (:func:`tritonc.files.write_all_atomically`).
* ``-MT T`` sets the rule's target to ``T`` as written; ``-MQ T`` does too, with the
  characters special to make quoted. Several of them make several targets (every ``-MT``,
  then every ``-MQ``). Without them the targets are the output files the command writes.
* ``-MP`` adds an empty rule ``HEADER:`` for every file but the source, so that make does
  not fail when a header is deleted.

The dependencies are the source file and every file the preprocessor reads for it
(:func:`included_files`, from :meth:`tritonc.diagnostics.SourceManager.paths`): each once, in
the order first read, with leading ``./`` removed; with ``--tune`` lists of macros, the files
read for any of their values. Standard input is no file and is not listed. Names are quoted
for make as gcc quotes them: a space or tab gets a backslash (and the backslashes before it
are doubled), ``$`` becomes ``$$`` and ``#`` becomes ``\\#``. Lines are wrapped with
`` \\`` before a name that would pass column 72.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import click

from .diagnostics import DiagnosticSink, SourceManager

#: gcc wraps a rule's line before a name that would end past this column.
COLUMN_LIMIT = 72


def quote_for_make(name: str) -> str:
    """``name`` as a make rule must spell it (gcc's ``munge``): a space or tab preceded by N
    backslashes becomes 2N+1 backslashes and the blank, ``$`` becomes ``$$``, ``#`` becomes
    ``\\#``; every other character, backslashes elsewhere included, is kept."""
    out: list[str] = []
    slashes = 0
    for c in name:
        if c == "\\":
            slashes += 1
        else:
            if c in " \t":
                out.append("\\" * (slashes + 1))
            elif c == "#":
                out.append("\\")
            elif c == "$":
                out.append("$")
            slashes = 0
        out.append(c)
    return "".join(out)


def strip_dot_slash(name: str) -> str:
    """``name`` without leading ``./`` components (``.//a/b`` -> ``a/b``), as gcc lists files."""
    while name.startswith("./"):
        name = name[2:].lstrip("/")
    return name


def make_rule(targets: list[str], deps: list[str], phony: bool = False) -> str:
    """The text of one make rule, laid out as gcc writes it.

    Args:
        targets: the targets, already quoted as they should appear (see :func:`quote_for_make`).
        deps: the prerequisites, unquoted file names; the first is the source file.
        phony: ``-MP``: add ``DEP:`` for every prerequisite but the first.

    Returns:
        ``"T1 T2: D1 D2 ...\\n"`` with `` \\`` line breaks before a name that would end past
        :data:`COLUMN_LIMIT`, then the phony rules; ``""`` without prerequisites (gcc writes
        nothing then).
    """
    if not deps:
        return ""
    quoted = [quote_for_make(d) for d in deps]
    out: list[str] = []
    column = _write_names(targets, 0, out)
    out.append(":")
    _write_names(quoted, column + 1, out)
    out.append("\n")
    if phony:
        out.extend(f"{d}:\n" for d in quoted[1:])
    return "".join(out)


def _write_names(names: list[str], column: int, out: list[str]) -> int:
    for name in names:
        if column:
            if column + len(name) > COLUMN_LIMIT:
                out.append(" \\\n")
                column = 0
            column += 1
            out.append(" ")
        column += len(name)
        out.append(name)
    return column


@dataclass(frozen=True)
class DepfileRequest:
    """What the ``-M`` options of one command ask for.

    Attributes:
        only: ``-M`` / ``-MM``: write the rule and compile nothing.
        path: where the rule goes: a file, or ``"-"`` for standard output; ``None`` when no
            rule is asked for.
        targets: the rule's targets, quoted as they will be written.
        phony: ``-MP``.
    """

    only: bool = False
    path: str | None = None
    targets: tuple[str, ...] = ()
    phony: bool = False

    def rule(self, deps: list[str]) -> str:
        """The rule for these prerequisites (file names as the preprocessor registered them)."""
        return make_rule(list(self.targets), list(dict.fromkeys(strip_dot_slash(d) for d in deps)), self.phony)


def request_from_options(values: dict, outputs: dict[str, str], source: str) -> DepfileRequest:
    """Check the ``-M`` options and work out the depfile and targets.

    Args:
        values: the options added by :func:`click_options` (``dep_*`` keys).
        outputs: output kind -> path the command writes (``"-"``: standard output).
        source: the source file as given (``"-"`` for standard input).

    Raises:
        click.UsageError: ``-MF``, ``-MT``, ``-MQ`` or ``-MP`` without ``-M``, ``-MM``, ``-MD``
            or ``-MMD``; ``-MD`` or ``-MMD`` with no file output and no ``-MT`` / ``-MQ``
            (the rule would have no target); a depfile that is also an output.
    """
    only = values["dep_m"] or values["dep_mm"]
    side = values["dep_md"] or values["dep_mmd"]
    mf, mt, mq, mp = values["dep_mf"], values["dep_mt"], values["dep_mq"], values["dep_mp"]
    if not (only or side):
        used = [flag for flag, on in (("-MF", mf is not None), ("-MT", mt), ("-MQ", mq), ("-MP", mp)) if on]
        if used:
            raise click.UsageError(f"{used[0]} needs -M, -MM, -MD or -MMD (it only shapes a dependency rule)")
        return DepfileRequest()
    files = [p for p in outputs.values() if p != "-"]
    if mt or mq:
        targets = [strip_dot_slash(t) for t in mt] + [quote_for_make(strip_dot_slash(t)) for t in mq]
    elif files:
        targets = [quote_for_make(strip_dot_slash(p)) for p in files]
    else:
        raise click.UsageError("the dependency rule has no target: the output goes to standard output; "
                               "name the target with -MT")
    if only:
        return DepfileRequest(True, mf if mf is not None else "-", tuple(targets), mp)
    path = mf if mf is not None else _default_depfile(outputs, source)
    if path != "-" and path in files:
        raise click.UsageError(f"the dependency file '{path}' is also an output; name another with -MF")
    return DepfileRequest(False, path, tuple(targets), mp)


def _default_depfile(outputs: dict[str, str], source: str) -> str:
    """``-MD`` without ``-MF``: the output's name with its suffix replaced by ``.d`` (with
    several outputs, their common base name plus ``.d``); with output to standard output,
    the source's stem plus ``.d`` in the current folder (``a.d`` for standard input)."""
    files = [p for p in outputs.values() if p != "-"]
    if not files:
        return (Path(source).stem if source != "-" else "a") + ".d"
    if len(files) == 1:
        try:
            return str(Path(files[0]).with_suffix(".d"))
        except ValueError:  # a name without a stem ('..'): the write reports it
            return files[0] + ".d"
    first = Path(files[0])
    return str(first.with_name(first.name[: len(first.name) - len(first.suffix)] + ".d"))


def included_files(comp, report_warnings: bool = False) -> list[str]:
    """The files ``comp``'s source reads: the source first, then every ``#include``d file, each
    once, in the order first read. Only the preprocessor runs (``-M`` compiles nothing; for
    ``-MD`` this does not depend on how the outputs were made, e.g. from a cache).

    ``--tune`` names that are not ``const tunable`` declarations are macros in the compile, one
    value per build (:func:`tritonc.frontend_stage.frontend`); the files are those read for any
    combination of their values, so that a header chosen by ``#if`` on one of them is listed.
    Which names are declarations the preprocessor tells: a tunable defined as a macro is listed
    in ``tunable_overrides``.

    Args:
        comp: a :class:`tritonc.driver.Compilation` (``text``, ``path``, ``options``, ``diag``).
        report_warnings: add the ``#warning`` messages (of the first values) to ``comp.diag``:
            for ``-M``, where no compile reports them.

    Raises:
        CompileError: an error of the preprocessor (a missing ``#include``, ``#error``, ...).
    """
    from .frontend.preprocess import preprocess

    opts = comp.options
    defines: dict[str, str | None] = dict(opts.defines)
    names = [name for name in opts.tune if name not in defines]

    def run(values: dict[str, str]):
        read = SourceManager()
        sink = DiagnosticSink(comp.diag.disabled, comp.diag.werror)
        pre = preprocess(comp.text, comp.path, {**defines, **values}, list(opts.include_dirs), read, sink)
        return pre, read.paths(), sink.warnings

    pre, files, warnings = run({name: str(opts.tune[name][0]) for name in names})
    macros = [name for name in names if name not in pre.tunable_overrides]
    combos = itertools.product(*(opts.tune[name] for name in macros))
    if len(macros) != len(names):  # some were tunables: that run defined them, which the compile does not
        _, files, warnings = run({name: str(value) for name, value in zip(macros, next(combos))})
    else:
        next(combos)
    read = dict.fromkeys(files)
    for combo in combos:
        read.update(dict.fromkeys(run({name: str(value) for name, value in zip(macros, combo)})[1]))
    if report_warnings:
        comp.diag.warnings.extend(warnings)
    return list(read)


def click_options(command):
    """Add the ``-M`` options to a click command; they arrive as the ``dep_*`` keyword
    arguments that :func:`request_from_options` reads."""
    options = [
        click.option("-M", "dep_m", is_flag=True, help="Write a make rule listing the source and every #include'd "
                     "file to stdout (or -MF), and compile nothing."),
        click.option("-MM", "dep_mm", is_flag=True, help="Same as -M (Triton-C has no system headers)."),
        click.option("-MD", "dep_md", is_flag=True, help="Compile, and also write the make rule to "
                     "<output base>.d (or -MF)."),
        click.option("-MMD", "dep_mmd", is_flag=True, help="Same as -MD (Triton-C has no system headers)."),
        click.option("-MF", "dep_mf", metavar="FILE", help="Write the make rule to FILE ('-': stdout)."),
        click.option("-MT", "dep_mt", multiple=True, metavar="TARGET",
                     help="The make rule's target, as written (repeatable; default: the output files)."),
        click.option("-MQ", "dep_mq", multiple=True, metavar="TARGET",
                     help="Like -MT, with $, #, space and tab quoted for make."),
        click.option("-MP", "dep_mp", is_flag=True, help="Add an empty rule for each #include'd file."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
