"""The ``make gpu-check`` case table: one ``Case`` per example kernel (inputs, launch, reference).

Holds the case factories of the basic, memory-bound and attention examples and ``CASES``, the
list ``gpu_check.main`` walks; ``Case`` and the helpers the cases share (``cdiv``, ``poison``
for poisoned outputs with a guard region, ``padded``...) are in ``tritonc.tools.gpu_case``,
the cases of the other language examples (convolutions, split-K, bmm, ...) in
``tritonc.tools.gpu_cases_examples``. The machinery that compiles, checks, times and
tabulates the cases is in ``tritonc.tools.gpu_check``; ``tritonc.tools.bench`` builds some of
its rows from these cases (``case_named``, ``cdiv``, ``poison``). The Triton versions come from
``benchmarks/triton_ref.py`` (``gpu_case`` puts it on ``sys.path``).
"""
from __future__ import annotations

from tritonc.tools.gpu_case import Case, cdiv, poison  # noqa: F401 (cdiv: re-exported for bench and the tests)
from tritonc.tools.gpu_cases_examples import EXAMPLE_CASES


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
CASES += EXAMPLE_CASES


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
