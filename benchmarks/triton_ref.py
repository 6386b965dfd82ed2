"""The example kernels written in OpenAI Triton (Python, ``@triton.jit``), as the speed reference.

Each function takes torch tensors shaped like the tritonc example's arguments and launches
the Triton kernel with the same blocking as the tritonc example, so the comparison is of the
compilers, not of the tilings. Used by ``make gpu-check`` (``tritonc.tools.gpu_check``).
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _vector_add(Z, X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(Z + offs, tl.load(X + offs, mask=m) + tl.load(Y + offs, mask=m), mask=m)


def vector_add(z, x, y, block=1024):
    n = x.numel()
    _vector_add[(triton.cdiv(n, block),)](z, x, y, n, BLOCK=block)


@triton.jit
def _softmax(Y, X, stride_y, stride_x, N, BLOCK: tl.constexpr):
    m = tl.program_id(0)
    n = tl.arange(0, BLOCK)
    x = tl.load(X + m * stride_x + n, mask=n < N, other=-float("inf"))
    e = tl.exp(x - tl.max(x, 0))
    tl.store(Y + m * stride_y + n, e / tl.sum(e, 0), mask=n < N)


def softmax(y, x, block, num_warps=4):
    _softmax[(x.shape[0],)](y, x, y.stride(0), x.stride(0), x.shape[1], BLOCK=block, num_warps=num_warps)


@triton.jit
def _layernorm(Y, X, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        acc += tl.load(X + row * stride + off + cols, mask=off + cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, 0) / N
    sq = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        x = tl.load(X + row * stride + off + cols, mask=off + cols < N, other=0.).to(tl.float32)
        d = tl.where(off + cols < N, x - mean, 0.)
        sq += d * d
    rstd = 1 / tl.sqrt(tl.sum(sq, 0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m).to(tl.float32)
        b = tl.load(B + off + cols, mask=m).to(tl.float32)
        tl.store(Y + row * stride + off + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=m)


def layernorm(y, x, w, b, mean, rstd, eps, block):
    _layernorm[(x.shape[0],)](y, x, w, b, mean, rstd, x.stride(0), x.shape[1], eps, BLOCK=block)


@triton.jit
def _transpose(Out, In, M, N, stride_in, stride_out, TM: tl.constexpr, TN: tl.constexpr):
    rm = tl.program_id(0) * TM + tl.arange(0, TM)
    rn = tl.program_id(1) * TN + tl.arange(0, TN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(In + rm[:, None] * stride_in + rn[None, :], mask=m)
    tl.store(Out + rn[None, :] * stride_out + rm[:, None], x, mask=m)


def transpose(out, x, tm=32, tn=32, num_warps=4):
    M, N = x.shape
    _transpose[(triton.cdiv(M, tm), triton.cdiv(N, tn))](out, x, M, N, x.stride(0), out.stride(0), TM=tm, TN=tn,
                                                         num_warps=num_warps)


@triton.jit
def _row_sum(S, X, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros([BM, BN], tl.float32)
    for n in range(0, N, BN):
        m = (rm[:, None] < M) & (n + rn[None, :] < N)
        acc += tl.load(X + rm[:, None] * stride + n + rn[None, :], mask=m, other=0.)
    tl.store(S + rm, tl.sum(acc, 1), mask=rm < M)


def row_sum(s, x, bm=8, bn=256, num_warps=4):
    M, N = x.shape
    _row_sum[(triton.cdiv(M, bm),)](s, x, M, N, x.stride(0), BM=bm, BN=bn, num_warps=num_warps)


@triton.jit
def _col_sum(S, X, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.arange(0, BM)
    acc = tl.zeros([BM, BN], tl.float32)
    for m0 in range(0, M, BM):
        m = (m0 + rm[:, None] < M) & (rn[None, :] < N)
        acc += tl.load(X + (m0 + rm[:, None]) * stride + rn[None, :], mask=m, other=0.)
    tl.store(S + rn, tl.sum(acc, 0), mask=rn < N)


def col_sum(s, x, bm=8, bn=256):
    M, N = x.shape
    _col_sum[(triton.cdiv(N, bn),)](s, x, M, N, x.stride(0), BM=bm, BN=bn)


# ---- memory-bound kernels: the tritonc examples' algorithms, launched with tritonc's choices --
# Each wrapper takes the meta-parameters tritonc chose (the launcher's ``K.meta``) so both sides
# run the same tiling; outputs that accumulate with atomics are zeroed inside the wrapper (the
# caller's duty in the tritonc examples, timed on both sides).

@triton.jit
def _col_sum_split(S, X, M, N, stride, BM: tl.constexpr, BN: tl.constexpr, SPLIT: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.arange(0, BM)
    acc = tl.zeros([BM, BN], tl.float32)
    for m0 in range(tl.program_id(1) * BM, M, SPLIT * BM):
        m = (m0 + rm[:, None] < M) & (rn[None, :] < N)
        acc += tl.load(X + (m0 + rm[:, None]) * stride + rn[None, :], mask=m, other=0.)
    tl.atomic_add(S + rn, tl.sum(acc, 0), mask=rn < N)


def col_sum_split(s, x, bm=8, bn=256, split=16, num_warps=4):
    """``s = x.sum(0)``: rows split over ``split`` instances per column block, fp32 atomics."""
    M, N = x.shape
    s.zero_()
    _col_sum_split[(triton.cdiv(N, bn), split)](s, x, M, N, x.stride(0), BM=bm, BN=bn, SPLIT=split,
                                               num_warps=num_warps)


@triton.jit
def _layernorm_welford(Y, X, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mean_j = tl.zeros([BLOCK], tl.float32)
    m2_j = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        inv = 1.0 / (off // BLOCK + 1)
        delta = tl.where(m, x - mean_j, 0.)
        mean_j += delta * inv
        m2_j += tl.where(m, delta * (x - mean_j), 0.)
    n_j = tl.where(cols < N, (N - 1 - cols) // BLOCK + 1, 0).to(tl.float32)
    mean = tl.sum(n_j * mean_j, 0) / N
    d = mean_j - mean
    rstd = 1 / tl.sqrt(tl.sum(m2_j + n_j * d * d, 0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m).to(tl.float32)
        b = tl.load(B + off + cols, mask=m).to(tl.float32)
        tl.store(Y + row * stride + off + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=m)


def layernorm_welford(y, x, w, b, mean, rstd, eps, block, num_warps=4):
    _layernorm_welford[(x.shape[0],)](y, x, w, b, mean, rstd, x.stride(0), x.shape[1], eps, BLOCK=block,
                                      num_warps=num_warps)


@triton.jit
def _layernorm_bwd_dx(DX, DY, X, W, Mean, Rstd, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    sum_xg = tl.zeros([BLOCK], tl.float32)
    sum_g = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m, other=0.).to(tl.float32)
        g = w * dy
        sum_xg += tl.where(m, (x - mean) * rstd * g, 0.)
        sum_g += g
    c1 = tl.sum(sum_xg, 0) / N
    c2 = tl.sum(sum_g, 0) / N
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m, other=0.).to(tl.float32)
        xhat = (x - mean) * rstd
        tl.store(DX + row * stride + off + cols, ((w * dy - (xhat * c1 + c2)) * rstd).to(tl.float16), mask=m)


@triton.jit
def _layernorm_bwd_dwdb(DW, DB, DY, X, Mean, Rstd, stride, M, N, BM: tl.constexpr, BN: tl.constexpr,
                        SPLIT: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.arange(0, BM)
    dw = tl.zeros([BM, BN], tl.float32)
    db = tl.zeros([BM, BN], tl.float32)
    for m0 in range(tl.program_id(1) * BM, M, SPLIT * BM):
        row_in = m0 + rm < M
        m = row_in[:, None] & (rn[None, :] < N)
        off = (m0 + rm[:, None]) * stride + rn[None, :]
        x = tl.load(X + off, mask=m, other=0.).to(tl.float32)
        dy = tl.load(DY + off, mask=m, other=0.).to(tl.float32)
        mean = tl.load(Mean + m0 + rm, mask=row_in, other=0.)
        rstd = tl.load(Rstd + m0 + rm, mask=row_in, other=0.)
        dw += dy * (x - mean[:, None]) * rstd[:, None]
        db += dy
    tl.atomic_add(DW + rn, tl.sum(dw, 0), mask=rn < N)
    tl.atomic_add(DB + rn, tl.sum(db, 0), mask=rn < N)


def layernorm_bwd(dx, dw, db, dy, x, w, mean, rstd, meta, dwdb_meta=None):
    """dx, and dgamma / dbeta (fp32, zeroed here) in two kernels: dx per row, then the column
    sums (the algorithm examples/layernorm_bwd.tri had before its one pass); ``meta`` the row
    tile (BLOCK), the column-sum tiles (BM, BN, SPLIT) and the dx kernel's warps, ``dwdb_meta``
    the column-sum kernel's (default ``meta``)."""
    dwdb_meta = dwdb_meta or meta
    M, N = x.shape
    _layernorm_bwd_dx[(M,)](dx, dy, x, w, mean, rstd, x.stride(0), N, BLOCK=meta["BLOCK"],
                            num_warps=meta["num_warps"])
    dw.zero_()
    db.zero_()
    _layernorm_bwd_dwdb[(triton.cdiv(N, meta["BN"]), meta["SPLIT"])](
        dw, db, dy, x, mean, rstd, x.stride(0), M, N, BM=meta["BM"], BN=meta["BN"], SPLIT=meta["SPLIT"],
        num_warps=dwdb_meta["num_warps"])


