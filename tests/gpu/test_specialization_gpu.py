"""GPU test of launch-time specialisation: the examples compiled with their ``__spec16`` variants
run through the generated Python module; aligned arguments with sizes that are multiples of 16
take the variant, odd offsets and sizes the generic kernel, and both give torch's results.
Skipped without an NVIDIA GPU, torch and cuda.core."""
from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.core")

from gpu_helpers import gpu_arch, module_from_source  # noqa: E402  (tests/gpu is on sys.path)
from tritonc.driver import Compilation  # noqa: E402
from tritonc.options import ARCHS, CompileOptions  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GPU_ARCH = gpu_arch()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPU_ARCH is None or GPU_ARCH not in ARCHS, reason="needs an NVIDIA GPU tritonc targets"),
]


def launcher(tmp_path, example: str, first: str = "__spec16"):
    comp = Compilation(EXAMPLES / f"{example}.tri", CompileOptions(defines={"BLOCK": "1024"}, arch=GPU_ARCH))
    module = module_from_source(comp.python_module, "spec_launcher")
    assert module.metadata[example]["variants"][0]["name"] == f"{example}{first}"
    return module


def launched(module) -> list[str]:
    """The cubin symbols the module has loaded so far (each on its first launch)."""
    return sorted(module._module._kernels)


def test_vector_add_takes_the_variant_only_when_its_assumptions_hold(tmp_path):
    module = launcher(tmp_path, "vector_add")
    base = torch.randn(3 * 4096 + 64, device="cuda")
    other = torch.randn(3 * 4096 + 64, device="cuda")
    for n, offset, symbols in ((4096, 0, ["vector_add__spec16"]),
                               (4096 - 3, 0, ["vector_add", "vector_add__spec16"]),
                               (2048, 1, ["vector_add", "vector_add__spec16"]),
                               (1024 * 5, 4, ["vector_add", "vector_add__spec16"])):
        x, y = base[offset:offset + n], other[offset:offset + n]
        z = torch.full_like(x, float("nan"))
        module.vector_add(z, x, y, n, grid=(n + 1023) // 1024)
        torch.cuda.synchronize()
        torch.testing.assert_close(z, x + y)
        assert launched(module) == symbols
    assert (offset * 4) % 16 == 0  # the last case: 16-byte aligned again, the variant runs


def test_softmax_variant_and_generic_agree_with_torch(tmp_path):
    """Rows of at most BLOCK = 1024 with sizes multiples of 16 take ``softmax__spec16_le`` (the
    one-tile branch decided), longer ones ``softmax__spec16`` (its loop), odd sizes the kernel."""
    module = launcher(tmp_path, "softmax", "__spec16_le")
    rows = torch.randn(64, 3000, device="cuda")
    for n, symbols in ((992, ["softmax__spec16_le"]), (2992, ["softmax__spec16", "softmax__spec16_le"]),
                       (1000, ["softmax", "softmax__spec16", "softmax__spec16_le"]),
                       (2999, ["softmax", "softmax__spec16", "softmax__spec16_le"])):
        x = rows[:, :n].contiguous()
        y = torch.empty_like(x)
        module.softmax(y, x, y.stride(0), x.stride(0), n, x.shape[0])  # the declared grid
        torch.cuda.synchronize()
        torch.testing.assert_close(y, torch.softmax(x, dim=1))
        assert launched(module) == symbols


def test_copy3d_unit_strides_take_the_eq1_variants(tmp_path):
    """permute.tri's copy3d: the innermost strides are run-time ints; equal to 1 they select
    ``__spec_s1_d16`` (sizes and outer strides multiples of 16) or ``__spec_s1`` (odd sizes);
    a non-unit innermost stride the generic kernel (no all-div16 variant is built: without a
    unit stride its facts widen no access). All agree with torch."""
    comp = Compilation(EXAMPLES / "permute.tri", CompileOptions(
        kernel="copy3d", defines={"TYPE": "float", "T0": "8", "T1": "16", "T2": "16"}, arch=GPU_ARCH))
    module = module_from_source(comp.python_module, "spec_launcher")
    assert [v["name"] for v in module.metadata["copy3d"]["variants"]] == [
        "copy3d__spec_s1_d16", "copy3d__spec_s1"]
    cases = ((torch.randn(16, 32, 64, device="cuda"), "copy3d__spec_s1_d16"),
             (torch.randn(5, 7, 33, device="cuda"), "copy3d__spec_s1"),
             (torch.randn(16, 64, 32, device="cuda").transpose(1, 2), "copy3d"))
    seen = set()
    for x, symbol in cases:
        y = torch.full(tuple(x.shape), float("nan"), device="cuda")
        module.copy3d(y, x, *x.shape, *x.stride(), *y.stride())
        torch.cuda.synchronize()
        torch.testing.assert_close(y, x)
        seen.add(symbol)
        assert launched(module) == sorted(seen)


def test_conv2d_nhwc_variant_asks_only_for_the_facts_that_widen_its_copies(tmp_path):
    """examples/conv2d_nhwc.tri: its 16-byte variant needs C and K multiples of 16 and aligned
    tensors, not the image's height and width (specialize's pruning): a 28 x 28 image with 64
    channels runs ``conv2d_nhwc__spec16``, 20 channels the generic kernel; both agree with
    torch on channels-last views."""
    comp = Compilation(EXAMPLES / "conv2d_nhwc.tri", CompileOptions(
        kernel="conv2d_nhwc", defines={"TYPE": "half", "TM": "64", "TN": "64", "TK": "32"}, arch=GPU_ARCH))
    module = module_from_source(comp.python_module, "spec_launcher")
    (variant,) = module.metadata["conv2d_nhwc"]["variants"]
    assert variant["name"] == "conv2d_nhwc__spec16"
    assert variant["facts"] == {"N": "div16", "C": "div16"}
    seen = set()
    for c, symbol in ((64, "conv2d_nhwc__spec16"), (20, "conv2d_nhwc")):
        x = torch.randn(2, 28, 28, c, device="cuda", dtype=torch.float16)
        w = (torch.randn(48, 3, 3, c, device="cuda") / (9 * c) ** 0.5).half()
        y = torch.full((2, 28, 28, 48), float("nan"), device="cuda", dtype=torch.float16)
        module.conv2d_nhwc(x, w, y, 2 * 28 * 28, 48, c, 28, 28, 3, 3, 28, 28, 1, 1, 1, 1)
        torch.cuda.synchronize()
        want = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2).float(), w.permute(0, 3, 1, 2).float(), padding=1)
        torch.testing.assert_close(y.permute(0, 3, 1, 2).float(), want, rtol=1e-2, atol=1e-2)
        seen.add(symbol)
        assert launched(module) == sorted(seen)
