"""The C preprocessor of Triton-C (spec section 2), built on pcpp, with exact source positions.

pcpp does the C preprocessing (``#define`` object- and function-like with ``#`` and ``##``,
``#undef``, conditionals with ``defined()`` and integer arithmetic, ``#include`` with ``-I``
directories). This module drives it token by token instead of using its text output, so that
every token of the result keeps the file, line and column it came from:

* a token written in a file (also a macro *argument*) keeps its own spelling location;
* a token produced by a macro body (including ``-D`` macros and the prelude) gets the
  location of the outermost macro invocation that produced it, as clang reports it; when the
  body was written in a file, the location also carries the macro's name and where the body
  spelled the token (``SourceLoc.macro``, ``SourceLoc.spelling``: the note "expanded from
  macro"), and every token records the end of its spelling or invocation (``PPToken.end``,
  for a missing ``;``).

Each ``#include``d file is registered in the :class:`SourceManager` with the position of its
first ``#include`` (the "In file included from" lines of a diagnostic).

The result, :class:`PreprocessedSource`, is the expanded text handed to the lark parser plus
a table that maps each character offset of that text back to a :class:`SourceLoc`.

The built-in prelude (spec section 2) is defined without any text, so it does not shift the
line numbers of the user's file:

* ``F32_INFINITY`` -> ``bitcast<float>(0x7F800000)`` and ``F16_INFINITY`` ->
  ``bitcast<half>((int16)0x7C00)`` are macros;
* ``bool``, ``int8`` .. ``uint64``, ``true``/``false`` and the attribute names ``__noalias``,
  ``__readonly``, ``__writeonly``, ``__aligned``, ``__multipleof``, ``__retune`` are keywords of
  the grammar (not macros), so they reach the parser unchanged; ``true``/``false`` still
  evaluate to 1/0 in ``#if``;
* ``min``, ``max`` and the ``atomic_add_<float|half>_<M>x<N>`` names are ordinary calls that
  the parser recognises (they are not macros: ``min(a, b)`` on tiles is an element-wise op).

Errors follow gcc and clang: a missing ``#include`` file is reported at the file name; an
unclosed ``/*`` comment, ``#include`` nested deeper than :data:`MAX_INCLUDE_DEPTH` (a file that
includes itself) and a call of an undefined function-like macro in ``#if`` are errors (pcpp
would lex ``/*`` as two operators, recurse until Python's recursion limit, and evaluate ``F(1)``
as 0).

``-D TM=128`` fixes a paper-style ``const tunable int TM = {...};``: the declared name itself
is never macro-expanded, and the override text is reported in
:attr:`PreprocessedSource.tunable_overrides`.
"""
from __future__ import annotations

import bisect
import dataclasses
import io
import os
import re
from dataclasses import dataclass, field

import pcpp
from pcpp.parser import Action, OutputDirective, trigraph

from tritonc.diagnostics import CompileError, DiagnosticSink, SourceLoc, SourceManager, recursion_headroom

#: Most ``#include`` files open at once (gcc's default ``-fmax-include-depth``): a deeper one,
#: such as a file that includes itself, is the error "#include nested too deeply".
MAX_INCLUDE_DEPTH = 200

#: Object-like macros of the built-in prelude: name -> replacement text.
PRELUDE_MACROS = {
    "F32_INFINITY": "bitcast<float>(0x7F800000)",
    "F16_INFINITY": "bitcast<half>((int16)0x7C00)",
}

#: Type keywords that may sit between ``tunable`` and the declared name.
_TUNABLE_TYPE_WORDS = frozenset(
    "const signed unsigned char short int long bool _Bool half bfloat16 float double int1 int8 "
    "int16 int32 int64 uint8 uint16 uint32 uint64 uchar ushort uint ulong fp16 fp32 fp64".split())


@dataclass
class PPToken:
    """One token of the preprocessed output: its text, offset in the output text, and origin."""

    value: str
    offset: int
    loc: SourceLoc
    kind: str  # pcpp token type, e.g. 'CPP_ID', 'CPP_INTEGER', 'CPP_STRING'
    #: Just past the token's spelling in the source; for a token of a macro expansion (made by
    #: the body, or an argument), just past the whole invocation (``F(a, b)``), as clang has it.
    end: SourceLoc | None = None


