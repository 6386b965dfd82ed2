"""The ``make gpu-check`` cases of the Triton-C language examples that go beyond one row or one
matmul: the convolutions (NCHW with an offset table or KRSC filters, channels-last, split-K), cross-entropy
over a large vocabulary, the batched, split-K, block-sparse and paper matmuls, batchnorm, the
3-D permutations and the shift convolution. :data:`EXAMPLE_CASES`, in the order
``gpu_cases.CASES`` lists them."""
from __future__ import annotations

from tritonc.tools.gpu_case import Case, no_triton, padded, poison


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
        no_triton(name)

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


def _nchw_operands(torch, size, dtype: str, hw: int, p: int, splitk: bool = False) -> dict:
    """The convolution cases' inputs for size = (N, C, K): random NCHW ``x`` [N, C, hw, hw] and
    KCRS ``w`` [K, C, R, S] of ``dtype`` (``w`` scaled by 1/sqrt(CRS), so Y stays of unit size),
    a poisoned NCHW ``y`` [N, K, p, p] of ``dtype`` with its buffer in ``bufs`` (:func:`poison`),
    and ``ws``: the split-K paths' float channels-last workspace of N*p*p*K elements (None
    without ``splitk``)."""
    n, c, k = size
    dt = getattr(torch, dtype)
    x = torch.randn(n, c, hw, hw, device="cuda", dtype=dt)
    w = (torch.randn(k, c, _CONV_RS, _CONV_RS, device="cuda") / (c * _CONV_RS * _CONV_RS) ** 0.5).to(dt)
    y, ybuf = poison(torch, (n, k, p, p), dt)
    ws = torch.empty(n * p * p * k, device="cuda") if splitk else None
    return dict(x=x, w=w, y=y, ws=ws, bufs=[ybuf])