@triton.jit
def _rmsnorm_fwd(Y, X, W, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    sq = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        x = tl.load(X + row * stride + off + cols, mask=off + cols < N, other=0.).to(tl.float32)
        sq += x * x
    rstd = 1 / tl.sqrt(tl.sum(sq, 0) / N + eps)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m, other=0.).to(tl.float32)
        tl.store(Y + row * stride + off + cols, (x * rstd * w).to(tl.float16), mask=m)


def rmsnorm_fwd(y, x, w, rstd, eps, block, num_warps=4):
    _rmsnorm_fwd[(x.shape[0],)](y, x, w, rstd, x.stride(0), x.shape[1], eps, BLOCK=block, num_warps=num_warps)


@triton.jit
def _rmsnorm_bwd_dx(DX, DY, X, W, Rstd, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    rstd = tl.load(Rstd + row)
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m, other=0.).to(tl.float32)
        acc += w * dy * x
    c = tl.sum(acc, 0) * rstd * rstd / N
    for off in range(0, N, BLOCK):
        m = off + cols < N
        x = tl.load(X + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        dy = tl.load(DY + row * stride + off + cols, mask=m, other=0.).to(tl.float32)
        w = tl.load(W + off + cols, mask=m, other=0.).to(tl.float32)
        tl.store(DX + row * stride + off + cols, ((w * dy - x * c) * rstd).to(tl.float16), mask=m)


@triton.jit
def _rmsnorm_bwd_dw(DW, DY, X, Rstd, stride, M, N, BM: tl.constexpr, BN: tl.constexpr, SPLIT: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    rm = tl.arange(0, BM)
    dw = tl.zeros([BM, BN], tl.float32)
    for m0 in range(tl.program_id(1) * BM, M, SPLIT * BM):
        row_in = m0 + rm < M
        m = row_in[:, None] & (rn[None, :] < N)
        off = (m0 + rm[:, None]) * stride + rn[None, :]
        x = tl.load(X + off, mask=m, other=0.).to(tl.float32)
        dy = tl.load(DY + off, mask=m, other=0.).to(tl.float32)
        rstd = tl.load(Rstd + m0 + rm, mask=row_in, other=0.)
        dw += dy * x * rstd[:, None]
    tl.atomic_add(DW + rn, tl.sum(dw, 0), mask=rn < N)


def rmsnorm_bwd(dx, dw, dy, x, w, rstd, meta, dw_meta=None):
    """dx and dweight (fp32, zeroed here) in two kernels: dx per row, then the column sums (the
    algorithm examples/rmsnorm.tri's backward had before its one pass); ``meta`` the row tile
    (BLOCK), the column-sum tiles (BM, BN, SPLIT) and the dx kernel's warps, ``dw_meta`` the
    column-sum kernel's (default ``meta``)."""
    dw_meta = dw_meta or meta
    M, N = x.shape
    _rmsnorm_bwd_dx[(M,)](dx, dy, x, w, rstd, x.stride(0), N, BLOCK=meta["BLOCK"], num_warps=meta["num_warps"])
    dw.zero_()
    _rmsnorm_bwd_dw[(triton.cdiv(N, meta["BN"]), meta["SPLIT"])](
        dw, dy, x, rstd, x.stride(0), M, N, BM=meta["BM"], BN=meta["BN"], SPLIT=meta["SPLIT"],
        num_warps=dw_meta["num_warps"])


@triton.jit
def _softmax_bwd(DX, Y, DY, stride_dx, stride_y, stride_dy, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    dot = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        y = tl.load(Y + row * stride_y + off + cols, mask=m, other=0.)
        dy = tl.load(DY + row * stride_dy + off + cols, mask=m, other=0.)
        dot += y * dy
    s = tl.sum(dot, 0)
    for off in range(0, N, BLOCK):
        m = off + cols < N
        y = tl.load(Y + row * stride_y + off + cols, mask=m, other=0.)
        dy = tl.load(DY + row * stride_dy + off + cols, mask=m, other=0.)
        tl.store(DX + row * stride_dx + off + cols, y * (dy - s), mask=m)


def softmax_bwd(dx, y, dy, block, num_warps=4):
    _softmax_bwd[(y.shape[0],)](dx, y, dy, dx.stride(0), y.stride(0), dy.stride(0), y.shape[1], BLOCK=block,
                                num_warps=num_warps)


@triton.jit
def _cross_entropy_fwd(X, LABEL, LOSS, LSE, n_cols, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    x_row = X + row * n_cols
    m_j = tl.full([TILE], -float("inf"), tl.float32)
    s_j = tl.zeros([TILE], tl.float32)
    for off in range(0, n_cols, TILE):
        m = off + cols < n_cols
        x = tl.load(x_row + off + cols, mask=m, other=-float("inf")).to(tl.float32)
        e = tl.exp(-tl.abs(x - m_j))  # one exp per element, as the tritonc example
        grown = tl.where(x > m_j, s_j * e + 1., s_j + e)
        s_j = tl.where(x > -float("inf"), grown, s_j)
        m_j = tl.maximum(m_j, x)
    big = tl.max(m_j, 0)
    lse = big + tl.log(tl.sum(s_j * tl.exp(m_j - big), 0))
    label = tl.load(LABEL + row)
    tl.store(LOSS + row, (lse - tl.load(x_row + label).to(tl.float32)).to(LOSS.dtype.element_ty))
    tl.store(LSE + row, lse)


@triton.jit
def _cross_entropy_bwd(DX, X, LSE, LABEL, DLOSS, n_cols, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, TILE)
    label = tl.load(LABEL + row)
    dloss = tl.load(DLOSS + row).to(tl.float32)
    lse = tl.load(LSE + row)
    for off in range(0, n_cols, TILE):
        m = off + cols < n_cols
        x = tl.load(X + row * n_cols + off + cols, mask=m, other=-float("inf")).to(tl.float32)
        dx = (tl.exp(x - lse) - tl.where(off + cols == label, 1., 0.)) * dloss
        tl.store(DX + row * n_cols + off + cols, dx.to(DX.dtype.element_ty), mask=m)


def cross_entropy_fwd(x, labels, loss, lse, tile, num_warps=4):
    _cross_entropy_fwd[(x.shape[0],)](x, labels, loss, lse, x.shape[1], TILE=tile, num_warps=num_warps)


def cross_entropy_bwd(dx, x, lse, labels, dloss, tile, num_warps=4):
    _cross_entropy_bwd[(dx.shape[0],)](dx, x, lse, labels, dloss, dx.shape[1], TILE=tile, num_warps=num_warps)


@triton.jit
def _dropout(Y, X, N, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    keep = tl.rand(seed, offs) > p
    tl.store(Y + offs, tl.where(keep, x / (1 - p), 0.), mask=m)


def dropout(y, x, p, seed, block=1024, num_warps=4):
    n = x.numel()
    _dropout[(triton.cdiv(n, block),)](y, x, n, p, seed, BLOCK=block, num_warps=num_warps)


@triton.jit
def _batchnorm_stats(PART, X, N, C, HW, stride_n, BN: tl.constexpr, BHW: tl.constexpr, SPLIT: tl.constexpr):
    c = tl.program_id(0)
    s = tl.program_id(1)
    rn = tl.arange(0, BN)
    rhw = tl.arange(0, BHW)
    tiles_hw = tl.cdiv(HW, BHW)
    tiles = tl.cdiv(N, BN) * tiles_hw
    count = tl.zeros([BN, BHW], tl.float32)
    mean = tl.zeros([BN, BHW], tl.float32)
    m2 = tl.zeros([BN, BHW], tl.float32)
    for t in range(s, tiles, SPLIT):
        n = t // tiles_hw * BN
        hw = (t % tiles_hw) * BHW
        m = (n + rn[:, None] < N) & (hw + rhw[None, :] < HW)
        x = tl.load(X + (n + rn[:, None]) * stride_n + c * HW + hw + rhw[None, :], mask=m, other=0.).to(tl.float32)
        count += tl.where(m, 1., 0.)
        delta = tl.where(m, x - mean, 0.)
        mean += tl.where(m, delta / count, 0.)
        m2 += tl.where(m, delta * (x - mean), 0.)
    total = tl.sum(tl.sum(count, 1), 0)
    mean_p = tl.where(total > 0, tl.sum(tl.sum(count * mean, 1), 0) / total, 0.)
    d = mean - mean_p
    tl.store(PART + c * SPLIT + s, total)
    tl.store(PART + (C + c) * SPLIT + s, mean_p)
    tl.store(PART + (2 * C + c) * SPLIT + s, tl.sum(tl.sum(m2 + count * d * d, 1), 0))


@triton.jit
def _batchnorm_apply(Y, X, PART, GAMMA, BETA, SAVE_MEAN, SAVE_RSTD, RUN_MEAN, RUN_VAR, N, C, HW, stride_n, eps,
                     momentum, BN: tl.constexpr, BHW: tl.constexpr, SPLIT: tl.constexpr):
    c = tl.program_id(0)
    s = tl.program_id(1)
    rs = tl.arange(0, SPLIT)
    p_count = tl.load(PART + c * SPLIT + rs)
    p_mean = tl.load(PART + (C + c) * SPLIT + rs)
    p_m2 = tl.load(PART + (2 * C + c) * SPLIT + rs)
    count = N * HW
    mean = tl.sum(p_count * p_mean, 0) / count
    d = p_mean - mean
    var = tl.sum(p_m2 + p_count * d * d, 0) / count
    rstd = 1 / tl.sqrt(var + eps)
    scale = tl.load(GAMMA + c) * rstd
    beta = tl.load(BETA + c)
    if s == 0:
        tl.store(SAVE_MEAN + c, mean)
        tl.store(SAVE_RSTD + c, rstd)
        unbiased = var * count / tl.maximum(count - 1, 1)
        tl.store(RUN_MEAN + c, (1 - momentum) * tl.load(RUN_MEAN + c) + momentum * mean)
        tl.store(RUN_VAR + c, (1 - momentum) * tl.load(RUN_VAR + c) + momentum * unbiased)
    rn = tl.arange(0, BN)
    rhw = tl.arange(0, BHW)
    tiles_hw = tl.cdiv(HW, BHW)
    tiles = tl.cdiv(N, BN) * tiles_hw
    for t in range(s, tiles, SPLIT):
        n = t // tiles_hw * BN
        hw = (t % tiles_hw) * BHW
        m = (n + rn[:, None] < N) & (hw + rhw[None, :] < HW)
        off = (n + rn[:, None]) * stride_n + c * HW + hw + rhw[None, :]
        x = tl.load(X + off, mask=m, other=0.).to(tl.float32)
        tl.store(Y + off, ((x - mean) * scale + beta).to(Y.dtype.element_ty), mask=m)


def batchnorm(y, x, part, gamma, beta, mean, rstd, run_mean, run_var, eps, momentum, meta):
    """examples/batchnorm.tri's two launches (statistics, then normalise) with its tunables ``meta``."""
    n, c, h, w = x.shape
    grid = (c, meta["SPLIT"])
    kw = dict(BN=meta["BN"], BHW=meta["BHW"], SPLIT=meta["SPLIT"], num_warps=meta["num_warps"])
    _batchnorm_stats[grid](part, x, n, c, h * w, x.stride(0), **kw)
    _batchnorm_apply[grid](y, x, part, gamma, beta, mean, rstd, run_mean, run_var, n, c, h * w, x.stride(0), eps,
                           momentum, **kw)


@triton.jit
def _matmul(A, B, C, M, N, K, lda, ldb, ldc, TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr):
    rm = tl.program_id(0) * TM + tl.arange(0, TM)
    rn = tl.program_id(1) * TN + tl.arange(0, TN)
    rk = tl.arange(0, TK)
    pa = A + rm[:, None] * lda + rk[None, :]
    pb = B + rk[:, None] * ldb + rn[None, :]
    acc = tl.zeros([TM, TN], tl.float32)
    for k in range(K, 0, -TK):
        a = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < k), other=0.)
        b = tl.load(pb, mask=(rk[:, None] < k) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a, b)
        pa += TK
        pb += TK * ldb
    c = acc.to(tl.float16)
    tl.store(C + rm[:, None] * ldc + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(c, a, b, tm=64, tn=64, tk=32, num_warps=4, num_stages=3):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, tm), triton.cdiv(N, tn))
    _matmul[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), TM=tm, TN=tn, TK=tk,
                  num_warps=num_warps, num_stages=num_stages)


@triton.jit
def _matmul_strided(A, B, C, M, N, K, sam, sak, sbk, sbn, scm, scn, TM: tl.constexpr, TN: tl.constexpr,
                    TK: tl.constexpr, GROUP_M: tl.constexpr):
    # tutorial 03's kernel: any strides (row- or column-major operands), grouped program order
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, TM)
    grid_n = tl.cdiv(N, TN)
    width = GROUP_M * grid_n
    group = pid // width
    group_size = min(grid_m - group * GROUP_M, GROUP_M)
    pid_m = group * GROUP_M + (pid % width) % group_size
    pid_n = (pid % width) // group_size
    rm = pid_m * TM + tl.arange(0, TM)
    rn = pid_n * TN + tl.arange(0, TN)
    rk = tl.arange(0, TK)
    pa = A + rm[:, None] * sam + rk[None, :] * sak
    pb = B + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros([TM, TN], tl.float32)
    for k in range(0, tl.cdiv(K, TK)):
        a = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < K - k * TK), other=0.)
        b = tl.load(pb, mask=(rk[:, None] < K - k * TK) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a, b)
        pa += TK * sak
        pb += TK * sbk
    c = acc.to(C.dtype.element_ty)
    tl.store(C + rm[:, None] * scm + rn[None, :] * scn, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_strided(c, a, b, tm=128, tn=256, tk=64, num_warps=8, num_stages=4, group_m=8):
    """``c = a @ b`` for 2-D tensors of any strides (transposed views included), fp16 or bf16."""
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, tm) * triton.cdiv(N, tn),)
    _matmul_strided[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                          c.stride(1), TM=tm, TN=tn, TK=tk, GROUP_M=group_m, num_warps=num_warps,
                          num_stages=num_stages)


