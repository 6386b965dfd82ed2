"""Launch grids: ``__grid(e0[, e1[, e2]])`` (spec section 4) and ``--grid``, checked and lowered.

A grid expression may use the kernel's scalar integer parameters, tunables (replaced by the
value compiled), integer literals, ``cdiv(a, b)`` (``(a + b - 1) / b``), ``min``, ``max``, the
C operators ``+ - * / % << >> & | ^``, comparisons, ``&& || !``, unary ``- + ~`` and ``?:``.
Macros were expanded by the preprocessor before (a ``-D``-fixed tunable is a literal by then).

The result is a plain nested tuple per dimension, the form the launchers render
(``tritonc.launcher.grid``) and the metadata records:

* ``("int", value)``, ``("arg", parameter name)``;
* ``(op, a, b)`` for a binary C operator ``op`` and for ``"cdiv"``, ``"min"``, ``"max"``;
* ``("neg", a)``, ``("not", a)``, ``("inv", a)`` (``-a``, ``!a``, ``~a``), ``("?:", c, a, b)``.

Arithmetic is C's on 64-bit signed integers (division truncates toward zero).
"""
from __future__ import annotations

from ..diagnostics import CompileError
from ..ir.core import Function
from ..ir.types import ScalarType
from . import ast

#: Binary operators a grid expression may use (C's, on 64-bit integers).
BINARY_OPS = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||")

#: Functions a grid expression may call, each with two arguments.
GRID_FUNCTIONS = ("cdiv", "min", "max")

_UNARY = {"-": "neg", "!": "not", "~": "inv"}


def lower_grid(exprs: list[ast.Expr], kernel: Function, tunables: dict[str, int]) -> tuple:
    """The grid of ``kernel`` (its tt IR function, for the parameter names and types) as one
    nested tuple per dimension (see the module docstring).

    Raises:
        CompileError: more than 3 dimensions, or an expression that is not a grid expression
            (a pointer, float or bool parameter, an unknown name, another call or operator),
            located at the offending sub-expression.
    """
    if not 1 <= len(exprs) <= 3:
        raise CompileError(f"a grid has 1 to 3 dimensions, got {len(exprs)}", exprs[3].loc if exprs else None)
    params = {a.name: a.type for a in kernel.args}
    return tuple(_lower(e, kernel.name, params, tunables) for e in exprs)


def _lower(e: ast.Expr, kernel: str, params: dict, tunables: dict[str, int]) -> tuple:
    def rec(x: ast.Expr) -> tuple:
        return _lower(x, kernel, params, tunables)

    if isinstance(e, ast.IntLiteral):
        return ("int", int(e.value))
    if isinstance(e, ast.BoolLiteral):
        return ("int", int(e.value))
    if isinstance(e, ast.Identifier):
        if e.name in params:
            t = params[e.name]
            if not (isinstance(t, ScalarType) and t.is_int and t.bits > 1):
                what = ("a bool" if t == ScalarType("i1") else "floating-point" if isinstance(t, ScalarType)
                        else "a pointer")
                raise CompileError(f"grid expressions use integer parameters; '{e.name}' of kernel '{kernel}' "
                                   f"is {what}", e.loc)
            return ("arg", e.name)
        if e.name in tunables:
            return ("int", int(tunables[e.name]))
        raise CompileError(f"'{e.name}' in the grid is neither a parameter of kernel '{kernel}' nor a tunable",
                           e.loc)
    if isinstance(e, ast.Binary) and e.op in BINARY_OPS:
        return (e.op, rec(e.lhs), rec(e.rhs))
    if isinstance(e, ast.Unary) and e.op in ("-", "+", "!", "~"):
        inner = rec(e.operand)
        return inner if e.op == "+" else (_UNARY[e.op], inner)
    if isinstance(e, ast.Conditional):
        return ("?:", rec(e.cond), rec(e.then), rec(e.otherwise))
    if isinstance(e, ast.Call) and e.name in GRID_FUNCTIONS:
        if len(e.args) != 2:
            raise CompileError(f"'{e.name}' in a grid takes 2 arguments, got {len(e.args)}", e.loc)
        return (e.name, rec(e.args[0]), rec(e.args[1]))
    if isinstance(e, ast.Call):
        raise CompileError(f"'{e.spelling or e.name}' cannot be called in a grid (only "
                           f"{', '.join(GRID_FUNCTIONS)})", e.loc)
    raise CompileError("a grid expression uses integer parameters, tunables, integer literals, "
                       f"{', '.join(GRID_FUNCTIONS)} and C operators; this {_kind(e)} is not one of them", e.loc)


def _kind(e: ast.Expr) -> str:
    names = {ast.FloatLiteral: "floating-point literal", ast.Range: "range", ast.MatMul: "matrix product",
             ast.Assign: "assignment", ast.Comma: "comma expression", ast.Subscript: "subscript",
             ast.Cast: "cast", ast.Bitcast: "bitcast", ast.Postfix: "increment", ast.Unary: "operator",
             ast.Binary: "operator", ast.MaskedDeref: "dereference", ast.GetGlobalRange: "get_global_range"}
    return names.get(type(e), "expression")
