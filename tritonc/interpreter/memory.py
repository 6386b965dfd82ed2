"""Global memory for the interpreter: argument arrays behind fake 64-bit addresses.

Address scheme: pointer argument ``k`` gets the base address ``(k + 1) << 40``; a pointer
value is the int64 ``base + byte offset``. ``tt.addptr`` is plain integer arithmetic on these
addresses, ``tt.ptr_to_int`` / ``tt.int_to_ptr`` are the identity, and a load, store or
atomic *decodes* each address back to (buffer, byte offset) by rounding to the nearest base,
so an address a few bytes before a buffer is reported as a negative offset into it. Address
0 is the null pointer (a ``None`` argument); it belongs to no buffer.

Every access is checked lane by lane (only the lanes its mask enables): the buffer must
exist, ``0 <= offset`` and ``offset + size <= nbytes``, and ``offset`` must be a multiple of
the element size. The first bad lane raises :class:`MemoryFault`, which the evaluator turns
into an :class:`~tritonc.interpreter.errors.InterpreterError` naming op, location, program
id and element index.

Each buffer is a flat ``uint8`` *view* of the caller's (contiguous) array, so writes land in
the caller's array, two arguments that alias the same memory see each other's writes, and the
pointee type may differ from the array's dtype (the bytes are reinterpreted, e.g. an ``f32``
array read through ``ptr<i32>``). Data moves as raw unsigned integers of the element width.

Ordering: a store whose tile holds one address several times keeps the value of the *last*
such lane in row-major order. Atomics with duplicate addresses in one tile apply their lanes
one after another in row-major order, each lane returning the value it replaced, as if the
GPU had serialised them in that order. ``version`` counts the accesses that changed at least
one byte; the scheduler uses it to tell a spinning program instance from one making progress.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .numerics import UINT_BY_BITS, compute_dtype, np_dtype, round_float

SHIFT = 40
_HALF = 1 << (SHIFT - 1)


class MemoryFault(Exception):
    """A bad lane of a memory access: ``lane`` is its flat (row-major) index in the tile."""

    def __init__(self, lane: int, detail: str):
        super().__init__(detail)
        self.lane = lane
        self.detail = detail


@dataclass
class Buffer:
    """One argument array. ``raw`` is its flat uint8 view (shares memory with ``array``)."""

    index: int
    name: str
    array: np.ndarray
    raw: np.ndarray
    views: dict[int, np.ndarray] = field(default_factory=dict)

    @property
    def base(self) -> int:
        return (self.index + 1) << SHIFT

    @property
    def nbytes(self) -> int:
        return self.raw.size

    def view(self, size: int) -> np.ndarray:
        """The buffer as unsigned integers of ``size`` bytes (a trailing partial element is cut)."""
        v = self.views.get(size)
        if v is None:
            n = self.raw.size - self.raw.size % size
            v = self.raw[:n].view(UINT_BY_BITS[8 * size])
            self.views[size] = v
        return v

    def describe(self) -> str:
        shape = ",".join(map(str, self.array.shape))
        return f"argument {self.index} %{self.name} ({self.array.dtype}[{shape}], {self.nbytes} bytes)"


def to_raw(values, t) -> np.ndarray:
    """Values of element type ``t`` as flat unsigned integers of its width (``i1`` as 0/1 bytes)."""
    a = np.asarray(values)
    dt = np_dtype(t)
    if dt == np.bool_:
        return a.astype(np.uint8).reshape(-1)
    return np.ascontiguousarray(a.astype(dt, copy=False)).reshape(-1).view(UINT_BY_BITS[8 * dt.itemsize])


def from_raw(raw: np.ndarray, t) -> np.ndarray:
    """Inverse of :func:`to_raw` (a byte other than 0 reads as ``true`` for ``i1``)."""
    dt = np_dtype(t)
    if dt == np.bool_:
        return raw != 0
    return raw.view(dt)


def _groups(elem: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group lanes by element: ``(order, starts, ranks)`` where ``order`` sorts lanes by element
    (stably, so row-major within a group), ``starts`` are the group boundaries in that order
    (with the end appended) and ``ranks[i]`` counts earlier lanes addressing lane i's element."""
    order = np.argsort(elem, kind="stable")
    s = elem[order]
    pos = np.arange(s.size)
    first = np.ones(s.size, dtype=bool)
    first[1:] = s[1:] != s[:-1]
    rank_sorted = pos - np.maximum.accumulate(np.where(first, pos, 0))
    ranks = np.empty_like(rank_sorted)
    ranks[order] = rank_sorted
    starts = np.append(np.flatnonzero(first), s.size)
    return order, starts, ranks


