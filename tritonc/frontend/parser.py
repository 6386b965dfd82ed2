"""Triton-C parser: preprocess, parse with the LALR grammar ``grammar/triton_c.lark``, build the AST.

The grammar is loaded once per process (and lark's on-disk cache makes later processes fast).
The parse tree is turned into :mod:`tritonc.frontend.ast` nodes by :class:`_ToAst`; every node
gets the :class:`SourceLoc` of its token in the user's file through the preprocessor's
position map. Syntax errors become :class:`CompileError` in gcc's style, "expected ';' before
'int'", located at the offending token.

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
import re
from pathlib import Path

from lark import Lark, Token, Transformer_NonRecursive, Tree, v_args
from lark.exceptions import UnexpectedInput, VisitError

from tritonc.diagnostics import CompileError, DiagnosticSink, SourceLoc, SourceManager
from tritonc.frontend import ast
from tritonc.frontend.kernel_select import keep_kernel
from tritonc.frontend.preprocess import PreprocessedSource, preprocess
from tritonc.frontend.syntax_errors import RESERVED, syntax_error

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

_ATTRIBUTE_NAMES = {
    "__noalias": "noalias", "restrict": "noalias", "noalias": "noalias",
    "__readonly": "readonly", "read_only": "readonly", "readonly": "readonly",
    "__writeonly": "writeonly", "write_only": "writeonly", "writeonly": "writeonly",
    "__retune": "retune", "retune": "retune",
    "__aligned": "aligned", "align": "aligned", "aligned": "aligned",
    "__multipleof": "multipleof", "multiple_of": "multipleof", "multipleof": "multipleof",
}
_ATTRIBUTES_WITH_ARG = {"aligned", "multipleof"}

#: One-word type names that stand alone (no C combination with signed/long/...).
_SINGLE_TYPES = {
    "void": "void", "bool": "bool", "_Bool": "bool", "int1": "bool",
    "half": "half", "fp16": "half", "bfloat16": "bfloat16",
    "float": "float", "fp32": "float", "double": "double", "fp64": "double",
    "int8": "char", "int16": "short", "int32": "int", "int64": "long",
    "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
    "uint64": "unsigned long", "uchar": "unsigned char", "ushort": "unsigned short",
    "uint": "unsigned int", "ulong": "unsigned long",
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

_ATOMIC_ADD_ALIAS = re.compile(r"atomic_add_(float|half)_\d+x\d+")
_INT_SUFFIX = re.compile(r"[uU]?(?:l|L|ll|LL)?|(?:l|L|ll|LL)[uU]")


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
        unit = _ToAst(pre).transform(tree)
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

class _Pointer:
    """``* restrict *`` between a type and a name: the star count and whether restrict appeared."""

    def __init__(self, depth: int, restrict: Token | None) -> None:
        self.depth = depth
        self.restrict = restrict


class _Grid:
    """``__grid(e0, ...)`` before a function's return type: the ``__grid`` token and the expressions."""

    def __init__(self, token: Token, exprs: list[ast.Expr]) -> None:
        self.token = token
        self.exprs = exprs


class _Dims:
    """A bracketed ``[d0, d1, ...]`` with the position of its ``[`` and the text between the
    brackets (after macro expansion), for the nested-array hint."""

    def __init__(self, exprs: list[ast.Expr], lsqb: Token, text: str) -> None:
        self.exprs = exprs
        self.lsqb = lsqb
        self.text = text


class _Declarator:
    """``*p[TM, TK] __multipleof(8) = init`` before it is combined with the declaration's type."""

    def __init__(self, pointer, name, dims, attributes, init) -> None:
        self.pointer, self.name, self.dims, self.attributes, self.init = pointer, name, dims, attributes, init


def _flatten_attrs(items) -> list[ast.Attribute]:
    return [a for item in items if isinstance(item, list) for a in item]


