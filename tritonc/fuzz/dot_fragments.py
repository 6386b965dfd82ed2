"""The generator's tensor-core fragments (``dot``, ``attention``, ``flash_attention`` and ``bmm``
of :data:`tritonc.fuzz.gen.FRAGMENTS`): matrix products ``@`` and ``dot(a, b, acc)`` of each
operand type of :data:`DOT_TYPES`, in K loops, with reduction and bias epilogues, batched, and
chained through a row softmax as attention chains them.

A product over ``K`` of operands with errors ``ea``, ``eb`` is within
``K (|a| eb + |b| ea + ea eb) + 2 K^2 u |a| |b| + K underflow`` of the exact result (``u`` the
accumulator's unit roundoff; TF32 adds ``K |a| |b| 2^-9``, an integer product is exact); the
attention fragments carry that bound through ``exp``, the row sums and the division.
"""
from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from . import ctypes as C
from .builder import Builder, dims, index, reduction
from .ctypes import CType
from .expressions import APPROX, Ex, round_err


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
        b.line(f"bool {mask}[{dims(shape)}] = {rs[ax]}{index(2, ax)} < {bound};")
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
        red = reduction(res, draw(st.integers(0, 1)), draw(st.sampled_from(["+", "max", "min"])))
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
