"""A small generic data-flow solver over the structured tile IR.

Three modes, after the ``Analysis(forward, init, merge, transfer)`` tables of Bril's
``examples/df.py`` and the join/transfer/fixpoint structure of legacy Triton's ``membar.cc``:

* **Sparse forward** (:func:`solve_forward`, a :class:`ForwardProblem`): one lattice fact per
  SSA value, propagated from definitions to uses with a worklist until nothing changes (Kildall;
  Wegman-Zadeck's sparse propagation without the conditional part). Used for constants, ranges,
  axis info (contiguity, divisibility, constancy).
* **Dense backward** (:func:`solve_backward`, a :class:`BackwardProblem`): one state per program
  point, flowing from the end of a function towards its start. Used for liveness of values and
  shared buffers.
* **Dense forward** (:func:`solve_dense_forward`, a :class:`DenseForwardProblem`): one state per
  program point, flowing from the start of a function towards its end. Used for the shared-memory
  accesses pending since the last barrier (``transforms/insert_barriers.py``).

Structured control flow is handled by the solver, not the problem:

* ``scf.for``: each body argument after the induction variable is the join of its init value
  and the value yielded for it (to a fixpoint); each result is the same join (the loop may run
  zero times). The induction variable gets :meth:`ForwardProblem.induction`.
* ``scf.while``: the 'before' arguments join the init values and the 'after' region's yields;
  the 'after' arguments and the results are the values forwarded by ``scf.condition``.
* ``scf.if``: each result joins the two branches' yielded values.

Termination needs a lattice of finite height, or a :meth:`ForwardProblem.widen` that jumps
(widening is applied to loop-carried block arguments, the loop heads). Facts must compare
with ``==``. Neither mode mutates the IR.
"""
from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

from ..ir.core import Block, BlockArgument, Function, Module, Operation, Value

Fact = TypeVar("Fact")
State = TypeVar("State")


class ForwardProblem(Generic[Fact]):
    """A sparse forward data-flow problem: subclass and define the lattice and transfer."""

    def initial(self, value: Value) -> Fact:
        """The optimistic start fact (the lattice's bottom, "nothing known to reach here yet")."""
        raise NotImplementedError

    def join(self, a: Fact, b: Fact) -> Fact:
        """Least upper bound: a fact true of every value that ``a`` or ``b`` describes."""
        raise NotImplementedError

    def transfer(self, op: Operation, operand_facts: list[Fact]) -> list[Fact]:
        """Facts of ``op``'s results (one per result) from the facts of its operands.

        Called for every op with results except ``scf.for`` / ``scf.while`` / ``scf.if``.
        """
        raise NotImplementedError

    def entry(self, arg: BlockArgument) -> Fact:
        """The fact of a function parameter (seeding). Default: :meth:`initial`."""
        return self.initial(arg)

    def induction(self, loop: Operation, lower: Fact, upper: Fact, step: Fact) -> Fact:
        """The fact of an ``scf.for`` induction variable, from the facts of its bounds and step.

        Default: the same as an unknown function parameter (:meth:`entry`).
        """
        return self.entry(loop.regions[0].block.args[0])

    def widen(self, old: Fact, new: Fact) -> Fact:
        """Applied at loop heads to ``old`` and ``new = join(old, incoming)``. Default: ``new``."""
        return new


class ForwardResult(Generic[Fact]):
    """The fixpoint of a forward problem: ``result[value]`` (or ``result.fact(value)``)."""

    def __init__(self, problem: ForwardProblem[Fact], facts: dict[Value, Fact]):
        self.problem = problem
        self.facts = facts

    def fact(self, value: Value) -> Fact:
        return self.facts[value] if value in self.facts else self.problem.initial(value)

    __getitem__ = fact


def solve_forward(problem: ForwardProblem[Fact], scope: Module | Function) -> ForwardResult[Fact]:
    """Run ``problem`` to its fixpoint over every function of ``scope``."""
    return _SparseForwardSolver(problem).solve(scope)


