"""The Triton-C abstract syntax tree: what the parser produces and sema consumes.

Every node is a dataclass with a ``loc`` (a :class:`~tritonc.diagnostics.SourceLoc` in the
user's real file, after mapping back through the preprocessor; a token made by a macro carries
the location of the macro's invocation). ``loc`` is the position of the node's first token,
with two exceptions, both chosen so that errors point where clang would:

* operators that combine operands (:class:`Binary`, :class:`MatMul`, :class:`Range`,
  :class:`Assign`, :class:`Conditional`) and the postfix forms (:class:`Postfix`,
  :class:`Subscript`) carry the position of their **operator token** (``+``, ``@``, ``...``,
  ``+=``, ``?``, ``++``, ``[``): "invalid operands to '+'" is most useful at the ``+``. Each
  operand has its own ``loc`` for errors about the operand itself. (:class:`Comma` uses its
  first operand's position; :class:`Call` its name's; :class:`MaskedDeref` its ``*``.)
* named declarations (:class:`Declarator`, :class:`Param`, :class:`FunctionDef`,
  :class:`TunableDecl`) carry the position of the declared **name**; their
  :class:`TypeSpec` has its own ``loc`` at the first type word.

Names are not resolved here and nothing is typed: the parser only builds the tree. Type
names are canonicalised (``int32`` -> ``int``, ``fp16`` -> ``half``, ``uint`` ->
``unsigned int``); the spelling the user wrote is kept in :attr:`TypeSpec.spelling`.

The node list (fields beyond ``loc``)::

    TranslationUnit  decls: list[FunctionDef | TunableDecl]
    FunctionDef      name, return_type: TypeSpec, params: list[Param], body: Compound,
                     is_global, is_device, kernel_keyword ('__global__' | 'kernel' | None)
    Param            name, type: TypeSpec, attributes: list[Attribute]
    TunableDecl      name, type: TypeSpec, candidates: list[Expr], override: str | None
    TypeSpec         base, pointer_depth, shape: list[Expr] | None, is_const, spelling
    Attribute        name ('noalias' 'readonly' 'writeonly' 'aligned' 'multipleof' 'retune'),
                     arg: Expr | None, spelling
    statements       Compound(items) Decl(declarators) Declarator(name, type, attributes, init)
                     ExprStmt(expr) EmptyStmt If(cond, then, otherwise) For(init, cond, step, body)
                     While(cond, body) DoWhile(body, cond) Break Continue Return(value)
                     Predicated(mask, stmt)
    expressions      Identifier(name) IntLiteral(value, suffix, text) FloatLiteral(value,
                     is_float, text) BoolLiteral(value) Unary(op, operand) Postfix(op, operand)
                     MaskedDeref(mask, pointer) Binary(op, lhs, rhs) Range(lo, hi)
                     MatMul(lhs, rhs) Conditional(cond, then, otherwise) Assign(op, target, value)
                     Comma(exprs) Call(name, args, spelling) Subscript(base, entries) Cast(type, operand)
                     Bitcast(type, operand) GetGlobalRange(size, axis)
    SubscriptEntry   kind ('keep' 'newaxis' 'reduce' 'permute'), reduce_op, axis

:func:`dump` prints any node as a compact s-expression (tests, ``--emit=ast``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from typing import Iterator

from tritonc.diagnostics import SourceLoc

#: Canonical scalar type names a :class:`TypeSpec` may carry in ``base``.
SCALAR_TYPES = (
    "void", "bool",
    "char", "short", "int", "long",
    "unsigned char", "unsigned short", "unsigned int", "unsigned long",
    "half", "bfloat16", "float", "double",
)

#: Canonical parameter/local attribute names (``Attribute.name``).
ATTRIBUTES = ("noalias", "readonly", "writeonly", "aligned", "multipleof", "retune")

#: Built-in functions that are pure renames of another (paper-era and prelude spellings).
#: The parser stores the canonical name in :attr:`Call.name`. Names matching
#: ``atomic_add_(float|half)_<M>x<N>`` (also ``_1x1``) map to ``atomic_add`` too.
CALL_ALIASES = {
    "get_range_id": "get_program_id",
    "get_num_program": "get_num_programs",
    "__atomic_cas": "atomic_cas",
    "__atomic_exch": "atomic_xchg",
    "__atomic_exchg": "atomic_xchg",
    "__atomic_add": "atomic_add",
    "f32_atomic_add": "atomic_add",
}


@dataclass
class Node:
    """Base of every AST node. ``loc`` is keyword-only so subclasses list their own fields first."""

    loc: SourceLoc = field(kw_only=True, compare=False, repr=False)

    def children(self) -> Iterator["Node"]:
        """Yield the direct child nodes, in field order (lists are flattened, ``None`` skipped)."""
        for name in _child_fields(type(self)):
            value = getattr(self, name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, list):
                yield from (v for v in value if isinstance(v, Node))

    def walk(self) -> Iterator["Node"]:
        """Yield this node and all its descendants, pre-order (with an explicit stack: the
        sema, irgen and cost-model walks over every expression are cheaper without a
        generator per level, and deep nesting needs no recursion)."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(list(node.children())))


