"""tritonc.launcher.python_module: the generated module imports without a GPU, checks every
argument before any CUDA call, and drives cuda.core correctly (checked with a fake cuda.core)."""
from __future__ import annotations

import importlib.util
import inspect
import itertools
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from fixture_kernels import SCALAR_ARGS_PARAMS, VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher import _launch_runtime as rt
from tritonc.launcher.python_module import generate_python_module, py_param_names
from tritonc.launcher.facts import FACTS
from tritonc.launcher.signature import KernelParam, parse_signature_lines

_counter = itertools.count()


def load_module(tmp_path, source: str):
    name = f"tritonc_generated_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ReachedCuda(ImportError):
    """Raised instead of importing cuda.core (so an ImportError, which a launch lets through):
    argument checking is over."""


@pytest.fixture
def vector_add_module(tmp_path, vector_add_kernel):
    module = load_module(tmp_path, generate_python_module(vector_add_kernel))

    def no_cuda():
        raise ReachedCuda()

    module._module._cuda_core = no_cuda
    return module


class CAI:
    """An object exposing __cuda_array_interface__ (what CuPy and Numba arrays do)."""

    def __init__(self, ptr, typestr="<f4", readonly=False, shape=(16,)):
        self.__cuda_array_interface__ = {"data": (ptr, readonly), "typestr": typestr,
                                         "shape": shape, "strides": None, "version": 3}


class FakeTorchDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class FakeTorchDevice:
    def __init__(self, index):
        self.index = index

    def __str__(self):
        return "cpu" if self.index is None else f"cuda:{self.index}"


class FakeTensor:
    """Looks like a torch.Tensor to the launcher (module name 'torch', data_ptr, dtype, device)."""

    def __init__(self, ptr, dtype="float32", device=0):
        self._ptr = ptr
        self.dtype = FakeTorchDtype(dtype)
        self.device = FakeTorchDevice(device)
        self.is_cuda = device is not None

    def data_ptr(self):
        return self._ptr


FakeTensor.__module__ = "torch"


GOOD = dict(x=CAI(0x1000), y=CAI(0x2008), z=CAI(0x3004), n=1024)


def call(module, grid=4, stream=None, **overrides):
    args = {**GOOD, **overrides}
    return module.vector_add(args["x"], args["y"], args["z"], args["n"], grid=grid, stream=stream)


# ----------------------------------------------------------------------------- the module itself

def test_module_shape(tmp_path, vector_add_kernel):
    source = generate_python_module(vector_add_kernel)
    module = load_module(tmp_path, source)
    assert module.metadata == {"vector_add": vector_add_kernel.metadata()}
    assert module.vector_add.metadata["num_warps"] == 4
    assert module._CUBIN == vector_add_kernel.cubin
    assert str(inspect.signature(module.vector_add)) == "(x, y, z, n, *, grid=None, stream=None)"
    assert "__aligned(16)" in module.vector_add.__doc__
    assert "DO NOT EDIT" in module.__doc__
    assert parse_signature_lines(source) == [vector_add_kernel.metadata()]
    assert source == generate_python_module(vector_add_kernel)  # deterministic
    assert "tritonc" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))


def test_module_needs_only_numpy_to_import_and_check(tmp_path, vector_add_kernel):
    """In a fresh interpreter where tritonc, cuda and torch cannot be imported, the module
    imports, exposes metadata and rejects bad arguments."""
    path = tmp_path / "va_launcher.py"
    path.write_text(generate_python_module(vector_add_kernel))
    script = textwrap.dedent(f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("tritonc", "cuda", "torch", "cupy"):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        sys.path.insert(0, {str(tmp_path)!r})
        import va_launcher
        assert va_launcher.metadata["vector_add"]["arch"] == "sm_90"
        try:
            va_launcher.vector_add(1024, 2048, 4096, 7, grid=1)
        except ValueError as e:
            print("ValueError:", e)
        va_launcher.vector_add(1024, 2048, 4096, 8, grid=0)  # empty grid: no CUDA needed
        try:
            va_launcher.vector_add(1024, 2048, 4096, 8, grid=1)
        except ImportError as e:
            print("ImportError:", e)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "ValueError: vector_add(): parameter 'n' = 7 breaks its __multipleof(4) promise",
        "ImportError: blocked: cuda"]