_RAW_ACCUMULATE = {"add": np.add, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
                   "umax": np.maximum, "umin": np.minimum}
_TYPED_ACCUMULATE = {"max": np.maximum, "min": np.minimum, "fadd": np.add, "fmax": np.fmax, "fmin": np.fmin}


def _sequential(kind: str, init: np.ndarray, vals: np.ndarray, t) -> np.ndarray:
    """Raw memory values before and after each of ``vals`` (raw, in order) is applied to one
    element holding raw ``init``: an array of ``len(vals) + 1`` values. Each step rounds in the
    element type (numpy's ``accumulate`` is sequential), so this equals applying the lanes
    one by one."""
    seq = np.concatenate([init.reshape(1), vals])
    if kind == "xchg":
        return seq
    if kind in _RAW_ACCUMULATE:
        return _RAW_ACCUMULATE[kind].accumulate(seq, dtype=seq.dtype)
    return to_raw(_TYPED_ACCUMULATE[kind].accumulate(from_raw(seq, t)), t)


def _combine(kind: str, old: np.ndarray, val: np.ndarray, cmp: np.ndarray | None, t) -> np.ndarray:
    """New raw value of an atomic ``kind`` from old raw values and raw operands."""
    if kind == "xchg":
        return val
    if kind == "cas":
        return np.where(old == cmp, val, old)
    if kind == "add":
        return old + val
    if kind in ("and", "or", "xor"):
        return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind](old, val)
    if kind in ("umax", "umin"):
        return (np.maximum if kind == "umax" else np.minimum)(old, val)
    typed_old, typed_val = from_raw(old, t), from_raw(val, t)
    if kind in ("max", "min"):
        return to_raw((np.maximum if kind == "max" else np.minimum)(typed_old, typed_val), t)
    ct = compute_dtype(t)
    f = {"fadd": np.add, "fmax": np.fmax, "fmin": np.fmin}[kind]
    return to_raw(round_float(f(typed_old.astype(ct), typed_val.astype(ct)), t), t)