# ---- flash attention forward (FA-2, the algorithm of Triton's fused-attention tutorial) ------

@triton.jit
def _attention_block(acc, l_i, m_i, q, K, V, head, rm, rd, rn, lo, hi, S, qk_scale, D: tl.constexpr, BN: tl.constexpr,
                     MASK_DIAGONAL: tl.constexpr, EVEN_S: tl.constexpr):
    """Keys ``lo .. hi`` of one head for BM query rows; base-2 online softmax (``qk_scale``
    carries log2 e)."""
    for n in range(lo, hi, BN):
        kn = n + rn
        if EVEN_S:
            k = tl.load(K + head + kn[None, :] * D + rd[:, None])
            v = tl.load(V + head + kn[:, None] * D + rd[None, :])
        else:
            k = tl.load(K + head + kn[None, :] * D + rd[:, None], mask=kn[None, :] < S, other=0.)
            v = tl.load(V + head + kn[:, None] * D + rd[None, :], mask=kn[:, None] < S, other=0.)
        qk = tl.dot(q, k) * qk_scale
        if MASK_DIAGONAL:
            qk = tl.where(kn[None, :] <= rm[:, None], qk, -float("inf"))
        if not EVEN_S:
            qk = tl.where(kn[None, :] < S, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    return acc, l_i, m_i


_ATTENTION_CONFIGS = [
    triton.Config({"BM": 128, "BN": 64}, num_warps=4, num_stages=3),
    triton.Config({"BM": 128, "BN": 64}, num_warps=8, num_stages=3),
    triton.Config({"BM": 128, "BN": 128}, num_warps=8, num_stages=3),
    triton.Config({"BM": 128, "BN": 32}, num_warps=4, num_stages=4),
    triton.Config({"BM": 64, "BN": 64}, num_warps=4, num_stages=4),
]


@triton.autotune(configs=_ATTENTION_CONFIGS, key=["S", "D", "CAUSAL"])
@triton.jit
def _attention(Q, K, V, O, sm_scale, S, D: tl.constexpr, CAUSAL: tl.constexpr, EVEN_S: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * S * D
    rm = pid_m * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(Q + head + rm[:, None] * D + rd[None, :], mask=rm[:, None] < S, other=0.)
    qk_scale = sm_scale * 1.4426950408889634
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    if CAUSAL:
        # blocks left of the diagonal without the causal mask, then the diagonal block with it
        acc, l_i, m_i = _attention_block(acc, l_i, m_i, q, K, V, head, rm, rd, rn, 0, pid_m * BM, S, qk_scale,
                                         D, BN, False, EVEN_S)
        acc, l_i, m_i = _attention_block(acc, l_i, m_i, q, K, V, head, rm, rd, rn, pid_m * BM,
                                         tl.minimum((pid_m + 1) * BM, S), S, qk_scale, D, BN, True, EVEN_S)
    else:
        acc, l_i, m_i = _attention_block(acc, l_i, m_i, q, K, V, head, rm, rd, rn, 0, S, S, qk_scale, D, BN,
                                         False, EVEN_S)
    o = acc / l_i[:, None]
    tl.store(O + head + rm[:, None] * D + rd[None, :], o.to(O.dtype.element_ty), mask=rm[:, None] < S)


def attention(o, q, k, v, scale, causal=False):
    """FA-2 forward on ``[BH, S, D]`` tensors (``examples/attention.tri``'s arguments): the
    fused-attention tutorial's algorithm (base-2 exponentials with log2 e folded into the
    scale, the causal diagonal block masked apart), the best of :data:`_ATTENTION_CONFIGS`
    (``triton.autotune``, per sequence length, head dimension and causality)."""
    bh, S, D = q.shape
    even = S % 128 == 0
    grid = lambda meta: (triton.cdiv(S, meta["BM"]), bh)  # noqa: E731
    _attention[grid](q, k, v, o, scale, S, D=D, CAUSAL=bool(causal), EVEN_S=even)


def torch_available() -> bool:
    return torch.cuda.is_available()
