"""GPU test of ``register_torch_op()`` (issue 18 item 6): examples/vector_add.tri's generated
module registers the kernel as a torch custom op, which runs eagerly, inside torch.compile
(aot_eager, and inductor where triton is installed) and inside a captured CUDA graph, giving
torch's results. Skipped without an NVIDIA GPU, torch and cuda.core."""
from __future__ import annotations

import importlib.util
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


@pytest.fixture(scope="module")
def vector_add_op(tmp_path_factory):
    comp = Compilation(EXAMPLES / "vector_add.tri", CompileOptions(defines={"BLOCK": "1024"}, arch=GPU_ARCH))
    module = module_from_source(comp.python_module, "va_torch_op")
    return module.register_torch_op(namespace="tritonc_gpu_test")["vector_add"]


def _inputs(n: int):
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    return torch.full_like(x, float("nan")), x, y


def test_eager(vector_add_op):
    z, x, y = _inputs(5000)
    vector_add_op(z, x, y, 5000)
    torch.cuda.synchronize()
    torch.testing.assert_close(z, x + y)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_inside_torch_compile(vector_add_op, backend):
    if backend == "inductor" and importlib.util.find_spec("triton") is None:
        pytest.skip("inductor needs triton")
    torch._dynamo.reset()

    def add_then_scale(z, x, y, n):
        vector_add_op(z, x, y, n)
        return z * 2

    compiled = torch.compile(add_then_scale, backend=backend, fullgraph=True)
    for n in (4096, 4093):
        z, x, y = _inputs(n)
        out = compiled(z, x, y, n)
        torch.cuda.synchronize()
        torch.testing.assert_close(z, x + y)
        torch.testing.assert_close(out, 2 * (x + y))


def test_inside_a_cuda_graph(vector_add_op):
    n = 8192
    z, x, y = _inputs(n)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up (loads the module) outside the capture, as torch asks
        vector_add_op(z, x, y, n)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        vector_add_op(z, x, y, n)
    for _ in range(2):
        x.copy_(torch.randn(n, device="cuda"))
        y.copy_(torch.randn(n, device="cuda"))
        z.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(z, x + y)
