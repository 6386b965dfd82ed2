"""Execution of one program instance: a generator that walks the tile IR with numpy.

:meth:`Evaluator.run` executes a kernel body for one program id. It is a generator: it
yields a :class:`SchedPoint` *before every atomic* and *at every loop back-edge*, and the
scheduler (``scheduler.py``) decides which instance continues. Everything between two
scheduling points runs without interruption, which is allowed because plain loads and
stores of different program instances are unordered on a GPU without atomics or fences.

At a back-edge the evaluator also reports whether the loop is *spinning*: the state entering
the next trip (induction variable and loop-carried values, or the ``scf.while`` "before"
arguments) is bit-identical to the state entering the last trip and no memory changed in
between. The IR is deterministic given that state and memory, so such a loop repeats forever
unless another instance writes memory; the scheduler parks it until memory changes.

Values: scalars are numpy scalars, tiles numpy arrays (see ``numerics.py``); every op
result is coerced to its IR type's dtype and shape is checked. Tile values are never
mutated in place (constants and splats are shared, read-only arrays).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generator

import numpy as np

from ..ir.core import Block, Function, Module, Operation
from ..ir.types import PointerType, element_type, shape_of
from . import numerics as nx
from .errors import InterpreterError
from .memory import Memory, MemoryFault

MAX_CALL_DEPTH = 64


@dataclass(frozen=True)
class SchedPoint:
    """What an instance reports when it yields: ``kind`` is ``"atomic"`` or ``"backedge"``."""

    kind: str
    op: Operation
    spinning: bool = False


class LaunchContext:
    """State shared by all program instances of one launch."""

    def __init__(self, module: Module, memory: Memory, grid: tuple[int, ...]):
        self.module = module
        self.memory = memory
        self.grid = grid
        self.grid3 = tuple(grid) + (1,) * (3 - len(grid))
        self.constants: dict[Operation, Any] = {}


def coerce(value, t):
    """``value`` as the numpy representation of IR type ``t`` (scalar for non-tile types)."""
    dt = nx.np_dtype(element_type(t))
    a = np.asarray(value)
    if a.dtype != dt:
        a = a.astype(dt)
    shape = shape_of(t)
    if a.shape != shape:
        if shape == () and a.size == 1:
            a = a.reshape(())
        else:
            raise ValueError(f"value of shape {a.shape} for type {t}")
    return a[()] if not shape else a


def same_bits(a, b) -> bool:
    """Whether two values are bit-identical (NaN payloads and signed zeros included)."""
    if a is b:
        return True
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    return bool(np.array_equal(np.ascontiguousarray(x).reshape(-1).view(np.uint8),
                               np.ascontiguousarray(y).reshape(-1).view(np.uint8)))


def format_pid(pid: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, pid)) + ")"


class Evaluator:
    """Runs the IR of one program instance ``pid`` (a tuple as long as the grid)."""

    def __init__(self, ctx: LaunchContext, pid: tuple[int, ...]):
        self.ctx = ctx
        self.memory = ctx.memory
        self.pid = pid
        self.pid3 = tuple(pid) + (0,) * (3 - len(pid))
        self.depth = 0
        self.function: Function | None = None

    # -- errors -----------------------------------------------------------------------------
    def where(self, op: Operation) -> str:
        if op.loc is not None:
            return f"at {op.loc}"
        fname = self.function.name if self.function is not None else "?"
        return f"in @{fname} (no source location)"

    def error(self, op: Operation, message: str) -> InterpreterError:
        return InterpreterError(f"{op.name} {self.where(op)} in program {format_pid(self.pid)}: {message}")

    def fault(self, op: Operation, f: MemoryFault, shape: tuple[int, ...]) -> InterpreterError:
        if shape:
            index = "[" + ", ".join(str(int(i)) for i in np.unravel_index(f.lane, shape)) + "]"
            return self.error(op, f"element {index}: {f.detail}")
        return self.error(op, f.detail)

    # -- structure --------------------------------------------------------------------------
    def run(self, f: Function, args: list) -> Generator[SchedPoint, None, None]:
        """Execute kernel ``f`` with bound argument values (a generator of scheduling points)."""
        yield from self.call(f, args)

    def call(self, f: Function, args: list) -> Generator[SchedPoint, None, list]:
        if self.depth >= MAX_CALL_DEPTH:
            raise InterpreterError(f"call depth {MAX_CALL_DEPTH} exceeded calling @{f.name} (recursion?)")
        saved = self.function
        self.function, self.depth = f, self.depth + 1
        try:
            return (yield from self.exec_block(f.body.block, args, {}))
        finally:
            self.function, self.depth = saved, self.depth - 1

    def exec_block(self, block: Block, args: list, env: dict) -> Generator[SchedPoint, None, list]:
        """Run ``block`` with its arguments bound to ``args``; returns its terminator's operand values."""
        for a, v in zip(block.args, args):
            env[a] = v
        for op in block.ops:
            name = op.name
            handler = SIMPLE.get(name)
            if handler is not None:
                try:
                    result = handler(self, op, [env[v] for v in op.operands])
                    if op.results:
                        env[op.results[0]] = coerce(result, op.results[0].type)
                except InterpreterError:
                    raise
                except MemoryFault as f:
                    raise self.fault(op, f, shape_of(op.operands[0].type)) from None
                except Exception as e:
                    raise self.error(op, f"interpreter failure: {type(e).__name__}: {e}") from e
                continue
            if name in TERMINATORS:
                return [env[v] for v in op.operands]
            gen = GENERATORS.get(name)
            if gen is None:
                raise self.error(op, "the interpreter has no semantics for this operation")
            results = yield from gen(self, op, env)
            for r, v in zip(op.results, results):
                env[r] = v
        return []

    # -- control flow -----------------------------------------------------------------------
    def _for(self, op: Operation, env: dict):
        lb, ub, step = (env[v] for v in op.operands[:3])
        iters = [env[v] for v in op.operands[3:]]
        t = op.operands[0].type
        pred = op.attrs.get("predicate", "slt")
        body = op.regions[0].block
        iv, version = lb, self.memory.version
        while nx.cmpi(pred, iv, ub, t):
            out = yield from self.exec_block(body, [iv] + iters, env)
            nxt = coerce(nx.BINARY["arith.addi"](iv, step, t), t)
            spinning = (self.memory.version == version and same_bits(iv, nxt)
                        and all(same_bits(a, b) for a, b in zip(iters, out)))
            iv, iters = nxt, out
            yield SchedPoint("backedge", op, spinning)
            version = self.memory.version
        return iters

    def _while(self, op: Operation, env: dict):
        before, after = op.regions[0].block, op.regions[1].block
        args, version = [env[v] for v in op.operands], self.memory.version
        while True:
            cond, *forwarded = yield from self.exec_block(before, args, env)
            if not cond:
                return forwarded
            new_args = yield from self.exec_block(after, forwarded, env)
            spinning = self.memory.version == version and all(same_bits(a, b) for a, b in zip(args, new_args))
            args = new_args
            yield SchedPoint("backedge", op, spinning)
            version = self.memory.version

    def _if(self, op: Operation, env: dict):
        region = op.regions[0] if env[op.operands[0]] else op.regions[1]
        return (yield from self.exec_block(region.block, [], env))

    def _call(self, op: Operation, env: dict):
        callee = str(op.attrs["callee"]).lstrip("@")
        f = self.ctx.module.get_function(callee)
        if f is None:
            raise self.error(op, f"call of unknown function @{callee}")
        return (yield from self.call(f, [env[v] for v in op.operands]))

    # -- atomics (scheduling points) --------------------------------------------------------
    def _atomic(self, op: Operation, env: dict):
        yield SchedPoint("atomic", op)
        ptr = env[op.operands[0]]
        el = element_type(op.operands[0].type).pointee
        shape = shape_of(op.results[0].type)
        addr = np.asarray(ptr).reshape(-1)
        if op.name == "tt.atomic_cas":
            kind, mask = "cas", None
            cmp, value = env[op.operands[1]], env[op.operands[2]]
        else:
            kind, cmp, value = op.attrs["kind"], None, env[op.operands[1]]
            mask = env[op.operands[2]] if len(op.operands) > 2 else None
        flat_mask = None if mask is None else np.broadcast_to(mask, shape).reshape(-1)
        try:
            old = self.memory.atomic(kind, addr, np.broadcast_to(value, shape).reshape(-1), flat_mask, el,
                                     None if cmp is None else np.broadcast_to(cmp, shape).reshape(-1))
        except MemoryFault as f:
            raise self.fault(op, f, shape) from None
        if flat_mask is not None:
            old = np.where(flat_mask, old, nx.poison(el, (old.size,)))
        return [coerce(old.reshape(shape), op.results[0].type)]