class _SparseForwardSolver(Generic[Fact]):
    def __init__(self, problem: ForwardProblem[Fact]):
        self.problem = problem
        self.facts: dict[Value, Fact] = {}
        self.worklist: deque[Operation] = deque()
        self.queued: set[Operation] = set()

    def solve(self, scope: Module | Function) -> ForwardResult[Fact]:
        functions = scope.functions if isinstance(scope, Module) else [scope]
        for f in functions:
            for arg in f.args:
                self.update(arg, self.problem.entry(arg))
            for op in f.walk():
                self.push(op)
        while self.worklist:
            op = self.worklist.popleft()
            self.queued.discard(op)
            self.visit(op)
        return ForwardResult(self.problem, self.facts)

    def push(self, op: Operation) -> None:
        if op not in self.queued:
            self.queued.add(op)
            self.worklist.append(op)

    def fact(self, value: Value) -> Fact:
        return self.facts[value] if value in self.facts else self.problem.initial(value)

    def update(self, value: Value, incoming: Fact, loop_head: bool = False) -> None:
        """Join ``incoming`` into ``value``'s fact; revisit its users if the fact grew."""
        old = self.fact(value)
        new = self.problem.join(old, incoming)
        if loop_head:
            new = self.problem.widen(old, new)
        if new == old:
            self.facts.setdefault(value, old)
            return
        self.facts[value] = new
        for user, _ in value.uses:
            self.push(user)

    def visit(self, op: Operation) -> None:
        if op.name in ("scf.yield", "scf.condition"):
            self.visit_terminator(op)
        elif op.name == "scf.for":
            body = op.regions[0].block
            lower, upper, step = (self.fact(v) for v in op.operands[:3])
            self.update(body.args[0], self.problem.induction(op, lower, upper, step))
            for init, arg, result in zip(op.operands[3:], body.args[1:], op.results):
                self.update(arg, self.fact(init), loop_head=True)
                self.update(result, self.fact(init))
        elif op.name == "scf.while":
            for init, arg in zip(op.operands, op.regions[0].block.args):
                self.update(arg, self.fact(init), loop_head=True)
        elif op.name == "scf.if":
            return  # results come from the yields
        elif op.results:
            facts = self.problem.transfer(op, [self.fact(v) for v in op.operands])
            for result, fact in zip(op.results, facts, strict=True):
                self.update(result, fact)

    def visit_terminator(self, term: Operation) -> None:
        parent = term.parent_op()
        if parent is None:
            return
        facts = [self.fact(v) for v in term.operands]
        if term.name == "scf.condition":
            after = parent.regions[1].block
            for fact, arg, result in zip(facts[1:], after.args, parent.results):
                self.update(arg, fact)
                self.update(result, fact)
        elif parent.name == "scf.for":
            for fact, arg, result in zip(facts, parent.regions[0].block.args[1:], parent.results):
                self.update(arg, fact, loop_head=True)
                self.update(result, fact)
        elif parent.name == "scf.while":
            for fact, arg in zip(facts, parent.regions[0].block.args):
                self.update(arg, fact, loop_head=True)
        else:  # scf.if and other ops whose regions yield their results
            for fact, result in zip(facts, parent.results):
                self.update(result, fact)


# --- dense backward mode ---------------------------------------------------------------------

class BackwardProblem(Generic[State]):
    """A dense backward problem: a state per program point, flowing from uses to definitions."""

    def bottom(self) -> State:
        """The start state of the fixpoint iteration (e.g. the empty live set)."""
        raise NotImplementedError

    def boundary(self, function: Function) -> State:
        """The state after the function's last op. Default: :meth:`bottom`."""
        return self.bottom()

    def join(self, a: State, b: State) -> State:
        raise NotImplementedError

    def transfer(self, op: Operation, after: State) -> State:
        """The state before ``op`` given the state after it.

        For an op with regions, ``after`` already joins the state after the op with the states
        at the entries of its regions; the transfer accounts for the op's own operands/results.
        """
        raise NotImplementedError

    def enter_block(self, block: Block, state: State) -> State:
        """The state before the first op of ``block`` seen from outside it (e.g. kill its arguments)."""
        return state

    def exit_region(self, op: Operation, after: State) -> State:
        """The state at the end of a region of ``op`` from the state after ``op`` (e.g. kill its results)."""
        return after


class DenseResult(Generic[State]):
    """States around each op at the fixpoint of a dense problem (backward or forward):
    :meth:`before` and :meth:`after`."""

    def __init__(self, before: dict[Operation, State], after: dict[Operation, State]):
        self._before = before
        self._after = after

    def before(self, op: Operation) -> State:
        return self._before[op]

    def after(self, op: Operation) -> State:
        return self._after[op]


def solve_backward(problem: BackwardProblem[State], scope: Module | Function) -> DenseResult[State]:
    """Run ``problem`` to its fixpoint over every function of ``scope``."""
    solver = _DenseBackwardSolver(problem)
    for f in scope.functions if isinstance(scope, Module) else [scope]:
        solver.block(f.body.block, problem.boundary(f))
    return DenseResult(solver.before, solver.after)


class _DenseBackwardSolver(Generic[State]):
    def __init__(self, problem: BackwardProblem[State]):
        self.problem = problem
        self.before: dict[Operation, State] = {}
        self.after: dict[Operation, State] = {}

    def block(self, block: Block, state: State) -> State:
        """The state at the entry of ``block`` given the state after its last op."""
        for op in reversed(block.ops):
            self.after[op] = state
            state = self.op(op, state)
            self.before[op] = state
        return self.problem.enter_block(block, state)

    def op(self, op: Operation, after: State) -> State:
        p = self.problem
        if not op.regions:
            return p.transfer(op, after)
        region_end = p.exit_region(op, after)
        if op.name == "scf.for":
            # The body's end flows to the next trip (body entry) or out; the loop may not run.
            body = op.regions[0].block
            entry = p.bottom()
            while True:
                new = p.join(entry, self.block(body, p.join(region_end, entry)))
                if new == entry:
                    break
                entry = new
            return p.transfer(op, p.join(after, entry))
        if op.name == "scf.while":
            # 'before' runs first; scf.condition goes out or into 'after'; 'after' yields to 'before'.
            before, body = op.regions[0].block, op.regions[1].block
            entry = p.bottom()
            while True:
                body_entry = self.block(body, entry)
                new = p.join(entry, self.block(before, p.join(region_end, body_entry)))
                if new == entry:
                    break
                entry = new
            return p.transfer(op, entry)
        # scf.if (and any other op whose regions each run at most once, then fall through).
        state = after if op.name != "scf.if" else p.bottom()
        for region in op.regions:
            state = p.join(state, self.block(region.block, region_end))
        return p.transfer(op, state)


