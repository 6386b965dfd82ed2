"""``--kernel K``: keep only what kernel ``K`` needs of a preprocessed file (spec section 2).

One ``.tri`` file may hold kernels that need different ``-D`` sets, and an undefined macro may
even be a type (``TYPE *X``), so the other kernels need not parse. With ``--kernel K`` the
parser sees, after preprocessing:

* every file-scope declaration (``const tunable`` lists, and whatever else the parser checks);
* kernel ``K`` and the functions it calls, transitively (a token ``name (`` in a kept function
  keeps the function ``name``; the test is lexical, so it may keep a function that a local
  variable's name merely resembles, never too few);
* nothing else: the other functions are cut out token by token (their text becomes blanks, so
  every location stays what it was). Their bodies only need balanced braces; their signatures
  and bodies are never parsed.

The file is split at top level (bracket depth 0) into items: an item that ends with a
``{ ... }`` right after a ``)`` is a function definition, whose name is the identifier before
the ``(`` of that parameter list and which is a ``__device__`` function when that word appears
before its name; any other item ends at a ``;``. When the split fails (an unbalanced bracket, a
function header without a name) the file is returned unchanged, and the parser reports the
problem where it is; a function body whose ``{`` is never closed is reported at that ``{``.
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.diagnostics import CompileError
from tritonc.frontend.preprocess import PPToken, PreprocessedSource

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


@dataclass
class _Function:
    """A top-level function definition: tokens ``[start, end)``; its name and kind."""

    name: str
    is_device: bool
    start: int
    end: int


def _functions(tokens: list[PPToken]) -> list[_Function] | None:
    """The function definitions at top level, or ``None`` when the file does not split."""
    out: list[_Function] = []
    item_start = 0
    depth: list[str] = []
    i = 0
    while i < len(tokens):
        v = tokens[i].value
        if not depth and v == "{" and i > 0 and tokens[i - 1].value == ")":
            end = _matching_brace(tokens, i)
            if end is None:
                raise CompileError("expected '}' at end of input: this function body's '{' is never closed",
                                   tokens[i].loc)
            name_at = _parameter_list_start(tokens, item_start, i - 1)
            if name_at is None or name_at == item_start or tokens[name_at - 1].kind != "CPP_ID":
                return None
            is_device = any(t.value == "__device__" for t in tokens[item_start:name_at - 1])
            out.append(_Function(tokens[name_at - 1].value, is_device, item_start, end + 1))
            i = item_start = end + 1
            continue
        if v in _OPEN:
            depth.append(_OPEN[v])
        elif v in _CLOSE:
            if not depth or depth.pop() != v:
                return None
        elif v == ";" and not depth:
            item_start = i + 1
        i += 1
    return out if not depth else None


def _matching_brace(tokens: list[PPToken], open_at: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``open_at`` (only braces count in a body)."""
    level = 0
    for j in range(open_at, len(tokens)):
        v = tokens[j].value
        if v == "{":
            level += 1
        elif v == "}":
            level -= 1
            if level == 0:
                return j
    return None


def _parameter_list_start(tokens: list[PPToken], lo: int, close_at: int) -> int | None:
    """Index of the ``(`` matching the ``)`` at ``close_at``, searching back to ``lo``."""
    level = 0
    for j in range(close_at, lo - 1, -1):
        v = tokens[j].value
        if v == ")":
            level += 1
        elif v == "(":
            level -= 1
            if level == 0:
                return j
    return None


def keep_kernel(pre: PreprocessedSource, kernel: str) -> PreprocessedSource:
    """``pre`` without the functions kernel ``kernel`` does not need (see the module docstring).

    Raises:
        CompileError: a function body's ``{`` is never closed; the file defines no kernel (a function without ``__device__``) of that
            name; the message lists the kernels there are.
    """
    functions = _functions(pre.tokens)
    if functions is None:
        return pre
    kernels = [f.name for f in functions if not f.is_device]
    if kernel not in kernels:
        listed = ", ".join(dict.fromkeys(kernels)) or "none"
        raise CompileError(f"no kernel named '{kernel}' in this file (kernels: {listed})")
    by_name: dict[str, list[_Function]] = {}
    for f in functions:
        by_name.setdefault(f.name, []).append(f)
    keep = {kernel}
    work = [f for f in functions if f.name == kernel and not f.is_device]
    kept_items = list(work)
    while work:
        f = work.pop()
        toks = pre.tokens[f.start:f.end]
        for a, b in zip(toks, toks[1:]):
            if a.kind == "CPP_ID" and b.value == "(" and a.value in by_name and a.value not in keep:
                keep.add(a.value)
                work.extend(by_name[a.value])
                kept_items.extend(by_name[a.value])
    dropped = [f for f in functions if f not in kept_items]
    if not dropped:
        return pre
    text = list(pre.text)
    removed: set[int] = set()
    for f in dropped:
        first, last = pre.tokens[f.start], pre.tokens[f.end - 1]
        for k in range(first.offset, last.offset + len(last.value)):
            if text[k] != "\n":
                text[k] = " "
        removed.update(range(f.start, f.end))
    tokens = [t for k, t in enumerate(pre.tokens) if k not in removed]
    return PreprocessedSource("".join(text), tokens, pre.eof_loc, dict(pre.tunable_overrides))
