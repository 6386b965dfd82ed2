"""The ``tritonc`` command line's option text and outputs: the values of ``-D``, ``--tune``,
``--kernel-warps``, ``--hint``, ``--arch``, ``-ferror-limit``, and which output kinds go to which
paths (``--emit``, ``-o``). Each raises ``click.BadParameter`` for text it cannot take (exit
status 2, usage); the other console scripts (``tritonc-tune``) parse the same options with
these."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .diagnostics import CompileError, DiagnosticSink, SourceManager
from .options import ARCHS, EMIT_SUFFIXES


def parse_define(text: str) -> tuple[str, str | None]:
    """``-D NAME[=VALUE]``: ``(name, value)``, value ``None`` without ``=``."""
    name, sep, value = text.partition("=")
    if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
        raise click.BadParameter(f"'{text}' is not NAME or NAME=VALUE", param_hint="-D")
    return name, (value if sep else None)


def parse_int_list(text: str, what: str) -> list[int]:
    """``a,b,...`` (decimal, ``0x``...) of the option ``what`` (``--num-warps``, ``--tune``)."""
    try:
        values = [int(v, 0) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        raise click.BadParameter(f"'{text}' is not a comma-separated list of integers", param_hint=what)
    return values


def parse_tune(text: str) -> tuple[str, list[int]]:
    """``--tune NAME=a,b,...``: ``(name, candidates)``."""
    name, sep, values = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"'{text}' is not NAME=a,b,...", param_hint="--tune")
    return name.strip(), parse_int_list(values, "--tune")


def _name_value_items(texts: tuple[str, ...]):
    """The ``NAME=VALUE`` items of a repeatable, comma-separated option, as ``(item, name, sep,
    value)`` with ``name`` stripped (``sep`` empty when the item has no ``=``)."""
    for text in texts:
        for item in (t.strip() for t in text.split(",")):
            if item:
                name, sep, value = item.partition("=")
                yield item, name.strip(), sep, value


def _int_or_zero(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        return 0


def parse_kernel_warps(texts: tuple[str, ...]) -> dict[str, int]:
    """``--kernel-warps NAME=N[,NAME=N...]`` (repeatable): warps by kernel name, each a power of
    two from 1 to 32."""
    out: dict[str, int] = {}
    for item, name, sep, value in _name_value_items(texts):
        warps = _int_or_zero(value)
        if not sep or not name or not (1 <= warps <= 32 and warps & (warps - 1) == 0):
            raise click.BadParameter(f"'{item}' is not NAME=N with N a power of two from 1 to 32",
                                     param_hint="--kernel-warps")
        out[name] = warps
    return out


def parse_hints(texts: tuple[str, ...]) -> dict[str, int]:
    if not texts:
        return {}
    from .tuning.cost_model import HINT_NAMES  # imports the IR: only when there are hints

    hints: dict[str, int] = {}
    for item, name, sep, value in _name_value_items(texts):
        if not sep or name not in HINT_NAMES:
            raise click.BadParameter(f"'{item}' is not one of {', '.join(n + '=SIZE' for n in HINT_NAMES)}",
                                     param_hint="--hint")
        size = _int_or_zero(value)
        if size < 1:
            raise click.BadParameter(f"'{item}': the size must be a positive integer", param_hint="--hint")
        hints[name] = size
    return hints


def emit_kinds(emit: str | None, output: str | None) -> list[str]:
    """The output kinds: ``--emit``'s list, else the kind whose suffix ``-o`` has, else cubin."""
    if emit is not None:
        kinds = [k.strip() for k in emit.split(",") if k.strip()]
        bad = [k for k in kinds if k not in EMIT_SUFFIXES]
        if bad or not kinds:
            what = f"unknown output kind '{bad[0]}'" if bad else "no output kind given"
            raise click.BadParameter(f"{what}; expected one of {', '.join(EMIT_SUFFIXES)}", param_hint="--emit")
        return list(dict.fromkeys(kinds))
    if output and output != "-":
        suffix = Path(output).suffix
        for kind, s in EMIT_SUFFIXES.items():
            if s == suffix:
                return [kind]
    return ["cubin"]