# --- dense forward mode ----------------------------------------------------------------------

class DenseForwardProblem(Generic[State]):
    """A dense forward problem: a state per program point, flowing from the function entry.

    The solver follows structured control flow itself: an ``scf.if`` joins the states at the
    ends of its two regions; a loop's head joins the state on entry with the states at the
    ends of the iterations (to a fixpoint); a loop exits from its head. Ops with regions get
    no :meth:`transfer` of their own.
    """

    def bottom(self) -> State:
        """The start state of the fixpoint iteration at loop heads (e.g. the empty set)."""
        raise NotImplementedError

    def boundary(self, function: Function) -> State:
        """The state before the function's first op. Default: :meth:`bottom`."""
        return self.bottom()

    def join(self, a: State, b: State) -> State:
        raise NotImplementedError

    def transfer(self, op: Operation, before: State) -> State:
        """The state after ``op`` (an op without regions) given the state before it."""
        raise NotImplementedError


def solve_dense_forward(problem: DenseForwardProblem[State], scope: Module | Function) -> DenseResult[State]:
    """Run ``problem`` to its fixpoint over every function of ``scope``.

    The states recorded inside a loop are those of the last trip of the fixpoint iteration,
    i.e. computed from the loop head's fixpoint state.
    """
    solver = _DenseForwardSolver(problem)
    for f in scope.functions if isinstance(scope, Module) else [scope]:
        solver.block(f.body.block, problem.boundary(f))
    return DenseResult(solver.before, solver.after)


class _DenseForwardSolver(Generic[State]):
    """Walks blocks in program order; loops iterate to their head's fixpoint.

    Walks are memoised per ``(block, entry state)`` (states are hashable): without that, every
    level of loop nesting multiplies the walks of the inner loops by the trips its own
    fixpoint needs, exponential in the depth. A memo hit replays the states the walk recorded
    for the ops inside the block, so the recorded states stay those of the latest walk.
    """

    def __init__(self, problem: DenseForwardProblem[State]):
        self.problem = problem
        self.before: dict[Operation, State] = {}
        self.after: dict[Operation, State] = {}
        self._memo: dict[tuple[Block, State], tuple[State, dict, dict]] = {}

    def block(self, block: Block, state: State) -> State:
        """The state after the last op of ``block`` given the state before its first op."""
        key = (block, state)
        hit = self._memo.get(key)
        if hit is not None:
            end, before, after = hit
            self.before.update(before)
            self.after.update(after)
            return end
        outer_before, outer_after = self.before, self.after
        self.before, self.after = {}, {}
        try:
            for op in block.ops:
                self.before[op] = state
                state = self.op(op, state)
                self.after[op] = state
        finally:
            inner_before, inner_after = self.before, self.after
            self.before, self.after = outer_before, outer_after
            outer_before.update(inner_before)
            outer_after.update(inner_after)
        self._memo[key] = (state, inner_before, inner_after)
        return state

    def loop_head(self, entry: State, trip) -> State:
        """The fixpoint ``head = entry | trip(head)`` (``trip``: head state -> state back at the
        head). The last trip walked starts from the fixpoint, so the recorded states are final."""
        p = self.problem
        head = entry
        while True:
            new = p.join(head, trip(head))
            if new == head:
                return head
            head = new

    def op(self, op: Operation, before: State) -> State:
        p = self.problem
        if not op.regions:
            return p.transfer(op, before)
        if op.name == "scf.for":
            # The head is reached from before the loop and from the end of every trip; the loop
            # exits from the head (it may run zero times).
            body = op.regions[0].block
            return self.loop_head(before, lambda h: self.block(body, h))
        if op.name == "scf.while":
            # 'before' runs at the head; scf.condition leaves or enters 'after', which loops back.
            cond, body = op.regions[0].block, op.regions[1].block
            head = self.loop_head(before, lambda h: self.block(body, self.block(cond, h)))
            exit_state = self.block(cond, head)
            self.block(body, exit_state)
            return exit_state
        # scf.if (and any other op whose regions each run at most once, then fall through).
        ends = [self.block(region.block, before) for region in op.regions]
        state = ends.pop(0) if op.name == "scf.if" else before
        for end in ends:
            state = p.join(state, end)
        return state