@functools.cache
def _child_fields(cls: type) -> tuple[str, ...]:
    """The fields of node class ``cls`` that :meth:`Node.children` reads (all but ``loc``)."""
    return tuple(f.name for f in fields(cls) if f.name != "loc")


class Expr(Node):
    """Base of expression nodes."""


class Stmt(Node):
    """Base of statement nodes."""


# ---------------------------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------------------------

@dataclass
class TypeSpec(Node):
    """A type as written: scalar ``base`` (one of :data:`SCALAR_TYPES`), ``pointer_depth`` stars,
    and an optional tile ``shape`` (``float[TN]`` in a cast, or a declarator's ``[TM, TK]``).

    For ``half *pa[TM, TK]`` the declarator's type is ``TypeSpec('half', 1, [TM, TK])``: a tile
    of pointers. ``spelling`` is the base type as the user wrote it (``'int32'``, ``'fp16'``).
    """

    base: str
    pointer_depth: int = 0
    shape: list[Expr] | None = None
    is_const: bool = False
    spelling: str = ""

    @property
    def is_tile(self) -> bool:
        return self.shape is not None


@dataclass
class Attribute(Node):
    """A parameter or local attribute. ``name`` is canonical (:data:`ATTRIBUTES`); ``arg`` is the
    ``n`` of ``aligned(n)``/``multipleof(n)``. ``spelling`` is what was written (``'__aligned'``,
    ``'align'``, ``'restrict'``, ``'read_only'``, ...)."""

    name: str
    arg: Expr | None = None
    spelling: str = ""


# ---------------------------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------------------------

@dataclass
class Identifier(Expr):
    name: str


@dataclass
class IntLiteral(Expr):
    """An integer literal with its exact ``value``. ``suffix`` is normalised to lower case with
    ``u`` first: one of ``'' 'u' 'l' 'ul' 'll' 'ull'``. ``text`` is the spelling."""

    value: int
    suffix: str = ""
    text: str = ""

    @property
    def is_unsigned(self) -> bool:
        return "u" in self.suffix

    @property
    def is_long(self) -> bool:
        return "l" in self.suffix

    @property
    def is_decimal(self) -> bool:
        """C picks the type of an unsuffixed literal differently for decimal and hex/octal."""
        return not (self.text.lower().startswith("0x") or (len(self.text) > 1 and self.text[0] == "0"
                                                             and self.text[1].isdigit()))


@dataclass
class FloatLiteral(Expr):
    """A floating literal: ``is_float`` for an ``f``/``F`` suffix (type ``float``), else ``double``."""

    value: float
    is_float: bool = False
    text: str = ""


@dataclass
class BoolLiteral(Expr):
    """``true`` or ``false`` (prelude names, of type ``bool``)."""

    value: bool


@dataclass
class Unary(Expr):
    """Prefix operator: ``op`` in ``'-' '+' '!' '~' '^'`` (transpose) ``'*'`` (load/deref),
    ``'++'``, ``'--'`` (pre-increment/decrement)."""

    op: str
    operand: Expr


@dataclass
class Postfix(Expr):
    """``operand++`` / ``operand--``; ``loc`` is the operator's."""

    op: str
    operand: Expr


@dataclass
class MaskedDeref(Expr):
    """``*?(mask) pointer``: a masked load, or a masked store when assigned to."""

    mask: Expr
    pointer: Expr


@dataclass
class Binary(Expr):
    """``lhs op rhs`` for the C binary operators ``* / % + - << >> < <= > >= == != & ^ | && ||``."""

    op: str
    lhs: Expr
    rhs: Expr


@dataclass
class Range(Expr):
    """``lo ... hi``: the ``int[hi-lo]`` tile ``lo, lo+1, ..., hi-1``."""

    lo: Expr
    hi: Expr


@dataclass
class MatMul(Expr):
    """``lhs @ rhs``: matrix product (also ``dot(a, b)`` in the paper spelling, left as a Call)."""

    lhs: Expr
    rhs: Expr


@dataclass
class Conditional(Expr):
    """``cond ? then : otherwise``; ``loc`` is the ``?``."""

    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass
