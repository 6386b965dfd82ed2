"""The results of semantic analysis: symbols, per-expression facts, functions.

These plain data classes are what :mod:`tritonc.frontend.sema` produces and
:mod:`tritonc.frontend.irgen` consumes. Facts about AST nodes are kept in dicts keyed by
``id(node)`` (AST nodes are mutable dataclasses, not hashable); the AST outlives the result,
so the ids stay valid. The helpers :func:`has_effects` and :func:`has_loads` classify
expressions for short-circuit and ``?:`` lowering; :func:`is_deref` recognises loads.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from tritonc.diagnostics import SourceLoc
from tritonc.frontend import ast
from tritonc.frontend.ctype import CType

_uids = itertools.count()


@dataclass(eq=False)
class Symbol:
    """A declared name: a local variable, parameter, tunable, or (in irgen) a control flag.

    ``const`` is the compile-time value of tunables and of ``const`` scalars initialised with
    a constant; ``multipleof`` is a local's or parameter's ``__multipleof(n)``."""

    name: str
    type: CType
    kind: str  # 'var' | 'param' | 'tunable' | 'flag'
    loc: SourceLoc | None = None
    is_const: bool = False
    const: int | float | None = None
    multipleof: int | None = None
    uid: int = field(default_factory=lambda: next(_uids))


@dataclass(eq=False)
class ExprInfo:
    """What sema knows about one expression.

    Attributes:
        type: its C type (``VOID`` for calls of functions without a result).
        const: its value when it is a scalar compile-time constant (ints as mathematical values
            of the C type, floats already rounded to the type).
        symbol: the declaration an :class:`ast.Identifier` (or assigned name) refers to.
        op_type: the element type the operation computes in (usual arithmetic conversions).
        kind: a refinement irgen dispatches on (``'ptr+int'``, ``'masked_then'``, built-in name...).
        detail: kind-specific data (subscript plan, permutation, matmul types...).
    """

    type: CType
    const: int | float | None = None
    symbol: Symbol | None = None
    op_type: CType | None = None
    kind: str | None = None
    detail: Any = None


@dataclass(eq=False)
class FuncInfo:
    """A function: ``kind`` is ``'kernel'`` or ``'device'``; ``result`` is ``VOID`` for none.

    An element-wise instance of a device function (a call with tile arguments, see
    ``CallChecker.elementwise_instance``) names the function it instantiates in
    ``elementwise_of`` and the first call that made it in ``call_loc``; ``node`` is a copy of
    that function's definition. In an instance, a local declared as a scalar that is given a
    tile (its initialiser, or a later assignment) is a tile: ``promoted`` maps the declarator
    (``id``) to that tile's shape, one value per element as the element-wise reading wants."""

    name: str
    node: ast.FunctionDef
    kind: str
    params: list[Symbol]
    result: CType
    arg_attrs: list[dict[str, Any]]
    elementwise_of: str | None = None
    call_loc: SourceLoc | None = None
    promoted: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: An instance's broadcast shape; ``masked_return``: a ``return`` under an ``if`` whose
    #: condition is a tile (the instance's return flag is then a tile of ``ew_shape``).
    ew_shape: tuple[int, ...] = ()
    masked_return: bool = False


@dataclass
class SemaResult:
    """The typed view of a translation unit that irgen consumes (all maps keyed by ``id(node)``)."""

    tu: ast.TranslationUnit
    functions: list[FuncInfo]
    exprs: dict[int, ExprInfo] = field(default_factory=dict)
    decls: dict[int, Symbol] = field(default_factory=dict)
    stmts: dict[int, Any] = field(default_factory=dict)
    tunable_values: dict[str, int] = field(default_factory=dict)

    def info(self, node: ast.Expr) -> ExprInfo:
        return self.exprs[id(node)]

    def function(self, name: str) -> FuncInfo | None:
        return next((f for f in self.functions if f.name == name), None)


#: Built-in calls without side effects (everything else, atomics, barriers and calls of
#: device functions, may write memory).
PURE_BUILTINS = frozenset(
    "get_program_id get_num_programs min max exp exp2 log log2 sqrt sqrtf rsqrt sin cos abs fabs floor ceil "
    "fma select dot trans __sum __reshape rand randn randint".split())


def is_pure_builtin_call(n: ast.Node) -> bool:
    """Whether ``n`` is a call of a side-effect-free built-in (not of a user's function that
    takes a built-in's name, see ``ast.Call.user``)."""
    return isinstance(n, ast.Call) and not n.user and n.name in PURE_BUILTINS


def has_effects(e: ast.Node) -> bool:
    """Whether evaluating ``e`` may write a variable or memory (assignments, ``++``/``--``,
    atomics, barriers, device function calls)."""
    for n in e.walk():
        if isinstance(n, (ast.Assign, ast.Postfix)):
            return True
        if isinstance(n, ast.Unary) and n.op in ("++", "--"):
            return True
        if isinstance(n, ast.Call) and not is_pure_builtin_call(n):
            return True
    return False


def is_deref(e: ast.Expr) -> bool:
    """Whether ``e`` is a load: ``*p`` or ``*?(m) p``."""
    return isinstance(e, ast.MaskedDeref) or (isinstance(e, ast.Unary) and e.op == "*")


def has_loads(e: ast.Node) -> bool:
    """Whether evaluating ``e`` reads memory (``*p``, ``*?(m) p``)."""
    return any(isinstance(n, ast.MaskedDeref) or (isinstance(n, ast.Unary) and n.op == "*") for n in e.walk())