# --- simple (non-yielding) ops -------------------------------------------------------------

def _el(op: Operation, index: int = 0):
    """Element type of operand ``index`` (``-1``: of the first result)."""
    return element_type(op.results[0].type if index < 0 else op.operands[index].type)


def _constant(ev: Evaluator, op: Operation, _):
    cached = ev.ctx.constants.get(op)
    if cached is not None:
        return cached
    t = op.results[0].type
    el = element_type(t)
    value = op.attrs["value"]
    if isinstance(value, list):
        flat = np.array(value, dtype=object).reshape(-1)
        scal = [_scalar_constant(v, el) for v in flat]
        arr = np.array(scal, dtype=nx.np_dtype(el)).reshape(shape_of(t))
    else:
        arr = np.broadcast_to(_scalar_constant(value, el), shape_of(t))
    result = coerce(arr, t)
    ev.ctx.constants[op] = result
    return result


def _scalar_constant(value, el):
    if isinstance(el, PointerType) or el.is_int:
        return nx.wrap_python_int(int(value), el)
    return nx.round_float(np.float64(value), el)[()]


def _make_range(ev: Evaluator, op: Operation, _):
    cached = ev.ctx.constants.get(op)
    if cached is None:
        cached = np.arange(op.attrs["start"], op.attrs["end"], dtype=np.int32)
        cached.flags.writeable = False
        ev.ctx.constants[op] = cached
    return cached