@dataclass
class PreprocessedSource:
    """The preprocessor's result.

    Attributes:
        text: the expanded token text fed to the parser (tokens separated by single spaces,
            except where they were adjacent in the source, e.g. the pieces of ``1.5f``).
        tokens: every token of ``text`` with its offset and original location, in order.
        eof_loc: the position just after the last token of the main file (for "expected '}'"
            errors at the end of the input).
        tunable_overrides: names of ``const tunable`` declarations that were also defined as
            macros (``-D TM=128``), mapped to the macro's replacement text.
        used_names: the macros the source expanded and the names its ``#if`` / ``#ifdef`` /
            ``#ifndef`` / ``#elif`` directives mention (for ``--tune``'s check of its names).
        final_macros: the macros defined at the end of the file (the prelude's, ``-D``'s and
            the file's), in :func:`preprocess`'s ``defines`` form (``"F(a,b)"`` -> body), for
            text that must see them (``--grid``); variadic macros are left out.
    """

    text: str
    tokens: list[PPToken]
    eof_loc: SourceLoc
    tunable_overrides: dict[str, str] = field(default_factory=dict)
    used_names: frozenset[str] = frozenset()
    final_macros: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._offsets = [t.offset for t in self.tokens]

    def end_before(self, offset: int) -> SourceLoc | None:
        """Just past the last token that ends at or before ``offset`` of :attr:`text` (the
        position of a missing ``;``); ``None`` at the start of the text."""
        i = bisect.bisect_right(self._offsets, offset) - 1
        while i >= 0 and self.tokens[i].offset + len(self.tokens[i].value) > offset:
            i -= 1
        return self.tokens[i].end if i >= 0 else None

    def loc_at(self, offset: int) -> SourceLoc:
        """Map a character offset of :attr:`text` to the location of the token covering it."""
        i = bisect.bisect_right(self._offsets, offset) - 1
        if i < 0 or offset >= len(self.text):
            return self.eof_loc
        tok = self.tokens[i]
        delta = offset - tok.offset
        if 0 < delta < len(tok.value):
            spelling = tok.loc.spelling
            if spelling is not None:
                spelling = dataclasses.replace(spelling, col=spelling.col + delta)
            return dataclasses.replace(tok.loc, col=tok.loc.col + delta, spelling=spelling)
        return tok.loc


class _FileTable:
    """Line starts of every file pcpp lexed, to turn a token's ``lexpos`` into line and column.

    pcpp lexes ``"\\n".join(line.rstrip() for line in trigraph(text).splitlines())``, so the
    offsets are computed on exactly that string.
    """

    def __init__(self) -> None:
        self.display: dict[str, str] = {}      # absolute path -> name shown in diagnostics
        self._starts: dict[str, list[int]] = {}

    def add(self, abspath: str, display: str, text: str) -> None:
        self.display[abspath] = display
        lexed = "\n".join(x.rstrip() for x in trigraph(text).splitlines())
        self._starts[abspath] = [0] + [i + 1 for i, c in enumerate(lexed) if c == "\n"]

    def loc(self, source: str | None, lexpos: int, lineno: int) -> SourceLoc:
        starts = self._starts.get(source or "")
        if starts is None:
            return SourceLoc(self.display.get(source or "", source or "<command line>"), lineno, 1)
        line = bisect.bisect_right(starts, lexpos)
        return SourceLoc(self.display[source], line, lexpos - starts[line - 1] + 1)