def _conv2d_case(name: str, dtype: str, hw: int, stride: int, pad: int, allow_tf32: bool | None = None,
                 splitk: bool = False) -> Case:
    """examples/conv2d.tri: implicit-GEMM conv2d (NCHW, a host-built offset table), 3x3 filter,
    ``hw`` x ``hw`` images; size = (N, C, K). No tile or shape -D: the tiles are the cost
    model's, the shape is passed at run time, the grid is the kernel's ``__grid``;
    ``allow_tf32`` as :func:`_conv_case` says. ``splitk``: the example's split-K path, timed
    together: the float channels-last workspace zeroed (as the example asks of its caller),
    ``conv2d_splitk`` adding into it (its SPLITK the cost model's), ``nhwc_to_nchw`` writing
    Y."""
    R = S = _CONV_RS
    P = (hw + 2 * pad - R) // stride + 1

    def inputs(torch, size):
        i = torch.arange(size[1] * R * S, device="cuda")
        aoff = ((i // (R * S)) * hw * hw + (i // S) % R * hw + i % S).to(torch.int32)
        return dict(_nchw_operands(torch, size, dtype, hw, P, splitk), aoff=aoff)

    def launch(mod, torch, a):
        x, w, y = a["x"], a["w"], a["y"]
        n, c = x.shape[:2]
        k = w.shape[0]
        m, crs = n * P * P, c * R * S
        conv = (m, k, crs, hw, hw, R, S, P, P, stride, stride, pad, pad, c * hw * hw, hw, crs)
        if splitk:
            a["ws"].zero_()
            mod.conv2d_splitk(x, w, a["ws"], a["aoff"], *conv)
            mod.nhwc_to_nchw(y, a["ws"], k, P * P, n)
        else:
            mod.conv2d(x, w, y, a["aoff"], *conv, k * P * P, P * P, P)
        return y

    return _conv_case(name, "conv2d", dtype, hw, stride, pad, allow_tf32, inputs, launch)


def _conv2d_krsc_case(name: str, dtype: str, hw: int, stride: int, pad: int, allow_tf32: bool | None = None) -> Case:
    """examples/conv2d_krsc.tri: NCHW input, the filters repacked once to KRSC in the inputs
    (outside the timed launch, as an inference engine repacks constant weights), as
    :func:`_conv2d_case` otherwise; torch runs the KCRS filters."""
    R = S = _CONV_RS
    P = (hw + 2 * pad - R) // stride + 1

    def inputs(torch, size):
        a = _nchw_operands(torch, size, dtype, hw, P)
        return dict(a, wk=a["w"].permute(0, 2, 3, 1).contiguous())

    def launch(mod, torch, a):
        x, y = a["x"], a["y"]
        n, c = x.shape[:2]
        k = a["w"].shape[0]
        mod.conv2d_krsc(x, a["wk"], y, n * P * P, k, c, hw, hw, R, S, P, P, stride, stride, pad, pad,
                        c * hw * hw, hw * hw, R * S * c, k * P * P, P * P, P)
        return y

    return _conv_case(name, "conv2d_krsc", dtype, hw, stride, pad, allow_tf32, inputs, launch)


def _conv2d_nchw_case(name: str, dtype: str, hw: int, stride: int, pad: int, allow_tf32: bool | None = None,
                      splitk: bool = False) -> Case:
    """examples/conv2d_nchw.tri: NCHW input and output, two launches timed together (the input
    transposed to NHWC into a workspace made with the inputs, then the channels-last implicit
    GEMM writing NKPQ); the filters repacked once to KRSC in the inputs (outside the timed
    launches, as :func:`_conv2d_krsc_case`); torch runs the NCHW tensors and KCRS filters.
    ``splitk``: the example's split-K path, three launches timed together
    (``nchw_to_nhwc_zero``, which also zeroes the float workspace, ``conv2d_nchw_splitk``
    adding into it, ``nhwc_to_nchw`` writing Y), its SPLITK the cost model's."""
    R = S = _CONV_RS
    P = (hw + 2 * pad - R) // stride + 1

    def inputs(torch, size):
        n, c, _ = size
        a = _nchw_operands(torch, size, dtype, hw, P, splitk)
        xt = torch.empty(n, hw, hw, c, device="cuda", dtype=a["x"].dtype)
        return dict(a, wk=a["w"].permute(0, 2, 3, 1).contiguous(), xt=xt)

    def launch(mod, torch, a):
        x, xt, ws, y = a["x"], a["xt"], a["ws"], a["y"]
        n, c = x.shape[:2]
        k = a["w"].shape[0]
        conv = (n * P * P, k, c, hw, hw, R, S, P, P, stride, stride, pad, pad)
        if splitk:
            mod.nchw_to_nhwc_zero(xt, x, c, hw * hw, n, ws, ws.numel())
            mod.conv2d_nchw_splitk(xt, a["wk"], ws, *conv)
            mod.nhwc_to_nchw(y, ws, k, P * P, n)
        else:
            mod.nchw_to_nhwc(xt, x, c, hw * hw, n)
            mod.conv2d_nchw(xt, a["wk"], y, *conv, P * P)
        return y

    return _conv_case(name, "conv2d_nchw", dtype, hw, stride, pad, allow_tf32, inputs, launch)


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
    online max / sum-exp), timed over a 128k vocabulary. The forward pass reads the logits once
    and writes the loss and the log-normaliser; the backward pass reads the logits and the
    log-normaliser and writes the gradient."""
    def inputs(torch, size):
        rows, n = size
        x = 3 * torch.randn(rows, n, device="cuda")
        labels = torch.randint(0, n, (rows,), device="cuda", dtype=torch.int64)
        if kernel == "forward":
            loss, lbuf = poison(torch, (rows,), torch.float32)
            lse, sbuf = poison(torch, (rows,), torch.float32)
            return dict(x=x, labels=labels, loss=loss, lse=lse, bufs=[lbuf, sbuf])
        lse = torch.logsumexp(x, 1)
        dloss = torch.randn(rows, device="cuda")
        dx, dbuf = poison(torch, (rows, n), torch.float32)
        return dict(x=x, labels=labels, lse=lse, dloss=dloss, dx=dx, bufs=[dbuf])

    def run(mod, torch, a, which):
        x, labels = a["x"], a["labels"]
        rows, n = x.shape
        if which == "tritonc":
            if kernel == "forward":
                mod.forward(x, labels, a["loss"], a["lse"], n, rows)
                return [a["loss"], a["lse"]]
            mod.backward(a["dx"], x, a["lse"], labels, a["dloss"], n, rows)
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
            triton_ref.cross_entropy_fwd(x, labels, a["loss"], a["lse"], meta["TILE"], meta["num_warps"])
            return [a["loss"], a["lse"]]
        triton_ref.cross_entropy_bwd(a["dx"], x, a["lse"], labels, a["dloss"], meta["TILE"], meta["num_warps"])
        return [a["dx"]]

    def reference(torch, a):
        x, labels = a["x"].double(), a["labels"]
        lse = torch.logsumexp(x, 1)
        if kernel == "forward":
            return [lse - x.gather(1, labels[:, None])[:, 0], lse]
        p = torch.exp(x - lse[:, None])
        p[torch.arange(x.shape[0], device="cuda"), labels] -= 1
        return [p * a["dloss"].double()[:, None]]

    # bytes: the logits read once, plus the gradient written by the backward pass
    nbytes = (lambda s: (4 * s[0] * s[1], 0)) if kernel == "forward" else (lambda s: (2 * 4 * s[0] * s[1], 0))
    return Case(f"cross_entropy_{kernel}", "cross_entropy", {},
                [(1, 1), (333, 1000), (1000, 517), (5, 131_075)], (512, 131_072), inputs, run, reference,
                nbytes, tol=1e-5)


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
            no_triton("bmm")
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
        a = padded(torch, m, k, torch.float16)
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
            no_triton("splitk_matmul")
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
            no_triton("blocksparse_matmul")
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
            no_triton(kernel)
        return [y]

    def reference(torch, a):
        return [a["x"].permute(2, 0, 1) if kernel == "permute_201" else a["x"]]

    return Case(kernel, "permute", {},
                [(1, 1, 1), (5, 100, 37), (33, 17, 129)], (64, 512, 512), inputs, run, reference,
                lambda s: (2 * 4 * s[0] * s[1] * s[2], 0), tol=0.0)


def _paper_matmul_case() -> Case:
    def inputs(torch, size):
        m, n, k = size  # n a multiple of 8 (ldc multiple_of(8)); A's and B's rows padded to 8
        a, b = padded(torch, m, k, torch.float16), padded(torch, n, k, torch.float16)
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
        no_triton("paper_matmul")

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
        no_triton("shift_conv")

    def reference(torch, a):
        s = shift(torch, a["x"].double(), a["dh"], a["dw"])
        return [torch.einsum("nchw,kc->nkhw", s, a["w"].double())]

    return Case("shift_conv", "shift_conv", {"TYPE": "half"},
                [(1, 3, 5), (2, 37, 100), (4, 64, 64)], (32, 256, 256), inputs, run, reference,
                lambda s: (2 * (2 * s[0] * s[1] * HW * HW + s[1] * s[2]), 2 * s[0] * HW * HW * s[1] * s[2]),
                tol=1e-2)


EXAMPLE_CASES = [lambda: _conv2d_case("conv2d", "float16", 28, 1, 1),
                 # conv2d_s2 (fp32), two rows: "tf32" built with --allow-tf32 vs torch with TF32 on (its
                 # default for convolutions); "fp32" full fp32 on both sides (torch with TF32 off).
                 # through the split-K kernel: 1568 output rows fill few tiles
                 lambda: _conv2d_case("conv2d_s2_tf32", "float32", 13, 2, 1, allow_tf32=True, splitk=True),
                 lambda: _conv2d_case("conv2d_s2_fp32", "float32", 13, 2, 1, allow_tf32=False, splitk=True),
                 # conv2d with KRSC filters, no offset table (examples/conv2d_krsc.tri)
                 lambda: _conv2d_krsc_case("conv2d_krsc", "float16", 28, 1, 1),
                 # NCHW through a transpose to NHWC and the channels-last GEMM (examples/conv2d_nchw.tri)
                 lambda: _conv2d_nchw_case("conv2d_nchw", "float16", 28, 1, 1),
                 lambda: _conv2d_nchw_case("conv2d_nchw_s2_tf32", "float32", 13, 2, 1, allow_tf32=True, splitk=True),
                 lambda: _conv2d_nchw_case("conv2d_nchw_s2_fp32", "float32", 13, 2, 1, allow_tf32=False, splitk=True),
                 # the same convolutions on channels-last tensors (examples/conv2d_nhwc.tri)
                 lambda: _conv2d_nhwc_case("conv2d_nhwc", "float16", 28, 1, 1),
                 # the strided ones through the split-K kernel: 1568 output rows fill few tiles
                 lambda: _conv2d_nhwc_case("conv2d_nhwc_s2_tf32", "float32", 13, 2, 1, allow_tf32=True, splitk=True),
                 lambda: _conv2d_nhwc_case("conv2d_nhwc_s2_fp32", "float32", 13, 2, 1, allow_tf32=False, splitk=True),
                 lambda: _cross_entropy_case("forward"), lambda: _cross_entropy_case("backward"), _bmm_case,
                 _splitk_matmul_case, _blocksparse_matmul_case, _batchnorm_case, lambda: _permute_case("permute_201"),
                 lambda: _permute_case("copy3d"), _paper_matmul_case, _shift_conv_case]
