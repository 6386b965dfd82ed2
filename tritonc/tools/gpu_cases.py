"""The ``make gpu-check`` case table: one ``Case`` per example kernel (inputs, launch, reference).

Holds ``Case``, the helpers the cases share (``cdiv``, ``poison`` for poisoned outputs with a
guard region, ``_padded``...), the case factories and ``CASES``, the list ``gpu_check.main``
walks. The machinery that compiles, checks, times and tabulates the cases is in
``tritonc.tools.gpu_check`` (which re-exports ``Case``, ``CASES``, ``cdiv`` and ``poison``;
``tritonc.tools.bench`` imports the last two from there). The Triton versions come from
``benchmarks/triton_ref.py``, hence the ``sys.path`` entry below.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Callable

from tritonc.tools.examples import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


@dataclass
class Case:
    """One kernel checked at ``check_sizes`` and timed at ``bench_size``.

    ``run(mod, torch, size, which)`` launches the kernel (``which="tritonc"``), the torch
    reference (``"torch"``) or the Triton version (``"triton"``) and returns the output tensors;
    ``inputs(torch, size)`` makes the inputs and poisoned outputs; ``reference`` computes the
    expected outputs; ``work(size)`` is ``(bytes moved, flops)`` for the rate column.
    Kernels that declare a ``__grid`` are launched on it (the launcher computes it from the
    arguments), and every case compiles with the CLI's own warps and stages unless it names them.
    """

    name: str
    example: str
    defines: dict[str, str]
    check_sizes: list[tuple]
    bench_size: tuple
    inputs: Callable
    run: Callable
    reference: Callable
    work: Callable
    tol: float = 1e-5
    tune: dict[str, list[int]] = field(default_factory=dict)
    #: None: the CLI's own choice (``--num-warps auto``: the cost model or the tile rule)
    num_warps: int | None = None
    #: compile with ``--allow-tf32`` (f32 dots on tensor cores with TF32 inputs)
    allow_tf32: bool = False
    #: ``--hint`` problem sizes for the cost model (``M``, ``N``, ``K`` of the bench size's
    #: product), as a user compiling for one problem shape would pass them
    hint: dict[str, int] = field(default_factory=dict)


def poison(torch, shape, dtype, guard=64):
    """A tensor of ``shape`` filled with NaN (float) or -7 (int), with ``guard`` more poisoned
    elements after it in the same allocation; returns (view, whole buffer)."""
    numel = math.prod(shape)
    buf = torch.empty(numel + guard, dtype=dtype, device="cuda")
    buf.fill_(float("nan") if dtype.is_floating_point else -7)
    return buf[:numel].view(shape), buf


# ---- cases -------------------------------------------------------------------------------

def _vector_add_case() -> Case:
    def inputs(torch, size):
        (n,) = size
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        z, zbuf = poison(torch, (n,), torch.float32)
        return dict(x=x, y=y, z=z, bufs=[zbuf])

    def run(mod, torch, a, which):
        n = a["x"].numel()
        if which == "tritonc":
            mod.vector_add(a["z"], a["x"], a["y"], n)
        elif which == "torch":
            torch.add(a["x"], a["y"], out=a["z"])
        else:
            import triton_ref
            triton_ref.vector_add(a["z"], a["x"], a["y"], 1024)
        return [a["z"]]

    # no -D: the file's BLOCK (1024), launched on the declared grid
    return Case("vector_add", "vector_add", {}, [(1,), (1000,), (98_765,), (1_000_003,)],
                (1 << 28,), inputs, run, lambda torch, a: [a["x"] + a["y"]],
                lambda s: (3 * 4 * s[0], 0))


def _softmax_case() -> Case:
    def inputs(torch, size):
        m, n = size
        x = torch.randn(m, n, device="cuda")
        y, ybuf = poison(torch, (m, n), torch.float32)
        return dict(x=x, y=y, bufs=[ybuf])

    def run(mod, torch, a, which):
        x, y = a["x"], a["y"]
        if which == "tritonc":
            mod.softmax(y, x, y.stride(0), x.stride(0), x.shape[1], x.shape[0])  # the declared grid
        elif which == "torch":
            torch.softmax(x, dim=1, out=y)
        else:
            import triton_ref
            triton_ref.softmax(y, x, 1 << max(0, x.shape[1] - 1).bit_length())  # the row in one tile
        return [y]

    # no -D: the CLI's BLOCK; rows narrower than a tile and rows of several tiles (the loop)
    return Case("softmax", "softmax", {}, [(1, 7), (333, 1000), (1823, 781), (77, 5000), (3, 20000)], (4096, 1024),
                inputs, run, lambda torch, a: [torch.softmax(a["x"].double(), 1)],
                lambda s: (2 * 4 * s[0] * s[1], 0))


def _layernorm_case() -> Case:
    def inputs(torch, size):
        m, n = size
        x = torch.randn(m, n, device="cuda", dtype=torch.float16)
        w = torch.randn(n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        y, ybuf = poison(torch, (m, n), torch.float16)
        mean, mbuf = poison(torch, (m,), torch.float32)
        rstd, rbuf = poison(torch, (m,), torch.float32)
        return dict(x=x, w=w, b=b, y=y, mean=mean, rstd=rstd, bufs=[ybuf, mbuf, rbuf])

    def run(mod, torch, a, which):
        x, y = a["x"], a["y"]
        eps = 1e-5
        if which == "tritonc":
            mod.layernorm(y, x, a["w"], a["b"], a["mean"], a["rstd"], x.stride(0), x.shape[1], eps, x.shape[0])
        elif which == "torch":
            a["y"] = torch.nn.functional.layer_norm(x, (x.shape[1],), a["w"], a["b"], eps)
            return [a["y"]]
        else:
            import triton_ref
            meta = mod.layernorm.meta
            triton_ref.layernorm_welford(y, x, a["w"], a["b"], a["mean"], a["rstd"], eps, meta["BLOCK"],
                                         meta["num_warps"])
        return [y, a["mean"], a["rstd"]]

    def reference(torch, a):
        x = a["x"].double()
        mean = x.mean(1)
        var = ((x - mean[:, None]) ** 2).mean(1)
        rstd = 1 / torch.sqrt(var + 1e-5)
        y = (x - mean[:, None]) * rstd[:, None] * a["w"].double() + a["b"].double()
        return [y, mean, rstd]

    return Case("layernorm", "layernorm", {}, [(1, 1), (200, 1000), (77, 3000)], (8192, 4096),
                inputs, run, reference, lambda s: (2 * 2 * s[0] * s[1], 0), tol=1e-2)


def _transpose_case() -> Case:
    def inputs(torch, size):
        m, n = size
        x = torch.randn(m, n, device="cuda")
        out, obuf = poison(torch, (n, m), torch.float32)
        return dict(x=x, out=out, bufs=[obuf])

    def run(mod, torch, a, which):
        x, out = a["x"], a["out"]
        m, n = x.shape
        if which == "tritonc":
            mod.transpose(out, x, m, n, x.stride(0), out.stride(0))
        elif which == "torch":
            out.copy_(x.t())
        else:
            import triton_ref
            meta = mod.transpose.meta
            triton_ref.transpose(out, x, meta["TM"], meta["TN"], meta["num_warps"])
        return [out]

    return Case("transpose", "transpose", {}, [(1, 1), (1000, 777), (63, 1025)], (8192, 8192),
                inputs, run, lambda torch, a: [a["x"].t()], lambda s: (2 * 4 * s[0] * s[1], 0))


def _reduce_case(kernel: str) -> Case:
    """``row_sum`` / ``col_sum`` of ``examples/reduce.tri`` compiled with no option (the file's
    tile sizes and split factor), on the declared grids. ``col_sum`` accumulates with atomics:
    the launch zeroes the output first (the caller's duty, so it is in the timed launch too);
    Triton runs the same split kernel with tritonc's meta-parameters."""
    rows = kernel == "row_sum"

    def inputs(torch, size):
        m, n = size
        x = torch.randn(m, n, device="cuda")
        s, sbuf = poison(torch, (m if rows else n,), torch.float32)
        return dict(x=x, s=s, bufs=[sbuf])

    def run(mod, torch, a, which):
        x, s = a["x"], a["s"]
        m, n = x.shape
        if which == "tritonc":
            if not rows:
                s.zero_()
            getattr(mod, kernel)(s, x, m, n, x.stride(0))
        elif which == "torch":
            torch.sum(x, dim=1 if rows else 0, out=s)
        else:
            import triton_ref
            meta = getattr(mod, kernel).meta
            if rows:
                triton_ref.row_sum(s, x, meta["BM"], meta["BN"], meta["num_warps"])
            else:
                triton_ref.col_sum_split(s, x, meta["BM"], meta["BN"], meta["SPLIT"], meta["num_warps"])
        return [s]

    return Case(kernel, "reduce", {}, [(1, 1), (1000, 777), (3, 5000), (5000, 3)], (8192, 8192),
                inputs, run, lambda torch, a: [a["x"].double().sum(1 if rows else 0)],
                lambda s: (4 * s[0] * s[1] + 4 * (s[0] if rows else s[1]), 0), tol=1e-4)


def _matmul_case() -> Case:
    def inputs(torch, size):
        m, n, k = size
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c, cbuf = poison(torch, (m, n), torch.float16)
        return dict(a=a, b=b, c=c, bufs=[cbuf])

    def run(mod, torch, t, which):
        a, b, c = t["a"], t["b"], t["c"]
        m, k = a.shape
        n = b.shape[1]
        if which == "tritonc":
            mod.matmul(a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
        elif which == "torch":
            torch.matmul(a, b, out=c)
        else:  # the same kernel in Triton, with the meta-parameters tritonc chose
            import triton_ref
            meta = mod.matmul.meta
            triton_ref.matmul(c, a, b, meta["TM"], meta["TN"], meta["TK"], meta["num_warps"], meta["num_stages"])
        return [c]

    # the "default build": compiled exactly as `tritonc examples/matmul.tri -o matmul.cubin`
    # (no -D, --tune, --num-warps or --num-stages: the cost model's choice for the GPU)
    return Case("matmul (default build)", "matmul", {}, [(64, 64, 64), (1001, 776, 552), (33, 8, 1000)],
                (4096, 4096, 4096), inputs, run, lambda torch, t: [t["a"].double() @ t["b"].double()],
                lambda s: (2 * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]), 2 * s[0] * s[1] * s[2]), tol=1e-2)


