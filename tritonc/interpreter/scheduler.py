"""Scheduling of program instances: cooperative, deterministic, deadlock-detecting.

Each program instance is an :class:`~tritonc.interpreter.evaluator.Evaluator` generator that
yields before every atomic and at every loop back-edge. The scheduler keeps the started
("live") instances and picks which one advances to its next scheduling point:

* ``rng is None`` (deterministic): instances start in the given order and each runs until
  it finishes or waits (is parked or stalled, below); then the earliest-started live
  instance that can run continues, and a new instance starts only when none can. Without
  spin-waits this is plain sequential execution, one instance after another.
* with an ``rng``: at every scheduling point the next step is drawn at random among the live
  instances that can run and, while fewer than :data:`RESIDENT` instances are live (or none
  can run), starting the next one. This interleaves instances at atomics and back-edges, as
  concurrent CTAs would.

An instance is *parked* when its loop spins (same state, no memory change, see
``evaluator.py``) and becomes runnable again when any instance changes memory. It is
*stalled* after :data:`QUANTUM` consecutive scheduling points without any memory change
(a wait loop whose state changes, e.g. a retry counter); a stalled instance still runs, but
only when nothing else can. If every live instance is parked and none is left to start,
no instance can ever change memory again: that is a deadlock and raises
:class:`InterpreterError`. If ``max_quiet_steps`` scheduling points pass with no memory
change and no instance finishing, it is reported as a livelock.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Generator

import numpy as np

from ..ir.core import Operation
from .errors import InterpreterError
from .evaluator import SchedPoint, format_pid
from .memory import Memory

RESIDENT = 4
QUANTUM = 1000


@dataclass
class RunReport:
    """What :func:`run_function` observed: the order instances started in, how many times
    the scheduler switched between instances, and the number of scheduling points."""

    grid: tuple[int, ...]
    start_order: list[tuple[int, ...]] = field(default_factory=list)
    switches: int = 0
    steps: int = 0


class _Instance:
    __slots__ = ("pid", "gen", "parked_at", "parked_op", "quiet", "seen_version")

    def __init__(self, pid: tuple[int, ...], gen: Generator[SchedPoint, None, None], version: int):
        self.pid = pid
        self.gen = gen
        self.parked_at: int | None = None  # memory version when parked
        self.parked_op: Operation | None = None
        self.quiet = 0
        self.seen_version = version


def _loc(op: Operation | None) -> str:
    if op is None:
        return "?"
    return f"{op.name} at {op.loc}" if op.loc is not None else op.name


def run_instances(pids: list[tuple[int, ...]], start: Callable[[tuple[int, ...]], Generator],
                  memory: Memory, rng: np.random.Generator | None, max_quiet_steps: int,
                  report: RunReport) -> None:
    """Run every program instance of ``pids`` (in that start order) to completion.

    Raises:
        InterpreterError: deadlock or livelock among instances, or any error of an instance.
    """
    pending = deque(pids)
    live: list[_Instance] = []
    current: _Instance | None = None
    quiet_steps = 0

    def launch() -> _Instance:
        pid = pending.popleft()
        inst = _Instance(pid, start(pid), memory.version)
        live.append(inst)
        report.start_order.append(pid)
        return inst

    try:
        while pending or live:
            version = memory.version
            runnable = [i for i in live if i.parked_at is None or i.parked_at != version]
            eager = [i for i in runnable if i.quiet < QUANTUM]
            inst: _Instance | None = None
            if rng is None:
                if current is not None and current in eager:
                    inst = current
                elif eager:
                    inst = eager[0]
                elif pending:
                    inst = launch()
            else:
                options: list[_Instance | None] = list(eager)
                if pending and (len(live) < RESIDENT or not eager):
                    options.append(None)
                if options:
                    inst = options[int(rng.integers(len(options)))] or launch()
            if inst is None:
                if not runnable:
                    raise InterpreterError(_deadlock_message(live))
                inst = runnable[0] if rng is None else runnable[int(rng.integers(len(runnable)))]
            if inst is not current:
                report.switches += 1
                current = inst
            finished_before = len(live)
            try:
                point = next(inst.gen)
            except StopIteration:
                live.remove(inst)
                current = None
                point = None
            report.steps += 1
            if memory.version != version or len(live) != finished_before:
                quiet_steps = 0
            else:
                quiet_steps += 1
                if quiet_steps > max_quiet_steps:
                    raise InterpreterError(_livelock_message(live, max_quiet_steps))
            if point is None:
                continue
            if memory.version != inst.seen_version:
                inst.seen_version, inst.quiet = memory.version, 0
            else:
                inst.quiet += 1
            if point.spinning:
                inst.parked_at, inst.parked_op = memory.version, point.op
            else:
                inst.parked_at = None
    finally:
        for i in live:
            i.gen.close()


def _deadlock_message(live: list[_Instance]) -> str:
    waits = "; ".join(f"program {format_pid(i.pid)} spins in {_loc(i.parked_op)}" for i in live)
    return ("deadlock: every live program instance is spinning on memory that no other instance "
            f"will change ({waits})")


def _livelock_message(live: list[_Instance], steps: int) -> str:
    pids = ", ".join(format_pid(i.pid) for i in live)
    return (f"livelock: {steps} scheduling points passed without any memory change or program "
            f"finishing (live programs: {pids})")
