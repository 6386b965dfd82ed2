"""Triton-C parser: preprocess, parse with the LALR grammar ``grammar/triton_c.lark``, build the AST.

The grammar is loaded once per process (and lark's on-disk cache makes later processes fast).
The parse tree is turned into :mod:`tritonc.frontend.ast` nodes by
:class:`~tritonc.frontend.to_ast.ToAst`; every node gets the :class:`SourceLoc` of its token in
the user's file through the preprocessor's position map. Syntax errors become
:class:`CompileError` in gcc's style, "expected ';' before 'int'", located at the offending
token.

What the parser resolves and what it leaves to sema:

* type names are canonicalised (:data:`ast.SCALAR_TYPES`), attributes too
  (``restrict``/``__noalias`` -> ``noalias``, ``align(n)`` -> ``aligned``, ...);
* pure renames of built-ins become the canonical name (:data:`ast.CALL_ALIASES` and
  ``atomic_add_<float|half>_<M>x<N>`` -> ``atomic_add``); every other call, including
  ``min``/``max``, ``dot``, ``trans``, ``select``, ``__sum``, ``__reshape``, ``sqrt`` and the
  math functions, is a plain :class:`ast.Call` that sema checks;
* subscript entries are classified (``:``, ``newaxis``, ``+``/``max``/``min``, ``^k``);
  anything else in a subscript is an error here (subscripts never index);
* C constructs outside the language (``struct``, ``union``, ``enum``, ``typedef``, ``goto``,
  ``switch``, ``asm``, ``sizeof``, string literals, function pointers, nested arrays,
  file-scope variables) are rejected with a specific message;
* nesting is bounded (:data:`MAX_STATEMENT_NESTING` blocks, statements and ``?:``,
  :data:`MAX_EXPRESSION_NESTING` levels in one expression): the later stages recurse per level,
  and a deeper program is the error "nesting too deep" rather than a crash. The parser itself
  never recurses (LALR parsing and a non-recursive tree transformer).
"""
from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark, Tree
from lark.exceptions import UnexpectedInput, VisitError

from tritonc.diagnostics import CompileError, DiagnosticSink, SourceLoc, SourceManager
from tritonc.frontend import ast
from tritonc.frontend.kernel_select import keep_kernel
from tritonc.frontend.preprocess import PreprocessedSource, preprocess
from tritonc.frontend.syntax_errors import syntax_error
from tritonc.frontend.to_ast import ToAst

GRAMMAR_PATH = Path(__file__).resolve().parents[2] / "grammar" / "triton_c.lark"

#: C keywords and lexemes outside Triton-C, with the message given when one appears.
_UNSUPPORTED = {
    "struct": "'struct' types are not supported in Triton-C",
    "union": "'union' types are not supported in Triton-C",
    "enum": "'enum' types are not supported in Triton-C; use macros for constants",
    "typedef": "'typedef' is not supported in Triton-C; use a macro (#define NAME type)",
    "goto": "'goto' is not supported in Triton-C",
    "switch": "'switch' is not supported in Triton-C; use if/else",
    "case": "'case' is not supported in Triton-C ('switch' is not supported; use if/else)",
    "asm": "inline assembly ('asm') is not supported in Triton-C",
    "__asm__": "inline assembly ('__asm__') is not supported in Triton-C",
    "sizeof": "'sizeof' is not supported in Triton-C",
    # the paper-era shift convolution's constant-memory tables (E0)
    "__constant__": "constant-memory tables ('__constant__') are not supported in Triton-C; keep the table "
                    "in a global array and pass it to the kernel as a pointer argument "
                    "(e.g. 'int *delta __readonly', then '*(delta + i)')",
    "alloc_const": "'alloc_const' (a constant-memory table) is not supported in Triton-C; keep the table "
                   "in a global array and pass it to the kernel as a pointer argument "
                   "(e.g. 'int *delta __readonly', then '*(delta + i)')",
}

#: Most blocks, statements (``{``, ``if``, ``for``, ``while``, ``do``, ``@mask``) and conditional
#: expressions (``c ? a : b``, which may become an ``scf.if``) nested in one another, the function
#: body included. Each level costs a few Python frames in sema, irgen and every pass that walks
#: nested regions; deeper nesting is the error "nesting too deep".
MAX_STATEMENT_NESTING = 200
#: Most levels of nesting in one expression: parse-tree nodes below the innermost statement or
#: ``?:``, other than names and literals (``*p = a + b + ... + z;`` is 3 levels, for the
#: statement, ``=`` and ``*``, plus one per ``+``; parentheses add none).
MAX_EXPRESSION_NESTING = 1000

#: Parse-tree rules that open a level of statement nesting (:data:`MAX_STATEMENT_NESTING`).
_STATEMENT_RULES = frozenset({"compound", "if_stmt", "for_stmt", "while_stmt", "do_stmt", "predicated_stmt",
                              "conditional"})

@functools.cache
def _lark() -> Lark:
    """The LALR parser, built once per process (lark caches the tables on disk)."""
    return Lark(GRAMMAR_PATH.read_text(), parser="lalr", lexer="contextual",
                propagate_positions=True, maybe_placeholders=True, cache=True)