def test_python_keyword_parameter_names(tmp_path):
    params = (KernelParam("class", "pointer", "float32"), KernelParam("grid", "scalar", "int32"),
              KernelParam("lambda", "scalar", "float32"), KernelParam("grid_", "scalar", "bool"),
              KernelParam("_module", "scalar", "int8"), KernelParam("_vector_add_spec", "scalar", "int8"))
    assert py_param_names(params) == ["class_", "grid__", "lambda_", "grid_", "arg_module",
                                      "arg_vector_add_spec"]
    module = load_module(tmp_path, generate_python_module(make_kernel("vector_add", params)))
    assert str(inspect.signature(module.vector_add)) == (
        "(class_, grid__, lambda_, grid_, arg_module, arg_vector_add_spec, *, grid=None, stream=None)")
    module._module._core = FakeCore({"vector_add": [8, 4, 4, 1, 1, 1]})
    module.vector_add(0, 1, 2.0, True, 3, 4, grid=1)
    assert module._module._core.log[-1][6] == (0, np.int32(1), np.float32(2.0), np.uint8(1), np.int8(3), np.int8(4))


def test_two_kernels_one_module(tmp_path):
    a = make_kernel("vector_add", VECTOR_ADD_PARAMS, ll_name="both.ll")
    b = make_kernel("scalar_args", SCALAR_ARGS_PARAMS, ll_name="both.ll", num_warps=1)
    module = load_module(tmp_path, generate_python_module([a, b], module_name="both"))
    assert set(module.metadata) == {"vector_add", "scalar_args"}
    assert module.scalar_args.metadata["block_threads"] == 32
    assert module._scalar_args_spec.params[13].size == 1
    with pytest.raises(ValueError, match="different cubins"):
        generate_python_module([a, make_kernel("scalar_args", SCALAR_ARGS_PARAMS)])


# ----------------------------------------------------------------------------- argument checks

def test_good_arguments_reach_cuda(vector_add_module):
    with pytest.raises(ReachedCuda):
        call(vector_add_module)
    with pytest.raises(ReachedCuda):  # raw int addresses, numpy ints
        call(vector_add_module, x=0x1000, y=np.uint64(0x2008), z=0, n=np.int16(-8), grid=(2, 3))


def test_empty_grid_launches_nothing(vector_add_module):
    assert call(vector_add_module, grid=0) is None
    assert call(vector_add_module, grid=(4, 0, 1)) is None


@pytest.mark.parametrize("grid,error,match", [
    ((1, 2, 3, 4), TypeError, "grid must be"),
    (1.5, TypeError, "grid must be"),
    (True, TypeError, "grid must be"),
    ((), TypeError, "grid must be"),
    (-1, ValueError, "grid dimension 0 is -1"),
    ((1, 70000), ValueError, "grid dimension 1 is 70000, outside 0..65535"),
])
def test_bad_grid(vector_add_module, grid, error, match):
    with pytest.raises(error, match=match):
        call(vector_add_module, grid=grid)


@pytest.mark.parametrize("overrides,match", [
    (dict(x=CAI(0x1000, "<f8")), "parameter 'x' points to float32, but the array's element type is float64"),
    (dict(y=CAI(0x2000, "<f2")), "parameter 'y' points to float32, but the array's element type is float16"),
    (dict(z=CAI(0x3000, "|b1")), "parameter 'z' points to float32, but the array's element type is bool"),
    (dict(x=CAI(0x1000, ">f4")), "element type is >f4"),
    (dict(x=np.zeros(4, np.float32)), "parameter 'x' needs CUDA device memory, got an array on DLPack device type 1"),
    (dict(x=[1.0, 2.0]), "parameter 'x' needs a CUDA array"),
    (dict(x=None), "parameter 'x' is a float32 pointer"),
    (dict(x=True), "parameter 'x' is a float32 pointer"),
    (dict(x=FakeTensor(0x1000, "float16")), "parameter 'x' points to float32, but the array's element type is float16"),
    (dict(x=FakeTensor(0x1000, "bfloat16")), "element type is bfloat16"),
    (dict(x=FakeTensor(0x1000, device=None)), "parameter 'x' needs CUDA device memory, got a tensor on cpu"),
    (dict(n=2.0), "parameter 'n' is int32; got float 2.0"),
    (dict(n="8"), "parameter 'n' is int32; got str"),
])
def test_type_errors(vector_add_module, overrides, match):
    with pytest.raises(TypeError, match=match.replace("(", r"\(").replace(")", r"\)")):
        call(vector_add_module, **overrides)