class _Preprocessor(pcpp.Preprocessor):
    """pcpp with errors raised as CompileError and macro-expansion positions tracked."""

    def __init__(self, files: _FileTable, sources: SourceManager, sink: DiagnosticSink | None) -> None:
        super().__init__()
        self.files = files
        self.sources = sources
        self.sink = sink
        self.rewrite_paths = []          # keep absolute paths in token.source; we map them
        self.auto_pragma_once_enabled = False
        for name in ("__DATE__", "__TIME__", "__PCPP__"):
            self.undef(name)             # deterministic output
        self._depth = 0
        self._expanding: list = []       # tokens of the outermost expansion under way
        self._includes: list = []        # argument tokens of each #include being processed
        self._if_tokens: list = []       # tokens of the #if / #elif expression being evaluated
        self._if_error: CompileError | None = None  # found by a hook of pcpp's #if evaluator
        self.tunable_overrides: dict[str, str] = {}
        self.used_names: set[str] = set()  # identifiers macro expansion or a conditional looked at

    def add_path(self, path):
        """Add an ``-I`` directory (pcpp's version would also rewrite token file names)."""
        self.path.append(path)

    # -- positions -----------------------------------------------------------------------------

    def tok_loc(self, tok) -> SourceLoc:
        return self.files.loc(tok.source, tok.lexpos, tok.lineno)

    def expand_macros(self, tokens, expanding_from=[]):  # noqa: B006 (pcpp's signature)
        """Expand ``tokens`` like pcpp, then stamp every result token with ``tok.tloc``.

        Only the outermost call does the stamping: tokens present before expansion keep their
        spelling location; tokens made by a macro body take the location of the first source
        token of the invocation they replaced (the macro's name).
        """
        self.used_names.update(t.value for t in tokens if t.type == self.t_ID and t.value in self.macros)
        if self._depth:
            return super().expand_macros(tokens, expanding_from)
        self._protect_tunable_names(tokens)
        before = list(tokens)
        self._expanding = before
        info = {}
        for tok in before:
            if not hasattr(tok, "expanded_from"):
                tok.expanded_from = []
            if not hasattr(tok, "tloc"):
                tok.tloc = self.tok_loc(tok)
            info[id(tok)] = len(tok.expanded_from)
        self._depth += 1
        try:
            out = super().expand_macros(tokens, expanding_from)
        finally:
            self._depth -= 1
        pos = {id(tok): i for i, tok in enumerate(before)}
        next_orig = 0           # index in `before` just after the last token that survived as is
        survived: list[int | None] = []  # per output token: its index in `before` if it survived
        for tok in out:
            i = pos.get(id(tok))
            survived.append(None)
            if i is not None and len(tok.expanded_from) == info[id(tok)]:
                next_orig = i + 1          # survived unexpanded
                survived[-1] = i
                continue
            if i is not None:
                continue                   # a macro argument: keeps its spelling location
            j = next_orig
            while j < len(before) - 1 and before[j].type in self.t_WS:
                j += 1
            tok.tloc = before[j].tloc if before else SourceLoc("<command line>", 1, 1)
        self._stamp_invocation_ends(out, survived, before)
        return out

    def _stamp_invocation_ends(self, out, survived, before) -> None:
        """Give each token of a macro expansion in ``out`` (one that did not survive from
        ``before`` unexpanded) ``tok.tend``: just past the last token of ``before`` that the
        invocation consumed (the one before the next survivor, blanks skipped)."""
        boundary = len(before)  # tokens of `before` from here on survived or are still ahead
        for tok, i in zip(reversed(out), reversed(survived)):
            if i is not None:
                boundary = i
                continue
            j = boundary - 1
            while j > 0 and before[j].type in self.t_WS:
                j -= 1
            if 0 <= j < len(before):
                tok.tend = _end_of(before[j].tloc, before[j].value)

    def _protect_tunable_names(self, tokens) -> None:
        """Keep the name of ``const tunable int TM = {...}`` from being macro-expanded."""
        for i, tok in enumerate(tokens):
            if tok.type != self.t_ID or tok.value != "tunable":
                continue
            j = i + 1
            while j < len(tokens) and (tokens[j].type in self.t_WS
                                       or tokens[j].value in _TUNABLE_TYPE_WORDS):
                j += 1
            if j < len(tokens) and tokens[j].type == self.t_ID:
                name = tokens[j]
                if name.value in self.macros:
                    body = self.macros[name.value].value
                    self.tunable_overrides[name.value] = "".join(t.value for t in body).strip()
                name.expanded_from = [name.value]

    def define(self, tokens):
        """pcpp's ``#define``; each token of a body written in a file also records where it is
        spelled and the macro's name (``tok.spelling``, ``tok.macro``), which expansions copy,
        for the note "expanded from macro". Macros of the command line and prelude have none."""
        super().define(tokens)
        if isinstance(tokens, str):
            return
        name = next((t for t in tokens if t.type not in self.t_WS), None)
        macro = self.macros.get(name.value) if name is not None else None
        if macro is None or (name.source or "") not in self.files.display:
            return
        for tok in macro.value:
            tok.spelling = self.tok_loc(tok)
            tok.macro = name.value

    # -- pcpp hooks ----------------------------------------------------------------------------

    def on_error(self, file, line, msg):
        raise CompileError(_rephrase(msg), self._error_loc(file, line, msg))

    def _error_loc(self, file, line, msg: str) -> SourceLoc:
        macro = re.match(r"Macro (\w+)", msg)
        if macro and self._depth:
            for tok in self._expanding:
                if tok.value == macro.group(1) and tok.source == file and tok.tloc.line == line:
                    return tok.tloc
        directive = self.lastdirective
        if directive is not None and directive.source == file and self.tok_loc(directive).line == line:
            return self.tok_loc(directive)
        display = self.files.display.get(file, file or "<command line>")
        text = self.sources.line(display, line) or ""
        return SourceLoc(display, line, len(text) - len(text.lstrip()) + 1)

    def on_file_open(self, is_system_include, includepath):
        with open(includepath, encoding="utf-8", errors="replace") as f:
            text = f.read().removeprefix("\ufeff")
        rel = os.path.relpath(includepath)
        display = includepath if rel.startswith("..") else rel
        self.files.add(includepath, display, text)
        first = display not in self.sources.paths()  # the main file included again is still the main file
        self.sources.register(display, text)
        if first and self._includes:
            self.sources.register_include(display, self._include_loc(self._includes[-1]))
        _check_comments(text, display)
        return io.StringIO(text)

    def include(self, tokens, original_line):
        """pcpp's ``#include``, with a depth limit and the file name's position kept for errors."""
        if len(self._includes) >= MAX_INCLUDE_DEPTH:
            raise CompileError(f"#include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)",
                               self._include_loc(tokens))
        self._includes.append(tokens)
        try:
            yield from super().include(tokens, original_line)
        finally:
            self._includes.pop()

    def _include_loc(self, tokens) -> SourceLoc:
        """Where an ``#include``'s file name starts (clang and gcc put the caret there)."""
        tok = next((t for t in tokens if t.type not in self.t_WS), None)
        if tok is None:
            return self.tok_loc(self.lastdirective)
        return getattr(tok, "tloc", None) or self.tok_loc(tok)

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
        loc = self._include_loc(self._includes[-1]) if self._includes else self.tok_loc(self.lastdirective)
        if is_malformed:
            raise CompileError(f"malformed #include: expected \"FILE\" or <FILE>, got '{includepath}'", loc)
        raise CompileError(f"'{includepath}' file not found", loc)

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
        super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)
        name = directive.value
        if name in ("ifdef", "ifndef", "if", "elif"):
            self.used_names.update(t.value for t in toks if t.type == self.t_ID)
        if not toks and name in ("define", "undef", "ifdef", "ifndef", "if", "elif", "include"):
            raise CompileError(f"#{name} needs an argument", self.tok_loc(directive))
        if name == "pragma" and not toks:
            raise OutputDirective(Action.IgnoreAndRemove)
        return True

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
        text = "".join(t.value for t in toks).strip()
        loc = self.tok_loc(directive)
        if directive.value == "error":
            raise CompileError(f"#error {text}".rstrip(), loc)
        if directive.value == "warning":
            if self.sink is not None:
                self.sink.warn("cpp", f"#warning {text}".rstrip(), loc)
            return True
        if directive.value == "pragma":
            return True          # no pragmas are defined; ignored as C compilers do
        if directive.value == "line":
            raise CompileError("'#line' directives are not supported", loc)
        raise CompileError(f"invalid preprocessing directive '#{directive.value}'", loc)

    def on_unknown_macro_in_expr(self, ident):
        return {"true": 1, "false": 0}.get(ident, 0)

    def evalexpr(self, tokens):
        self._if_tokens = list(tokens)
        self._if_error = None
        try:
            result = super().evalexpr(tokens)
        except CompileError:
            if self._if_error is None:
                raise
            result = None
        if self._if_error is not None:  # pcpp's evaluator swallows exceptions of its hooks
            raise self._if_error
        return result

    def on_unknown_macro_function_in_expr(self, ident):
        """``#if F(1)`` with ``F`` not a function-like macro: an error, as in gcc and clang
        (pcpp would take the call as 0)."""
        if self._if_error is None:
            tok = next((t for t in self._if_tokens if t.type == self.t_ID and t.value == ident), None)
            loc = (getattr(tok, "tloc", None) or self.tok_loc(tok)) if tok is not None else self.tok_loc(self.lastdirective)
            self._if_error = CompileError(f"function-like macro '{ident}' is not defined", loc)
        return lambda *args: 0

    def on_comment(self, tok):
        return False