def parse(text: str, path: str, defines: dict[str, str | None] | None = None,
          include_dirs: list[str] | tuple[str, ...] = (),
          sources: SourceManager | None = None,
          sink: DiagnosticSink | None = None, kernel: str | None = None) -> ast.TranslationUnit:
    """Preprocess and parse one Triton-C file into an AST.

    Args:
        text: the file's contents.
        path: its name, used verbatim in diagnostics.
        defines: ``-D`` macros (see :func:`tritonc.frontend.preprocess.preprocess`).
        include_dirs: ``-I`` directories.
        sources: registry that receives the text of every file read (for caret diagnostics).
        sink: receives preprocessor warnings (``#warning``).
        kernel: ``--kernel``: parse only this kernel, the functions it calls and the file-scope
            declarations; the other functions need only balanced braces
            (:func:`tritonc.frontend.kernel_select.keep_kernel`).

    Returns:
        The :class:`ast.TranslationUnit`, untyped: names are not resolved.

    Raises:
        CompileError: preprocessor errors, syntax errors, constructs outside Triton-C and nesting
            beyond :data:`MAX_STATEMENT_NESTING` or :data:`MAX_EXPRESSION_NESTING`, located at
            the user's file, line and column.
    """
    pre = preprocess(text, path, defines, include_dirs, sources, sink)
    return parse_preprocessed(pre, path, kernel)


def parse_preprocessed(pre: PreprocessedSource, path: str, kernel: str | None = None) -> ast.TranslationUnit:
    """Parse the output of :func:`preprocess` (see :func:`parse` for the contract)."""
    if kernel is not None:
        pre = keep_kernel(pre, kernel)
    _reject_unsupported_tokens(pre)
    try:
        tree = _lark().parse(pre.text)  # LALR: no recursion, however deep the nesting
    except UnexpectedInput as err:
        raise syntax_error(err, pre, _terminal_display()) from None
    _check_nesting(tree, pre)
    try:
        unit = ToAst(pre).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, CompileError):
            raise err.orig_exc from None
        raise
    unit.loc = SourceLoc(path, 1, 1)
    _bind_user_calls(unit)
    return unit


def _bind_user_calls(unit: ast.TranslationUnit) -> None:
    """Mark the calls of functions the file defines (``Call.user``): a user's function named like a
    built-in (``dot``, ``trans``, ``max``, ``get_range_id``...) wins over the built-in in this file.
    Walks the tree with an explicit stack (expressions may nest :data:`MAX_EXPRESSION_NESTING` deep)."""
    defined = {d.name for d in unit.decls if isinstance(d, ast.FunctionDef)}
    stack: list[ast.Node] = [unit]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and (node.spelling or node.name) in defined:
            node.name = node.spelling or node.name
            node.user = True
        stack.extend(node.children())


def _check_nesting(tree: Tree, pre: PreprocessedSource) -> None:
    """Reject nesting beyond :data:`MAX_STATEMENT_NESTING` / :data:`MAX_EXPRESSION_NESTING`,
    at the first construct past the limit (as clang reports its bracket depth limit).

    Expression levels count the parse-tree nodes below the innermost statement or ``?:`` that
    are not leaves.
    """
    stack = [(tree, 0, 0)]
    while stack:
        node, statements, expressions = stack.pop()
        if node.data in _STATEMENT_RULES:
            statements, expressions = statements + 1, 0
            if statements > MAX_STATEMENT_NESTING:
                raise CompileError(f"nesting too deep: more than {MAX_STATEMENT_NESTING} levels of nested "
                                   "blocks, statements and '?:'", _tree_loc(node, pre))
        elif any(isinstance(c, Tree) for c in node.children):  # leaves (names, literals) add no level
            expressions += 1
            if expressions > MAX_EXPRESSION_NESTING:
                raise CompileError(f"nesting too deep: more than {MAX_EXPRESSION_NESTING} levels of nesting "
                                   "in one expression", _tree_loc(node, pre))
        stack.extend((c, statements, expressions) for c in reversed(node.children) if isinstance(c, Tree))


def _tree_loc(node: Tree, pre: PreprocessedSource) -> SourceLoc:
    """Where a parse-tree node starts."""
    meta = node.meta
    return pre.eof_loc if meta.empty else pre.loc_at(meta.start_pos)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------

def _reject_unsupported_tokens(pre: PreprocessedSource) -> None:
    for tok in pre.tokens:
        if tok.kind == "CPP_ID" and tok.value in _UNSUPPORTED:
            raise CompileError(_UNSUPPORTED[tok.value], tok.loc)
        if tok.kind == "CPP_STRING":
            raise CompileError("string literals are not supported in Triton-C", tok.loc)
        if tok.kind == "CPP_CHAR":
            raise CompileError("character literals are not supported in Triton-C", tok.loc)


@functools.cache
def _terminal_display() -> dict[str, str]:
    """Terminal name -> how an error message spells it (``SEMICOLON`` -> ``';'``)."""
    shown = {"NAME": "identifier", "INT_LIT": "integer literal", "FLOAT_LIT": "floating literal",
             "$END": "end of input"}
    for term in _lark().terminals:
        if term.name not in shown and term.pattern.type == "str":
            shown[term.name] = f"'{term.pattern.value}'"
    return shown


# ---------------------------------------------------------------------------------------------
# Parse tree -> AST
# ---------------------------------------------------------------------------------------------