@pytest.mark.parametrize("overrides,match", [
    (dict(x=CAI(0x1008)), "parameter 'x' has address 0x1008, which breaks its __aligned(16) promise"),
    (dict(x=0x1004), "parameter 'x' has address 0x1004, which breaks its __aligned(16) promise"),
    (dict(x=FakeTensor(0x1002)), "parameter 'x' has address 0x1002"),
    (dict(y=CAI(0x2004)), "parameter 'y' has address 0x2004, which breaks its __multipleof(8) promise"),
    (dict(n=1022), "parameter 'n' = 1022 breaks its __multipleof(4) promise"),
    (dict(n=2**31), "parameter 'n' is int32; 2147483648 is outside -2147483648..2147483647"),
    (dict(n=-2**31 - 4), "is outside -2147483648..2147483647"),
    (dict(x=-16), "parameter 'x': -16 is not a 64-bit device address"),
    (dict(z=CAI(0x3000, readonly=True)), "parameter 'z' is __writeonly, but the array is read-only"),
    (dict(x=FakeTensor(0x1000, device=0), y=FakeTensor(0x2000, device=1)), "arrays on different devices"),
])
def test_value_errors(vector_add_module, overrides, match):
    with pytest.raises(ValueError, match=match.replace("(", r"\(").replace(")", r"\)")):
        call(vector_add_module, **overrides)


def test_wrong_argument_count(vector_add_module):
    with pytest.raises(TypeError):
        vector_add_module.vector_add(1, 2, 3, grid=1)
    with pytest.raises(TypeError):
        vector_add_module.vector_add(0, 0, 0, 0)  # grid is required


SPEC = rt._KernelSpec("k", [], 1, 0)


@pytest.mark.parametrize("dtype,value,expected", [
    ("bool", True, np.uint8(1)), ("bool", 0, np.uint8(0)), ("bool", np.bool_(True), np.uint8(1)),
    ("int8", -128, np.int8(-128)), ("int16", 32767, np.int16(32767)), ("int32", True, np.int32(1)),
    ("int64", -2**63, np.int64(-2**63)), ("uint8", 255, np.uint8(255)), ("uint16", np.uint16(7), np.uint16(7)),
    ("uint32", 2**32 - 1, np.uint32(2**32 - 1)), ("uint64", 2**64 - 1, np.uint64(2**64 - 1)),
    ("float16", 1.5, np.float16(1.5)), ("float16", 65504, np.float16(65504)),
    ("float32", 0.1, np.float32(0.1)), ("float32", np.float64("inf"), np.float32("inf")),
    ("float64", 0.1, np.float64(0.1)), ("float64", 3, np.float64(3.0)),
    ("bfloat16", 3.140625, np.uint16(0x4049)), ("bfloat16", -2.0, np.uint16(0xC000)),
])
def test_scalar_conversion_width_and_value(dtype, value, expected):
    out = rt._scalar(SPEC, rt._Param("p", "scalar", dtype), value)
    assert type(out) is type(expected)
    assert out == expected or (np.isnan(out) and np.isnan(expected))