class Assign(Expr):
    """``target op value`` with ``op`` in ``= += -= *= /= %= <<= >>= &= ^= |=``."""

    op: str
    target: Expr
    value: Expr


@dataclass
class Comma(Expr):
    """``e0, e1, ...`` (two or more); the value is the last one's."""

    exprs: list[Expr]


@dataclass
class Call(Expr):
    """A call of a built-in or ``__device__`` function by ``name`` (there are no function
    pointers); ``loc`` is the name's. Pure renames of built-ins are resolved by the parser
    (:data:`CALL_ALIASES`, ``atomic_add_<float|half>_<M>x<N>`` -> ``atomic_add``): ``name`` is
    the canonical built-in and ``spelling`` what the user wrote (``== name`` when no alias).

    ``user`` is true when the file defines a function of that spelling: the user's definition
    wins over a built-in of the same name (spec section 2: the 2020-2021 corpus names its
    matmul kernel ``dot``), and ``name`` is then the spelling."""

    name: str
    args: list[Expr]
    spelling: str = ""
    user: bool = False


@dataclass
class SubscriptEntry(Node):
    """One entry of a subscript: ``kind`` is ``'keep'`` (``:``), ``'newaxis'``, ``'reduce'``
    (``reduce_op`` is ``'+'``, ``'max'`` or ``'min'``) or ``'permute'`` (``^axis``)."""

    kind: str
    reduce_op: str | None = None
    axis: int | None = None


@dataclass
class Subscript(Expr):
    """``base[entries]``: reshape/broadcast/reduce/permute, never indexing; ``loc`` is the ``[``."""

    base: Expr
    entries: list[SubscriptEntry]


@dataclass
class Cast(Expr):
    """``(type) operand``; ``type.shape`` is set for tile casts such as ``(float[TN]) x``."""

    type: TypeSpec
    operand: Expr


@dataclass
class Bitcast(Expr):
    """``bitcast<type>(operand)``: reinterpret bits of equal width element by element."""

    type: TypeSpec
    operand: Expr


@dataclass
class GetGlobalRange(Expr):
    """Paper spelling ``get_global_range[size](axis)`` = ``get_program_id(axis)*size + (0 ... size)``."""

    size: Expr
    axis: Expr


# ---------------------------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------------------------

@dataclass
class Declarator(Node):
    """One declared name of a :class:`Decl`: its full ``type`` (base, pointer depth and tile
    shape, e.g. ``half *pa[TM, TK]``), attributes such as ``__multipleof(8)``, and initializer."""

    name: str
    type: TypeSpec
    attributes: list[Attribute] = field(default_factory=list)
    init: Expr | None = None


@dataclass
class Decl(Stmt):
    """A local declaration ``int a = 0, *p[4];`` (also the init clause of a ``for``)."""

    declarators: list[Declarator]


@dataclass
class Compound(Stmt):
    """``{ items }``: a block, which opens a new scope."""

    items: list[Stmt]


@dataclass
class ExprStmt(Stmt):
    expr: Expr


@dataclass
class EmptyStmt(Stmt):
    """A lone ``;``."""


@dataclass
class If(Stmt):
    cond: Expr
    then: Stmt
    otherwise: Stmt | None = None


@dataclass
class For(Stmt):
    """``for (init; cond; step) body``; each header part may be absent (``None``)."""

    init: Decl | Expr | None
    cond: Expr | None
    step: Expr | None
    body: Stmt


@dataclass
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass
class DoWhile(Stmt):
    body: Stmt
    cond: Expr


@dataclass
class Break(Stmt):
    pass


@dataclass
class Continue(Stmt):
    pass


@dataclass
class Return(Stmt):
    value: Expr | None = None


@dataclass
class Predicated(Stmt):
    """Paper spelling ``@mask stmt;``: run ``stmt`` under ``mask`` (masked stores/loads)."""

    mask: Expr
    stmt: Stmt


# ---------------------------------------------------------------------------------------------
# Top level
# ---------------------------------------------------------------------------------------------

@dataclass
class Param(Node):
    """A function parameter: ``half *A __noalias __aligned(16)``, ``float x[N]``.
    ``type.shape`` is the tile shape of a tile parameter (``None`` for scalars/pointers)."""

    name: str
    type: TypeSpec
    attributes: list[Attribute] = field(default_factory=list)

    @property
    def shape(self) -> list[Expr] | None:
        return self.type.shape


