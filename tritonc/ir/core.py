"""Core IR data structures: SSA values with use lists, operations, blocks, regions, functions.

The IR is in SSA form with *structured* control flow: ``scf.for`` / ``scf.while`` / ``scf.if``
operations own regions of one block each; loop-carried values are block arguments of the
body and results of the loop. Every operation is an :class:`Operation` whose ``name``
(``"arith.addi"``, ``"tt.load"``) selects its :class:`~tritonc.ir.ops.OpDef` (operand names,
attribute names, verifier, side effects). Named operands and attributes are reached as
``op.get("mask")`` / ``op.attrs["axis"]`` or, for brevity, as attributes: ``op.mask``.

Invariants kept by the mutation helpers here (and checked by ``verifier.py``):

* ``value.uses`` lists every ``(operation, operand_index)`` that reads the value;
* an operation belongs to at most one block (``op.parent``), a block to one region.
"""
from __future__ import annotations

from typing import Any, Iterator

from ..diagnostics import SourceLoc
from .types import Type


class Value:
    """An SSA value. ``name`` is a hint for the printer (usually the source variable's name)."""

    __slots__ = ("type", "name", "uses")

    def __init__(self, type: Type, name: str | None = None):
        self.type = type
        self.name = name
        self.uses: list[tuple[Operation, int]] = []

    def replace_all_uses_with(self, new: "Value") -> None:
        """Make every reader of this value read ``new`` instead."""
        if new is self:
            return
        for op, index in list(self.uses):
            op.set_operand(index, new)

    @property
    def owner(self) -> "Operation | Block":
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} %{self.name or '?'}: {self.type}>"


class OpResult(Value):
    """The ``index``-th result of operation ``op``."""

    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int, name: str | None = None):
        super().__init__(type, name)
        self.op = op
        self.index = index

    @property
    def owner(self) -> "Operation":
        return self.op


class BlockArgument(Value):
    """The ``index``-th argument of ``block`` (a loop-carried value, induction variable or function parameter)."""

    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: "Block", index: int, name: str | None = None):
        super().__init__(type, name)
        self.block = block
        self.index = index

    @property
    def owner(self) -> "Block":
        return self.block


class Operation:
    """One operation: ``results = name(operands) {attrs}`` with optional nested regions."""

    def __init__(self, name: str, operands: list[Value], result_types: list[Type],
                 attrs: dict[str, Any] | None = None, regions: list["Region"] | None = None,
                 loc: SourceLoc | None = None, result_names: list[str | None] | None = None):
        self.name = name
        self.operands: list[Value] = []
        for v in operands:
            self._append_operand(v)
        names = result_names or [None] * len(result_types)
        self.results = [OpResult(t, self, i, n) for i, (t, n) in enumerate(zip(result_types, names))]
        self.attrs: dict[str, Any] = dict(attrs or {})
        self.regions: list[Region] = []
        for r in regions or []:
            self.add_region(r)
        self.loc = loc
        self.parent: Block | None = None

    # -- operands ---------------------------------------------------------------------------
    def _append_operand(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise TypeError(f"operand of {self.name} is not a Value: {v!r}")
        v.uses.append((self, len(self.operands)))
        self.operands.append(v)

    def set_operand(self, index: int, new: Value) -> None:
        old = self.operands[index]
        old.uses.remove((self, index))
        self.operands[index] = new
        new.uses.append((self, index))

    def set_operands(self, operands: list[Value]) -> None:
        self.drop_operands()
        for v in operands:
            self._append_operand(v)

    def drop_operands(self) -> None:
        for i, v in enumerate(self.operands):
            v.uses.remove((self, i))
        self.operands = []

    # -- results ----------------------------------------------------------------------------
    @property
    def result(self) -> OpResult:
        """The single result (error if the op has not exactly one)."""
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results")
        return self.results[0]

    # -- named access (see ops.OpDef) -------------------------------------------------------
    @property
    def opdef(self):
        from .ops import get_opdef
        return get_opdef(self.name)

    def get(self, operand_name: str):
        """The named operand (``None`` if optional and absent; a list for a variadic one)."""
        return self.opdef.operand(self, operand_name)

    def __getattr__(self, item: str):
        # Only called when normal lookup fails: named operands, then attributes.
        if item.startswith("_") or item in ("name", "operands", "results", "attrs", "regions", "loc", "parent"):
            raise AttributeError(item)
        opdef = self.opdef
        if item in opdef.operand_names:
            return opdef.operand(self, item)
        if item in self.attrs:
            return self.attrs[item]
        raise AttributeError(f"{self.name} has no operand or attribute {item!r}")

    # -- regions and structure --------------------------------------------------------------
    def add_region(self, region: "Region") -> "Region":
        region.parent = self
        self.regions.append(region)
        return region

    def walk(self) -> Iterator["Operation"]:
        """This op, then every op nested in its regions, in pre-order."""
        yield self
        for region in self.regions:
            for block in region.blocks:
                for op in list(block.ops):
                    yield from op.walk()

    def erase(self) -> None:
        """Remove from its block and drop its operands (results must be unused)."""
        for r in self.results:
            if r.uses:
                raise ValueError(f"erasing {self.name} whose result is still used by {r.uses[0][0].name}")
        for region in self.regions:
            for block in region.blocks:
                for op in reversed(list(block.ops)):
                    op.drop_all_references()
        self.drop_operands()
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None

    def drop_all_references(self) -> None:
        """Drop operands of this op and everything nested (used when erasing whole regions)."""
        for region in self.regions:
            for block in region.blocks:
                for op in block.ops:
                    op.drop_all_references()
        self.drop_operands()

    def parent_op(self) -> "Operation | None":
        if self.parent is None or self.parent.parent is None:
            return None
        return self.parent.parent.parent

    def is_ancestor_of(self, other: "Operation") -> bool:
        op: Operation | None = other
        while op is not None:
            if op is self:
                return True
            op = op.parent_op()
        return False

    def __repr__(self) -> str:
        return f"<Operation {self.name}>"


class Block:
    """A list of operations with block arguments; the last op of a region's block is its terminator."""

    def __init__(self, arg_types: list[Type] | None = None, arg_names: list[str | None] | None = None):
        self.args: list[BlockArgument] = []
        self.ops: list[Operation] = []
        self.parent: Region | None = None
        names = arg_names or [None] * len(arg_types or [])
        for t, n in zip(arg_types or [], names):
            self.add_argument(t, n)

    def add_argument(self, type: Type, name: str | None = None) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.args), name)
        self.args.append(arg)
        return arg

    def append(self, op: Operation) -> Operation:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Operation) -> Operation:
        op.parent = self
        self.ops.insert(index, op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor), op)

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor) + 1, op)

    @property
    def terminator(self) -> Operation | None:
        return self.ops[-1] if self.ops else None

    def parent_op(self) -> Operation | None:
        return self.parent.parent if self.parent is not None else None


