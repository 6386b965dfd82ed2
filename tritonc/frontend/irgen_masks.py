"""Masks for the branches of a tile ``?:``: the *demand* machinery of expression lowering.

A branch of ``c ? a : b`` with a tile condition is lowered under a demand (see
:attr:`DemandLowering.demand`): the lanes it is selected in. Every memory access lowered under
a demand is masked by it, and the demand follows each operand back through the operations
that move lanes (broadcasts, reductions, ``@``, transposes, reshapes); the module docstring of
``irgen_expr.py`` states the rules. :class:`DemandLowering` is a mixin of
:class:`~tritonc.frontend.irgen_expr.ExprLowering`, which provides ``emit``, ``b`` and the rest.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from tritonc.frontend import ast
from tritonc.frontend.ctype import BOOL, CType
from tritonc.frontend.sema_info import is_pure_builtin_call
from tritonc.ir.core import Value
from tritonc.ir.types import I1, TileType, shape_of


def shape_of_value(v: Value) -> tuple[int, ...]:
    """The shape of ``v``'s type (``()`` for a scalar)."""
    return shape_of(v.type)


def _accesses_memory(n: ast.Node) -> bool:
    """Whether node ``n`` itself (not its operands) loads, stores or assigns: what makes
    ``has_loads`` or ``has_effects`` true."""
    if isinstance(n, (ast.MaskedDeref, ast.Assign, ast.Postfix)):
        return True
    if isinstance(n, ast.Unary):
        return n.op in ("*", "++", "--")
    return isinstance(n, ast.Call) and not is_pure_builtin_call(n)