def parse_archs(text: str) -> tuple[tuple[str, ...], str]:
    """``--arch``: the architectures listed (``tritonc.multiarch.parse_arch_list``) and the one the
    compilation runs its cost model for (the first with SASS)."""
    from .multiarch import parse_arch_list

    try:
        archs = parse_arch_list(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--arch'") from None
    return archs, next(a for a in archs if a in ARCHS)


#: What a list of architectures writes: outputs that are the same for every architecture, or hold them all.
MULTI_ARCH_KINDS = ("ttir", "fatbin", "header", "py")


def multi_arch_kinds(kinds: list[str], emit: str | None, output: str | None) -> list[str]:
    """The output kinds of a multi-architecture build: a fatbin unless ``--emit`` or the suffix of
    ``-o`` names kinds, and only kinds that hold every architecture."""
    if emit is None and kinds == ["cubin"] and not (output and Path(output).suffix == ".cubin"):
        return ["fatbin"]
    bad = [k for k in kinds if k not in MULTI_ARCH_KINDS]
    if bad:
        raise click.BadParameter(f"--emit={bad[0]} is one architecture's output; with a list of architectures "
                                 f"emit {', '.join(MULTI_ARCH_KINDS)}", param_hint="'--arch'")
    return kinds


def split_error_limit(flags: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """``-ferror-limit=N`` (``-ferror-limit N`` is rewritten to it by :func:`join_error_limit`) out of the
    ``-f`` flags: the other flags and the limit (the last one given; default 20, 0: none)."""
    from .diagnostics import DEFAULT_ERROR_LIMIT

    limit, rest = DEFAULT_ERROR_LIMIT, []
    for flag in flags:
        name, eq, value = flag.partition("=")
        if name != "error-limit":
            rest.append(flag)
            continue
        if not eq or not value.strip().isdigit():
            raise click.BadParameter(f"'-f{flag}': the limit must be a number of errors, 0 or more "
                                     "(-ferror-limit=N or -ferror-limit N)", param_hint="-ferror-limit")
        limit = int(value)
    return tuple(rest), limit


def output_paths(kinds: list[str], output: str | None, source: str) -> dict[str, str]:
    """The path of each output kind: ``-o`` itself for one kind (``-`` for stdout), else ``-o``
    (less a known suffix) or the source's stem, with each kind's suffix."""
    if output == "-":
        if len(kinds) != 1:
            raise click.BadParameter("'-o -' writes one output kind to stdout; pick one with --emit", param_hint="-o")
        return {kinds[0]: "-"}
    if output is not None and len(kinds) == 1:
        return {kinds[0]: output}
    if output is not None:
        base = output
        if Path(output).suffix in EMIT_SUFFIXES.values():
            base = str(Path(output).with_suffix(""))
    else:
        base = Path(source).stem if source != "-" else "a"
    return {k: base + EMIT_SUFFIXES[k] for k in kinds}


def check_output_suffixes(paths: dict[str, str], off: frozenset[str], werror: bool) -> None:
    """-Woutput-suffix: an output whose suffix is another kind's (``-o k.ptx --emit=cubin``).
    Printed before anything is compiled; under -Werror an error (exit status 1, nothing written)."""
    sink = DiagnosticSink(off, werror)
    try:
        for kind, path in paths.items():
            named = next((k for k, suffix in EMIT_SUFFIXES.items() if path != "-" and Path(path).suffix == suffix), kind)
            if named != kind:
                sink.warn("output-suffix", f"output '{path}' has the suffix of {named} output, but --emit={kind} "
                                           f"writes {kind} output to it", None)
    except CompileError as e:
        click.echo(SourceManager().render(e.diagnostic), err=True)
        sys.exit(1)
    for w in sink.warnings:
        click.echo(SourceManager().render(w), err=True)


def join_error_limit(args: list[str]) -> list[str]:
    """``-ferror-limit N`` (clang's spelling with a space) as ``-ferror-limit=N``, which the ``-f``
    option takes (before ``--`` only)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "--":
            return out + args[i:]
        if args[i] == "-ferror-limit" and i + 1 < len(args):
            out.append(f"-ferror-limit={args[i + 1]}")
            i += 2
        else:
            out.append(args[i])
            i += 1
    return out
