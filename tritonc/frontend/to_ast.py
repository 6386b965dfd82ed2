"""The Triton-C parse tree (lark's, from ``grammar/triton_c.lark``) as :mod:`tritonc.frontend.ast`
nodes: :class:`ToAst`, a non-recursive transformer, with each node's :class:`SourceLoc` in the
user's file through the preprocessor's position map. It canonicalises type names and
attributes, resolves the pure renames of built-ins, classifies subscript entries and rejects
the C declarators Triton-C does not have; :mod:`tritonc.frontend.parser` drives it.
"""
from __future__ import annotations

import re

from lark import Token, Transformer_NonRecursive, v_args

from tritonc.diagnostics import CompileError, SourceLoc
from tritonc.frontend import ast
from tritonc.frontend.preprocess import PreprocessedSource
from tritonc.frontend.syntax_errors import RESERVED

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

_ATOMIC_ADD_ALIAS = re.compile(r"atomic_add_(float|half)_\d+x\d+")
_INT_SUFFIX = re.compile(r"[uU]?(?:l|L|ll|LL)?|(?:l|L|ll|LL)[uU]")



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
class ToAst(Transformer_NonRecursive):
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