CASES = [_vector_add_case, _softmax_case, _layernorm_case, _transpose_case,
         lambda: _reduce_case("row_sum"), lambda: _reduce_case("col_sum"), _matmul_case]


# ---- the Triton-C language examples (conv, cross-entropy, bmm, split-K, block-sparse, ...) --

def _no_triton(name: str):
    raise NotImplementedError(f"no OpenAI Triton version of {name} in benchmarks/triton_ref.py")


def _round_up(x: int, m: int) -> int:
    return cdiv(x, m) * m


def _padded(torch, rows: int, cols: int, dtype, mult: int = 8):
    """A random [rows, cols] matrix whose leading dimension is rounded up to ``mult`` (a view)."""
    return torch.randn(rows, _round_up(cols, mult), device="cuda", dtype=dtype)[:, :cols]


#: the convolution cases' filter: R x S = 3 x 3
_CONV_RS = 3


def _conv_case(name: str, example: str, dtype: str, hw: int, stride: int, pad: int, allow_tf32: bool | None,
               inputs, launch, nchw=lambda t: t) -> Case:
    """What the convolution cases share: torch's conv2d on the NCHW views ``nchw`` gives of the
    stored ``x``, ``w`` (and of tritonc's Y), with cuDNN's TF32 switch as ``allow_tf32`` says, the
    float64 reference, the work, the defines, the tolerance, the bench size (N, C, K) and its
    ``--hint``. ``launch(mod, torch, a)`` runs tritonc's kernel and returns Y as stored. For
    float32, ``allow_tf32`` says which comparison the row is: ``True``: tritonc built with
    ``--allow-tf32`` (tensor cores, TF32 inputs) against torch with cuDNN's TF32 on (torch's
    default for convolutions); ``False``: full fp32 on both sides (torch with
    ``torch.backends.cudnn.allow_tf32 = False``)."""
    R = S = _CONV_RS
    P = (hw + 2 * pad - R) // stride + 1

    def run(mod, torch, a, which):
        if which == "tritonc":
            return [nchw(launch(mod, torch, a))]
        if which == "torch":
            old = torch.backends.cudnn.allow_tf32
            if allow_tf32 is not None:
                torch.backends.cudnn.allow_tf32 = allow_tf32
            try:
                return [torch.nn.functional.conv2d(nchw(a["x"]), nchw(a["w"]), stride=stride, padding=pad)]
            finally:
                torch.backends.cudnn.allow_tf32 = old
        _no_triton(name)

    def reference(torch, a):
        return [torch.nn.functional.conv2d(nchw(a["x"]).double(), nchw(a["w"]).double(), stride=stride, padding=pad)]

    def work(s):
        n, c, k = s
        esize = 2 if dtype == "float16" else 4
        return (esize * (n * c * hw * hw + k * c * R * S + n * k * P * P), 2 * n * P * P * k * c * R * S)

    defines = {"TYPE": "half" if dtype == "float16" else "float"}
    tol = 1e-2 if dtype == "float16" or allow_tf32 else 1e-5
    bench = (32, 128, 128)
    # the implicit GEMM's sizes at the bench shape, as a user compiling for it passes them:
    # conv2d_s2's 1568 output rows fill 50 CTAs of 64x64 tiles on 132 SMs
    hint = {"M": bench[0] * P * P, "N": bench[2], "K": bench[1] * R * S}
    # check sizes: C not a multiple of 16 (generic kernels), then multiples (16-byte variants)
    return Case(name, example, defines, [(1, 3, 17), (3, 37, 100), (2, 64, 64)], bench,
                inputs, run, reference, work, tol=tol, allow_tf32=bool(allow_tf32), hint=hint)


