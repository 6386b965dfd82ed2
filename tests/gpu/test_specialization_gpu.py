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


def launcher(tmp_path, example: str):
    comp = Compilation(EXAMPLES / f"{example}.tri", CompileOptions(defines={"BLOCK": "1024"}, arch=GPU_ARCH))
    module = module_from_source(comp.python_module, "spec_launcher")
    assert module.metadata[example]["variants"][0]["name"] == f"{example}__spec16"
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
    module = launcher(tmp_path, "softmax")
    rows = torch.randn(64, 1000, device="cuda")
    for n, symbols in ((992, ["softmax__spec16"]), (1000, ["softmax", "softmax__spec16"])):
        x = rows[:, :n].contiguous()
        y = torch.empty_like(x)
        module.softmax(y, x, y.stride(0), x.stride(0), n, x.shape[0])  # the declared grid
        torch.cuda.synchronize()
        torch.testing.assert_close(y, torch.softmax(x, dim=1))
        assert launched(module) == symbols


def test_copy3d_unit_strides_take_the_eq1_variants(tmp_path):
    """permute.tri's copy3d: the innermost strides are run-time ints; equal to 1 they select
    ``__spec_s1_d16`` (sizes and outer strides multiples of 16) or ``__spec_s1`` (odd sizes);
    a non-unit innermost stride the generic kernel. All agree with torch."""
    comp = Compilation(EXAMPLES / "permute.tri", CompileOptions(
        kernel="copy3d", defines={"TYPE": "float", "T0": "8", "T1": "16", "T2": "16"}, arch=GPU_ARCH))
    module = module_from_source(comp.python_module, "spec_launcher")
    assert [v["name"] for v in module.metadata["copy3d"]["variants"]] == [
        "copy3d__spec_s1_d16", "copy3d__spec_s1", "copy3d__spec16"]
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
