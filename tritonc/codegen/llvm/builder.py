"""The lowering's IR builder: ``llvmlite.ir.IRBuilder`` with value numbering of pure instructions.

The lowering works register by register, and a tile's registers share most of their index
math: every register of a row of a broadcast ``rm[:, newaxis] * lda`` asks for the same
``mul``, the eight f16 elements a 16-byte ``cp.async`` covers each ask for the same ``sext``
and ``getelementptr`` of the row base, and a mask's per-row compare is asked for once per
column. Emitted as asked, a 128x256 matmul kernel had ~6700 instructions, most of them copies
that LLVM's first ``EarlyCSE`` removes again, after the text was formatted, written, parsed and
verified, and after the passes before it had walked them.

:class:`NumberingBuilder` returns the existing instruction instead of building a copy when an
instruction with the same opcode, operands, type and flags was already emitted where it
dominates the new position: earlier in the same basic block (every builder of the lowering
appends at the end of its block) or anywhere in the function's entry block (which dominates
every block). Only pure instructions are numbered: integer and float arithmetic, compares,
``select``, casts, ``freeze``, ``getelementptr``, ``extractvalue``/``extractelement``/``insertelement``
and calls of the side-effect-free intrinsics in :data:`PURE_INTRINSICS`. Loads, stores, other
calls, inline asm, phis and terminators are always emitted.

Constants are numbered by type and value (llvmlite compares ``ir.Constant`` objects by
identity, and the lowering makes a new one for each use); a constant that is not a scalar
(an aggregate or vector literal) is keyed by identity, so two such operands never match.
Floats are keyed by their ``repr`` so that ``0.0`` and ``-0.0`` stay apart.

The numbering tables are per function (:class:`ValueTable`), shared by the function's
builders; one builder's ``position_at_end`` on another block starts using that block's table.
"""
from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

#: Intrinsics (by name prefix) a call of which is pure: numbered like an instruction.
PURE_INTRINSICS = ("llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax.")


class ValueTable:
    """Per basic block, the pure instructions emitted there, by key; ``entry`` is the
    function's entry block, whose instructions are visible from every block."""

    def __init__(self, entry: ir.Block):
        self.entry = entry
        self.blocks: dict[ir.Block, dict[tuple, ir.Value]] = {}

    def lookup(self, block: ir.Block, key: tuple) -> ir.Value | None:
        found = self.blocks.get(block)
        if found is not None:
            hit = found.get(key)
            if hit is not None:
                return hit
        if block is not self.entry:
            found = self.blocks.get(self.entry)
            if found is not None:
                return found.get(key)
        return None

    def record(self, block: ir.Block, key: tuple, value: ir.Value) -> None:
        table = self.blocks.get(block)
        if table is None:
            table = self.blocks[block] = {}
        table[key] = value


#: Separates the positional arguments of a key from the keyword ones.
_KEYWORDS = object()


def _operand_key(v: Any) -> Any:
    """What identifies operand ``v`` of a numbered instruction (see the module docstring).
    Called for every operand of every numbered instruction, so it dispatches on the exact
    class first (an ``ir.Constant`` subclass is keyed by identity: no numbering, still right)."""
    cls = type(v)
    if cls is ir.Constant:
        c = v.constant
        kind = type(c)
        if kind is int or kind is bool or c is None or c is ir.Undefined:
            return ("c", str(v.type), c)
        if kind is float:
            return ("c", str(v.type), repr(c))
        return v
    if cls is list or cls is tuple:
        return tuple(map(_operand_key, v))
    if isinstance(v, ir.Type):
        return ("t", str(v))
    return v


def _numbered(opname: str):
    """A builder method that numbers ``opname`` (the ``ir.IRBuilder`` method of that name):
    ``name`` does not count; every other argument does."""
    base = getattr(ir.IRBuilder, opname)

    def method(self, *args, name: str = "", **kwargs):
        key = (opname, *map(_operand_key, args))
        if kwargs:
            key += (_KEYWORDS, *sorted((k, _operand_key(v)) for k, v in kwargs.items()))
        block = self.block
        hit = self.values.lookup(block, key)
        if hit is not None:
            return hit
        result = base(self, *args, name=name, **kwargs)
        # a cast to the operand's own type returns the operand: nothing new to record
        if isinstance(result, ir.Instruction) and result.parent is block:
            self.values.record(block, key, result)
        return result

    method.__name__ = opname
    method.__doc__ = f"``IRBuilder.{opname}``, numbered (see :class:`NumberingBuilder`)."
    return method


class NumberingBuilder(ir.IRBuilder):
    """An ``ir.IRBuilder`` that reuses an identical pure instruction where one dominates the
    insertion point (the module docstring says which and why). Every builder of a function
    shares that function's ``values`` table; the builder must only append at the end of a
    block (``position_at_end``), which is all the lowering does."""

    def __init__(self, block: ir.Block, values: ValueTable):
        super().__init__(block)
        self.values = values

    def position_before(self, instr):
        raise NotImplementedError("NumberingBuilder appends at the end of a block only")

    def position_after(self, instr):
        raise NotImplementedError("NumberingBuilder appends at the end of a block only")

    def position_at_start(self, block):
        raise NotImplementedError("NumberingBuilder appends at the end of a block only")

    def call(self, fn, args, name="", **kwargs):
        """``IRBuilder.call``; a call of a :data:`PURE_INTRINSICS` function is numbered."""
        if isinstance(fn, ir.Function) and fn.name.startswith(PURE_INTRINSICS) and not kwargs:
            key = ("call", fn.name, _operand_key(tuple(args)))
            block = self.block
            hit = self.values.lookup(block, key)
            if hit is not None:
                return hit
            result = super().call(fn, args, name=name)
            self.values.record(block, key, result)
            return result
        return super().call(fn, args, name=name, **kwargs)

    def freeze(self, value: ir.Value, name: str = "") -> ir.Value:
        """``%r = freeze <ty> value`` (LLVM LangRef, "freeze" instruction: the operand, or an
        arbitrary fixed value where it is poison), numbered. llvmlite's builder has no freeze."""
        key = ("freeze", _operand_key(value))
        block = self.block
        hit = self.values.lookup(block, key)
        if hit is not None:
            return hit
        instr = ir.instructions.Instruction(block, value.type, "freeze", [value], name=name)
        self._insert(instr)
        self.values.record(block, key, instr)
        return instr


for _op in ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "and_", "or_", "xor", "shl", "lshr",
            "ashr", "fadd", "fsub", "fmul", "fdiv", "frem", "fneg",
            "icmp_signed", "icmp_unsigned", "fcmp_ordered", "fcmp_unordered", "select",
            "trunc", "zext", "sext", "fptrunc", "fpext", "bitcast", "addrspacecast", "fptoui",
            "uitofp", "fptosi", "sitofp", "ptrtoint", "inttoptr",
            "gep", "extract_value", "extract_element", "insert_element"):
    setattr(NumberingBuilder, _op, _numbered(_op))
del _op