@v_args(meta=True)
class _ToAst(Transformer_NonRecursive):
    """Builds AST nodes bottom-up (without recursion). Methods are named after grammar rules and
    aliases."""

    def __init__(self, pre: PreprocessedSource) -> None:
        super().__init__(visit_tokens=False)
        self.pre = pre

    # -- locations ------------------------------------------------------------------------------

    def name(self, tok: Token) -> str:
        """The text of a declared name, which must not be a keyword."""
        if tok.value in RESERVED:
            raise CompileError(f"expected identifier before '{tok.value}'", self.at(tok))
        return tok.value

    def at(self, item) -> SourceLoc:
        """Location of a token, a lark Meta, or an AST node."""
        if isinstance(item, ast.Node):
            return item.loc
        return self.pre.loc_at(item.start_pos)

    # -- top level ------------------------------------------------------------------------------

    def start(self, meta, children):
        return ast.TranslationUnit(children, loc=SourceLoc("", 1, 1))

    def function_def(self, meta, children):
        quals = [c for c in children if isinstance(c, Token) and c.type != "NAME"]
        type_spec = next(c for c in children if isinstance(c, ast.TypeSpec))
        pointer = next((c for c in children if isinstance(c, _Pointer)), None)
        dims = next((c for c in children if isinstance(c, _Dims)), None)
        name = next(c for c in children if isinstance(c, Token) and c.type == "NAME")
        params = next((c for c in children if isinstance(c, list)), None) or []
        body = children[-1]
        ret = self._full_type(type_spec, pointer, [dims] if dims else [])
        if len(params) == 1 and params[0].name == "" and params[0].type.base == "void" \
                and params[0].type.pointer_depth == 0 and params[0].type.shape is None:
            params = []
        for p in params:
            if not p.name:
                raise CompileError("parameter name omitted", p.loc)
        words = [q.value for q in quals]
        keyword = next((w for w in words if w in ("__global__", "kernel")), None)
        grids = [c for c in children if isinstance(c, _Grid)]
        if len(grids) > 1:
            raise CompileError("a function has at most one __grid", self.at(grids[1].token))
        return ast.FunctionDef(self.name(name), ret, params, body, is_global=keyword is not None,
                               is_device="__device__" in words, kernel_keyword=keyword,
                               grid=grids[0].exprs if grids else None, loc=self.at(name))

    def grid_decl(self, meta, children):
        token, *exprs = children
        if len(exprs) > 3:
            raise CompileError(f"__grid has at most 3 dimensions, got {len(exprs)}", self.at(token))
        return _Grid(token, exprs)

    def param_list(self, meta, children):
        return list(children)

    def param(self, meta, children):
        type_spec = next(c for c in children if isinstance(c, ast.TypeSpec))
        pointer = next((c for c in children if isinstance(c, _Pointer)), None)
        name = next((c for c in children if isinstance(c, Token) and c.type == "NAME"), None)
        dims = [c for c in children if isinstance(c, _Dims)]
        attributes = _flatten_attrs(children)
        if name is None and attributes:
            raise CompileError("parameter name omitted", type_spec.loc)
        if pointer is not None and pointer.restrict is not None:
            attributes.insert(0, ast.Attribute("noalias", None, "restrict", loc=self.at(pointer.restrict)))
        full = self._full_type(type_spec, pointer, dims, name.value if name else "")
        return ast.Param(self.name(name) if name else "", full, attributes,
                         loc=self.at(name) if name else type_spec.loc)

    unnamed_param = param

    def tunable_decl(self, meta, children):
        const, _tunable, type_spec, name, *candidates = children
        type_spec.is_const = const is not None
        return ast.TunableDecl(self.name(name), type_spec, candidates,
                               override=self.pre.tunable_overrides.get(name.value), loc=self.at(name))

    def file_scope_decl(self, meta, children):
        first = children[1]
        raise CompileError(f"variable '{first.name.value}' cannot be declared at file scope; "
                           "use a macro or 'const tunable'", self.at(first.name))

    # -- types and attributes ---------------------------------------------------------------------

    def type_spec(self, meta, children):
        words = [w.value for w in children if w.value != "const"]
        spelling = " ".join(words)
        base = _canonical_type(words)
        if base is None:
            raise CompileError(f"invalid type '{spelling}'" if words else "missing type name", self.at(meta))
        return ast.TypeSpec(base, 0, None, is_const=len(words) != len(children), spelling=spelling,
                            loc=self.at(meta))

    def type_word(self, meta, children):
        return children[0]

    attr_flag_name = attr_arg_name = assign_op = func_qual = type_word

    def pointer(self, meta, children):
        restrict = next((t for t in children if t.type == "RESTRICT"), None)
        return _Pointer(sum(t.type == "STAR" for t in children), restrict)

    def tile_dims(self, meta, children):
        text = " ".join(self.pre.text[meta.start_pos + 1:meta.end_pos - 1].split())
        return _Dims(children[1:], children[0], text)

    def type_name(self, meta, children):
        type_spec = children[0]
        pointer = next((c for c in children if isinstance(c, _Pointer)), None)
        return self._full_type(type_spec, pointer, [c for c in children if isinstance(c, _Dims)])

    def _full_type(self, base: ast.TypeSpec, pointer: _Pointer | None, dims: list[_Dims],
                   name: str = "") -> ast.TypeSpec:
        if len(dims) > 1:
            # the hint names the dimensions: 'float x[16][8]' -> write 'float x[16, 8]'
            head = base.spelling + (" " + "*" * pointer.depth if pointer else "")
            head += (" " if name and not pointer else "") + name
            nested = head + "".join(f"[{d.text}]" for d in dims)
            tile = head + "[" + ", ".join(d.text for d in dims) + "]"
            raise CompileError(f"C arrays of arrays are not tiles: write '{tile}' instead of '{nested}'",
                               self.at(dims[1].lsqb))
        return ast.TypeSpec(base.base, pointer.depth if pointer else 0,
                            dims[0].exprs if dims else None, is_const=base.is_const,
                            spelling=base.spelling, loc=base.loc)

    def attr_flag(self, meta, children):
        tok = children[0]
        return [ast.Attribute(_ATTRIBUTE_NAMES[tok.value], None, tok.value, loc=self.at(tok))]

    def attr_arg(self, meta, children):
        tok, arg = children
        return [ast.Attribute(_ATTRIBUTE_NAMES[tok.value], arg, tok.value, loc=self.at(tok))]

    def attr_gnu(self, meta, children):
        return list(children)

    def gnu_attr(self, meta, children):
        name, arg = children
        canonical = _ATTRIBUTE_NAMES.get(name.value)
        if canonical is None or name.value.startswith("__"):
            raise CompileError(f"unknown attribute '{name.value}'", self.at(name))
        if (canonical in _ATTRIBUTES_WITH_ARG) != (arg is not None):
            need = "needs an argument" if arg is None else "takes no argument"
            raise CompileError(f"attribute '{name.value}' {need}", self.at(name))
        return ast.Attribute(canonical, arg, name.value, loc=self.at(name))

    # -- statements -----------------------------------------------------------------------------

    def compound(self, meta, children):
        return ast.Compound(list(children), loc=self.at(meta))

    def declaration(self, meta, children):
        type_spec, *declarators = children
        out = []
        for d in declarators:
            attributes = d.attributes
            if d.pointer is not None and d.pointer.restrict is not None:
                attributes.insert(0, ast.Attribute("noalias", None, "restrict", loc=self.at(d.pointer.restrict)))
            out.append(ast.Declarator(self.name(d.name), self._full_type(type_spec, d.pointer, d.dims, d.name.value),
                                      attributes, d.init, loc=self.at(d.name)))
        return ast.Decl(out, loc=self.at(meta))

    def init_declarator(self, meta, children):
        pointer = next((c for c in children if isinstance(c, _Pointer)), None)
        name = next(c for c in children if isinstance(c, Token) and c.type == "NAME")
        dims = [c for c in children if isinstance(c, _Dims)]
        return _Declarator(pointer, name, dims, _flatten_attrs(children), children[-1])

    def empty_stmt(self, meta, children):
        return ast.EmptyStmt(loc=self.at(meta))

    def expr_stmt(self, meta, children):
        return ast.ExprStmt(children[0], loc=self.at(meta))

    def if_stmt(self, meta, children):
        cond, then, otherwise = children
        return ast.If(cond, then, otherwise, loc=self.at(meta))

    def for_stmt(self, meta, children):
        init, cond, step, body = children
        return ast.For(init, cond, step, body, loc=self.at(meta))

    def for_init(self, meta, children):
        return children[0] if children else None

    def while_stmt(self, meta, children):
        return ast.While(children[0], children[1], loc=self.at(meta))

    def do_stmt(self, meta, children):
        return ast.DoWhile(children[0], children[1], loc=self.at(meta))

    def break_stmt(self, meta, children):
        return ast.Break(loc=self.at(meta))

    def continue_stmt(self, meta, children):
        return ast.Continue(loc=self.at(meta))

    def return_stmt(self, meta, children):
        return ast.Return(children[0], loc=self.at(meta))

    def predicated_stmt(self, meta, children):
        at, mask, stmt = children
        return ast.Predicated(mask, stmt, loc=self.at(at))

    # -- expressions ----------------------------------------------------------------------------

    def comma_expr(self, meta, children):
        return ast.Comma(list(children), loc=children[0].loc)

    def assign(self, meta, children):
        target, op, value = children
        return ast.Assign(op.value, target, value, loc=self.at(op))

    def conditional(self, meta, children):
        cond, qmark, then, _colon, otherwise = children
        return ast.Conditional(cond, then, otherwise, loc=self.at(qmark))

    def binary(self, meta, children):
        lhs, op, rhs = children
        return ast.Binary(op.value, lhs, rhs, loc=self.at(op))

    def matmul(self, meta, children):
        lhs, op, rhs = children
        return ast.MatMul(lhs, rhs, loc=self.at(op))

    def range(self, meta, children):
        lo, op, hi = children
        return ast.Range(lo, hi, loc=self.at(op))

    def cast(self, meta, children):
        return ast.Cast(children[0], children[1], loc=self.at(meta))

    def unary(self, meta, children):
        op, operand = children
        return ast.Unary(op.value, operand, loc=self.at(op))

    pre_incdec = unary

    def masked_deref(self, meta, children):
        star, _qmark, mask, pointer = children
        return ast.MaskedDeref(mask, pointer, loc=self.at(star))

    def post_incdec(self, meta, children):
        operand, op = children
        return ast.Postfix(op.value, operand, loc=self.at(op))

    def subscript(self, meta, children):
        base, lsqb, *entries = children
        return ast.Subscript(base, entries, loc=self.at(lsqb))

    def sub_keep(self, meta, children):
        return ast.SubscriptEntry("keep", loc=self.at(children[0]))

    def sub_plus(self, meta, children):
        return ast.SubscriptEntry("reduce", reduce_op="+", loc=self.at(children[0]))

    def sub_expr(self, meta, children):
        expr = children[0]
        if isinstance(expr, ast.Identifier) and expr.name == "newaxis":
            return ast.SubscriptEntry("newaxis", loc=expr.loc)
        if isinstance(expr, ast.Identifier) and expr.name in ("max", "min"):
            return ast.SubscriptEntry("reduce", reduce_op=expr.name, loc=expr.loc)
        if isinstance(expr, ast.Unary) and expr.op == "^":
            if isinstance(expr.operand, ast.IntLiteral):
                return ast.SubscriptEntry("permute", axis=expr.operand.value, loc=expr.loc)
            raise CompileError("a permutation entry must be '^' followed by an integer literal",
                               expr.operand.loc)
        raise CompileError("a subscript reshapes, broadcasts, reduces or permutes a tile and never "
                           "indexes it: each entry must be ':', 'newaxis', '+', 'max', 'min' or '^k'",
                           expr.loc)

    def identifier(self, meta, children):
        name = children[0]
        if name.value in RESERVED:
            raise CompileError(f"expected expression before '{name.value}'", self.at(name))
        return ast.Identifier(name.value, loc=self.at(name))

    def bool_literal(self, meta, children):
        return ast.BoolLiteral(children[0].value == "true", loc=self.at(children[0]))

    def int_literal(self, meta, children):
        tok = children[0]
        value, suffix = _parse_int(tok.value, self.at(tok))
        return ast.IntLiteral(value, suffix, tok.value, loc=self.at(tok))

    def float_literal(self, meta, children):
        tok = children[0]
        text = tok.value
        if text[-1] in "lL":
            raise CompileError(f"'long double' literals are not supported: '{text}'", self.at(tok))
        is_float = text[-1] in "fF"
        return ast.FloatLiteral(float(text.rstrip("fF")), is_float, text, loc=self.at(tok))

    def call(self, meta, children):
        name, *args = children
        canonical = ast.CALL_ALIASES.get(name.value, name.value)
        if _ATOMIC_ADD_ALIAS.fullmatch(name.value):
            canonical = "atomic_add"
        return ast.Call(canonical, args, name.value, loc=self.at(name))

    def bitcast(self, meta, children):
        _less, type_name, _greater, operand = children
        return ast.Bitcast(type_name, operand, loc=self.at(meta))

    def get_global_range(self, meta, children):
        return ast.GetGlobalRange(children[0], children[1], loc=self.at(meta))