class DemandLowering:
    """The demand of the expression being lowered and the operations that build and move it."""

    #: Inside a branch of a tile ``?:``: an ``i1`` value (scalar or tile) that is true in the lanes
    #: of the expression being lowered whose value is needed; it broadcasts (NumPy rules) to that
    #: expression's shape. ``None``: every lane is needed (outside tile ``?:`` branches).
    demand: Value | None = None

    # -- demand: the lanes a branch of a tile ?: is selected in -----------------------------------
    def touches_memory(self, e: ast.Node) -> bool:
        """Whether lowering ``e`` may access memory or assign (what a demand masks): ``has_loads``
        or ``has_effects``, cached for every node of the subtree (one pass, no recursion)."""
        cache = self.__dict__.setdefault("_touches_memory", {})
        stack = [(e, False)]
        while stack:
            n, children_done = stack.pop()
            if id(n) in cache:
                continue
            if children_done:
                cache[id(n)] = _accesses_memory(n) or any(cache[id(c)] for c in n.children())
            else:
                stack.append((n, True))
                stack.extend((c, False) for c in n.children())
        return cache[id(e)]

    @contextmanager
    def demanding(self, d: Value | None) -> Iterator[None]:
        """Lower under demand ``d`` (``None``: every lane is needed)."""
        saved, self.demand = self.demand, d
        try:
            yield
        finally:
            self.demand = saved

    @contextmanager
    def demand_for(self, operand: ast.Expr, fn: Callable[[Value], Value]) -> Iterator[None]:
        """Lower ``operand`` of an operation that moves lanes: its demand is ``fn(demand)``, built
        only when there is a demand and ``operand`` accesses memory."""
        d = self.demand
        with self.demanding(fn(d) if d is not None and self.touches_memory(operand) else None):
            yield

    def demand_mask(self, shape: tuple[int, ...], mask: Value | None = None) -> Value | None:
        """``mask`` (``i1`` of ``shape``, or ``None``) AND the demand broadcast to ``shape``."""
        if self.demand is None:
            return mask
        d = self.full_demand(self.demand, shape)
        return d if mask is None else self.emit("arith.andi", [mask, d], mask.type)

    def full_demand(self, d: Value, shape: tuple[int, ...]) -> Value:
        shape = tuple(shape)
        return self.b.broadcast_to(self.fit_demand(d, shape), shape)

    def any_lane(self, v: Value, axis: int) -> Value:
        """OR of the ``i1`` tile ``v`` along ``axis`` (a rank-1 tile gives a scalar)."""
        shape = list(shape_of_value(v))
        del shape[axis]
        return self.emit("tt.reduce", [v], BOOL.with_shape(tuple(shape)).ir(), axis=axis, combine="ori")

    def fit_demand(self, d: Value, shape: tuple[int, ...]) -> Value:
        """The demand of an operand of ``shape`` that broadcasts into an element-wise result whose
        demand is ``d``: an operand lane is needed where any result lane it is copied to is (OR
        over the broadcast axes). An operand with no lane-wise relation to ``d`` (a scalar, an
        incompatible shape) is needed where any lane is. The result broadcasts to ``shape``."""
        ds, shape = shape_of_value(d), tuple(shape)
        if ds == shape:
            return d
        n = max(len(ds), len(shape))
        pd, ps = (1,) * (n - len(ds)) + ds, (1,) * (n - len(shape)) + shape
        related = bool(shape) and all(a == b or 1 in (a, b) for a, b in zip(pd, ps))
        lead, off = n - len(shape), n - len(ds)
        # keep the axes of d that the operand has with the same size (or where d is 1)
        keep = [related and i + off >= lead and (ds[i] == 1 or ps[i + off] == ds[i]) for i in range(len(ds))]
        for i in reversed(range(len(ds))):
            if not keep[i]:
                d = self.any_lane(d, i)
        if not related:
            return d
        at = 0  # re-insert the reduced axes that the operand has (size 1 there)
        for i in range(len(ds)):
            if i + off < lead:
                continue
            if not keep[i]:
                d = self.emit("tt.expand_dims", [d], TileType(I1, shape_of_value(d)[:at] + (1,) + shape_of_value(d)[at:]),
                              axis=at) if shape_of_value(d) else self.b.splat(d, (1,))
            at += 1
        return d

    def moved_demand(self, d: Value, result: tuple[int, ...], operand: tuple[int, ...]) -> Value:
        """The demand of the operand (of shape ``operand``) of a reshape to ``result``."""
        d = self.full_demand(d, result)
        if not operand:
            return self.fit_demand(d, ())
        return self.emit("tt.reshape", [d], TileType(I1, tuple(operand)))

    def permuted_demand(self, d: Value, result: tuple[int, ...], order) -> Value:
        """The demand of the operand of a transpose ``order`` (``result[i] = operand[order[i]]``)."""
        d = self.full_demand(d, result)
        inverse = [0] * len(order)
        for i, k in enumerate(order):
            inverse[k] = i
        shape = tuple(result[i] for i in inverse)
        return self.emit("tt.trans", [d], TileType(I1, shape), order=inverse)

    def reduced_demand(self, d: Value, result: tuple[int, ...], axes, operand: tuple[int, ...]) -> Value:
        """The demand of the operand (of shape ``operand``) of a reduction of ``axes`` (ascending)
        to ``result``: each operand lane is needed where its reduced lane is."""
        d = self.full_demand(d, result)
        for axis in axes:
            shape = shape_of_value(d)
            d = self.emit("tt.expand_dims", [d], TileType(I1, shape[:axis] + (1,) + shape[axis:]), axis=axis) \
                if shape else self.b.splat(d, (1,))
        return self.b.broadcast_to(d, tuple(operand))

    def plan_demand(self, d: Value, t: CType, plan: dict, result: tuple[int, ...]) -> Value:
        """The demand of the operand (of type ``t``) of subscript ``plan`` (see :meth:`apply_plan`)."""
        d = self.full_demand(d, result)
        shape = tuple(s for i, s in enumerate(result) if i not in plan["newaxis"])
        if shape != tuple(result):
            d = self.moved_demand(d, tuple(result), shape)
        permuted = tuple(t.shape[k] for k in plan["perm"]) if plan["perm"] else tuple(t.shape)
        if plan["reduce"]:
            d = self.reduced_demand(d, shape, sorted(axis for axis, _ in plan["reduce"]), permuted)
        if plan["perm"]:
            d = self.permuted_demand(d, permuted, plan["perm"])
        return d