def _rephrase(msg: str) -> str:
    """Turn a pcpp message into tritonc's style (lower case start, no trailing period)."""
    if msg.startswith("Could not evaluate expression"):
        expr = msg.split("passed to evaluator: '", 1)[-1].rstrip("')")
        return f"invalid expression in #if: '{expr.strip()}'"
    if msg.startswith("Unterminated "):
        return f"unterminated conditional directive '{msg.removeprefix('Unterminated ').strip()}'"
    msg = re.sub(r"^Macro (\w+)", r"macro '\1'", msg)
    return msg[:1].lower() + msg[1:].rstrip(".")


#: What the C lexer skips over when looking for comments: line comments (with ``\\`` line
#: continuations), closed block comments, and closed string and character literals (an unclosed
#: quote is a lone character, as pcpp lexes it). A ``/*`` outside all of these is never closed.
_SKIPPED = re.compile(r"//(?:\\\n|[^\n])*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|(/\*)", re.S)


def _check_comments(text: str, path: str) -> None:
    """Reject a ``/*`` comment that is never closed (pcpp would lex it as ``/`` and ``*``)."""
    if "/*" not in text:
        return
    for m in _SKIPPED.finditer(text):
        if m.group(1):
            start = m.start(1)
            line = text.count("\n", 0, start) + 1
            col = start - (text.rfind("\n", 0, start) + 1) + 1
            raise CompileError("unterminated /* comment", SourceLoc(path, line, col))