@pytest.mark.parametrize("dtype,value,error", [
    ("bool", 2, ValueError), ("bool", 1.0, TypeError), ("int8", 128, ValueError), ("int8", -129, ValueError),
    ("uint8", -1, ValueError), ("uint64", 2**64, ValueError), ("int64", 1.0, TypeError),
    ("float16", 65520.0, ValueError), ("float32", 1e39, ValueError), ("bfloat16", 1e39, ValueError),
    ("float32", 10**400, ValueError), ("float32", True, TypeError), ("float64", "1", TypeError),
    ("float64", None, TypeError),
])
def test_scalar_conversion_errors(dtype, value, error):
    with pytest.raises(error, match="parameter 'p'"):
        rt._scalar(SPEC, rt._Param("p", "scalar", dtype), value)


def test_bfloat16_rounding():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(2000).astype(np.float32) * 1e3,
                             rng.integers(0, 2**31, 2000, dtype=np.uint32).view(np.float32),
                             np.array([0.0, -0.0, 1e-40, -1e-45, 3.3895e38], np.float32)])
    values = values[np.isfinite(values)]
    expected = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    got = np.array([rt._bfloat16_bits(float(v)) for v in values], np.uint16)
    assert np.array_equal(got, expected)
    # Just above a float32 tie: float64 -> float32 -> bfloat16 would round down twice.
    assert rt._bfloat16_bits(1.0 + 2**-8 + 2**-30) == 0x3F81
    assert rt._bfloat16_bits(1.0 + 2**-8) == 0x3F80  # an exact tie goes to even
    assert rt._bfloat16_bits(float("inf")) == 0x7F80 and rt._bfloat16_bits(float("-inf")) == 0xFF80
    assert rt._bfloat16_bits(float("nan")) == 0x7FC0


# ----------------------------------------------------------------------------- launching (fake cuda.core)

class FakeStream:
    def __init__(self, what):
        self.what = what


class FakeKernel:
    def __init__(self, name, sizes):
        self.name = name
        self.arguments_info = [(8 * i, s) for i, s in enumerate(sizes)]
        self.handle = object()


class FakeCore:
    """Just enough of cuda.core for _CubinModule.launch, recording what it is asked to do."""

    def __init__(self, sizes):
        self.sizes = sizes
        self.log = []
        core = self

        class Stream(FakeStream):
            @staticmethod
            def from_handle(handle):
                return Stream(("handle", handle))

        class Device:
            def __init__(self, device_id=None):
                self.device_id = 0 if device_id is None else device_id
                core.log.append(("Device", device_id))
                self.default_stream = Stream(("default", self.device_id))

            def set_current(self):
                core.log.append(("set_current", self.device_id))

            def create_stream(self, obj):
                return Stream(("wrapped", obj))

        class ObjectCode:
            @staticmethod
            def from_cubin(cubin, name=""):
                core.log.append(("from_cubin", cubin[:4], name))
                return ObjectCode()

            def get_kernel(self, name):
                core.log.append(("get_kernel", name))
                return FakeKernel(name, core.sizes[name])

        class LaunchConfig:
            def __init__(self, grid, block, shmem_size):
                self.grid, self.block, self.shmem_size = grid, block, shmem_size

        self.Stream, self.Device, self.ObjectCode, self.LaunchConfig = Stream, Device, ObjectCode, LaunchConfig

    def launch(self, stream, config, kernel, *args):
        self.log.append(("launch", stream.what, config.grid, config.block, config.shmem_size,
                         kernel.name, args))


def fake_module(tmp_path, kernels, sizes):
    module = load_module(tmp_path, generate_python_module(kernels))
    core = FakeCore(sizes)
    module._module._core = core
    return module, core


def test_launch_through_cuda_core(tmp_path, vector_add_kernel):
    module, core = fake_module(tmp_path, vector_add_kernel, {"vector_add": [8, 8, 8, 4]})
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 1024, grid=8)
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 16, grid=(2, 3), stream=77)
    assert core.log[:4] == [("Device", None), ("set_current", 0), ("from_cubin", b"\x7fELF", "vector_add"),
                            ("get_kernel", "vector_add")]
    launches = [entry for entry in core.log if entry[0] == "launch"]
    assert launches[0][:6] == ("launch", ("default", 0), (8, 1, 1), (128, 1, 1), 0, "vector_add")
    assert launches[0][6] == (0x1000, 0x2008, 0x3004, np.int32(1024))
    assert [type(a) for a in launches[0][6]] == [int, int, int, np.int32]
    assert launches[1][1:3] == (("handle", 77), (2, 3, 1))
    assert sum(1 for e in core.log if e[0] == "get_kernel") == 1  # loaded once


