"""The greedy pattern-rewrite driver shared by ``canonicalize`` and later peephole passes.

A pattern is a :class:`RewritePattern` with ``match_and_rewrite(op, rewriter) -> bool``: it
looks at one op and, if it applies, changes the IR only through the :class:`PatternRewriter`
and returns True. :func:`apply_patterns_greedily` keeps a worklist of ops (first every op of
the module in program order, then every op a rewrite created, changed, or may have made
simplifiable: users of replaced values, definitions of dropped operands) and applies the
first matching pattern to each until the worklist is empty. Pure ops whose results are all
unused are erased on the way, as MLIR's greedy driver does.

Contract for patterns: leave the IR verifiable; never erase or move an op other than through
the rewriter; never match forever (a pattern that fires must make progress towards a
canonical form). The driver gives up with an internal error after ``max_rewrites``.

Source: MLIR ``GreedyPatternRewriteDriver``; xDSL ``pattern_rewriter.py``.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable

from ..diagnostics import InternalCompilerError
from ..ir.core import Block, Function, Module, Operation, Value
from ..ir.types import ScalarType, Type, element_type
from ..ir.folding import normalize_int


class RewritePattern:
    """One local rewrite. ``op_names``: the ops it can match (empty: any op)."""

    op_names: tuple[str, ...] = ()

    def match_and_rewrite(self, op: Operation, rewriter: "PatternRewriter") -> bool:
        raise NotImplementedError


class FunctionPattern(RewritePattern):
    """A pattern made from a plain function (see :func:`pattern`)."""

    def __init__(self, fn: Callable[[Operation, "PatternRewriter"], bool], op_names: tuple[str, ...]):
        self.fn = fn
        self.op_names = op_names
        self.__doc__ = fn.__doc__

    def match_and_rewrite(self, op: Operation, rewriter: "PatternRewriter") -> bool:
        return self.fn(op, rewriter)

    def __repr__(self) -> str:
        return f"<pattern {self.fn.__name__}>"


def pattern(*op_names: str) -> Callable[[Callable[[Operation, "PatternRewriter"], bool]], FunctionPattern]:
    """Decorator: ``@pattern("arith.addi")`` turns ``fn(op, rewriter) -> bool`` into a pattern."""
    return lambda fn: FunctionPattern(fn, op_names)


def is_trivially_dead(op: Operation) -> bool:
    """A pure op without regions whose results are all unused."""
    return (op.opdef.pure and not op.regions and not op.opdef.terminator
            and all(not r.uses for r in op.results))


class PatternRewriter:
    """The only way patterns change the IR; keeps the driver's worklist up to date."""

    def __init__(self, notify: Callable[[Operation], None], erased: set[Operation]):
        self._notify = notify
        self._erased = erased

    # -- creation -------------------------------------------------------------------------------
    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        """Insert the detached ``op`` before ``anchor``."""
        assert anchor.parent is not None
        anchor.parent.insert_before(anchor, op)
        if op.loc is None:
            op.loc = anchor.loc
        self._notify(op)
        return op

    def create(self, anchor: Operation, name: str, operands: Iterable[Value], result_types: Iterable[Type],
               attrs: dict[str, Any] | None = None, name_hint: str | None = None) -> Operation:
        """A new op inserted before ``anchor`` (with ``anchor``'s location); ``name_hint`` names a single result."""
        types = list(result_types)
        names = [name_hint] if name_hint and len(types) == 1 else None
        return self.insert_before(anchor, Operation(name, list(operands), types, attrs, loc=anchor.loc, result_names=names))

    def constant(self, anchor: Operation, value: int | float, type: Type, name_hint: str | None = None) -> Value:
        """An ``arith.constant`` of ``type`` (a scalar, or a splat tile) before ``anchor``."""
        el = element_type(type)
        if isinstance(el, ScalarType):
            value = normalize_int(int(value), el.bits) if el.is_int else float(value)
        return self.create(anchor, "arith.constant", [], [type], {"value": value}, name_hint).result

    # -- changes --------------------------------------------------------------------------------
    def modified(self, op: Operation) -> None:
        """Call after changing ``op`` in place (operands, attributes)."""
        self._notify(op)
        for r in op.results:
            for user, _ in r.uses:
                self._notify(user)

    def set_operands(self, op: Operation, operands: list[Value]) -> None:
        """Give ``op`` new operands in place (the old operands' definitions may become dead)."""
        for v in op.operands:
            if isinstance(v.owner, Operation):
                self._notify(v.owner)
        op.set_operands(operands)
        self.modified(op)

    def replace_all_uses(self, old: Value, new: Value) -> None:
        for user, _ in old.uses:
            self._notify(user)
        old.replace_all_uses_with(new)

    def replace_op(self, op: Operation, new_values: list[Value]) -> None:
        """Make users of ``op``'s results read ``new_values`` instead, then erase ``op``."""
        assert len(new_values) == len(op.results), f"replacing {op.name} needs {len(op.results)} values"
        for old, new in zip(op.results, new_values):
            self.replace_all_uses(old, new)
        self.erase_op(op)

    def erase_op(self, op: Operation) -> None:
        """Erase ``op`` (its results must be unused) and everything nested in it."""
        for nested in op.walk():
            self._erased.add(nested)
            for v in nested.operands:
                if isinstance(v.owner, Operation):
                    self._notify(v.owner)
        op.erase()

    def move_before(self, op: Operation, anchor: Operation) -> None:
        """Detach ``op`` from its block and insert it before ``anchor``."""
        assert op.parent is not None and anchor.parent is not None
        op.parent.ops.remove(op)
        anchor.parent.insert_before(anchor, op)
        self._notify(op)


def apply_patterns_greedily(scope: Module | Function | Block, patterns: Iterable[RewritePattern],
                            max_rewrites: int = 1_000_000) -> bool:
    """Apply ``patterns`` to every op of ``scope`` until none matches; return True if anything changed."""
    by_name: dict[str, list[RewritePattern]] = {}
    generic: list[RewritePattern] = []
    for p in patterns:
        for name in p.op_names:
            by_name.setdefault(name, []).append(p)
        if not p.op_names:
            generic.append(p)

    worklist: deque[Operation] = deque()
    queued: set[Operation] = set()
    erased: set[Operation] = set()

    def notify(op: Operation) -> None:
        if op not in queued:
            queued.add(op)
            worklist.append(op)

    if isinstance(scope, Block):
        initial = [nested for op in scope.ops for nested in op.walk()]
    else:
        initial = list(scope.walk())
    for op in initial:
        notify(op)
    rewriter = PatternRewriter(notify, erased)
    changed = False
    rewrites = 0
    while worklist:
        op = worklist.popleft()
        queued.discard(op)
        if op in erased or op.parent is None:
            continue
        if is_trivially_dead(op):
            rewriter.erase_op(op)
            changed = True
            continue
        for p in by_name.get(op.name, []) + generic:
            if p.match_and_rewrite(op, rewriter):
                changed = True
                rewrites += 1
                if rewrites > max_rewrites:
                    raise InternalCompilerError(f"pattern rewriting did not converge (last: {p!r} on {op.name})")
                break
    return changed