def _check_define_name(name: str) -> None:
    head = name.split("(", 1)[0]
    if not head or not (head[0].isalpha() or head[0] == "_") or not all(c.isalnum() or c == "_" for c in head):
        raise CompileError(f"invalid macro name '{name}' in -D option")


def preprocess(text: str, path: str, defines: dict[str, str | None] | None = None,
               include_dirs: list[str] | tuple[str, ...] = (),
               sources: SourceManager | None = None,
               sink: DiagnosticSink | None = None) -> PreprocessedSource:
    """Run the C preprocessor over one Triton-C source file.

    Args:
        text: the file's contents.
        path: the file's name as the user gave it; diagnostics use it verbatim.
        defines: ``-D`` macros, name -> replacement text. A name may carry a parameter list
            (``{"SQ(x)": "((x)*(x))"}``). ``None`` as the value means ``1`` (``-D NAME``);
            ``""`` defines an empty macro. Values may contain commas (``{"RED": "+,:"}``).
        include_dirs: ``-I`` directories, searched in order for ``#include`` (quoted includes
            look in the including file's directory first).
        sources: registry that receives the text of the main file and every included file
            (so diagnostics can quote lines); a fresh one is used if ``None``.
        sink: receives ``#warning`` messages (flag ``cpp``); they are dropped if ``None``.

    Returns:
        The expanded text with its position map (:class:`PreprocessedSource`).

    Raises:
        CompileError: ``#error``, a missing include, an unknown directive, a malformed macro
            call or ``#if`` expression, an unterminated conditional, a malformed directive;
            located at the directive (file, line and column of the user's source) except for
            bad ``-D`` names. Also, located where they start: a missing or malformed
            ``#include`` file name, ``#include`` nested too deeply, an unterminated ``/*``
            comment, an undefined function-like macro called in ``#if``.
    """
    sources = sources if sources is not None else SourceManager()
    text = text.removeprefix("\ufeff")
    files = _FileTable()
    abspath = os.path.abspath(path)
    files.add(abspath, path, text)
    sources.register(path, text)
    _check_comments(text, path)

    pp = _Preprocessor(files, sources, sink)
    for name, value in PRELUDE_MACROS.items():
        pp.define(f"{name} {value}")
    for name, value in (defines or {}).items():
        _check_define_name(name)
        pp.define(f"{name} {'1' if value is None else value}")
    for directory in include_dirs:
        pp.add_path(str(directory))

    with recursion_headroom():
        return _run(pp, text, path, abspath)