def test_every_scalar_is_passed_at_its_width(tmp_path, scalar_args_kernel):
    sizes = [8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1]
    module, core = fake_module(tmp_path, scalar_args_kernel, {"scalar_args": sizes})
    module.scalar_args(0x100, -5, -300, -70000, -5000000000, 250, 65000, 4000000000,
                       18000000000000000000, 1.5, 3.140625, 2.5, -0.125, True, grid=1)
    args = core.log[-1][6]
    expected = [0x100, np.int8(-5), np.int16(-300), np.int32(-70000), np.int64(-5000000000),
                np.uint8(250), np.uint16(65000), np.uint32(4000000000), np.uint64(18000000000000000000),
                np.float16(1.5), np.uint16(0x4049), np.float32(2.5), np.float64(-0.125), np.uint8(1)]
    assert [type(a) for a in args] == [type(e) for e in expected]
    assert list(args) == expected
    assert [np.asarray(a).nbytes if not isinstance(a, int) else 8 for a in args] == sizes
    assert core.log[-1][3] == (32, 1, 1)


def test_cubin_signature_mismatch_is_detected(tmp_path, vector_add_kernel):
    module, _ = fake_module(tmp_path, vector_add_kernel, {"vector_add": [8, 8, 8, 8]})
    with pytest.raises(RuntimeError, match=r"parameters of \[8, 8, 8, 8\] bytes, this launcher passes \[8, 8, 8, 4\]"):
        module.vector_add(0, 0, 0, 0, grid=1)


def test_streams_devices_and_torch_current_stream(tmp_path, vector_add_kernel, monkeypatch):
    module, core = fake_module(tmp_path, vector_add_kernel, {"vector_add": [8, 8, 8, 4]})

    class ForeignStream:
        def __cuda_stream__(self):
            return (0, 1234)

    foreign = ForeignStream()
    module.vector_add(0, 0, 0, 0, grid=1, stream=foreign)
    assert core.log[-1][1] == ("wrapped", foreign)
    stream = core.Stream("mine")
    module.vector_add(0, 0, 0, 0, grid=1, stream=stream)
    assert core.log[-1][1] == "mine"
    with pytest.raises(TypeError, match="stream must be"):
        module.vector_add(0, 0, 0, 0, grid=1, stream="default")

    # A torch tensor on device 1: launch there, on torch's current stream of that device (its
    # handle wrapped once, then reused while it stays the current stream).
    class TorchStream:
        def __init__(self, device):
            self.cuda_stream = 4000 + int(str(device).split(":")[1])

    class FakeTorchCuda:
        @staticmethod
        def current_stream(device):
            return TorchStream(device)

    fake_torch = type(sys)("torch")
    fake_torch.cuda = FakeTorchCuda
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    module.vector_add(FakeTensor(0x1000, device=1), 0, 0, 0, grid=1)
    assert ("Device", 1) in core.log and ("set_current", 1) in core.log
    assert core.log[-1][1] == ("handle", 4001)
    module.vector_add(FakeTensor(0x1000, device=1), 0, 0, 0, grid=2)
    assert core.log[-1][1] == ("handle", 4001) and core.log[-1][2] == (2, 1, 1)
    assert len(module._module._streams) == 1


def test_big_shared_memory_raises_the_limit_once_per_device(tmp_path):
    kernel = make_kernel("vector_add", VECTOR_ADD_PARAMS, shared_bytes=100_000)
    module, core = fake_module(tmp_path, kernel, {"vector_add": [8, 8, 8, 4]})
    raised = []

    def fake_raise(spec, kernel_, device_id):
        raised.append((spec.name, spec.shared_bytes, device_id))
        module._module._shared_ready.add((spec.name, device_id))

    module._module._raise_shared_limit = fake_raise
    module.vector_add(0, 0, 0, 0, grid=1)
    module.vector_add(0, 0, 0, 0, grid=1)
    module.vector_add(FakeTensor(0x1000, device=2), 0, 0, 0, grid=1, stream=5)
    assert raised == [("vector_add", 100_000, 0), ("vector_add", 100_000, 2)]
    assert core.log[-1][4] == 100_000


