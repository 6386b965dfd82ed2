"""The examples of issue 15 on the GPU, built with no tile -D and launched on their declared
grids: the batched `@` on tensor cores (mma.sync, and wgmma on Hopper), conv2d, conv2d_krsc and conv2d_nchw (fp16;
fp32 with --allow-tf32 and in full fp32) and split-K with atomic adds; and blocksparse_matmul (its
look-up-table loop pipelined; BLOCK and TN given, it declares no grid), against float64 torch
references at ragged sizes. Skipped without torch and a GPU."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

from gpu_helpers import launcher  # noqa: E402

from tritonc.driver import Compilation  # noqa: E402
from tritonc.options import CompileOptions  # noqa: E402
from tritonc.tools.examples import ROOT  # noqa: E402

pytestmark = pytest.mark.gpu

_CAP = torch.cuda.get_device_capability()
NATIVE = f"sm_{_CAP[0]}{_CAP[1]}" if f"sm_{_CAP[0]}{_CAP[1]}" in ("sm_80", "sm_86", "sm_89", "sm_90") else "sm_80"
ARCHS = [NATIVE] + (["sm_90a"] if _CAP == (9, 0) else [])
EX = ROOT / "examples"


def build(name, arch, **kw):
    defines = kw.pop("defines", {})
    return launcher(Compilation(EX / f"{name}.tri", CompileOptions(defines=defines, arch=arch, **kw)))


def rel(got, want):
    assert torch.isfinite(got).all(), "unwritten or non-finite outputs"
    return ((got.double() - want).norm() / want.norm()).item()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("b, m, n, k", [(3, 100, 70, 50), (5, 33, 64, 17), (4, 128, 128, 256)])
def test_bmm_tensor_cores(arch, b, m, n, k):
    mod = build("bmm", arch, defines={"TYPE": "half"})
    x = torch.randn(b, m, k, device="cuda").half()
    y = torch.randn(b, k, n, device="cuda").half()
    c = torch.full((b, m, n), float("nan"), device="cuda").half()
    mod.bmm(x, y, c, m, n, k, b, x.stride(0), x.stride(1), y.stride(0), y.stride(1), c.stride(0), c.stride(1))
    torch.cuda.synchronize()
    assert rel(c, x.double() @ y.double()) < 1e-2


def _operands(size, dt, stride, pad):
    """Random NCHW X [N, C, H, W] and KCRS W [K, C, 3, 3] of ``dt`` (W scaled by 1/sqrt(9C))
    for size = (N, C, H, W, K), and the output's P and Q."""
    n, c, h, wd, k = size
    x = torch.randn(n, c, h, wd, device="cuda").to(dt)
    w = (torch.randn(k, c, 3, 3, device="cuda") / (9 * c) ** 0.5).to(dt)
    return x, w, (h + 2 * pad - 3) // stride + 1, (wd + 2 * pad - 3) // stride + 1


def _reference(x, w, stride, pad):
    return torch.nn.functional.conv2d(x.double(), w.double(), stride=stride, padding=pad)