def _load(ev: Evaluator, op: Operation, vals):
    ptr = vals[0]
    mask = vals[1] if len(vals) > 1 else None
    other = vals[2] if len(vals) > 2 else None
    el = element_type(op.operands[0].type).pointee
    shape = shape_of(op.results[0].type)
    flat_mask = None if mask is None else np.broadcast_to(mask, shape).reshape(-1)
    flat = ev.memory.load(np.asarray(ptr).reshape(-1), flat_mask, el)
    if flat_mask is not None:
        fill = nx.poison(el, shape) if other is None else other
        flat = np.where(flat_mask, flat, np.broadcast_to(fill, shape).reshape(-1))
    return flat.reshape(shape)


def _store(ev: Evaluator, op: Operation, vals):
    ptr, value = vals[0], vals[1]
    mask = vals[2] if len(vals) > 2 else None
    el = element_type(op.operands[0].type).pointee
    shape = shape_of(op.operands[0].type)
    flat_mask = None if mask is None else np.broadcast_to(mask, shape).reshape(-1)
    ev.memory.store(np.asarray(ptr).reshape(-1), np.broadcast_to(value, shape).reshape(-1), flat_mask, el)


def _addptr(ev: Evaluator, op: Operation, vals):
    ptr, off = vals
    size = element_type(op.operands[0].type).pointee.bytes
    offset = np.asarray(nx.signed(off, _el(op, 1))).astype(np.int64)
    return np.asarray(ptr).astype(np.int64) + offset * np.int64(size)


def _binary(ev: Evaluator, op: Operation, vals):
    return nx.BINARY[op.name](vals[0], vals[1], _el(op, -1))


def _dot(ev: Evaluator, op: Operation, vals):
    a, b, acc = vals
    return nx.dot(a, b, acc, _el(op, 0), _el(op, -1), op.attrs.get("input_precision"))


def _reduce(ev: Evaluator, op: Operation, vals):
    return nx.reduce(vals[0], op.attrs["axis"], op.attrs["combine"], _el(op, 0))


def _shape(op: Operation) -> tuple[int, ...]:
    return shape_of(op.results[0].type)


# --- shared-memory buffers (ttg level, ``ir/ttg_ops.py``) -----------------------------------
# A buffer is a writable numpy array (a slot or transposed view shares its memory); copies are
# synchronous, so commit/wait do nothing. A fresh buffer holds poison.

def _local_alloc(ev: Evaluator, op: Operation, vals):
    t = op.results[0].type
    buf = np.array(nx.poison(element_type(t), shape_of(t)), copy=True)
    if vals:
        buf[...] = vals[0]
    return buf


def _local_store(ev: Evaluator, op: Operation, vals):
    vals[1][...] = vals[0]


def _async_copy(ev: Evaluator, op: Operation, vals):
    ptr, dst = vals[0], vals[1]
    mask = vals[2] if len(vals) > 2 else None
    other = vals[3] if len(vals) > 3 else None
    el = element_type(op.operands[1].type)
    shape = shape_of(op.operands[1].type)
    if mask is not None and op.attrs.get("mask_kind") == "limit":
        mask = np.asarray(mask) > 0
    flat_mask = None if mask is None else np.broadcast_to(mask, shape).reshape(-1)
    flat = ev.memory.load(np.asarray(ptr).reshape(-1), flat_mask, el)
    if flat_mask is not None:
        fill = np.zeros(shape, dtype=flat.dtype) if other is None else other
        flat = np.where(flat_mask, flat, np.broadcast_to(fill, shape).reshape(-1))
    dst[...] = flat.reshape(shape)