def _run(pp: _Preprocessor, text: str, path: str, abspath: str) -> PreprocessedSource:
    pp.parse(text, abspath)
    out: list[str] = []
    tokens: list[PPToken] = []
    offset = 0
    prev = None
    while (tok := _next_token(pp)) is not None:
        if tok.type in pp.t_WS or tok.value == "":
            continue
        loc = getattr(tok, "tloc", None) or pp.tok_loc(tok)
        if getattr(tok, "spelling", None) is not None and tok.spelling != loc:
            loc = dataclasses.replace(loc, macro=tok.macro, spelling=tok.spelling)
        glued = (prev is not None and prev.lexpos + len(prev.value) == tok.lexpos
                 and prev.source == tok.source and getattr(prev, "tloc", None) is not None
                 and _same_origin(prev, tok))
        if tokens and not glued:
            sep = "\n" if tokens[-1].loc.line != loc.line else " "
            out.append(sep)
            offset += 1
        end = getattr(tok, "tend", None) or _end_of(loc, tok.value)
        tokens.append(PPToken(tok.value, offset, loc, tok.type, end))
        out.append(tok.value)
        offset += len(tok.value)
        prev = tok

    eof_loc = _eof_loc(text, path)
    final = {}
    for name, macro in pp.macros.items():
        if name.startswith("__") and name.endswith("__") or name in PRELUDE_MACROS or macro.variadic:
            continue
        key = name if macro.arglist is None else f"{name}({','.join(macro.arglist)})"
        final[key] = "".join(t.value for t in macro.value)
    return PreprocessedSource("".join(out), tokens, eof_loc, dict(pp.tunable_overrides), frozenset(pp.used_names),
                              final)


def _next_token(pp: _Preprocessor):
    """pcpp's next token; a directive that pcpp cannot digest becomes a CompileError."""
    try:
        return pp.token()
    except (IndexError, AttributeError, TypeError, ValueError, KeyError) as exc:
        directive = pp.lastdirective
        loc = pp.tok_loc(directive) if directive is not None else None
        name = f" '#{directive.value}'" if directive is not None else ""
        raise CompileError(f"malformed preprocessing directive{name}", loc) from exc


def _end_of(loc: SourceLoc, spelling: str) -> SourceLoc:
    """Just past a token spelled ``spelling`` at ``loc`` (tokens do not span lines)."""
    return SourceLoc(loc.file, loc.line, loc.col + len(spelling))


def _same_origin(a, b) -> bool:
    """Two tokens adjacent in the output came from adjacent characters of the same text."""
    return list(a.expanded_from) == list(b.expanded_from) and a.tloc.file == b.tloc.file


def _eof_loc(text: str, path: str) -> SourceLoc:
    lines = text.splitlines() or [""]
    last = len(lines)
    while last > 1 and not lines[last - 1].strip():
        last -= 1
    return SourceLoc(path, last, len(lines[last - 1].rstrip()) + 1)