class Memory:
    """The argument buffers of one launch and the access operations on them."""

    def __init__(self) -> None:
        self.buffers: list[Buffer] = []
        self._nbytes = np.zeros(0, dtype=np.int64)
        self.version = 0

    def add(self, array: np.ndarray, name: str) -> int:
        """Register ``array`` (C- or F-contiguous) and return its base address.

        Raises:
            ValueError: the array is not contiguous or holds Python objects.
        """
        for buf in self.buffers:
            if buf.array is array:
                return buf.base
        if not (array.flags.c_contiguous or array.flags.f_contiguous):
            raise ValueError("must be a contiguous array")
        if array.dtype.hasobject:
            raise ValueError(f"cannot be an array of Python objects (dtype {array.dtype})")
        flat = array.reshape(-1, order="A")
        raw = flat.view(np.uint8) if flat.size else np.zeros(0, dtype=np.uint8)
        buf = Buffer(len(self.buffers), name, array, raw)
        self.buffers.append(buf)
        self._nbytes = np.array([b.nbytes for b in self.buffers], dtype=np.int64)
        return buf.base

    # -- address decoding -------------------------------------------------------------------
    def describe_address(self, addr: int, size: int) -> str:
        """Where ``addr`` points, in words, for error messages."""
        if addr == 0:
            return "the null pointer"
        k = ((addr + _HALF) >> SHIFT) - 1
        if not 0 <= k < len(self.buffers):
            return f"address {addr:#x}, which is in no argument buffer"
        buf = self.buffers[k]
        off = addr - buf.base
        where = f"byte offset {off}"
        if off % size == 0:
            where += f" (element {off // size} of {size}-byte elements)"
        return f"{where} of {buf.describe()}"

    def _locate(self, addr: np.ndarray, lanes: np.ndarray, size: int, write: bool):
        """Split active lanes by buffer: yields ``(buffer, lanes, element indices)``; raises MemoryFault."""
        if addr.size == 0:
            return []
        k = ((addr + _HALF) >> SHIFT) - 1
        nbuf = len(self.buffers)
        valid = (k >= 0) & (k < nbuf)
        kc = np.clip(k, 0, max(nbuf - 1, 0))
        nbytes = self._nbytes[kc] if nbuf else np.zeros_like(addr)
        off = addr - ((kc + 1) << SHIFT)
        out_of_bounds = ~valid | (off < 0) | (off + size > nbytes)
        misaligned = (off % size) != 0
        bad = out_of_bounds | misaligned
        if bad.any():
            i = int(np.argmax(bad))
            what = "out-of-bounds" if out_of_bounds[i] else "misaligned"
            rw = "write" if write else "read"
            count = int(bad.sum())
            more = f"; {count} of {addr.size} active lanes are bad" if count > 1 else ""
            raise MemoryFault(int(lanes[i]), f"{what} {size}-byte {rw} of {self.describe_address(int(addr[i]), size)}{more}")
        elem = off // size
        if k[0] == k.min() == k.max():
            buffers = [(self.buffers[int(k[0])], lanes, elem)]
        else:
            buffers = [(self.buffers[int(u)], lanes[k == u], elem[k == u]) for u in np.unique(k)]
        if write:
            for buf, sel, _ in buffers:
                if not buf.raw.flags.writeable:
                    raise MemoryFault(int(sel[0]), f"write to read-only {buf.describe()}")
        return buffers

    @staticmethod
    def _active(n: int, mask: np.ndarray | None) -> np.ndarray:
        return np.arange(n) if mask is None else np.flatnonzero(mask)

    # -- accesses ---------------------------------------------------------------------------
    def load(self, addr: np.ndarray, mask: np.ndarray | None, t) -> np.ndarray:
        """Gather: flat int64 addresses and optional flat bool mask -> flat values of type ``t``.

        Masked-off lanes hold zero bits (the caller fills them with ``other``).
        """
        size = np_dtype(t).itemsize
        lanes = self._active(addr.size, mask)
        raw = np.zeros(addr.size, dtype=UINT_BY_BITS[8 * size])
        for buf, sel, elem in self._locate(addr[lanes], lanes, size, write=False):
            raw[sel] = buf.view(size)[elem]
        return from_raw(raw, t)

    def store(self, addr: np.ndarray, values, mask: np.ndarray | None, t) -> None:
        """Scatter flat ``values`` of type ``t``; among lanes with equal addresses the last wins."""
        size = np_dtype(t).itemsize
        raw = to_raw(np.broadcast_to(values, addr.shape), t)
        lanes = self._active(addr.size, mask)
        changed = False
        for buf, sel, elem in self._locate(addr[lanes], lanes, size, write=True):
            vals = raw[sel]
            if elem.size > 1:
                rev = elem[::-1]
                uniq, first = np.unique(rev, return_index=True)
                if uniq.size < elem.size:
                    keep = elem.size - 1 - first
                    elem, vals = elem[keep], vals[keep]
            view = buf.view(size)
            if not changed:
                changed = bool(np.any(view[elem] != vals))
            view[elem] = vals
        if changed:
            self.version += 1

    def atomic(self, kind: str, addr: np.ndarray, values, mask: np.ndarray | None, t, cmp=None) -> np.ndarray:
        """Read-modify-write ``kind`` (``add fadd max umax min umin fmax fmin xchg and or xor cas``).

        Lanes apply in row-major order; returns the flat old values (zero bits in masked-off lanes).
        """
        size = np_dtype(t).itemsize
        raw_val = to_raw(np.broadcast_to(values, addr.shape), t)
        raw_cmp = None if cmp is None else to_raw(np.broadcast_to(cmp, addr.shape), t)
        lanes = self._active(addr.size, mask)
        old_all = np.zeros(addr.size, dtype=UINT_BY_BITS[8 * size])
        changed = False
        for buf, sel, elem in self._locate(addr[lanes], lanes, size, write=True):
            view = buf.view(size)
            if elem.size > 1:
                order, starts, ranks = _groups(elem)
                rounds, groups = int(ranks.max()) + 1, starts.size - 1
            else:
                ranks, rounds, groups = np.zeros(elem.size, dtype=np.int64), 1, elem.size
            if rounds > groups and kind != "cas":
                # few elements, many lanes each (e.g. a tile summed into one scalar): per element
                for g in range(groups):
                    lane = sel[order[starts[g]:starts[g + 1]]]
                    e = elem[order[starts[g]]]
                    seq = _sequential(kind, view[e], raw_val[lane], t)
                    changed = changed or bool(np.any(seq[1:] != seq[:-1]))
                    view[e] = seq[-1]
                    old_all[lane] = seq[:-1]
                continue
            for r in range(rounds):  # round r applies the r-th lane of every element at once
                pick = ranks == r
                e, lane = elem[pick], sel[pick]
                old = view[e]
                new = _combine(kind, old, raw_val[lane], None if raw_cmp is None else raw_cmp[lane], t)
                changed = changed or bool(np.any(old != new))
                view[e] = new
                old_all[lane] = old
        if changed:
            self.version += 1
        return from_raw(old_all, t)