SIMPLE: dict[str, Callable[[Evaluator, Operation, list], Any]] = {
    "arith.constant": _constant,
    "arith.negf": lambda ev, op, v: nx.round_float(-np.asarray(v[0]).astype(nx.compute_dtype(_el(op, -1))), _el(op, -1)),
    "arith.cmpi": lambda ev, op, v: nx.cmpi(op.attrs["predicate"], v[0], v[1], _el(op, 0)),
    "arith.cmpf": lambda ev, op, v: nx.cmpf(op.attrs["predicate"], v[0], v[1], _el(op, 0)),
    "arith.select": lambda ev, op, v: np.where(v[0], v[1], v[2]),
    "arith.bitcast": lambda ev, op, v: nx.bitcast(v[0], _el(op, 0), _el(op, -1)),
    "math.absi": lambda ev, op, v: nx.absi(v[0], _el(op, -1)),
    "math.fma": lambda ev, op, v: nx.fma(v[0], v[1], v[2], _el(op, -1)),
    "math.philox": lambda ev, op, v: nx.philox_word(v[0], v[1], v[2], op.attrs["word"], _el(op, -1)),
    "tt.get_program_id": lambda ev, op, v: np.int32(ev.pid3[op.attrs["axis"]]),
    "tt.get_num_programs": lambda ev, op, v: np.int32(ev.ctx.grid3[op.attrs["axis"]]),
    "tt.make_range": _make_range,
    "tt.splat": lambda ev, op, v: np.broadcast_to(v[0], _shape(op)),
    "tt.broadcast": lambda ev, op, v: np.broadcast_to(v[0], _shape(op)),
    "tt.expand_dims": lambda ev, op, v: np.expand_dims(v[0], op.attrs["axis"]),
    "tt.reshape": lambda ev, op, v: np.reshape(v[0], _shape(op)),
    "tt.trans": lambda ev, op, v: np.transpose(v[0], tuple(op.attrs["order"])),
    "tt.extract": lambda ev, op, v: np.take(v[0], op.attrs["index"], axis=op.attrs["axis"]),
    "tt.stack": lambda ev, op, v: np.stack(v, axis=op.attrs["axis"]),
    "tt.addptr": _addptr,
    "tt.ptr_to_int": lambda ev, op, v: v[0],
    "tt.int_to_ptr": lambda ev, op, v: v[0],
    "tt.load": _load,
    "tt.store": _store,
    "tt.dot": _dot,
    "tt.reduce": _reduce,
    "gpu.barrier": lambda ev, op, v: None,
    # Layout conversions of the GPU level change no values.
    "ttg.convert_layout": lambda ev, op, v: v[0],
    "ttg.local_alloc": _local_alloc,
    "ttg.local_load": lambda ev, op, v: np.array(v[0], copy=True),
    "ttg.local_store": _local_store,
    "ttg.memdesc_subview": lambda ev, op, v: v[0][int(v[1])],
    "ttg.memdesc_trans": lambda ev, op, v: np.transpose(v[0], tuple(op.attrs["order"])),
    "ttg.memdesc_subslice": lambda ev, op, v: v[0][tuple(slice(o, o + n) for o, n in
                                                        zip(op.attrs["offsets"], shape_of(op.results[0].type)))],
    "ttg.async_copy_global_to_local": _async_copy,
    "ttg.async_commit_group": lambda ev, op, v: None,
    "ttg.async_wait": lambda ev, op, v: None,
    "ttg.wgmma_wait": lambda ev, op, v: v[0],
}
for _name in nx.BINARY:
    SIMPLE[_name] = _binary
for _name in ("arith.extsi", "arith.extui", "arith.trunci", "arith.sitofp", "arith.uitofp", "arith.fptosi",
              "arith.fptoui", "arith.extf", "arith.truncf"):
    SIMPLE[_name] = lambda ev, op, v: nx.cast(op.name, v[0], _el(op, 0), _el(op, -1))
for _name in nx.MATH:
    SIMPLE[_name] = lambda ev, op, v: nx.math_unary(op.name, v[0], _el(op, -1))

TERMINATORS = frozenset({"scf.yield", "scf.condition", "tt.return"})

GENERATORS: dict[str, Callable[[Evaluator, Operation, dict], Generator]] = {
    "scf.for": Evaluator._for,
    "scf.while": Evaluator._while,
    "scf.if": Evaluator._if,
    "tt.call": Evaluator._call,
    "tt.atomic_rmw": Evaluator._atomic,
    "tt.atomic_cas": Evaluator._atomic,
}
