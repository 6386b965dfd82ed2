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


def transpose(out, x, tm=32, tn=32):
    M, N = x.shape
    _transpose[(triton.cdiv(M, tm), triton.cdiv(N, tn))](out, x, M, N, x.stride(0), out.stride(0), TM=tm, TN=tn)


@triton.jit
def _row_sum(S, X, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros([BM, BN], tl.float32)
    for n in range(0, N, BN):
        m = (rm[:, None] < M) & (n + rn[None, :] < N)
        acc += tl.load(X + rm[:, None] * stride + n + rn[None, :], mask=m, other=0.)
    tl.store(S + rm, tl.sum(acc, 1), mask=rm < M)


def row_sum(s, x, bm=8, bn=256):
    M, N = x.shape
    _row_sum[(triton.cdiv(M, bm),)](s, x, M, N, x.stride(0), BM=bm, BN=bn)


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