@dataclass
class FunctionDef(Node):
    """A function. ``is_global`` is true when ``__global__`` or ``kernel`` was written (a ``void``
    function is a kernel either way: sema decides); ``is_device`` when ``__device__`` was.
    ``return_type.shape`` is set for tile-returning device functions (``__device__ float[N] f``)."""

    name: str
    return_type: TypeSpec
    params: list[Param]
    body: Compound
    is_global: bool = False
    is_device: bool = False
    kernel_keyword: str | None = None
    #: ``__grid(e0[, e1[, e2]])``: the launch grid's expressions (spec section 4), else ``None``.
    grid: list[Expr] | None = None


@dataclass
class TunableDecl(Node):
    """``const tunable int TM = {64, 128};``: a meta-parameter and its candidate values
    (``candidates`` is empty for ``const tunable int TM;``).

    The declared name is never macro-expanded. When ``TM`` is also a macro (``-D TM=128``)
    every later use of ``TM`` was already replaced by the preprocessor and ``override`` holds
    the macro's text (``'128'``): the tunable is fixed, not tuned. Otherwise uses of ``TM`` are
    plain :class:`Identifier` nodes that sema binds to this declaration."""

    name: str
    type: TypeSpec
    candidates: list[Expr]
    override: str | None = None


@dataclass
class TranslationUnit(Node):
    """A whole preprocessed file: its functions and tunables in source order."""

    decls: list[FunctionDef | TunableDecl]

    @property
    def functions(self) -> list[FunctionDef]:
        return [d for d in self.decls if isinstance(d, FunctionDef)]

    @property
    def tunables(self) -> list[TunableDecl]:
        return [d for d in self.decls if isinstance(d, TunableDecl)]


# ---------------------------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------------------------

def dump(node: Node | list | None) -> str:
    """A compact, deterministic s-expression of ``node`` (for tests and ``--emit=ast``).

    Expressions print as ``(op operands...)``: ``pid * TM + 0 ... TM`` is
    ``(+ (* pid TM) (... 0 TM))``; literals print as written, identifiers by name, types as
    ``half*[TM,TK]``. Other nodes print as ``(ClassName field...)`` with ``None`` as ``_``.
    """
    if node is None:
        return "_"
    if isinstance(node, list):
        return "[" + " ".join(dump(n) for n in node) + "]"
    if not isinstance(node, Node):
        return str(node)
    match node:
        case Identifier(name=name):
            return name
        case IntLiteral(text=text, value=value):
            return text or str(value)
        case FloatLiteral(text=text, value=value):
            return text or repr(value)
        case BoolLiteral(value=value):
            return "true" if value else "false"
        case TypeSpec():
            shape = "" if node.shape is None else "[" + ",".join(dump(d) for d in node.shape) + "]"
            return ("const " if node.is_const else "") + node.base + "*" * node.pointer_depth + shape
        case Binary(op=op, lhs=lhs, rhs=rhs) | Assign(op=op, target=lhs, value=rhs):
            return f"({op} {dump(lhs)} {dump(rhs)})"
        case MatMul(lhs=lhs, rhs=rhs):
            return f"(@ {dump(lhs)} {dump(rhs)})"
        case Range(lo=lo, hi=hi):
            return f"(... {dump(lo)} {dump(hi)})"
        case Unary(op=op, operand=operand):
            return f"({op} {dump(operand)})"
        case Postfix(op=op, operand=operand):
            return f"(post{op} {dump(operand)})"
        case MaskedDeref(mask=mask, pointer=pointer):
            return f"(*? {dump(mask)} {dump(pointer)})"
        case Conditional(cond=c, then=a, otherwise=b):
            return f"(? {dump(c)} {dump(a)} {dump(b)})"
        case Comma(exprs=exprs):
            return "(, " + " ".join(dump(e) for e in exprs) + ")"
        case Call(name=name, args=args):
            return f"(call {name}" + "".join(" " + dump(a) for a in args) + ")"
        case Cast(type=t, operand=operand):
            return f"(cast {dump(t)} {dump(operand)})"
        case Bitcast(type=t, operand=operand):
            return f"(bitcast {dump(t)} {dump(operand)})"
        case GetGlobalRange(size=size, axis=axis):
            return f"(get_global_range {dump(size)} {dump(axis)})"
        case Subscript(base=base, entries=entries):
            return f"(subscript {dump(base)}" + "".join(" " + dump(e) for e in entries) + ")"
        case SubscriptEntry(kind=kind):
            return {"keep": ":", "newaxis": "newaxis", "reduce": str(node.reduce_op),
                    "permute": f"^{node.axis}"}[kind]
        case Attribute(name=name, arg=arg):
            return name if arg is None else f"{name}({dump(arg)})"
    parts = [type(node).__name__]
    for f in fields(node):
        if f.name != "loc":
            parts.append(dump(getattr(node, f.name)))
    return "(" + " ".join(parts) + ")"
