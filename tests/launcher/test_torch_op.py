"""``register_torch_op()`` of the generated Python module (issue 18 item 6): the kernel becomes
a torch custom op (torch.library.custom_op) that mutates its pointer arguments not declared
``__readonly`` and has a fake kernel, so torch.compile traces it on CPU torch; kernels without
a declared grid are refused; torch is imported only when asked for. The run on a GPU, inside
torch.compile and a CUDA graph, is tests/gpu/test_torch_op_gpu.py."""
from __future__ import annotations

import importlib.util
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_kernels import VECTOR_ADD_PARAMS, make_kernel
from tritonc.driver import Compilation
from tritonc.launcher.python_module import generate_python_module
from tritonc.options import CompileOptions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_count = itertools.count()


@pytest.fixture(scope="module")
def vector_add_source() -> str:
    return Compilation(EXAMPLES / "vector_add.tri", CompileOptions(arch="sm_80", symbol_prefix="")).python_module


def load(tmp_path: Path, text: str):
    name = f"torch_op_module_{next(_count)}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_module_imports_torch_only_when_registering(tmp_path, vector_add_source):
    (tmp_path / "va.py").write_text(vector_add_source)
    script = ("import sys\nsys.modules['torch'] = None\nimport va\n"
              "try:\n    va.register_torch_op()\nexcept ImportError:\n    print('NO TORCH')\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "NO TORCH", proc.stderr


HAVE_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="needs torch (the CPU build is enough)")


@needs_torch
def test_registers_a_mutating_custom_op(tmp_path, vector_add_source):
    import torch

    m = load(tmp_path, vector_add_source)
    ns = f"tritonc_test{next(_count)}"
    ops = m.register_torch_op(namespace=ns)
    assert list(ops) == ["vector_add"]
    op = getattr(getattr(torch.ops, ns), "vector_add")
    assert ops["vector_add"] is op
    # Z is written (its parameter is __writeonly, not __readonly): the op mutates it, and only it
    assert str(op.default._schema) == f"{ns}::vector_add(Tensor(a0!) Z, Tensor X, Tensor Y, SymInt N) -> ()"
    assert m.register_torch_op(namespace=ns) == ops  # again: the same op, no second registration
    # there is no CPU kernel: the op runs the CUDA launcher only
    z, x, y = torch.zeros(8), torch.ones(8), torch.ones(8)
    with pytest.raises(NotImplementedError, match="CPU"):
        op(z, x, y, 8)


@needs_torch
def test_torch_compile_traces_it_with_the_fake_kernel(tmp_path, vector_add_source):
    import torch

    m = load(tmp_path, vector_add_source)
    ns = f"tritonc_test{next(_count)}"
    op = m.register_torch_op("vector_add", namespace=ns)["vector_add"]
    graphs = []

    def backend(gm, example_inputs):  # keeps the traced graph; runs nothing on the device
        graphs.append(gm)
        return lambda *args: ()

    def add_then_scale(z, x, y, n):
        op(z, x, y, n)
        z.mul_(2)

    z, x, y = torch.zeros(1000), torch.ones(1000), torch.ones(1000)
    torch.compile(add_then_scale, backend=backend, fullgraph=True)(z, x, y, 1000)
    (gm,) = graphs
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert getattr(getattr(torch.ops, ns), "vector_add") in targets or op in targets, gm.code
    # the fake kernel under FakeTensorMode (make_fx "fake"): the op stays in the graph, functionalised
    from torch.fx.experimental.proxy_tensor import make_fx

    traced = make_fx(add_then_scale, tracing_mode="fake")(z, x, y, 1000)
    assert f"{ns}.vector_add.default" in traced.code


@needs_torch
def test_register_with_a_symbol_prefix(tmp_path):
    text = Compilation(EXAMPLES / "vector_add.tri", CompileOptions(arch="sm_80", symbol_prefix="big_")).python_module
    m = load(tmp_path, text)
    assert not hasattr(m, "register_torch_op")
    ns = f"tritonc_test{next(_count)}"
    ops = m.big_register_torch_op(namespace=ns)
    assert list(ops) == ["big_vector_add"]
    assert str(ops["big_vector_add"].default._schema).startswith(f"{ns}::big_vector_add(Tensor(a0!) Z")


@needs_torch
def test_kernels_without_a_declared_grid_are_refused(tmp_path):
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})  # no __grid
    m = load(tmp_path, generate_python_module(k))
    with pytest.raises(ValueError, match="kernel 'vector_add' declares no launch grid \\(__grid or --grid\\); "
                                         "a torch op launches on the grid its launcher computes"):
        m.register_torch_op(namespace=f"tritonc_test{next(_count)}")
    with pytest.raises(ValueError, match="no kernel 'nope' in this module \\(kernels: vector_add\\)"):
        m.register_torch_op("nope", namespace=f"tritonc_test{next(_count)}")