class DLPackClaimingCuda:
    """A host numpy array that claims to live on CUDA device `device` (DLPack device type 2):
    enough to drive the DLPack path through cuda.core's StridedMemoryView without a GPU."""

    def __init__(self, array, device=0):
        self.array = array
        self.device = device

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**{k: v for k, v in kwargs.items() if k != "stream"})

    def __dlpack_device__(self):
        return (2, self.device)


def test_dlpack_path(tmp_path, vector_add_kernel):
    module, core = fake_module(tmp_path, vector_add_kernel, {"vector_add": [8, 8, 8, 4]})
    x = np.zeros(64, np.float32)
    y = np.zeros(64, np.float16)
    with pytest.raises(TypeError, match="parameter 'y' points to float32, but the array's element type is float16"):
        module.vector_add(DLPackClaimingCuda(x, 3), DLPackClaimingCuda(y, 3), 0, 0, grid=1)
    assert not core.log  # nothing reached cuda.core's launch path
    x_address = x.ctypes.data
    if x_address % 16:
        pytest.skip("numpy gave an array that is not 16-byte aligned")
    module.vector_add(DLPackClaimingCuda(x, 3), 0, 0, 0, grid=1)
    assert ("Device", 3) in core.log
    assert core.log[-1][6][0] == x_address


# ----------------------------------------------------------------------------- specialised variants

def with_variant(kernel, shared_bytes=0):
    import dataclasses

    from tritonc.launcher.signature import KernelVariant

    return dataclasses.replace(kernel, variants=(
        KernelVariant("vector_add__spec16", (("y", "align16"), ("z", "align16"), ("n", "div16")), shared_bytes),))


def test_launch_dispatches_to_the_variant_whose_assumptions_hold(tmp_path, vector_add_kernel):
    sizes = [8, 8, 8, 4]
    module, core = fake_module(tmp_path, with_variant(vector_add_kernel, 1024),
                               {"vector_add": sizes, "vector_add__spec16": sizes})
    assert str(inspect.signature(module.vector_add)) == "(x, y, z, n, *, grid=None, stream=None)"
    assert module.metadata["vector_add"]["variants"][0]["name"] == "vector_add__spec16"
    module.vector_add(CAI(0x1000), 0x2010, CAI(0x3000), 1024, grid=1)   # all hold
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3000), 1024, grid=1)   # y only 8-byte aligned
    module.vector_add(CAI(0x1000), 0x2010, CAI(0x3000), 1028, grid=1)   # n % 16 == 4
    module.vector_add(CAI(0x1000), 0x2010, CAI(0x3000), -48, grid=1)    # negative multiple
    launches = [(e[5], e[4]) for e in core.log if e[0] == "launch"]
    assert launches == [("vector_add__spec16", 1024), ("vector_add", 0), ("vector_add", 0),
                        ("vector_add__spec16", 1024)]
    assert [e[1] for e in core.log if e[0] == "get_kernel"] == ["vector_add__spec16", "vector_add"]
    with pytest.raises(ValueError, match="__aligned"):  # the kernel's own promises come first
        module.vector_add(CAI(0x1008), 0x2010, CAI(0x3000), 16, grid=1)


FACT_TESTS = {name: eval(f"lambda v: {fact.python}") for name, fact in FACTS.items()}  # noqa: S307


