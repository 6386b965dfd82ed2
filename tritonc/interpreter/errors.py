"""The interpreter's one exception type."""
from __future__ import annotations


class InterpreterError(Exception):
    """A kernel did something the semantics forbid or leave undefined in a way worth reporting.

    Raised for out-of-bounds or misaligned memory accesses, bad launch arguments, a deadlock
    or livelock among program instances, and ops without interpreter semantics. The message
    names the op, its source location (``file:line:col`` where the IR carries one) and the
    program id.
    """
