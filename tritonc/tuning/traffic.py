"""The bytes one program instance moves: a static estimate over tt IR at given argument values.

The memory-bound cost model (:func:`tritonc.tuning.memory_model.choose_memory_bound`) ranks
configurations by how close they keep the DRAM bandwidth busy; that alone cannot tell that
softmax with ``BLOCK < N`` takes its two-pass path and reads each row twice, while
``BLOCK >= N`` reads it once. This module counts, for one program instance of a kernel and
the scalar argument values of a problem (``N = 16384``), the bytes its loads, stores and
atomics move, following the control flow those values decide:

* scalar integers are evaluated where they are constants, named arguments of the problem, or
  ``arith`` integer operations of known values (C semantics on the operand width:
  division truncates, the result wraps); ``tt.get_program_id`` is 0 (the first program
  instance stands for all of them);
* ``scf.if`` with a known condition visits the branch taken;
* ``scf.for`` with known bounds and step counts its body once per trip (``predicate`` as the
  loop's: the trips while ``iv <pred> ub``); its body must not depend on the induction
  variable for control flow (a branch on it is unknown);
* a load, store or atomic counts its whole tile (``elements * element bytes``, masked-off
  lanes included: they cost the instruction slots and registers as if they moved data, and a
  tile much wider than the data is a waste the ranking should see).

Anything else that decides control flow (``scf.while``, a branch on a loaded value, a call of
a device function before inlining, an argument the problem does not give) makes the estimate
unknown (``None``): the model then ranks without it.
"""
from __future__ import annotations

from typing import Mapping

from ..ir.core import Block, Function, Value
from ..ir.types import ScalarType, TileType

_MEMORY_OPS = ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")


class _Unknown(Exception):
    """The control flow depends on something the problem does not decide."""


def _bits(t) -> int | None:
    if isinstance(t, ScalarType) and t.is_int:
        return t.bits
    return None


def _wrap(v: int, bits: int, signed: bool = True) -> int:
    v &= (1 << bits) - 1
    if signed and bits > 1 and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _tdiv(a: int, b: int) -> int:
    if b == 0:
        raise _Unknown("division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _compare(pred: str, a: int, b: int, bits: int) -> bool:
    if pred.startswith("u"):
        a, b = _wrap(a, bits, False), _wrap(b, bits, False)
    return {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b,
            "ult": a < b, "ule": a <= b, "ugt": a > b, "uge": a >= b}[pred]


def _tile_bytes(t) -> int:
    element = t.element if isinstance(t, TileType) else t
    return (t.numel if isinstance(t, TileType) else 1) * max(1, getattr(element, "bytes", 8))


class _Evaluator:
    def __init__(self, f: Function, args: Mapping[str, int], read: set[str] | None):
        self.values: dict[Value, int] = {}
        self.params = {a: a.name for a in f.args}
        self.read = read if read is not None else set()
        for a in f.args:
            if a.name in args and _bits(a.type) is not None:
                self.values[a] = int(args[a.name])

    def value(self, v: Value) -> int:
        if v in self.params:  # a control-flow decision reads this argument (known or not)
            self.read.add(self.params[v])
        if v not in self.values:
            raise _Unknown(f"value {v} is not known")
        return self.values[v]

    def scalar(self, op) -> None:
        """Evaluate a scalar integer op whose operands are known (others stay unknown)."""
        name = op.name
        if len(op.results) != 1 or _bits(op.result.type) is None:
            return
        bits = _bits(op.result.type)
        if name == "arith.constant":
            if isinstance(op.attrs.get("value"), (int, bool)):
                self.values[op.result] = int(op.attrs["value"])
            return
        if name == "tt.get_program_id":
            self.values[op.result] = 0
            return
        for v in op.operands:
            if v in self.params:
                self.read.add(self.params[v])
        if not all(v in self.values for v in op.operands):
            return
        x = [self.values[v] for v in op.operands]
        if name in ("arith.extsi", "arith.trunci", "arith.index_cast"):
            r = x[0]
        elif name == "arith.extui":
            r = _wrap(x[0], _bits(op.operands[0].type) or 64, False)
        elif name == "arith.addi":
            r = x[0] + x[1]
        elif name == "arith.subi":
            r = x[0] - x[1]
        elif name == "arith.muli":
            r = x[0] * x[1]
        elif name == "arith.divsi":
            r = _tdiv(x[0], x[1])
        elif name == "arith.remsi":
            r = x[0] - x[1] * _tdiv(x[0], x[1])
        elif name == "arith.minsi":
            r = min(x)
        elif name == "arith.maxsi":
            r = max(x)
        elif name == "arith.cmpi":
            r = int(_compare(op.attrs["predicate"], x[0], x[1], _bits(op.operands[0].type) or 32))
        elif name == "arith.select":
            r = x[1] if x[0] else x[2]
        else:
            return
        self.values[op.result] = _wrap(r, bits)

    def block(self, block: Block) -> int:
        total = 0
        for op in block.ops:
            if op.name in _MEMORY_OPS:
                moved = op.operands[1] if op.name == "tt.store" else op.results[0]
                total += _tile_bytes(moved.type)
            elif op.name == "scf.if":
                taken = 0 if self.value(op.operands[0]) else 1
                if taken < len(op.regions) and op.regions[taken].blocks:
                    total += self.block(op.regions[taken].blocks[0])
            elif op.name == "scf.for":
                lower, upper, step = (self.value(v) for v in op.operands[:3])
                trips = _trips(op.attrs.get("predicate", "slt"), lower, upper, step,
                               _bits(op.operands[0].type) or 32)
                if trips:
                    total += trips * self.block(op.regions[0].blocks[0])
            elif op.regions or op.name == "tt.call":
                raise _Unknown(f"{op.name} decides control flow")
            else:
                self.scalar(op)
        return total


def _trips(pred: str, lower: int, upper: int, step: int, bits: int) -> int:
    """Trips of ``for (iv = lower; iv <pred> upper; iv += step)``."""
    if not _compare(pred, lower, upper, bits):
        return 0
    if pred in ("slt", "ult", "sle", "ule") and step > 0:
        last = upper - (1 if pred in ("slt", "ult") else 0)
        return (last - lower) // step + 1
    if pred in ("sgt", "ugt", "sge", "uge") and step < 0:
        last = upper + (1 if pred in ("sgt", "ugt") else 0)
        return (lower - last) // -step + 1
    raise _Unknown(f"a loop '{pred}' with step {step}")


def program_bytes(f: Function, args: Mapping[str, int], read: set[str] | None = None) -> int | None:
    """Bytes one program instance of kernel ``f`` (tt IR, before inlining) loads, stores and
    updates atomically, for the scalar integer arguments ``args`` (by parameter name); ``None``
    when the control flow depends on something ``args`` does not decide (module docstring).
    ``read``, when given, receives the names of the parameters the evaluation looked at: the
    result is the same for any ``args`` that agree on those.
    """
    try:
        return _Evaluator(f, args, read).block(f.body.block)
    except _Unknown:
        return None
