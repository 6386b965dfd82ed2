"""Hypothesis strategies that generate well-typed Triton-C kernels free of undefined behaviour.

A program is one kernel ``fuzz`` (plus ``__device__`` functions) whose body is a sequence of
*fragments*, each in its own ``{ }`` block, each reading its own inputs and writing its own
outputs. Fragments are registered in :data:`FRAGMENTS` (name -> generator); a new language
feature (``__grid``, polymorphic device functions, ``rand``) is a new entry there plus, where
it needs one, an :class:`~tritonc.fuzz.expressions.ExprGen` rule. A fragment writes its block
through a :class:`~tritonc.fuzz.builder.Builder`; the tensor-core fragments (``dot``,
``attention``, ``flash_attention``, ``bmm``) are in :mod:`tritonc.fuzz.dot_fragments`, the
others here.

Undefined behaviour is excluded by construction (issue 11, item 1): expressions carry the
interval of their values and, for floats, a bound on their error, and are generated only where
they are defined and every executor agrees on what decides something discontinuous (see
:mod:`tritonc.fuzz.expressions`); fragments keep to the same rules; a value loaded by ``*?(m)``
(masked-off lanes undefined) is *tainted* by ``m``: it reaches only element-wise operations and
a store masked by the same ``m``.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from hypothesis import strategies as st

from . import ctypes as C
from .builder import Builder, dense_strides, dims, index, reduction
from .dot_fragments import frag_attention, frag_bmm, frag_dot, frag_flash_attention
from .expressions import Ex, ExprGen, round_err, convert
from .program import Buffer, Program

ARCHS = ("sm_80", "sm_90", "sm_90a")


# ------------------------------------------------------------------------------------------
# fragments (the tensor-core ones are in dot_fragments.py) and programs
# ------------------------------------------------------------------------------------------

@st.composite
def shapes(draw, min_rank=1, max_rank=3, max_elems=1024, min_dim=1, max_dim=64):
    rank = draw(st.integers(min_rank, max_rank))
    sizes = []
    for _ in range(rank):
        sizes.append(draw(st.sampled_from([d for d in (1, 2, 4, 8, 16, 32, 64) if min_dim <= d <= max_dim])))
    while int(np.prod(sizes)) > max_elems:
        k = int(np.argmax(sizes))
        sizes[k] //= 2
    return tuple(sizes)


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
            leaves.append(Ex(f"{rs[k]}{index(rank, k)}", C.I32, tuple(s if j == k else 1 for j, s in enumerate(shape)),
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
    b.line(f"{x.ty.name} {v}[{dims(shape)}] = {x.text};")
    return replace(x, text=v, shape=shape)


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
        y = reduction(x, axis, o, paper=draw(st.integers(0, 3)) == 0)
        if y is None:
            break
        b.features.append(f"reduce:{o}")
        if y.shape and draw(st.booleans()):
            v = b.fresh("red")
            b.line(f"{y.ty.name} {v}[{dims(y.shape)}] = {y.text};")
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
    strides = dense_strides(shape)
    off = " + ".join(f"{rs[k]}{index(rank, k)} * {strides[k]}" for k in range(rank))
    p, acc, i = b.fresh("p"), b.fresh("acc"), b.fresh("i")
    b.line(f"{t.name} *{p}[{dims(shape)}] = {x} + pid * {block * iters} + {off};")
    at = C.F32 if t.is_float else t
    b.line(f"{at.name} {acc}[{dims(shape)}] = 0;")
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


def frag_row_loop(b: Builder) -> None:
    """Layernorm backward's loop over rows: program instance ``pid`` takes rows ``pid``,
    ``pid + instances``, ...; each trip loads a ragged row (``cols < n``) through a
    ``__noalias __readonly`` pointer, reduces it, stores the row's result and an element-wise
    row, and accumulates the rows; the accumulator is stored after the loop. Its loads may go
    ahead of the trip's stores, so ``software-pipeline`` copies them ``num_stages - 1`` trips
    ahead through shared rings (``PipelinePlanner.memory_plan``) where ``cp.async`` can copy
    them. Values are multiples of 1/8 in [-2, 2]: every sum is exact."""
    draw = b.draw
    width = draw(st.sampled_from([32, 64, 128, 256]))
    rows = draw(st.integers(0, 9))
    t = draw(st.sampled_from([C.F32, C.F16]))
    stride = width * draw(st.sampled_from([1, 1, 2]))
    n = draw(st.integers(1, width))
    x = b.buffer(t, max(rows, 1) * stride, ("grid", -2.0, 2.0, 0.125), prefix="X")
    b.params[-1].qualifiers = "__noalias __readonly"
    op = draw(st.sampled_from(["+", "max"]))
    red_out = b.buffer(C.F32, max(rows, 1), ("poison",), "exact", prefix="OUT")
    row_out = b.buffer(C.F32, max(rows, 1) * width, ("poison",), "exact", prefix="OUT")
    acc_out = b.buffer(C.F32, b.instances * width, ("poison",), "exact", prefix="OUT")
    cols, m, acc, row, v = b.fresh("c"), b.fresh("m"), b.fresh("acc"), b.fresh("row"), b.fresh("x")
    nn, mm, ss = b.int_value(n), b.int_value(rows), b.int_value(stride, "s")
    b.line(f"int {cols}[{width}] = 0 ... {width};")
    b.line(f"bool {m}[{width}] = {cols} < {nn};")
    b.line(f"float {acc}[{width}] = 0;")
    b.line(f"for (int {row} = pid; {row} < {mm}; {row} += {b.instances}) {{")
    b.line(f"  float {v}[{width}] = {m} ? *({x} + {row} * {ss} + {cols}) : 0;")
    b.line(f"  *({red_out} + {row}) = {v}[{op}];")
    b.line(f"  *?({m})({row_out} + {row} * {width} + {cols}) = {v} * 2 - 1;")
    b.line(f"  {acc} += {v};")
    b.line("}")
    b.line(f"*({acc_out} + pid * {width} + {cols}) = {acc};")
    b.features.append(f"row_loop:{op}")


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
    b.line(f"{t.name} {y}[{dims(shape)}] = {x.text};")
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
        text = f"({t.name}[{dims(new)}]) {x.text}"
    else:
        k = draw(st.integers(0, rank))
        new = shape[:k] + (1,) + shape[k:]
        text = f"{x.text}[{', '.join(['newaxis' if j == k else ':' for j in range(rank + 1)])}]"
    v = b.fresh("y")
    b.line(f"{t.name} {v}[{dims(new)}] = {text};")
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
    body = f"  {x.ty.name} res[{dims(shape)}] = {x.text};\n  return res;"
    if draw(st.booleans()):
        body = f"  if (s > 0) {{\n    {x.ty.name} res[{dims(shape)}] = {x.text};\n    return res;\n  }}\n  return w;"
        y = convert(params[1], x.ty)
        if y is None:
            return
        x = replace(x, lo=min(x.lo, y.lo), hi=max(x.hi, y.hi), err=max(x.err, y.err))
    b.device_fns.append(f"__device__ {x.ty.name}[{dims(shape)}] {fname}({t.name} u[{dims(shape)}], "
                        f"{t.name} w[{dims(shape)}], int s) {{\n{body}\n}}\n")
    sval = draw(st.integers(-3, 3))
    v = b.fresh("d")
    b.line(f"{x.ty.name} {v}[{dims(shape)}] = {fname}({xs[0].text}, {xs[1].text}, {b.int_value(sval)});")
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
    "row_loop": frag_row_loop,
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
    sig = ", ".join(f"{p.ctype} *{p.name}{' ' + p.qualifiers if p.qualifiers else ''}" if isinstance(p, Buffer)
                    else f"{p.ctype} {p.name}" for p in b.params)
    src = "".join(b.device_fns) + f"__global__ void fuzz({sig}) {{\n    int pid = {pid};\n" + "\n".join(b.lines) + "\n}\n"
    seed = draw(st.integers(0, 2 ** 31 - 1))
    return Program(src, "fuzz", b.params, grid, opts, sorted(set(b.features)), seed)