def _conv2d_case(name: str, dtype: str, hw: int, stride: int, pad: int, allow_tf32: bool | None = None) -> Case:
    """examples/conv2d.tri: implicit-GEMM conv2d (NCHW, a host-built offset table), 3x3 filter,
    ``hw`` x ``hw`` images; size = (N, C, K). No tile or shape -D: the tiles are the cost
    model's, the shape is passed at run time, the grid is the kernel's ``__grid``;
    ``allow_tf32`` as :func:`_conv_case` says."""
    R = S = _CONV_RS
    P = (hw + 2 * pad - R) // stride + 1

    def inputs(torch, size):
        n, c, k = size
        dt = getattr(torch, dtype)
        x = torch.randn(n, c, hw, hw, device="cuda", dtype=dt)
        w = (torch.randn(k, c, R, S, device="cuda") / (c * R * S) ** 0.5).to(dt)
        i = torch.arange(c * R * S, device="cuda")
        aoff = ((i // (R * S)) * hw * hw + (i // S) % R * hw + i % S).to(torch.int32)
        y, ybuf = poison(torch, (n, k, P, P), dt)
        return dict(x=x, w=w, aoff=aoff, y=y, bufs=[ybuf])

    def launch(mod, torch, a):
        x, w, y = a["x"], a["w"], a["y"]
        n, c = x.shape[:2]
        k = w.shape[0]
        m, crs = n * P * P, c * R * S
        mod.conv2d(x, w, y, a["aoff"], m, k, crs, hw, hw, R, S, P, P, stride, stride, pad, pad,
                   c * hw * hw, hw, crs, k * P * P, P * P, P)
        return y

    return _conv_case(name, "conv2d", dtype, hw, stride, pad, allow_tf32, inputs, launch)


def _conv2d_nhwc_case(name: str, dtype: str, hw: int, stride: int, pad: int,
                      allow_tf32: bool | None = None, splitk: bool = False) -> Case:
    """examples/conv2d_nhwc.tri: implicit-GEMM conv2d on channels-last tensors, as
    :func:`_conv2d_case`. torch runs the same tensors as ``torch.channels_last`` views (X
    [N, H, W, C] permuted to NCHW, W [K, R, S, C] to KCRS), so cuDNN reads and writes the same
    memory layout. ``splitk``: the kernel ``conv2d_nhwc_splitk`` (its SPLITK the cost model's),
    float Y zeroed before every launch as the example asks of its caller, the memset timed
    with it."""
    kernel = "conv2d_nhwc_splitk" if splitk else "conv2d_nhwc"
    R = S = _CONV_RS
    P = (hw + 2 * pad - R) // stride + 1

    def inputs(torch, size):
        n, c, k = size
        dt = getattr(torch, dtype)
        x = torch.randn(n, hw, hw, c, device="cuda", dtype=dt)
        w = (torch.randn(k, R, S, c, device="cuda") / (c * R * S) ** 0.5).to(dt)
        y, ybuf = poison(torch, (n, P, P, k), torch.float32 if splitk else dt)
        return dict(x=x, w=w, y=y, bufs=[ybuf])

    def launch(mod, torch, a):
        x, w, y = a["x"], a["w"], a["y"]
        n, _, _, c = x.shape
        if splitk:
            y.zero_()
        getattr(mod, kernel)(x, w, y, n * P * P, w.shape[0], c, hw, hw, R, S, P, P, stride, stride, pad, pad)
        return y

    return _conv_case(name, "conv2d_nhwc", dtype, hw, stride, pad, allow_tf32, inputs, launch,
                      nchw=lambda t: t.permute(0, 3, 1, 2))


def _cross_entropy_case(kernel: str) -> Case:
    """examples/cross_entropy.tri with no option (its TILE; rows walked tile by tile with the
    online max / sum-exp), timed over a 128k vocabulary."""
    def inputs(torch, size):
        rows, n = size
        x = 3 * torch.randn(rows, n, device="cuda")
        labels = torch.randint(0, n, (rows,), device="cuda", dtype=torch.int64)
        if kernel == "forward":
            nlp, nbuf = poison(torch, (rows, n), torch.float32)
            loss, lbuf = poison(torch, (rows,), torch.float32)
            return dict(x=x, labels=labels, nlp=nlp, loss=loss, bufs=[nbuf, lbuf])
        nlp = -torch.log_softmax(x, 1)
        dloss = torch.randn(rows, device="cuda")
        dx, dbuf = poison(torch, (rows, n), torch.float32)
        return dict(x=x, labels=labels, nlp=nlp, dloss=dloss, dx=dx, bufs=[dbuf])

    def run(mod, torch, a, which):
        x, labels = a["x"], a["labels"]
        rows, n = x.shape
        if which == "tritonc":
            if kernel == "forward":
                mod.forward(x, a["nlp"], labels, a["loss"], n, rows)
                return [a["nlp"], a["loss"]]
            mod.backward(a["dx"], a["nlp"], labels, a["dloss"], n, rows)
            return [a["dx"]]
        if which == "torch":
            if kernel == "forward":
                return [torch.nn.functional.cross_entropy(x, labels, reduction="none")]
            p = torch.softmax(x, 1)
            p[torch.arange(rows, device="cuda"), labels] -= 1
            return [p * a["dloss"][:, None]]
        import triton_ref
        meta = getattr(mod, kernel).meta
        if kernel == "forward":
            triton_ref.cross_entropy_fwd(x, a["nlp"], labels, a["loss"], meta["TILE"], meta["num_warps"])
            return [a["nlp"], a["loss"]]
        triton_ref.cross_entropy_bwd(a["dx"], a["nlp"], labels, a["dloss"], meta["TILE"], meta["num_warps"])
        return [a["dx"]]

    def reference(torch, a):
        x, labels = a["x"].double(), a["labels"]
        nlp = -torch.log_softmax(x, 1)
        if kernel == "forward":
            return [nlp, nlp.gather(1, labels[:, None])[:, 0]]
        p = torch.exp(-nlp)
        p[torch.arange(x.shape[0], device="cuda"), labels] -= 1
        return [p * a["dloss"].double()[:, None]]

    return Case(f"cross_entropy_{kernel}", "cross_entropy", {},
                [(1, 1), (333, 1000), (1000, 517), (5, 131_075)], (512, 131_072), inputs, run, reference,
                lambda s: (2 * 4 * s[0] * s[1], 0), tol=1e-5)


def _bmm_case() -> Case:
    """Batched fp16 product on 3-D tiles; no tile -D (the tunables' defaults), declared grid."""

    def inputs(torch, size):
        b, m, n, k = size
        x = torch.randn(b, m, k, device="cuda", dtype=torch.float16)
        y = torch.randn(b, k, n, device="cuda", dtype=torch.float16)
        c, cbuf = poison(torch, (b, m, n), torch.float16)
        return dict(a=x, b=y, c=c, bufs=[cbuf])

    def run(mod, torch, t, which):
        a, b, c = t["a"], t["b"], t["c"]
        nb, m, k = a.shape
        n = b.shape[2]
        if which == "tritonc":
            mod.bmm(a, b, c, m, n, k, nb, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                    c.stride(1))
        elif which == "torch":
            torch.bmm(a, b, out=c)
        else:
            _no_triton("bmm")
        return [c]

    return Case("bmm", "bmm", {"TYPE": "half"},
                [(1, 1, 1, 1), (3, 100, 70, 50), (5, 33, 64, 17)], (64, 512, 512, 512), inputs, run,
                lambda torch, t: [t["a"].double() @ t["b"].double()],
                lambda s: (2 * s[0] * (s[1] * s[3] + s[3] * s[2] + s[1] * s[2]), 2 * s[0] * s[1] * s[2] * s[3]),
                tol=1e-2)


def _splitk_matmul_case() -> Case:
    """Split-K with fp32 atomic adds: no tile -D (the cost model's tiles and SPLITK at the
    bench size's ``--hint``), the grid from the kernel's ``__grid``; C (fp32) is zeroed before every launch, as the example asks
    of its caller, and that memset is part of the timed launch."""

    def inputs(torch, size):
        m, n, k = size  # n a multiple of 8 (ldc __multipleof(8)); A's rows padded to 8
        a = _padded(torch, m, k, torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c, cbuf = poison(torch, (m, n), torch.float32)
        return dict(a=a, b=b, c=c, bufs=[cbuf])

    def run(mod, torch, t, which):
        a, b, c = t["a"], t["b"], t["c"]
        m, k = a.shape
        n = b.shape[1]
        if which == "tritonc":
            c.zero_()
            mod.splitk_matmul(a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
        elif which == "torch":
            torch.matmul(a, b, out=t.setdefault("c16", torch.empty(m, n, device="cuda", dtype=torch.float16)))
            return [t["c16"]]
        else:
            _no_triton("splitk_matmul")
        return [c]

    def reference(torch, t):
        return [t["a"].double() @ t["b"].double()]

    return Case("splitk_matmul", "splitk_matmul", {"TYPE": "half", "GROUP_M": "8"},
                [(33, 8, 1000), (1001, 776, 550), (100, 200, 3001)], (1024, 1024, 16384), inputs, run, reference,
                lambda s: (2 * (s[0] * s[2] + s[2] * s[1]) + 4 * s[0] * s[1], 2 * s[0] * s[1] * s[2]), tol=1e-2,
                # the problem a user compiling for it names: the model ranks the split from the grid
                hint={"M": 1024, "N": 1024, "K": 16384})


def _blocksparse_matmul_case() -> Case:
    BLOCK, DENSITY = 32, 0.25  # BLOCK: the data format (the blocks' size); TN: the cost model's

    def inputs(torch, size):
        mb, kb, n = size  # n a multiple of 8 (ldb, ldc __multipleof(8))
        layout = torch.rand(mb, kb) < DENSITY
        layout[0] = False  # an empty block row: C's rows must be zeros
        nnz = int(layout.sum())
        blocks = torch.randn(max(nnz, 1), BLOCK, BLOCK, device="cuda", dtype=torch.float16)
        index = (torch.cumsum(layout.flatten().long(), 0) - 1).view(mb, kb)
        header, pairs = [], []
        for i in range(mb):
            ks = torch.nonzero(layout[i]).flatten().tolist()
            header += [2 * mb + len(pairs), len(ks)]
            for kk in ks:
                pairs += [int(index[i, kk]), kk]
        lut = torch.tensor(header + pairs, dtype=torch.int32, device="cuda")
        dense = torch.zeros(mb * BLOCK, kb * BLOCK, device="cuda", dtype=torch.float16)
        rows, cols = torch.nonzero(layout, as_tuple=True)
        for j, (i, kk) in enumerate(zip(rows.tolist(), cols.tolist())):
            dense[i * BLOCK:(i + 1) * BLOCK, kk * BLOCK:(kk + 1) * BLOCK] = blocks[j]
        b = torch.randn(kb * BLOCK, n, device="cuda", dtype=torch.float16)
        c, cbuf = poison(torch, (mb * BLOCK, n), torch.float16)
        return dict(blocks=blocks, lut=lut, dense=dense, b=b, c=c, nnz=nnz, bufs=[cbuf])

    def run(mod, torch, t, which):
        b, c = t["b"], t["c"]
        n = b.shape[1]
        if which == "tritonc":
            mod.blocksparse_matmul(t["blocks"], b, c, t["lut"], n, b.stride(0), c.stride(0), c.shape[0])
        elif which == "torch":  # the dense product of the densified A
            torch.matmul(t["dense"], b, out=c)
        else:
            _no_triton("blocksparse_matmul")
        return [c]

    return Case("blocksparse_matmul", "blocksparse_matmul", {"TYPE": "half", "BLOCK": str(BLOCK)},
                [(2, 3, 40), (10, 12, 1000), (33, 17, 136)], (128, 128, 4096), inputs, run,
                lambda torch, t: [t["dense"].double() @ t["b"].double()],
                lambda s: (2 * (DENSITY * s[0] * s[1] * BLOCK * BLOCK + s[1] * BLOCK * s[2] + s[0] * BLOCK * s[2]),
                           2 * DENSITY * s[0] * s[1] * BLOCK * BLOCK * s[2]), tol=1e-2)


def _batchnorm_case() -> Case:
    eps, momentum = 1e-5, 0.1

    def inputs(torch, size):
        n, c, h, w = size
        x = 2 * torch.randn(n, c, h, w, device="cuda") + torch.randn(1, c, 1, 1, device="cuda")
        gamma, beta = torch.randn(c, device="cuda"), torch.randn(c, device="cuda")
        run_mean, run_var = torch.randn(c, device="cuda"), torch.rand(c, device="cuda")
        y, ybuf = poison(torch, (n, c, h, w), torch.float32)
        mean, mbuf = poison(torch, (c,), torch.float32)
        rstd, rbuf = poison(torch, (c,), torch.float32)
        return dict(x=x, gamma=gamma, beta=beta, rm=run_mean, rv=run_var, rm0=run_mean.clone(),
                    rv0=run_var.clone(), y=y, mean=mean, rstd=rstd, bufs=[ybuf, mbuf, rbuf])

    def run(mod, torch, a, which):
        x, y = a["x"], a["y"]
        n, c, h, w = x.shape
        meta = mod.batchnorm.meta
        part = a.get("part")
        if part is None or part.numel() != 3 * c * meta["SPLIT"]:
            part = a["part"] = torch.empty(3 * c * meta["SPLIT"], device="cuda")  # the workspace
        if which == "tritonc":
            mod.batchnorm_stats(part, x, n, c, h * w, x.stride(0))
            mod.batchnorm(y, x, part, a["gamma"], a["beta"], a["mean"], a["rstd"], a["rm"], a["rv"], n, c, h * w,
                          x.stride(0), eps, momentum)
            return [y, a["mean"], a["rstd"], a["rm"], a["rv"]]
        if which == "torch":
            return [torch.nn.functional.batch_norm(x, a["rm"], a["rv"], a["gamma"], a["beta"], True, momentum, eps)]
        import triton_ref
        triton_ref.batchnorm(y, x, part, a["gamma"], a["beta"], a["mean"], a["rstd"], a["rm"], a["rv"], eps, momentum,
                             meta)
        return [y, a["mean"], a["rstd"], a["rm"], a["rv"]]

    def reference(torch, a):
        x = a["x"].double()
        mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3), unbiased=False)
        rstd = 1 / torch.sqrt(var + eps)
        count = x.numel() // x.shape[1]
        unbiased = var * count / (count - 1) if count > 1 else var
        ch = (slice(None), None, None)
        y = (x - mean[ch]) * rstd[ch] * a["gamma"].double()[ch] + a["beta"].double()[ch]
        return [y, mean, rstd, (1 - momentum) * a["rm0"].double() + momentum * mean,
                (1 - momentum) * a["rv0"].double() + momentum * unbiased]

    return Case("batchnorm", "batchnorm", {},
                [(1, 1, 1, 1), (3, 5, 7, 9), (8, 64, 17, 15), (2, 3, 64, 67)], (32, 256, 56, 56), inputs, run,
                reference, lambda s: (2 * 4 * s[0] * s[1] * s[2] * s[3], 0), tol=1e-4)


def _permute_case(kernel: str) -> Case:
    """examples/permute.tri with no option (its box T0 x T1 x T2 and warps: the compiler's)."""

    def inputs(torch, size):
        d0, d1, d2 = size
        x = torch.randn(d0, d1, d2 + 3, device="cuda")[:, :, :d2]  # a strided view
        shape = (d2, d0, d1) if kernel == "permute_201" else (d0, d1, d2)
        y, ybuf = poison(torch, shape, torch.float32)
        return dict(x=x, y=y, bufs=[ybuf])

    def run(mod, torch, a, which):
        x, y = a["x"], a["y"]
        if which == "tritonc":
            getattr(mod, kernel)(y, x, *x.shape, *x.stride(), *y.stride())
        elif which == "torch":
            y.copy_(x.permute(2, 0, 1) if kernel == "permute_201" else x)
        else:
            _no_triton(kernel)
        return [y]

    def reference(torch, a):
        return [a["x"].permute(2, 0, 1) if kernel == "permute_201" else a["x"]]

    return Case(kernel, "permute", {},
                [(1, 1, 1), (5, 100, 37), (33, 17, 129)], (64, 512, 512), inputs, run, reference,
                lambda s: (2 * 4 * s[0] * s[1] * s[2], 0), tol=0.0)


def _paper_matmul_case() -> Case:
    def inputs(torch, size):
        m, n, k = size  # n a multiple of 8 (ldc multiple_of(8)); A's and B's rows padded to 8
        a, b = _padded(torch, m, k, torch.float16), _padded(torch, n, k, torch.float16)
        c, cbuf = poison(torch, (m, n), torch.float32)
        return dict(a=a, b=b, c=c, bufs=[cbuf])

    def run(mod, torch, t, which):
        a, b, c = t["a"], t["b"], t["c"]
        m, k = a.shape
        n = b.shape[0]
        if which == "tritonc":
            mod.paper_matmul(a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
            return [c]
        if which == "torch":
            return [torch.matmul(a, b.t())]
        _no_triton("paper_matmul")

    return Case("paper_matmul", "paper_matmul", {}, [(64, 64, 64), (1001, 776, 550), (33, 8, 1000)],
                (4096, 4096, 4096), inputs, run, lambda torch, t: [t["a"].double() @ t["b"].double().t()],
                lambda s: (2 * (s[0] * s[2] + s[2] * s[1]) + 4 * s[0] * s[1], 2 * s[0] * s[1] * s[2]), tol=1e-4)


def _shift_conv_case() -> Case:
    HW = 28

    def shifts(torch, c):
        """The 3x3 shift pattern: channel group g = c * 9 // C is shifted by (g // 3 - 1, g % 3 - 1)."""
        g = torch.arange(c, device="cuda") * 9 // c
        return (g // 3 - 1).to(torch.int32), (g % 3 - 1).to(torch.int32)

    def shift(torch, x, dh, dw):
        """s[:, c, h, w] = x[:, c, h + dh[c], w + dw[c]], zero outside, one slice copy per shift group."""
        s = torch.zeros_like(x)
        H, W = x.shape[2:]
        for a in (-1, 0, 1):
            for b in (-1, 0, 1):
                ch = ((dh == a) & (dw == b)).nonzero().flatten()
                if ch.numel():
                    c0, c1 = int(ch[0]), int(ch[-1]) + 1
                    s[:, c0:c1, max(-a, 0):H - max(a, 0), max(-b, 0):W - max(b, 0)] = \
                        x[:, c0:c1, max(a, 0):H - max(-a, 0), max(b, 0):W - max(-b, 0)]
        return s

    def inputs(torch, size):
        n, c, k = size
        x = torch.randn(n, c, HW, HW, device="cuda", dtype=torch.float16)
        w = (torch.randn(k, c, device="cuda") / c ** 0.5).to(torch.float16)
        dh, dw = shifts(torch, c)
        y, ybuf = poison(torch, (n, k, HW, HW), torch.float16)
        return dict(x=x, w=w, dh=dh, dw=dw, y=y, bufs=[ybuf])

    def run(mod, torch, a, which):
        x, w, y = a["x"], a["w"], a["y"]
        n, c = x.shape[:2]
        k = w.shape[0]
        if which == "tritonc":
            m = n * HW * HW
            mod.shift_conv(x, w, y, a["dh"], a["dw"], m, k, c, HW, HW, c * HW * HW, HW * HW, c, k * HW * HW, HW * HW)
            return [y]
        if which == "torch":
            return [torch.nn.functional.conv2d(shift(torch, x, a["dh"], a["dw"]), w[:, :, None, None])]
        _no_triton("shift_conv")

    def reference(torch, a):
        s = shift(torch, a["x"].double(), a["dh"], a["dw"])
        return [torch.einsum("nchw,kc->nkhw", s, a["w"].double())]

    return Case("shift_conv", "shift_conv", {"TYPE": "half"},
                [(1, 3, 5), (2, 37, 100), (4, 64, 64)], (32, 256, 256), inputs, run, reference,
                lambda s: (2 * (2 * s[0] * s[1] * HW * HW + s[1] * s[2]), 2 * s[0] * HW * HW * s[1] * s[2]),
                tol=1e-2)


CASES += [lambda: _conv2d_case("conv2d", "float16", 28, 1, 1),
          # conv2d_s2 (fp32), two rows: "tf32" built with --allow-tf32 vs torch with TF32 on (its
          # default for convolutions); "fp32" full fp32 on both sides (torch with TF32 off).
          lambda: _conv2d_case("conv2d_s2_tf32", "float32", 13, 2, 1, allow_tf32=True),
          lambda: _conv2d_case("conv2d_s2_fp32", "float32", 13, 2, 1, allow_tf32=False),
          # the same convolutions on channels-last tensors (examples/conv2d_nhwc.tri)
          lambda: _conv2d_nhwc_case("conv2d_nhwc", "float16", 28, 1, 1),
          # the strided ones through the split-K kernel: 1568 output rows fill few tiles
          lambda: _conv2d_nhwc_case("conv2d_nhwc_s2_tf32", "float32", 13, 2, 1, allow_tf32=True, splitk=True),
          lambda: _conv2d_nhwc_case("conv2d_nhwc_s2_fp32", "float32", 13, 2, 1, allow_tf32=False, splitk=True),
          lambda: _cross_entropy_case("forward"), lambda: _cross_entropy_case("backward"), _bmm_case,
          _splitk_matmul_case, _blocksparse_matmul_case, _batchnorm_case, lambda: _permute_case("permute_201"),
          lambda: _permute_case("copy3d"), _paper_matmul_case, _shift_conv_case]


# ---- memory-bound kernels: every one compiled with no option, on its declared grid ---------

def _dropout_case() -> Case:
    """examples/dropout.tri, checked against the keep mask of OpenAI Triton's ``tl.rand``
    computed on the host (the interpreter's Philox4x32-10) at the check sizes, and at the bench
    size against Triton's own kernel (x is never 0 there, almost surely, so a 0 marks a dropped
    element): the GPU's mask is checked bit for bit. torch's dropout (another generator) is
    timed only."""
    p, seed = 0.25, 0x5EED_1234

    def inputs(torch, size):
        (n,) = size
        x = torch.randn(n, device="cuda")
        y, ybuf = poison(torch, (n,), torch.float32)
        return dict(x=x, y=y, bufs=[ybuf])

    def run(mod, torch, a, which):
        x, y = a["x"], a["y"]
        if which == "tritonc":
            mod.dropout(y, x, x.numel(), p, seed)
        elif which == "torch":
            return [torch.nn.functional.dropout(x, p, training=True)]
        else:
            import triton_ref
            meta = mod.dropout.meta
            triton_ref.dropout(y, x, p, seed, meta["BLOCK"], meta["num_warps"])
        return [y]

    def reference(torch, a):
        import numpy as np

        from tritonc.interpreter.numerics import philox4x32

        n = a["x"].numel()
        x = a["x"].double()
        if n > 2_000_000:  # the bench size: host Philox would take ~20 s; Triton's tl.rand is the spec
            import triton_ref

            want = torch.empty_like(a["x"])
            triton_ref.dropout(want, a["x"], p, seed)
            return [torch.where(want != 0, x / (1 - p), torch.zeros_like(x))]
        word = philox4x32(np.arange(n, dtype=np.uint32), 0, 0, 0, seed & 0xFFFFFFFF, seed >> 32)[0].view(np.int32)
        uniform = np.where(word < 0, -word - 1, word).astype(np.float32) * np.float32(4.6566127342e-10)
        keep = torch.from_numpy(uniform > np.float32(p)).to("cuda")
        return [torch.where(keep, x / (1 - p), torch.zeros_like(x))]

    return Case("dropout", "dropout", {}, [(1,), (1000,), (98_765,), (1_000_003,)], (1 << 25,), inputs, run,
                reference, lambda s: (2 * 4 * s[0], 0), tol=1e-6)


#: The tiles of the Triton references' dweight (and dbias) column sums (``triton_ref.rmsnorm_bwd``,
#: ``triton_ref.layernorm_bwd``): those of the column-sum kernels examples/rmsnorm.tri and
#: examples/layernorm_bwd.tri had before their backward became one pass (session 7).
NORM_DW_TRITON = {"BM": 8, "BN": 256, "SPLIT": 16}


def _row_norm_inputs(torch, size, grads: bool):
    m, n = size
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    a = dict(x=x, w=w, b=torch.randn(n, device="cuda", dtype=torch.float16))
    if grads:
        a["dy"] = torch.randn(m, n, device="cuda", dtype=torch.float16)
    return a


def _layernorm_bwd_case() -> Case:
    """examples/layernorm_bwd.tri: dx, dgamma and dbeta in one pass, dgamma / dbeta as fp32
    atomics into outputs the caller zeroes (inside the timed launch); torch: aten's
    native_layer_norm_backward; Triton: dx per row, then a column-sum kernel."""
    eps = 1e-5

    def inputs(torch, size):
        m, n = size
        a = _row_norm_inputs(torch, size, True)
        x = a["x"].float()
        a["mean"] = x.mean(1)
        a["rstd"] = torch.rsqrt(x.var(1, unbiased=False) + eps)
        a["dx"], dxbuf = poison(torch, (m, n), torch.float16)
        a["dw"], dwbuf = poison(torch, (n,), torch.float32)
        a["db"], dbbuf = poison(torch, (n,), torch.float32)
        a["bufs"] = [dxbuf, dwbuf, dbbuf]
        return a

    def run(mod, torch, a, which):
        x, dy = a["x"], a["dy"]
        m, n = x.shape
        if which == "tritonc":
            a["dw"].zero_()  # the example's contract: the caller zeroes DW and DB
            a["db"].zero_()
            mod.layernorm_bwd(a["dx"], a["dw"], a["db"], dy, x, a["w"], a["mean"], a["rstd"], x.stride(0), n, m)
        elif which == "torch":
            return list(torch.ops.aten.native_layer_norm_backward(
                dy, x, [n], a["mean"].view(m, 1), a["rstd"].view(m, 1), a["w"], a["b"], [True, True, True]))
        else:
            import triton_ref
            triton_ref.layernorm_bwd(a["dx"], a["dw"], a["db"], dy, x, a["w"], a["mean"], a["rstd"],
                                     dict(mod.layernorm_bwd.meta, **NORM_DW_TRITON),
                                     dict(NORM_DW_TRITON, num_warps=8))
        return [a["dx"], a["dw"], a["db"]]

    def reference(torch, a):
        x, w, dy = a["x"].double(), a["w"].double(), a["dy"].double()
        mean, rstd = a["mean"].double()[:, None], a["rstd"].double()[:, None]
        xhat = (x - mean) * rstd
        g = w * dy
        dx = rstd * (g - (xhat * (xhat * g).mean(1, keepdim=True) + g.mean(1, keepdim=True)))
        return [dx, (dy * xhat).sum(0), dy.sum(0)]

    return Case("layernorm_bwd", "layernorm_bwd", {}, [(1, 1), (200, 1000), (77, 3000), (1000, 77)], (8192, 4096),
                inputs, run, reference, lambda s: (3 * 2 * s[0] * s[1], 0), tol=1e-2)




def _rmsnorm_case(kernel: str) -> Case:
    """examples/rmsnorm.tri: forward (y, rstd), or backward (dx and dweight in one pass, dweight
    as fp32 atomics into an output the caller zeroes); torch: rms_norm / the backward formula in
    eager ops."""
    eps = 1e-6
    fwd = kernel == "fwd"

    def inputs(torch, size):
        m, n = size
        a = _row_norm_inputs(torch, size, not fwd)
        a["rstd"] = torch.rsqrt(a["x"].float().pow(2).mean(1) + eps)
        if fwd:
            a["y"], ybuf = poison(torch, (m, n), torch.float16)
            a["rstd_out"], rbuf = poison(torch, (m,), torch.float32)
            a["bufs"] = [ybuf, rbuf]
        else:
            a["dx"], dxbuf = poison(torch, (m, n), torch.float16)
            a["dw"], dwbuf = poison(torch, (n,), torch.float32)
            a["bufs"] = [dxbuf, dwbuf]
        return a

    def run(mod, torch, a, which):
        x, w = a["x"], a["w"]
        m, n = x.shape
        if which == "tritonc":
            if fwd:
                mod.rmsnorm_fwd(a["y"], x, w, a["rstd_out"], x.stride(0), n, eps, m)
                return [a["y"], a["rstd_out"]]
            a["dw"].zero_()  # the example's contract: the caller zeroes DW
            mod.rmsnorm_bwd(a["dx"], a["dw"], a["dy"], x, w, a["rstd"], x.stride(0), n, m)
            return [a["dx"], a["dw"]]
        if which == "torch":
            if fwd:
                return [torch.nn.functional.rms_norm(x, (n,), w, eps)]
            r = a["rstd"][:, None]
            xf, g = x.float(), w.float() * a["dy"].float()
            dx = (r * g - xf * r ** 3 * (g * xf).mean(1, keepdim=True)).half()
            return [dx, (a["dy"].float() * xf * r).sum(0)]
        import triton_ref
        meta = getattr(mod, f"rmsnorm_{'fwd' if fwd else 'bwd'}").meta
        if fwd:
            triton_ref.rmsnorm_fwd(a["y"], x, w, a["rstd_out"], eps, meta["BLOCK"], meta["num_warps"])
            return [a["y"], a["rstd_out"]]
        # Triton's two kernels (dx per row, then dweight as a column sum): the row tile and warps
        # of tritonc's, the column sum's tiles as examples/reduce.tri's col_sum default
        triton_ref.rmsnorm_bwd(a["dx"], a["dw"], a["dy"], x, w, a["rstd"], dict(meta, **NORM_DW_TRITON),
                               dict(NORM_DW_TRITON, num_warps=8))
        return [a["dx"], a["dw"]]

    def reference(torch, a):
        x, w = a["x"].double(), a["w"].double()
        if fwd:
            rstd = 1 / torch.sqrt((x * x).mean(1) + eps)
            return [x * rstd[:, None] * w, rstd]
        r, dy = a["rstd"].double()[:, None], a["dy"].double()
        g = w * dy
        return [r * g - x * r ** 3 * (g * x).mean(1, keepdim=True), (dy * x * r).sum(0)]

    # not N = 1: there dx = w*dy*rstd*(1 - x^2*rstd^2) cancels to ~eps/x^2 of its terms, and a
    # relative error against that is noise (the GPU run of 2026-11-24 read 1.0 at (1, 1))
    return Case(f"rmsnorm_{kernel}", "rmsnorm", {}, [(1, 7), (200, 1000), (77, 3000), (1000, 77)], (8192, 4096),
                inputs, run, reference, lambda s: ((2 if fwd else 3) * 2 * s[0] * s[1], 0), tol=1e-2)


def _softmax_bwd_case() -> Case:
    """examples/softmax_bwd.tri; torch: aten's _softmax_backward_data."""
    def inputs(torch, size):
        m, n = size
        y = torch.softmax(torch.randn(m, n, device="cuda"), 1)
        dy = torch.randn(m, n, device="cuda")
        dx, dxbuf = poison(torch, (m, n), torch.float32)
        return dict(y=y, dy=dy, dx=dx, bufs=[dxbuf])

    def run(mod, torch, a, which):
        y, dy, dx = a["y"], a["dy"], a["dx"]
        m, n = y.shape
        if which == "tritonc":
            mod.softmax_bwd(dx, y, dy, dx.stride(0), y.stride(0), dy.stride(0), n, m)
        elif which == "torch":
            return [torch._softmax_backward_data(dy, y, 1, torch.float32)]
        else:
            import triton_ref
            meta = mod.softmax_bwd.meta
            triton_ref.softmax_bwd(dx, y, dy, meta["BLOCK"], meta["num_warps"])
        return [dx]

    def reference(torch, a):
        y, dy = a["y"].double(), a["dy"].double()
        return [y * (dy - (y * dy).sum(1, keepdim=True))]

    return Case("softmax_bwd", "softmax_bwd", {}, [(1, 1), (333, 1000), (77, 5000), (1823, 781)], (4096, 4096),
                inputs, run, reference, lambda s: (3 * 4 * s[0] * s[1], 0), tol=1e-5)


CASES += [_dropout_case, _layernorm_bwd_case, lambda: _rmsnorm_case("fwd"), lambda: _rmsnorm_case("bwd"),
          _softmax_bwd_case]


def case_named(name: str) -> Case:
    """The case of :data:`CASES` called ``name`` (``make bench`` builds rows from some).

    Raises:
        KeyError: no case has that name.
    """
    for factory in CASES:
        case = factory()
        if case.name == name:
            return case
    raise KeyError(name)

def _attention_case(type_name: str, d: int, causal: bool) -> Case:
    """``examples/attention.tri`` (flash attention forward) at ragged sequence lengths, against a
    float32 softmax reference; torch's side is ``scaled_dot_product_attention``, Triton's the
    FA-2 forward of ``triton_ref.attention``."""
    dtypes = {"half": "float16", "bfloat16": "bfloat16"}

    def inputs(torch, size):
        bh, n = size
        dt = getattr(torch, dtypes[type_name])
        q, k, v = (torch.randn(bh, n, d, device="cuda", dtype=dt) for _ in range(3))
        o, obuf = poison(torch, (bh, n, d), dt)
        return dict(q=q, k=k, v=v, o=o, bufs=[obuf])

    def run(mod, torch, a, which):
        q, k, v, o = a["q"], a["k"], a["v"], a["o"]
        bh, n, _ = q.shape
        if which == "tritonc":
            mod.attention(q, k, v, o, d ** -0.5, n, bh)
            return [o]
        if which == "torch":
            out = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal,
                                                                   scale=d ** -0.5)
            return [out[0]]
        import triton_ref
        triton_ref.attention(o, q, k, v, d ** -0.5, causal)
        return [o]

    def reference(torch, a):
        from tritonc.tools.bench_attention import reference as ref
        return [ref(torch, a["q"], a["k"], a["v"], d ** -0.5, causal)]

    def work(size):
        bh, n = size
        return 4 * 2 * bh * n * d, 4 * bh * n * n * d // (2 if causal else 1)

    name = f"attention_d{d}" + ("_causal" if causal else "") + ("_bf16" if type_name == "bfloat16" else "")
    return Case(name, "attention", {"TYPE": type_name, "D": str(d), "CAUSAL": str(int(causal))},
                [(1, 1), (3, 77), (2, 300), (5, 1000)], (64, 2048), inputs, run, reference, work,
                tol=1e-2 if type_name == "half" else 3e-2)


CASES += [lambda: _attention_case("half", 64, False), lambda: _attention_case("half", 64, True),
          lambda: _attention_case("half", 128, False), lambda: _attention_case("bfloat16", 128, True)]