def _conv(mod, x, w, stride, pad):
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    p, q = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
    y = torch.full((n, k, p, q), float("nan"), device="cuda", dtype=x.dtype)
    i = torch.arange(c * r * s, device="cuda")
    aoff = ((i // (r * s)) * h * wd + (i // s) % r * wd + i % s).to(torch.int32)
    mod.conv2d(x, w, y, aoff, n * p * q, k, c * r * s, h, wd, r, s, p, q, stride, stride, pad, pad,
               c * h * wd, wd, c * r * s, k * p * q, p * q, q)
    torch.cuda.synchronize()
    return y


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype, tf32, tol", [("half", False, 1e-2), ("float", True, 1e-2), ("float", False, 1e-5)])
@pytest.mark.parametrize("size, stride, pad", [((2, 5, 13, 11, 19), 1, 1), ((3, 64, 28, 28, 64), 2, 1)])
def test_conv2d(arch, dtype, tf32, tol, size, stride, pad):
    mod = build("conv2d", arch, defines={"TYPE": dtype}, allow_tf32=tf32)
    x, w, _, _ = _operands(size, torch.float16 if dtype == "half" else torch.float32, stride, pad)
    assert rel(_conv(mod, x, w, stride, pad), _reference(x, w, stride, pad)) < tol


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype, tf32, tol", [("half", False, 1e-2), ("float", True, 1e-2), ("float", False, 1e-5)])
@pytest.mark.parametrize("size, stride, pad", [((2, 5, 13, 11, 19), 2, 1), ((32, 128, 13, 13, 128), 2, 1)])
def test_conv2d_splitk(arch, dtype, tf32, tol, size, stride, pad):
    """examples/conv2d.tri's split-K path with the model's split for a stride-2 layer: the
    zeroed channels-last workspace, conv2d_splitk's adds into it, nhwc_to_nchw into Y; P*Q of
    42 and 49."""
    n, c, h, wd, k = size
    dt = torch.float16 if dtype == "half" else torch.float32
    x, w, p, q = _operands(size, dt, stride, pad)
    mod = build("conv2d", arch, defines={"TYPE": dtype}, allow_tf32=tf32,
                hint={"M": n * p * q, "N": k, "K": 9 * c})
    i = torch.arange(c * 9, device="cuda")
    aoff = ((i // 9) * h * wd + (i // 3) % 3 * wd + i % 3).to(torch.int32)
    ws = torch.zeros(n * p * q * k, device="cuda")
    y = torch.full((n, k, p, q), float("nan"), device="cuda", dtype=dt)
    mod.conv2d_splitk(x, w, ws, aoff, n * p * q, k, c * 9, h, wd, 3, 3, p, q, stride, stride, pad, pad,
                      c * h * wd, wd, c * 9)
    mod.nhwc_to_nchw(y, ws, k, p * q, n)
    torch.cuda.synchronize()
    assert rel(y, _reference(x, w, stride, pad)) < tol


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype, tf32, tol", [("half", False, 1e-2), ("float", True, 1e-2), ("float", False, 1e-5)])
@pytest.mark.parametrize("size, stride, pad", [((2, 5, 13, 11, 19), 1, 1), ((3, 64, 28, 28, 64), 2, 1),
                                               ((2, 40, 9, 30, 70), 1, 0)])
def test_conv2d_krsc(arch, dtype, tf32, tol, size, stride, pad):
    """examples/conv2d_krsc.tri (KRSC filters, the reduction over taps and channel blocks); C =
    5 and 40 leave a partial block of channels at TK = 32."""
    mod = build("conv2d_krsc", arch, defines={"TYPE": dtype}, allow_tf32=tf32)
    n, c, h, wd, k = size
    dt = torch.float16 if dtype == "half" else torch.float32
    x, w, p, q = _operands(size, dt, stride, pad)
    y = torch.full((n, k, p, q), float("nan"), device="cuda", dtype=dt)
    mod.conv2d_krsc(x, w.permute(0, 2, 3, 1).contiguous(), y, n * p * q, k, c, h, wd, 3, 3, p, q, stride, stride,
                    pad, pad, c * h * wd, h * wd, 9 * c, k * p * q, p * q, q)
    torch.cuda.synchronize()
    assert rel(y, _reference(x, w, stride, pad)) < tol


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype, tf32, tol", [("half", False, 1e-2), ("float", True, 1e-2), ("float", False, 1e-5)])
@pytest.mark.parametrize("size, stride, pad", [((2, 5, 13, 11, 19), 1, 1), ((3, 64, 28, 28, 64), 2, 1),
                                               ((2, 40, 9, 30, 70), 1, 0), ((4, 128, 28, 28, 128), 1, 1)])
def test_conv2d_nchw(arch, dtype, tf32, tol, size, stride, pad):
    """examples/conv2d_nchw.tri: the input transposed to NHWC, then the channels-last GEMM
    writing NCHW; C = 5 and 40 leave a partial block of channels at TK = 32 (the generic
    kernels), 28 x 28 images give P*Q = 784, a multiple of 8 (the 16-byte stores of Y)."""
    mod = build("conv2d_nchw", arch, defines={"TYPE": dtype}, allow_tf32=tf32)
    n, c, h, wd, k = size
    dt = torch.float16 if dtype == "half" else torch.float32
    x, w, p, q = _operands(size, dt, stride, pad)
    xt = torch.full((n, h, wd, c), float("nan"), device="cuda", dtype=dt)
    y = torch.full((n, k, p, q), float("nan"), device="cuda", dtype=dt)
    mod.nchw_to_nhwc(xt, x, c, h * wd, n)
    mod.conv2d_nchw(xt, w.permute(0, 2, 3, 1).contiguous(), y, n * p * q, k, c, h, wd, 3, 3, p, q, stride, stride,
                    pad, pad, p * q)
    torch.cuda.synchronize()
    assert torch.equal(xt, x.permute(0, 2, 3, 1))
    assert rel(y, _reference(x, w, stride, pad)) < tol


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("tf32, tol", [(True, 1e-2), (False, 1e-5)])
@pytest.mark.parametrize("size, stride, pad", [((2, 5, 13, 11, 19), 2, 1), ((32, 128, 13, 13, 128), 2, 1),
                                               ((3, 64, 16, 16, 64), 2, 1)])
def test_conv2d_nchw_splitk(arch, tf32, tol, size, stride, pad):
    """The split-K path of examples/conv2d_nchw.tri in float (TF32 or full fp32) with the
    model's split for a stride-2 layer's few tiles: the transpose that also zeroes the
    workspace (poisoned here), the adds into it, its transpose into Y; P*Q of 42, 49 and 64."""
    n, c, h, wd, k = size
    x, w, p, q = _operands(size, torch.float32, stride, pad)
    mod = build("conv2d_nchw", arch, defines={"TYPE": "float"}, allow_tf32=tf32,
                hint={"M": n * p * q, "N": k, "K": 9 * c})
    xt = torch.empty(n, h, wd, c, device="cuda")
    ws = torch.full((n * p * q * k + 4,), float("nan"), device="cuda")
    y = torch.full((n, k, p, q), float("nan"), device="cuda")
    mod.nchw_to_nhwc_zero(xt, x, c, h * wd, n, ws, n * p * q * k)
    mod.conv2d_nchw_splitk(xt, w.permute(0, 2, 3, 1).contiguous(), ws, n * p * q, k, c, h, wd, 3, 3, p, q, stride,
                           stride, pad, pad)
    mod.nhwc_to_nchw(y, ws, k, p * q, n)
    torch.cuda.synchronize()
    assert torch.isnan(ws[-4:]).all()
    assert rel(y, _reference(x, w, stride, pad)) < tol


@pytest.mark.parametrize("arch", ARCHS)
def test_splitk_atomic(arch):
    mod = build("splitk_matmul", arch)
    for m, n, k in [(33, 8, 1000), (1001, 776, 550), (100, 200, 3001)]:
        a = torch.randn(m, -(-k // 8) * 8, device="cuda").half()[:, :k]
        b = torch.randn(k, n, device="cuda").half()
        c = torch.zeros(m, n, device="cuda")
        mod.splitk_matmul(a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
        torch.cuda.synchronize()
        assert rel(c, a.double() @ b.double()) < 1e-2


@pytest.mark.parametrize("arch", ARCHS)
def test_blocksparse_lut_pipelined(arch):
    block, tn = 32, 64
    mod = build("blocksparse_matmul", arch, defines={"TYPE": "half", "BLOCK": str(block), "TN": str(tn)},
                num_stages=3)
    layout = torch.tensor([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]], dtype=torch.bool)
    rows = layout.shape[0]
    index = torch.cumsum(layout.flatten().int(), 0).reshape(layout.shape) - 1
    header, pairs = [], []
    for i in range(rows):
        ks = layout[i].nonzero().flatten().tolist()
        header += [2 * rows + len(pairs), len(ks)]
        for k in ks:
            pairs += [int(index[i, k]), k]
    lut = torch.tensor(header + pairs, dtype=torch.int32, device="cuda")
    blocks = torch.randn(int(layout.sum()), block, block, device="cuda").half()
    n = 200
    b = torch.randn(4 * block, 208, device="cuda").half()
    c = torch.full((rows * block, 208), float("nan"), device="cuda").half()
    mod.blocksparse_matmul(blocks, b, c, lut, n, b.stride(0), c.stride(0), rows * block, grid=(rows, -(-n // tn)))
    torch.cuda.synchronize()
    dense = torch.zeros(rows * block, 4 * block, dtype=torch.float64, device="cuda")
    for j, (i, k) in enumerate(layout.nonzero().tolist()):
        dense[i * block:(i + 1) * block, k * block:(k + 1) * block] = blocks[j].double()
    assert rel(c[:, :n], dense @ b[:, :n].double()) < 1e-2
