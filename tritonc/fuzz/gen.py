"""Hypothesis strategies that generate well-typed Triton-C kernels free of undefined behaviour.

A program is one kernel ``fuzz`` (plus ``__device__`` functions) whose body is a sequence of
*fragments*, each in its own ``{ }`` block, each reading its own inputs and writing its own
outputs. Fragments are registered in :data:`FRAGMENTS` (name -> generator); a new language
feature (``__grid``, polymorphic device functions, ``rand``) is a new entry there plus, where
it needs one, an :class:`~tritonc.fuzz.expressions.ExprGen` rule.

Undefined behaviour is excluded by construction (issue 11, item 1): expressions carry the
interval of their values and, for floats, a bound on their error, and are generated only where
they are defined and every executor agrees on what decides something discontinuous (see
:mod:`tritonc.fuzz.expressions`); fragments keep to the same rules; a value loaded by ``*?(m)``
(masked-off lanes undefined) is *tainted* by ``m``: it reaches only element-wise operations and
a store masked by the same ``m``.

The comparison tolerance of an output is twice its ``err`` bound (each executor is within
``err`` of the exact result), see :mod:`tritonc.fuzz.compare`.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from hypothesis import strategies as st

from . import ctypes as C
from .ctypes import CType
from .expressions import APPROX, Ex, ExprGen, fits, round_err, convert
from .program import Buffer, Program, Scalar

ARCHS = ("sm_80", "sm_90", "sm_90a")


# ------------------------------------------------------------------------------------------
# programs: a builder and the fragments
# ------------------------------------------------------------------------------------------

def _index(rank: int, axis: int) -> str:
    """The subscript that puts a rank-1 tile on ``axis`` of a rank-``rank`` tile."""
    if rank == 1:
        return ""
    return "[" + ", ".join(":" if k == axis else "newaxis" for k in range(rank)) + "]"


def _dense_strides(shape) -> list[int]:
    return [int(np.prod(shape[k + 1:])) for k in range(len(shape))]


def _dims(shape) -> str:
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
                terms.append(f"{rs[k]}{_index(rank, k)} < {self.int_value(e)}")
        if not terms:
            terms.append(f"{rs[0]}{_index(rank, 0)} < {self.int_value(shape[0])}")
        m = self.fresh("m")
        self.line(f"bool {m}[{_dims(shape)}] = {' && '.join(terms)};")
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
        dense = _dense_strides(storage)
        strides = [0] * rank
        for pos, k in enumerate(perm):
            strides[k] = dense[pos] * factor
        block = int(np.prod(shape)) * factor
        lo, hi, step = value_range or self.value_range(t)
        x = self.buffer(t, block * self.instances, ("grid", lo, hi, step), prefix="X")
        off = " + ".join(f"{rs[k]}{_index(rank, k)} * {self.int_value(strides[k], 's')}" for k in range(rank))
        p = self.fresh("p")
        self.line(f"{t.name} *{p}[{_dims(shape)}] = {x} + pid * {block} + {off};")
        v = self.fresh("x")
        if style is None:
            style = self.draw(st.sampled_from(["plain", "ternary", "predicated", "maskedload"]))
        if style != "plain" and mask is None:
            mask, _ = self.mask(shape, rs)
        taint = None
        if style == "plain":
            self.line(f"{t.name} {v}[{_dims(shape)}] = *{p};")
        elif style == "ternary":
            self.line(f"{t.name} {v}[{_dims(shape)}] = {mask} ? *{p} : {other};")
            lo, hi = min(lo, other_val), max(hi, other_val)
        elif style == "predicated":
            self.line(f"{t.name} {v}[{_dims(shape)}] = {other};")
            self.line(f"@{mask} {v} = *{p};")
            lo, hi = min(lo, other_val), max(hi, other_val)
        else:
            self.line(f"{t.name} {v}[{_dims(shape)}] = *?({mask}) {p};")
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
        strides = _dense_strides(shape)
        off = " + ".join(f"{rs[k]}{_index(rank, k)} * {strides[k]}" for k in range(rank))
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


@st.composite
def shapes(draw, min_rank=1, max_rank=3, max_elems=1024, min_dim=1, max_dim=64):
    rank = draw(st.integers(min_rank, max_rank))
    dims = []
    for _ in range(rank):
        dims.append(draw(st.sampled_from([d for d in (1, 2, 4, 8, 16, 32, 64) if min_dim <= d <= max_dim])))
    while int(np.prod(dims)) > max_elems:
        k = int(np.argmax(dims))
        dims[k] //= 2
    return tuple(dims)


def _types(draw, floats=True):
    return draw(st.sampled_from(C.ALL if floats else (C.BOOL,) + C.INTS))


def frag_elementwise(b: Builder) -> None:
    """Loads of several types and layouts (some broadcast from a lower rank with ``newaxis``),
    an element-wise expression over them, ranges, scalars and constants, and a store."""
    draw = b.draw
    shape = draw(shapes())
    rs = b.ranges(shape)
    rank = len(shape)
    mask, _ = b.mask(shape, rs)
    leaves = []
    for _ in range(draw(st.integers(1, 3))):
        t = _types(draw)
        if rank > 1 and draw(st.integers(0, 3)) == 0:  # a lower-rank tile broadcast with newaxis
            k = draw(st.integers(0, rank - 1))
            sub = tuple(s for j, s in enumerate(shape) if j != k)
            srs = [r for j, r in enumerate(rs) if j != k]
            x = b.load(sub, t, srs, style=draw(st.sampled_from(["plain", "ternary"])))
            idx = "[" + ", ".join("newaxis" if j == k else ":" for j in range(rank)) + "]"
            leaves.append(replace(x, text=f"{x.text}{idx}", shape=tuple(1 if j == k else s for j, s in enumerate(shape))))
            b.features.append("newaxis")
        else:
            leaves.append(b.load(shape, t, rs, mask=mask, other=draw(st.sampled_from(["0", "1"])),
                                 other_val=0.0))
    for k in range(rank):
        if draw(st.integers(0, 3)) == 0:
            leaves.append(Ex(f"{rs[k]}{_index(rank, k)}", C.I32, tuple(s if j == k else 1 for j, s in enumerate(shape)),
                             0, shape[k] - 1))
    leaves.append(Ex("pid", C.I32, (), 0, b.instances - 1))
    if draw(st.booleans()):
        ft = draw(st.sampled_from([C.F32, C.I32, C.F16]))
        val = draw(st.sampled_from([0.5, -1.25, 3.0])) if ft.is_float else draw(st.integers(-5, 5))
        leaves.append(Ex(b.scalar(ft, val, "a"), ft, (), val, val))
    # fix the other value of ternary/predicated loads: they used "0" or "1"
    leaves = [replace(x, lo=min(x.lo, 0), hi=max(x.hi, 1)) if x.ty.kind != "b" else x for x in leaves]
    gen = ExprGen(draw, leaves)
    x = gen.expr(shape, draw(st.integers(1, 4)))
    x = _full_shape(b, x, shape)
    b.store(x, out_t=draw(st.sampled_from([None, C.F32, C.I32, C.F16, C.U8])), mask=mask if x.taint else None, rs=rs)
    b.features.append("elementwise")


def _full_shape(b: Builder, x: Ex, shape: tuple) -> Ex:
    """``x`` broadcast to ``shape`` (a declared variable of that shape)."""
    if x.shape == shape:
        return x
    v = b.fresh("v")
    b.line(f"{x.ty.name} {v}[{_dims(shape)}] = {x.text};")
    return replace(x, text=v, shape=shape)


def _reduce(x: Ex, axis: int, op: str, paper: bool = False) -> Ex | None:
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


def frag_reduce(b: Builder) -> None:
    """A ragged tile (masked-off lanes set to a neutral value), optionally transformed
    element-wise, reduced with ``+ max min`` along random axes, possibly down to a scalar."""
    draw = b.draw
    shape = draw(shapes(max_elems=2048))
    rs = b.ranges(shape)
    t = _types(draw)
    op = draw(st.sampled_from(["+", "max", "min"]))
    if t.is_float:
        other, val = {"+": ("0", 0.0), "max": ("-100", -100.0), "min": ("100", 100.0)}[op]
        if op != "+" and t == C.F32 and draw(st.booleans()):
            other, val = ("-F32_INFINITY", -math.inf) if op == "max" else ("F32_INFINITY", math.inf)
    else:
        other, val = "0", 0.0
    x = b.load(shape, t, rs, style=draw(st.sampled_from(["plain", "ternary", "predicated"])), other=other,
               other_val=val if math.isfinite(val) else 0.0)
    if draw(st.booleans()) and math.isfinite(val):
        x = _full_shape(b, ExprGen(draw, [x]).expr(shape, draw(st.integers(1, 2))), shape)
    while True:
        axis = draw(st.integers(0, len(x.shape) - 1))
        o = op if draw(st.integers(0, 2)) else draw(st.sampled_from(["+", "max", "min"]))
        if not math.isfinite(val) and o != op:
            o = op
        y = _reduce(x, axis, o, paper=draw(st.integers(0, 3)) == 0)
        if y is None:
            break
        b.features.append(f"reduce:{o}")
        if y.shape and draw(st.booleans()):
            v = b.fresh("red")
            b.line(f"{y.ty.name} {v}[{_dims(y.shape)}] = {y.text};")
            y = replace(y, text=v)
        elif not y.shape:
            v = b.fresh("red")
            b.line(f"{y.ty.name} {v} = {y.text};")
            y = replace(y, text=v)
        x = y
        if not x.shape or draw(st.booleans()):
            break
    if x.shape == shape:  # nothing reduced
        return
    b.store(x)


DOT_TYPES = {  # operand type -> (accumulator type, input range)
    "half": (C.F32, (-2.0, 2.0, 0.125)), "bfloat16": (C.F32, (-2.0, 2.0, 0.125)),
    "float": (C.F32, (-2.0, 2.0, 0.125)), "int8": (C.I32, (-100, 100, 1)),
}


def _dot_err(a: Ex, b_: Ex, k: int, acc_t: CType, tf32: bool) -> float:
    mag = k * a.mag * b_.mag
    if acc_t.is_int:
        return 0.0
    e = k * (a.mag * b_.err + b_.mag * a.err + a.err * b_.err) + 2 * k * acc_t.unit_roundoff * mag + k * acc_t.underflow
    if tf32:
        e += k * a.mag * b_.mag * 2 * 2.0 ** -10
    return e


def _operand(b: Builder, rows: int, cols: int, t: CType, r_rows: str, r_cols: str, rng, mask_axis: int | None,
             bound: str | None) -> tuple[Ex, str]:
    """Load a ``[rows, cols]`` operand, possibly stored transposed (loaded as ``[cols, rows]``
    and transposed with ``^x``, ``trans(x)`` or ``x[^1, ^0]``), masked along one axis."""
    draw = b.draw
    transposed = draw(st.booleans())
    shape = (cols, rows) if transposed else (rows, cols)
    rs = [r_cols, r_rows] if transposed else [r_rows, r_cols]
    style, mask = "plain", None
    if mask_axis is not None and bound is not None:
        ax = (1 - mask_axis) if transposed else mask_axis
        mask = b.fresh("m")
        b.line(f"bool {mask}[{_dims(shape)}] = {rs[ax]}{_index(2, ax)} < {bound};")
        style = "ternary"
    x = b.load(shape, t, rs, style=style, mask=mask, value_range=rng)
    if transposed:
        form = draw(st.sampled_from(["^{}", "trans({})", "{}[^1, ^0]"]))
        v = b.fresh("t")
        b.line(f"{t.name} {v}[{rows}, {cols}] = {form.format(x.text)};")
        x = replace(x, text=v, shape=(rows, cols))
        b.features.append("transpose")
    return x, shape


def frag_dot(b: Builder) -> None:
    """``a @ b`` with random M, N, K and operand types, operands stored transposed or not,
    ragged along K; optionally inside a loop over K (software pipelining) and accumulated."""
    draw = b.draw
    tname = draw(st.sampled_from(list(DOT_TYPES)))
    t = C.BY_NAME[tname]
    acc_t, rng = DOT_TYPES[tname]
    M, N, K = (draw(st.sampled_from([8, 16, 32, 64])) for _ in range(3))
    while M * N > 4096 or M * K > 4096 or K * N > 4096:
        M //= 2
    warps = b.options["num_warps"]
    wgmma = b.options["arch"] == "sm_90a" and warps <= 8 and acc_t.is_float and draw(st.booleans())
    if wgmma:  # docs/language.md 7.8: at least 16 accumulator rows per warp, K >= 32
        M = min(128, 16 * warps * draw(st.sampled_from([1, 2])))
        M = max(M, 64)
        K = max(K, 32)
        N = min(N, 4096 // M)
        b.features.append("dot:wgmma-shape")
    tf32 = t == C.F32 and b.tf32
    iters = draw(st.sampled_from([1, 1, 2, 3]))
    rm, rn, rk = b.fresh("rm"), b.fresh("rn"), b.fresh("rk")
    b.line(f"int {rm}[{M}] = 0 ... {M};")
    b.line(f"int {rn}[{N}] = 0 ... {N};")
    b.line(f"int {rk}[{K}] = 0 ... {K};")
    acc = b.fresh("acc")
    form = draw(st.sampled_from(["+=", "dot3", "=+"]))
    ragged_k = draw(st.booleans())
    kb = draw(st.integers(1, K)) if ragged_k else K
    if iters == 1:
        a, _ = _operand(b, M, K, t, rm, rk, rng, 1, b.int_value(kb) if ragged_k else None)
        bb, _ = _operand(b, K, N, t, rk, rn, rng, 0, b.int_value(kb) if ragged_k else None)
        k_total = K
        b.line(f"{acc_t.name} {acc}[{M}, {N}] = 0;")
        if form == "+=":
            b.line(f"{acc} += {a.text} @ {bb.text};")
        elif form == "dot3":
            b.line(f"{acc} = dot({a.text}, {bb.text}, {acc});")
        else:
            b.line(f"{acc} = {a.text} @ {bb.text};")
    else:
        # A is [M, iters*K] row-major, B is [iters*K, N]; the loop advances the pointers
        lda, ldb = iters * K, N
        xa = b.buffer(t, M * lda * b.instances, ("grid",) + rng, prefix="A")
        xb = b.buffer(t, lda * N * b.instances, ("grid",) + rng, prefix="B")
        pa, pb = b.fresh("pa"), b.fresh("pb")
        b.line(f"{t.name} *{pa}[{M}, {K}] = {xa} + pid * {M * lda} + {rm}[:, newaxis] * {b.int_value(lda, 'ld')} + {rk}[newaxis, :];")
        b.line(f"{t.name} *{pb}[{K}, {N}] = {xb} + pid * {lda * N} + {rk}[:, newaxis] * {b.int_value(ldb, 'ld')} + {rn}[newaxis, :];")
        b.line(f"{acc_t.name} {acc}[{M}, {N}] = 0;")
        total = (iters - 1) * K + kb
        kvar = b.fresh("k")
        carried = None
        if ragged_k or draw(st.booleans()):
            bound = b.int_value(total)
            if draw(st.booleans()):
                b.line(f"for (int {kvar} = {bound}; {kvar} > 0; {kvar} -= {K}) {{")
                b.line(f"  {t.name} a[{M}, {K}] = {rk}[newaxis, :] < {kvar} ? *{pa} : 0;")
                b.line(f"  {t.name} b[{K}, {N}] = {rk}[:, newaxis] < {kvar} ? *{pb} : 0;")
            else:  # split-K's form: the K indices carried by the loop, both operands masked by them
                carried = b.fresh("rkc")
                b.line(f"int {carried}[{K}] = {rk};")
                b.line(f"for (int {kvar} = 0; {kvar} < {bound}; {kvar} += {K}) {{")
                b.line(f"  {t.name} a[{M}, {K}] = {carried}[newaxis, :] < {bound} ? *{pa} : 0;")
                b.line(f"  {t.name} b[{K}, {N}] = {carried}[:, newaxis] < {bound} ? *{pb} : 0;")
                b.features.append("dot:carried-k")
        else:
            b.line(f"for (int {kvar} = 0; {kvar} < {b.int_value(iters)}; {kvar}++) {{")
            b.line(f"  {t.name} a[{M}, {K}] = *{pa};")
            b.line(f"  {t.name} b[{K}, {N}] = *{pb};")
        b.line("  " + (f"{acc} += a @ b;" if form != "dot3" else f"{acc} = dot(a, b, {acc});"))
        b.line(f"  {pa} += {K};")
        b.line(f"  {pb} += {K} * {N};")
        if carried is not None:
            b.line(f"  {carried} += {K};")
        b.line("}")
        k_total = iters * K
        lo, hi, _ = rng
        a = Ex("a", t, (M, K), lo, hi)
        bb = Ex("b", t, (K, N), lo, hi)
        b.features.append("dot:loop")
    mag = k_total * a.mag * bb.mag
    res = Ex(acc, acc_t, (M, N), -mag, mag, _dot_err(a, bb, k_total, acc_t, tf32))
    b.features.append(f"dot:{tname}{':tf32' if tf32 else ''}")
    epilogue = draw(st.sampled_from(["none", "none", "reduce", "bias"]))
    if epilogue == "reduce":  # a reduction of the product's layout (mma/wgmma accumulators)
        red = _reduce(res, draw(st.integers(0, 1)), draw(st.sampled_from(["+", "max", "min"])))
        if red is not None:
            b.features.append("dot:epilogue-reduce")
            b.store(red)
            return
    elif epilogue == "bias":  # a broadcast row added to the accumulator
        rng_b = (-2.0, 2.0, 0.125) if acc_t.is_float else (-100, 100, 1)
        bias = b.load((N,), acc_t, [rn], style="plain", value_range=rng_b)
        e = res.err + (round_err(acc_t, res.mag + bias.mag) if acc_t.is_float else 0.0)
        res = Ex(f"({acc} + {bias.text}[newaxis, :])", acc_t, (M, N), res.lo + bias.lo, res.hi + bias.hi, e)
        b.features.append("dot:epilogue-bias")
    b.store(res, out_t=draw(st.sampled_from([None, C.F16])) if acc_t.is_float else None)


def frag_attention(b: Builder) -> None:
    """Two chained products with a row softmax between them (attention-like):
    ``o = softmax(q @ k^T * scale) @ v``, f16 operands, float accumulation."""
    draw = b.draw
    M, N, D = (draw(st.sampled_from([16, 32, 64])) for _ in range(3))
    t = draw(st.sampled_from([C.F16, C.BF16]))
    rng = (-1.0, 1.0, 0.125)
    rm, rn, rd = b.fresh("rm"), b.fresh("rn"), b.fresh("rd")
    for r, n in ((rm, M), (rn, N), (rd, D)):
        b.line(f"int {r}[{n}] = 0 ... {n};")
    q = b.load((M, D), t, [rm, rd], style="plain", value_range=rng)
    k = b.load((N, D), t, [rn, rd], style="plain", value_range=rng)
    v = b.load((N, D), t, [rn, rd], style="plain", value_range=rng)
    s, p, p16, l, o = (b.fresh(n) for n in ("s", "p", "p16", "l", "o"))
    b.line(f"float {s}[{M}, {N}] = ({q.text} @ ^{k.text}) * 0.125f;")
    es = _dot_err(q, k, D, C.F32, False) * 0.125 + round_err(C.F32, D * 0.125)
    b.line(f"float {p}[{M}, {N}] = exp({s} - {s}[:, max][:, newaxis]);")
    ep = 2 * es + round_err(C.F32, 2 * D * 0.125) + APPROX + C.F32.underflow
    b.line(f"{t.name} {p16}[{M}, {N}] = {p};")
    b.line(f"float {l}[{M}] = {p}[:, +];")
    b.line(f"float {o}[{M}, {D}] = ({p16} @ {v.text}) / {l}[:, newaxis];")
    # o is a weighted mean of v's rows: with p16 = p (1 + t), |t| <= r, and the sums' relative
    # errors, |o - o_exact| <= (2 r + 2 N u) |v|max (plus the division's rounding)
    r = ep + round_err(t, 1.0)
    mo = v.mag
    err = (2 * r + 4 * N * C.F32.unit_roundoff) * mo + 4 * round_err(C.F32, mo)
    b.features.append("attention")
    b.store(Ex(o, C.F32, (M, D), -mo, mo, err))


def frag_flash_attention(b: Builder) -> None:
    """Flash attention's forward loop (FA-2, online softmax): chained products with row
    reductions (``max``, ``+``) and element-wise ops on the accumulator between them, the row
    statistics and the accumulator carried by the loop, the last key block ragged. Shapes
    include ``M = 16 num_warps`` (warps stacked along M: the second product reads ``p`` from
    the first one's registers) and ``D, BN >= 32`` (wgmma on sm_90a). Also stores the row
    maxima."""
    draw = b.draw
    warps = b.options["num_warps"]
    t = draw(st.sampled_from([C.F16, C.BF16]))
    # Below 4 warps (no wgmma there) the tiles stay at most 32 wide and at most 1024 elements
    # a warp: a 64 x 64 chain at one warp is 128 elements a thread in each of six tiles, whose
    # LLVM code generation takes 10-45 s (seen on the GPU target: hypothesis mutating around
    # such a program kept one worker busy for minutes).
    widths = [16, 32, 64] if warps >= 4 else [16, 32]
    D = draw(st.sampled_from(widths))
    BN = draw(st.sampled_from(widths))
    M = draw(st.sampled_from([16, 32, 64, min(128, 16 * warps)]))
    while M * max(D, BN) > 1024 * min(warps, 4) and M > 16:
        M //= 2
    iters = draw(st.integers(1, 3))
    total = iters * BN
    valid = draw(st.integers(total - BN + 1, total))
    rng = (-1.0, 1.0, 0.125)
    rm, rn, rd = b.fresh("rm"), b.fresh("rn"), b.fresh("rd")
    for r, n in ((rm, M), (rn, BN), (rd, D)):
        b.line(f"int {r}[{n}] = 0 ... {n};")
    q = b.load((M, D), t, [rm, rd], style="plain", value_range=rng)
    kbuf = b.buffer(t, total * D * b.instances, ("grid",) + rng, prefix="K")
    vbuf = b.buffer(t, total * D * b.instances, ("grid",) + rng, prefix="V")
    pk, pv, m_i, l_i, acc, n = (b.fresh(x) for x in ("pk", "pv", "mi", "li", "acc", "n"))
    kt, vt, s, mn, al, p, p16, o = (b.fresh(x) for x in ("kt", "vt", "s", "mn", "al", "p", "ph", "o"))
    b.line(f"{t.name} *{pk}[{D}, {BN}] = {kbuf} + pid * {total * D} + {rn}[newaxis, :] * {D} + {rd}[:, newaxis];")
    b.line(f"{t.name} *{pv}[{BN}, {D}] = {vbuf} + pid * {total * D} + {rn}[:, newaxis] * {D} + {rd}[newaxis, :];")
    b.line(f"float {m_i}[{M}] = -F32_INFINITY;")
    b.line(f"float {l_i}[{M}] = 0;")
    b.line(f"float {acc}[{M}, {D}] = 0;")
    b.line(f"for (int {n} = 0; {n} < {b.int_value(total)}; {n} += {BN}) {{")
    b.line(f"  {t.name} {kt}[{D}, {BN}] = *{pk};")
    b.line(f"  {t.name} {vt}[{BN}, {D}] = *{pv};")
    b.line(f"  float {s}[{M}, {BN}] = ({q.text} @ {kt}) * 0.125f;")
    b.line(f"  {s} = ({n} + {rn})[newaxis, :] < {b.int_value(valid)} ? {s} : -F32_INFINITY;")
    b.line(f"  float {mn}[{M}] = max({m_i}, {s}[:, max]);")
    b.line(f"  float {al}[{M}] = exp({m_i} - {mn});")
    b.line(f"  float {p}[{M}, {BN}] = exp({s} - {mn}[:, newaxis]);")
    b.line(f"  {l_i} = {l_i} * {al} + {p}[:, +];")
    b.line(f"  {t.name} {p16}[{M}, {BN}] = {p};")
    b.line(f"  {acc} = {acc} * {al}[:, newaxis] + {p16} @ {vt};")
    b.line(f"  {m_i} = {mn};")
    b.line(f"  {pk} += {BN * D};")
    b.line(f"  {pv} += {BN * D};")
    b.line("}")
    b.line(f"float {o}[{M}, {D}] = {acc} / {l_i}[:, newaxis];")
    smag = D * 0.125
    es = _dot_err(q, Ex("k", t, (D, BN), -1.0, 1.0), D, C.F32, False) * 0.125 + round_err(C.F32, smag)
    # p = exp(s - m) to 2 es + APPROX relative; p16 one more rounding. The rescales by alpha
    # (APPROX each) scale acc and l alike but not the new block: o is a weighted mean of v's
    # rows whose weights are off by those relative errors, plus the sums' roundings.
    ep = 2 * es + round_err(C.F32, 2 * smag) + APPROX + C.F32.underflow
    r = ep + round_err(t, 1.0)
    mo = 1.0
    err = (2 * r + 2 * iters * (APPROX + 4 * C.F32.unit_roundoff) + 4 * total * C.F32.unit_roundoff) * mo \
        + 4 * round_err(C.F32, mo)
    b.features.append("attention:online")
    if M % (16 * warps) == 0:
        b.features.append("attention:registers")
    b.store(Ex(o, C.F32, (M, D), -mo, mo, err))
    b.store(Ex(m_i, C.F32, (M,), -smag, smag, es))


def frag_bmm(b: Builder) -> None:
    """A batched product ``[M, K, B] @ [K, N, B] -> [M, N, B]`` (trailing batch axis)."""
    draw = b.draw
    M, N, K = (draw(st.sampled_from([4, 8, 16])) for _ in range(3))
    B = draw(st.sampled_from([1, 2, 4]))
    t = draw(st.sampled_from([C.F32, C.F16]))
    rng = (-2.0, 2.0, 0.125)
    rm, rn, rk, rb = b.fresh("rm"), b.fresh("rn"), b.fresh("rk"), b.fresh("rb")
    for r, n in ((rm, M), (rn, N), (rk, K), (rb, B)):
        b.line(f"int {r}[{n}] = 0 ... {n};")
    a = b.load((M, K, B), t, [rm, rk, rb], style="plain", value_range=rng)
    bb = b.load((K, N, B), t, [rk, rn, rb], style="plain", value_range=rng)
    c = b.fresh("c")
    b.line(f"float {c}[{M}, {N}, {B}] = {a.text} @ {bb.text};")
    mag = K * 4.0
    b.features.append("dot:batched")
    b.store(Ex(c, C.F32, (M, N, B), -mag, mag, _dot_err(a, bb, K, C.F32, False)))


def frag_loop(b: Builder) -> None:
    """A loop with loop-carried tiles (an accumulator and a pointer tile), in ``for``,
    ``while`` or ``do``/``while`` form, with ``continue`` and ``break`` on scalar conditions."""
    draw = b.draw
    shape = draw(shapes(max_rank=2, max_elems=512))
    rs = b.ranges(shape)
    t = draw(st.sampled_from([C.F32, C.I32, C.F16, C.I64, C.U32]))
    iters = draw(st.integers(1, 5))
    block = int(np.prod(shape))
    lo, hi, step = (-2.0, 2.0, 0.125) if t.is_float else (-50, 50, 1)
    if t.kind == "u":
        lo = 0
    x = b.buffer(t, block * iters * b.instances, ("grid", lo, hi, step), prefix="X")
    rank = len(shape)
    strides = _dense_strides(shape)
    off = " + ".join(f"{rs[k]}{_index(rank, k)} * {strides[k]}" for k in range(rank))
    p, acc, i = b.fresh("p"), b.fresh("acc"), b.fresh("i")
    b.line(f"{t.name} *{p}[{_dims(shape)}] = {x} + pid * {block * iters} + {off};")
    at = C.F32 if t.is_float else t
    b.line(f"{at.name} {acc}[{_dims(shape)}] = 0;")
    nit = b.int_value(iters, "it")
    cont = draw(st.one_of(st.none(), st.integers(0, 4)))
    brk = draw(st.one_of(st.none(), st.integers(0, 5)))
    form = draw(st.sampled_from(["for", "while", "do"]))
    op = draw(st.sampled_from(["+", "max"]))
    body = []
    if cont is not None:
        body.append(f"if ({i} == {cont}) {{ {p} += {block}; {'' if form == 'for' else f'{i}++; '}continue; }}")
    if brk is not None:
        body.append(f"if ({i} == {brk}) break;")
    if op == "+":
        body.append(f"{acc} += *{p};" if draw(st.booleans()) else f"{acc} = {acc} + *{p} * 2;")
    else:
        body.append(f"{acc} = max({acc}, *{p});")
    body.append(f"{p} += {block};")
    if form == "for":
        b.line(f"for (int {i} = 0; {i} < {nit}; {i}++) {{")
        for s in body:
            b.line("  " + s)
        b.line("}")
    elif form == "while":
        b.line(f"int {i} = 0;")
        b.line(f"while ({i} < {nit}) {{")
        for s in body:
            b.line("  " + s)
        b.line(f"  {i}++;")
        b.line("}")
    else:
        b.line(f"int {i} = 0;")
        b.line("do {")
        for s in body:
            b.line("  " + s)
        b.line(f"  {i}++;")
        b.line(f"}} while ({i} < {nit});")
    mult = 2 if "* 2" in body[-2] else 1
    if op == "+":
        alo, ahi = min(0, iters * lo * mult), max(0, iters * hi * mult)
        err = 0.0 if not t.is_float else iters * round_err(C.F32, max(abs(alo), abs(ahi)))
    else:
        alo, ahi, err = min(0, lo), max(0, hi), 0.0
    b.features.append(f"loop:{form}")
    b.store(Ex(acc, at, shape, alo, ahi, err))


#: ``a pred b`` is ``b _FLIPPED[pred] a``.
_FLIPPED = {"<=": ">=", "<": ">", ">": "<", ">=": "<="}


def frag_bound_branch(b: Builder) -> None:
    """A branch of the kernel's body on an ``int`` parameter compared with a constant, as
    softmax's ``if (N <= BLOCK)``: a specialised kernel's bounded variant (``le<K>``,
    ``transforms/specialize.py``) decides it, and runs on either side of its bound."""
    draw = b.draw
    shape = draw(shapes(max_rank=2, max_elems=256))
    rs = b.ranges(shape)
    t = draw(st.sampled_from([C.F32, C.I32]))
    x = b.load(shape, t, rs)
    value = 16 * draw(st.integers(0, 8))  # a multiple of 16: the __spec16 facts hold too
    n = b.scalar(C.I32, value, "n")
    const = value + draw(st.integers(-20, 20))
    pred = draw(st.sampled_from(list(_FLIPPED)))
    cond = f"{n} {pred} {const}" if draw(st.booleans()) else f"{const} {_FLIPPED[pred]} {n}"
    y = b.fresh("y")
    b.line(f"{t.name} {y}[{_dims(shape)}] = {x.text};")
    b.line(f"if ({cond}) {{")
    b.line(f"  {y} = {y} + 1;")
    b.line("} else {")
    b.line(f"  {y} = {y} - 2;")
    b.line("}")
    b.features.append("branch:bound")
    err = round_err(C.F32, max(abs(x.lo), abs(x.hi)) + 2) if t.is_float else 0.0
    b.store(Ex(y, t, shape, x.lo - 2, x.hi + 1, x.err + err, x.taint))


def frag_atomics(b: Builder) -> None:
    """Atomics: commutative ones on shared, duplicate addresses (final memory compared) and
    ``xchg``/``cas``/``add`` with one writer per address (returned old values compared)."""
    draw = b.draw
    L = draw(st.sampled_from([4, 16, 64]))
    r = b.fresh("r")
    b.line(f"int {r}[{L}] = 0 ... {L};")
    kind = draw(st.sampled_from(["add", "max", "min", "fadd", "xchg", "cas", "add_old", "scalar"]))
    if kind in ("add", "max", "min"):
        t = draw(st.sampled_from([C.I32, C.U32, C.I64, C.U64] + ([C.F32] if kind != "add" else [])))
        D = draw(st.sampled_from([1, 3, L]))
        lo, hi = (0 if t.kind == "u" else -40), 40
        acc = b.buffer(t, D, ("grid", lo, hi, 1), "exact", prefix="ACC")
        v = b.load((L,), t, [r], style="plain", value_range=(lo, hi, 1))
        m = f", {r} < {b.int_value(draw(st.integers(1, L)))}" if draw(st.booleans()) else ""
        b.line(f"atomic_{kind}({acc} + {r} % {D}, {v.text}{m});")
    elif kind == "fadd":
        t = draw(st.sampled_from([C.F32, C.F16]))
        D = draw(st.sampled_from([1, 3, L]))
        acc = b.buffer(t, D, ("grid", -2, 2, 0.25), None, prefix="ACC")
        v = b.load((L,), t, [r], style="plain", value_range=(-2.0, 2.0, 0.25))
        n = L * b.instances // D + 1
        mag = 2.0 * (n + 1)
        next(p for p in b.params if p.name == acc).check = ("tol", 2 * n * round_err(t, mag))
        b.line(f"atomic_add({acc} + {r} % {D}, {v.text});")
    elif kind in ("xchg", "cas", "add_old"):
        t = draw(st.sampled_from([C.I32, C.U32, C.I64, C.F32] + ([C.F64] if kind != "add_old" else [])))
        dst = b.buffer(t, L * b.instances, ("grid", 0, 30, 1), "exact", prefix="DST")
        v = b.load((L,), t, [r], style="plain", value_range=(0, 30, 1))
        old = b.buffer(t, L * b.instances, ("poison",), "exact", prefix="OLD")
        addr = f"{dst} + pid * {L} + ({L - 1} - {r})"
        if kind == "xchg":
            b.line(f"*({old} + pid * {L} + {r}) = atomic_xchg({addr}, {v.text});")
        elif kind == "add_old":
            b.line(f"*({old} + pid * {L} + {r}) = atomic_add({addr}, {v.text});")
        else:
            cmp = draw(st.sampled_from(["cur", "v"]))
            if cmp == "cur":
                b.line(f"{t.name} cur{r}[{L}] = *({addr});")
                b.line(f"*({old} + pid * {L} + {r}) = atomic_cas({addr}, cur{r}, {v.text});")
            else:
                b.line(f"*({old} + pid * {L} + {r}) = atomic_cas({addr}, {v.text}, ({t.name}) 7);")
    else:  # scalar atomics: synchronising, every instance adds to one counter
        cnt = b.buffer(C.I32, 2, ("const", 0), "exact", prefix="CNT")
        b.line(f"atomic_add({cnt}, pid + 1);")
        b.line(f"atomic_max({cnt} + 1, pid * 3);")
        t = C.I32
    b.features.append(f"atomic:{kind}:{t.name}")


def frag_permute(b: Builder) -> None:
    """Data movement: permutations ``x[^p...]``, ``^x``, ``trans``, reshaping casts and
    ``newaxis``; stored densely in the new shape (exact)."""
    draw = b.draw
    shape = draw(shapes(min_rank=2, max_elems=1024))
    rs = b.ranges(shape)
    t = _types(draw)
    x = b.load(shape, t, rs, style=draw(st.sampled_from(["plain", "ternary"])))
    rank = len(shape)
    form = draw(st.sampled_from(["perm", "rotate", "trans", "reshape", "newaxis"]))
    if form == "perm":
        p = draw(st.permutations(list(range(rank))))
        text = f"{x.text}[{', '.join(f'^{k}' for k in p)}]"
        new = tuple(shape[k] for k in p)
    elif form == "rotate":
        text = f"^{x.text}" if draw(st.booleans()) else f"trans({x.text})"
        new = shape[1:] + shape[:1]
    elif form == "trans":
        p = draw(st.permutations(list(range(rank))))
        text = f"trans({x.text}, {', '.join(str(k) for k in p)})"
        new = tuple(shape[k] for k in p)
    elif form == "reshape":
        total = int(np.prod(shape))
        new = draw(shapes(max_elems=total))
        if int(np.prod(new)) != total:
            new = (total,)
        text = f"({t.name}[{_dims(new)}]) {x.text}"
    else:
        k = draw(st.integers(0, rank))
        new = shape[:k] + (1,) + shape[k:]
        text = f"{x.text}[{', '.join(['newaxis' if j == k else ':' for j in range(rank + 1)])}]"
    v = b.fresh("y")
    b.line(f"{t.name} {v}[{_dims(new)}] = {text};")
    b.features.append(f"permute:{form}")
    b.store(replace(x, text=v, shape=new, taint=None))


def frag_device_function(b: Builder) -> None:
    """A ``__device__`` function taking tiles and a scalar and returning a tile (or a scalar
    with control flow), called from the kernel."""
    draw = b.draw
    shape = draw(shapes(max_rank=2, max_elems=256))
    rs = b.ranges(shape)
    t = draw(st.sampled_from([C.F32, C.I32, C.F16, C.I16]))
    xs = [b.load(shape, t, rs, style=draw(st.sampled_from(["plain", "ternary"]))) for _ in range(2)]
    fname = b.fresh("dev")
    params = [Ex("u", t, shape, xs[0].lo, xs[0].hi), Ex("w", t, shape, xs[1].lo, xs[1].hi),
              Ex("s", C.I32, (), -3, 3)]
    x = ExprGen(draw, params).expr(shape, draw(st.integers(1, 3)))
    body = f"  {x.ty.name} res[{_dims(shape)}] = {x.text};\n  return res;"
    if draw(st.booleans()):
        body = f"  if (s > 0) {{\n    {x.ty.name} res[{_dims(shape)}] = {x.text};\n    return res;\n  }}\n  return w;"
        y = convert(params[1], x.ty)
        if y is None:
            return
        x = replace(x, lo=min(x.lo, y.lo), hi=max(x.hi, y.hi), err=max(x.err, y.err))
    b.device_fns.append(f"__device__ {x.ty.name}[{_dims(shape)}] {fname}({t.name} u[{_dims(shape)}], "
                        f"{t.name} w[{_dims(shape)}], int s) {{\n{body}\n}}\n")
    sval = draw(st.integers(-3, 3))
    v = b.fresh("d")
    b.line(f"{x.ty.name} {v}[{_dims(shape)}] = {fname}({xs[0].text}, {xs[1].text}, {b.int_value(sval)});")
    b.features.append("device_function")
    b.store(replace(x, text=v, shape=shape), rs=rs)


def frag_barrier(b: Builder) -> None:
    """A store, ``__debug_barrier()`` and a reload of the same memory in another order."""
    draw = b.draw
    L = draw(st.sampled_from([32, 64, 128, 256]))
    t = draw(st.sampled_from([C.F32, C.I32, C.F16]))
    r = b.fresh("r")
    b.line(f"int {r}[{L}] = 0 ... {L};")
    x = b.load((L,), t, [r], style="plain")
    buf = b.buffer(t, L * b.instances, ("poison",), "exact", prefix="BUF")
    b.line(f"*({buf} + pid * {L} + {r}) = {x.text};")
    b.line("__debug_barrier();")
    y = b.fresh("y")
    shift = draw(st.sampled_from([1, 7, L // 2]))
    b.line(f"{t.name} {y}[{L}] = *({buf} + pid * {L} + ({L - 1} - {r} + {shift}) % {L});")
    b.features.append("debug_barrier")
    b.store(Ex(y, t, (L,), x.lo, x.hi), rs=[r])


#: Fragment generators by name; a program draws one to three of them.
FRAGMENTS = {
    "elementwise": frag_elementwise,
    "reduce": frag_reduce,
    "dot": frag_dot,
    "attention": frag_attention,
    "flash_attention": frag_flash_attention,
    "bmm": frag_bmm,
    "loop": frag_loop,
    "bound_branch": frag_bound_branch,
    "atomics": frag_atomics,
    "permute": frag_permute,
    "device_function": frag_device_function,
    "barrier": frag_barrier,
}


#: How often each fragment is drawn, relative to the others (default 1): the ones that reach
#: the most of the compiler (layouts, reductions, tensor cores, shared memory) more often.
WEIGHTS = {"elementwise": 3, "reduce": 4, "dot": 4, "permute": 2, "loop": 2}


@st.composite
def options(draw):
    """Random compile options (issue 11: num_warps 1-16, num_stages 1-5, arch, specialisation)."""
    return {"num_warps": draw(st.sampled_from([1, 2, 4, 8, 16])), "num_stages": draw(st.integers(1, 5)),
            "arch": draw(st.sampled_from(ARCHS)), "specialize": draw(st.booleans()),
            "allow_tf32": draw(st.booleans())}


@st.composite
def programs(draw, fragments: tuple[str, ...] | None = None, archs: tuple[str, ...] = ARCHS):
    """A :class:`~tritonc.fuzz.program.Program`: a kernel of one to three fragments (from
    ``fragments``, default all of :data:`FRAGMENTS`), a grid of one to four program instances
    (1-D or 2-D), random options and an input seed."""
    opts = draw(options())
    opts["arch"] = draw(st.sampled_from(archs))
    grid = draw(st.sampled_from([(1,), (2,), (3,), (4,), (2, 2), (1, 3)]))
    b = Builder(draw, grid)
    b.tf32 = opts["allow_tf32"]
    b.options = opts
    b.spec16 = opts["specialize"] and draw(st.booleans())
    names = fragments or tuple(n for n in FRAGMENTS for _ in range(WEIGHTS.get(n, 1)))
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(names))
        b.line("{")
        start = len(b.lines)
        FRAGMENTS[name](b)
        b.lines[start:] = ["  " + s for s in b.lines[start:]]
        b.line("}")
    if not any(isinstance(p, Buffer) and p.check for p in b.params):
        out = b.buffer(C.I32, b.instances, ("poison",), "exact", prefix="OUT")
        b.line(f"*({out} + pid) = pid;")
    pid = ("get_program_id(0)" if len(grid) == 1 else
           "get_program_id(0) * get_num_programs(1) + get_program_id(1)")
    sig = ", ".join(f"{p.ctype} *{p.name}" if isinstance(p, Buffer) else f"{p.ctype} {p.name}" for p in b.params)
    src = "".join(b.device_fns) + f"__global__ void fuzz({sig}) {{\n    int pid = {pid};\n" + "\n".join(b.lines) + "\n}\n"
    seed = draw(st.integers(0, 2 ** 31 - 1))
    return Program(src, "fuzz", b.params, grid, opts, sorted(set(b.features)), seed)
