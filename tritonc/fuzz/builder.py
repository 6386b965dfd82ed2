"""The program builder of the generator (:mod:`tritonc.fuzz.gen`) and the helpers its fragments
share.

A :class:`Builder` collects a kernel's parameters, ``__device__`` functions and body lines
while a fragment draws: fresh names, ``int`` values as literals or run-time parameters
(:meth:`~Builder.int_value`), ragged masks, loads from fresh input buffers through pointer
tiles of random layouts and forms (:meth:`~Builder.load`), and dense stores into fresh output
buffers (:meth:`~Builder.store`). A ``*?(m)`` load returns a value *tainted* by ``m`` and a
store of a tainted value is masked by that ``m`` (the rule of :mod:`tritonc.fuzz.gen`).

The comparison tolerance of an output is twice its ``err`` bound (each executor is within
``err`` of the exact result), see :mod:`tritonc.fuzz.compare`.

:func:`index`, :func:`dims` and :func:`dense_strides` write a tile's subscripts, shape and
strides; :func:`reduction` is an expression reduced along an axis, with the interval and error
of the result.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from . import ctypes as C
from .ctypes import CType
from .expressions import Ex, convert, fits
from .program import Buffer, Scalar


def index(rank: int, axis: int) -> str:
    """The subscript that puts a rank-1 tile on ``axis`` of a rank-``rank`` tile."""
    if rank == 1:
        return ""
    return "[" + ", ".join(":" if k == axis else "newaxis" for k in range(rank)) + "]"


def dense_strides(shape) -> list[int]:
    return [int(np.prod(shape[k + 1:])) for k in range(len(shape))]


def dims(shape) -> str:
    return ", ".join(str(s) for s in shape)


class Builder:
    """Collects a kernel's parameters, device functions and body lines while fragments draw."""

    def __init__(self, draw, grid: tuple):
        self.draw = draw
        self.grid = grid
        self.instances = int(np.prod(grid))
        self.params: list = []
        self.lines: list[str] = []
        self.device_fns: list[str] = []
        self.features: list[str] = []
        self.count = 0
        #: Only multiples of 16 (and unit strides, :meth:`int_value`) become ``int``
        #: parameters, so the launch runs the ``__spec16`` or ``__spec_s1_d16`` variant of a
        #: specialised kernel.
        self.spec16 = False
        #: ``float`` products may use TF32 (``CompileOptions.allow_tf32``).
        self.tf32 = False
        #: The program's compile options (:func:`options`), for fragments that aim at a path.
        self.options = {"num_warps": 4, "arch": "sm_90a"}

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def line(self, text: str) -> None:
        self.lines.append("    " + text)

    def scalar(self, t: CType, value, prefix: str = "n") -> str:
        name = self.fresh(prefix)
        self.params.append(Scalar(name, t.name, value))
        return name

    def int_value(self, value: int, prefix: str = "n") -> str:
        """``value`` as a literal or as an ``int`` parameter (known only at run time).

        A stride (``prefix`` ``s``) of 1 may become a parameter even when only multiples of 16
        do otherwise (:attr:`spec16`): a unit innermost stride then gives the launch the
        ``__spec_s1_d16`` variant (the ``eq1`` fact, ``transforms/specialize.py``) rather than
        ``__spec16``; without :attr:`spec16` it gives ``__spec_s1`` or the generic kernel."""
        unit_stride = prefix == "s" and value == 1
        if self.draw(st.booleans()) or (self.spec16 and value % 16 and not unit_stride):
            return str(value)
        if unit_stride:
            self.features.append("param:unit-stride")
        return self.scalar(C.I32, value, prefix)

    def buffer(self, t: CType, size: int, init: tuple, check=None, prefix: str = "X") -> str:
        name = self.fresh(prefix)
        self.params.append(Buffer(name, t.name, size, init, check))
        return name

    def ranges(self, shape: tuple) -> list[str]:
        names = []
        for s in shape:
            n = self.fresh("r")
            self.line(f"int {n}[{s}] = 0 ... {s};")
            names.append(n)
        return names

    def mask(self, shape: tuple, rs: list[str], ragged_axes=None) -> tuple[str, list[int]]:
        """A ragged-bounds mask over ``shape``: ``r_k < n_k`` on some axes; returns its name
        and the valid extents."""
        rank = len(shape)
        extents = []
        terms = []
        for k, s in enumerate(shape):
            ragged = self.draw(st.booleans()) if ragged_axes is None else k in ragged_axes
            e = self.draw(st.integers(1, s)) if ragged else s
            extents.append(e)
            if ragged:
                terms.append(f"{rs[k]}{index(rank, k)} < {self.int_value(e)}")
        if not terms:
            terms.append(f"{rs[0]}{index(rank, 0)} < {self.int_value(shape[0])}")
        m = self.fresh("m")
        self.line(f"bool {m}[{dims(shape)}] = {' && '.join(terms)};")
        return m, extents

    def value_range(self, t: CType) -> tuple[float, float, float]:
        """(lo, hi, step) of the random inputs of type ``t``."""
        if t.kind == "b":
            return 0, 1, 1
        if t.is_float:
            big = self.draw(st.sampled_from([2.0, 2.0, 16.0]))
            return -big, big, 0.125
        r = self.draw(st.sampled_from([3, 100, (1 << (t.bits - 2))]))
        r = min(r, t.max // 2)
        return (0 if t.kind == "u" else -r), r, 1

    def load(self, shape: tuple, t: CType, rs: list[str], style: str | None = None, mask: str | None = None,
             other: str = "0", other_val: float = 0.0, value_range=None) -> Ex:
        """Load a tile of ``shape`` from a fresh input buffer through a tile of pointers with a
        random layout (row-major, axes permuted, strided; strides literal or run-time).

        ``style``: ``plain``, ``ternary`` (``m ? *p : other``), ``maskedload`` (``*?(m) p``:
        the result is tainted by ``m``) or ``predicated`` (``@m x = *p;`` over ``other``)."""
        rank = len(shape)
        perm = self.draw(st.permutations(list(range(rank))))
        factor = self.draw(st.sampled_from([1, 1, 2]))
        storage = [shape[p] for p in perm]
        dense = dense_strides(storage)
        strides = [0] * rank
        for pos, k in enumerate(perm):
            strides[k] = dense[pos] * factor
        block = int(np.prod(shape)) * factor
        lo, hi, step = value_range or self.value_range(t)
        x = self.buffer(t, block * self.instances, ("grid", lo, hi, step), prefix="X")
        off = " + ".join(f"{rs[k]}{index(rank, k)} * {self.int_value(strides[k], 's')}" for k in range(rank))
        p = self.fresh("p")
        self.line(f"{t.name} *{p}[{dims(shape)}] = {x} + pid * {block} + {off};")
        v = self.fresh("x")
        if style is None:
            style = self.draw(st.sampled_from(["plain", "ternary", "predicated", "maskedload"]))
        if style != "plain" and mask is None:
            mask, _ = self.mask(shape, rs)
        taint = None
        if style == "plain":
            self.line(f"{t.name} {v}[{dims(shape)}] = *{p};")
        elif style == "ternary":
            self.line(f"{t.name} {v}[{dims(shape)}] = {mask} ? *{p} : {other};")
            lo, hi = min(lo, other_val), max(hi, other_val)
        elif style == "predicated":
            self.line(f"{t.name} {v}[{dims(shape)}] = {other};")
            self.line(f"@{mask} {v} = *{p};")
            lo, hi = min(lo, other_val), max(hi, other_val)
        else:
            self.line(f"{t.name} {v}[{dims(shape)}] = *?({mask}) {p};")
            taint = mask
        self.features.append(f"load:{style}")
        return Ex(v, t, shape, lo, hi, 0.0, taint)

    def store(self, x: Ex, out_t: CType | None = None, mask: str | None = None, rs: list[str] | None = None) -> None:
        """Store ``x`` (converted to ``out_t`` where that is safe) densely into a fresh output
        buffer, at this program instance's block; masked by ``x``'s taint or by ``mask``."""
        if out_t is not None:
            y = convert(x, out_t)
            if y is None:
                out_t = x.ty
        else:
            out_t = x.ty
        y = convert(x, out_t)
        check = "exact" if (not out_t.is_float or y.err == 0) else ("tol", 2 * y.err)
        shape = x.shape
        block = int(np.prod(shape)) if shape else 1
        out = self.buffer(out_t, block * self.instances, ("poison",), check, prefix="OUT")
        if not shape:
            self.line(f"*({out} + pid) = {x.text};")
            return
        rank = len(shape)
        if rs is None:
            rs = self.ranges(shape)
        strides = dense_strides(shape)
        off = " + ".join(f"{rs[k]}{index(rank, k)} * {strides[k]}" for k in range(rank))
        ptr = f"({out} + pid * {block} + {off})"
        if x.taint:
            mask = x.taint
        elif mask is None and self.draw(st.booleans()):
            mask, _ = self.mask(shape, rs)
        if mask is None:
            self.line(f"*{ptr} = {x.text};")
            return
        if self.draw(st.booleans()):
            self.line(f"*?({mask}) {ptr} = {x.text};")
        else:
            self.line(f"@{mask} *{ptr} = {x.text};")
        self.features.append("store:masked")


def reduction(x: Ex, axis: int, op: str, paper: bool = False) -> Ex | None:
    """``x`` reduced along ``axis`` with ``op`` (the interval and error of the result);
    ``paper``: a sum written ``__sum(x, axis)``."""
    L = x.shape[axis]
    shape = x.shape[:axis] + x.shape[axis + 1:]
    t = x.ty
    if t.kind in "biu" and t.bits < 32:
        t = C.I32  # docs/language.md 7.3: bool, char and short reductions compute in int
    sub = "[" + ", ".join(op if k == axis else ":" for k in range(len(x.shape))) + "]"
    text = f"__sum({x.text}, {axis})" if paper and op == "+" else f"{x.text}{sub}"
    if op == "+":
        lo, hi = min(L * x.lo, x.lo), max(L * x.hi, x.hi)
        if t.is_int and not fits(t, lo, hi):
            if t.kind == "i":
                return None
            lo, hi = t.min, t.max
        err = 0.0
        if t.is_float:
            mag = max(abs(lo), abs(hi))
            if mag > t.max / 16:
                return None
            err = L * x.err + (L - 1) * t.unit_roundoff * L * x.mag + L * t.underflow
        return Ex(text, t, shape, lo, hi, err, None)
    return Ex(text, t, shape, x.lo, x.hi, x.err, None)