class Region:
    """A region of an operation or function: here always exactly one :class:`Block`."""

    def __init__(self, block: Block | None = None):
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        self.add_block(block or Block())

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def block(self) -> Block:
        return self.blocks[0]


class Function:
    """A function (``tt.func``): a kernel (``kind == "kernel"``, returns nothing) or an inlinable
    device function (``kind == "device"``).

    ``arg_attrs[i]`` holds the parameter attributes of argument ``i``: ``noalias``,
    ``readonly``, ``writeonly``, ``retune``, ``unsigned`` (flags, value ``True``), ``aligned``
    (bytes) and ``multipleof`` (int).
    """

    def __init__(self, name: str, arg_types: list[Type], result_types: list[Type] | None = None,
                 arg_names: list[str | None] | None = None, kind: str = "kernel",
                 arg_attrs: list[dict[str, Any]] | None = None, loc: SourceLoc | None = None,
                 attrs: dict[str, Any] | None = None):
        self.name = name
        self.result_types = list(result_types or [])
        self.kind = kind
        self.body = Region(Block(arg_types, arg_names))
        self.arg_attrs = [dict(a) for a in (arg_attrs or [{} for _ in arg_types])]
        self.loc = loc
        self.attrs: dict[str, Any] = dict(attrs or {})
        self.parent: Module | None = None

    @property
    def args(self) -> list[BlockArgument]:
        return self.body.block.args

    @property
    def arg_types(self) -> list[Type]:
        return [a.type for a in self.args]

    def walk(self) -> Iterator[Operation]:
        """Every operation of the function, pre-order."""
        for op in list(self.body.block.ops):
            yield from op.walk()


class Module:
    """A translation unit: functions in source order, plus module attributes (``num_warps``...)."""

    def __init__(self, functions: list[Function] | None = None, attrs: dict[str, Any] | None = None):
        self.functions: list[Function] = []
        self.attrs: dict[str, Any] = dict(attrs or {})
        for f in functions or []:
            self.add_function(f)

    def add_function(self, f: Function) -> Function:
        f.parent = self
        self.functions.append(f)
        return f

    def get_function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def walk(self) -> Iterator[Operation]:
        for f in self.functions:
            yield from f.walk()

    def num_warps_of(self, f: Function, default: int = 4) -> int:
        """Warps per CTA of function ``f``: its own ``num_warps`` attribute (set on each kernel
        of a file whose kernels take different warp counts), else the module's ``num_warps``
        attribute, else ``default``."""
        return int(f.attrs.get("num_warps", self.attrs.get("num_warps", default)))