def test_kernel_spec_select():
    params = (rt._Param("p", "pointer", "float32"), rt._Param("n", "scalar", "int64"))
    spec = rt._KernelSpec("k", params, 4, 0, variants=(("k__a", 0, ((0, "align16"), (1, "div16"))),
                                                       ("k__s", 0, ((0, "align16"), (1, "eq1"))),
                                                       ("k__b", 8, ((0, "align16"),))),
                          fact_tests=FACT_TESTS)
    assert spec.select([0x100, np.int64(32)]).name == "k__a"
    assert spec.select([0x100, np.int64(1)]).name == "k__s"
    assert spec.select([0x100, np.int64(33)]).name == "k__b"
    assert spec.select([0x108, np.int64(32)]) is spec
    assert spec.variants[2][0].shared_bytes == 8 and spec.variants[2][0].params == params
    with pytest.raises(ValueError, match="no test for the fact 'eq2'"):
        rt._KernelSpec("k", params, 4, 0, variants=(("k__a", 0, ((1, "eq2"),)),), fact_tests=FACT_TESTS)


def test_fact_tests_agree_with_the_facts():
    """The generated module's tests (``Fact.python``) and :meth:`Fact.holds` say the same."""
    for name, fact in FACTS.items():
        for v in (-32, -16, -1, 0, 1, 2, 15, 16, 17, 48, 2**40):
            assert FACT_TESTS[name](v) == fact.holds(v), (name, v)


def test_launch_dispatches_on_a_unit_stride(tmp_path):
    import dataclasses

    from tritonc.launcher.signature import KernelVariant

    k = dataclasses.replace(make_kernel("strided", (KernelParam("x", "pointer", "float32"),
                                                    KernelParam("s", "scalar", "int64"),
                                                    KernelParam("n", "scalar", "int32")), ll_name="vector_add.ll"),
                            variants=(KernelVariant("strided__spec_s1_d16", (("x", "align16"), ("s", "eq1"), ("n", "div16"))),
                                      KernelVariant("strided__spec16", (("x", "align16"), ("s", "div16"), ("n", "div16")))))
    sizes = [8, 8, 4]
    module, core = fake_module(tmp_path, k, {"strided": sizes, "strided__spec_s1_d16": sizes, "strided__spec16": sizes})
    assert module.metadata["strided"]["variants"][0] == {
        "name": "strided__spec_s1_d16", "facts": {"x": "align16", "s": "eq1", "n": "div16"},
        "specialization": "x % 16 == 0, s == 1, n % 16 == 0", "shared_bytes": 0}
    for s in (1, 32, 1, 3, -1):
        module.strided(CAI(0x1000), s, 64, grid=1)
    module.strided(CAI(0x1000), 1, 63, grid=1)
    launches = [e[5] for e in core.log if e[0] == "launch"]
    assert launches == ["strided__spec_s1_d16", "strided__spec16", "strided__spec_s1_d16", "strided", "strided",
                        "strided"]


def test_launch_dispatches_on_a_bound(tmp_path):
    """A variant that assumes ``n <= 1024`` (its one-tile branch decided) runs first while the
    bound holds; the module's fact tests include the bound."""
    import dataclasses

    from tritonc.launcher.signature import KernelVariant

    k = dataclasses.replace(make_kernel("rows", (KernelParam("x", "pointer", "float32"),
                                                 KernelParam("n", "scalar", "int32")), ll_name="vector_add.ll"),
                            variants=(KernelVariant("rows__spec16_le", (("x", "align16"), ("n", "div16"), ("n", "le1024"))),
                                      KernelVariant("rows__spec16", (("x", "align16"), ("n", "div16")))))
    sizes = [8, 4]
    module, core = fake_module(tmp_path, k, {"rows": sizes, "rows__spec16_le": sizes, "rows__spec16": sizes})
    assert module.metadata["rows"]["variants"][0]["facts"] == {"x": "align16", "n": ["div16", "le1024"]}
    assert module.metadata["rows"]["variants"][0]["specialization"] == "x % 16 == 0, n % 16 == 0, n <= 1024"
    for n in (1024, 1040, 16, 1000, -16):
        module.rows(CAI(0x1000), n, grid=1)
    launches = [e[5] for e in core.log if e[0] == "launch"]
    assert launches == ["rows__spec16_le", "rows__spec16", "rows__spec16_le", "rows", "rows__spec16_le"]