def _canonical_type(words: list[str]) -> str | None:
    """Canonical scalar name of a list of type words (``['unsigned', 'long']`` ->
    ``'unsigned long'``), or ``None`` when the combination is invalid."""
    if len(words) == 1 and words[0] in _SINGLE_TYPES:
        return _SINGLE_TYPES[words[0]]
    counts = {w: words.count(w) for w in words}
    allowed = {"signed", "unsigned", "char", "short", "int", "long"}
    if not words or set(counts) - allowed or counts.get("int", 0) > 1 or counts.get("long", 0) > 2:
        return None
    if ("signed" in counts) + ("unsigned" in counts) > 1 or any(counts[w] > 1 for w in counts if w != "long"):
        return None
    sizes = [w for w in ("char", "short", "long") if w in counts]
    if len(sizes) > 1 or ("char" in counts and "int" in counts):
        return None
    base = sizes[0] if sizes else "int"
    return f"unsigned {base}" if "unsigned" in counts else base


def _parse_int(text: str, loc: SourceLoc) -> tuple[int, str]:
    """Value and normalised suffix (``'' 'u' 'l' 'ul' 'll' 'ull'``) of a C integer literal."""
    digits = text.rstrip("uUlL")
    raw = text[len(digits):]
    if not _INT_SUFFIX.fullmatch(raw):
        raise CompileError(f"invalid suffix '{raw}' on integer constant", loc)
    suffix = ("u" if "u" in raw.lower() else "") + "l" * raw.lower().count("l")
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16), suffix
    if len(digits) > 1 and digits[0] == "0":
        bad = next((c for c in digits if c in "89"), None)
        if bad is not None:
            raise CompileError(f"invalid digit '{bad}' in octal constant", loc)
        return int(digits, 8), suffix
    return int(digits), suffix
