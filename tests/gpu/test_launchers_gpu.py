"""GPU end-to-end test of the launchers: the hand-written fixtures tests/codegen/data/*.ll go
through llvm_to_ptx -> PTX -> cubin (nvJitLink and, where it is on PATH, ptxas), then run
through the generated Python module (torch tensors, a DLPack-only wrapper, raw addresses,
streams, >48 KiB dynamic shared memory) and through the generated C header from C programs
linked with libcuda. Skipped without an NVIDIA GPU and driver.

Needs on the GPU machine: llvmlite, cuda-python (cuda.core, cuda.bindings), numpy; torch for
the Python-module tests; cc and cuda.h (CUDA toolkit or the nvidia-cuda-runtime wheel) for
the C tests.
"""
from __future__ import annotations

import ctypes.util
import glob
import importlib.util
import itertools
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gpu_helpers import gpu_arch  # tests/gpu is on sys.path
from tritonc.codegen.cubin import assemble_ptx
from tritonc.codegen.target import llvm_to_ptx
from tritonc.target import ARCHS, Target
from tritonc.launcher.c_header import find_cuda_include, generate_c_header
from tritonc.launcher.python_module import generate_python_module
from tritonc.launcher.signature import CompiledKernel, KernelParam, KernelSignature

HERE = Path(__file__).parent
DATA = HERE.parent / "codegen" / "data"


GPU_ARCH = gpu_arch()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver"),
    pytest.mark.skipif(GPU_ARCH is not None and GPU_ARCH not in ARCHS,
                       reason=f"GPU arch {GPU_ARCH} is not one tritonc targets ({', '.join(ARCHS)})"),
]

_TINY_PTX = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry t()\n{\n\tret;\n}\n"


def _nvjitlink_works() -> bool:
    try:
        from tritonc.codegen.cubin import ptx_to_cubin

        return ptx_to_cubin(_TINY_PTX, Target("sm_80"))[:4] == b"\x7fELF"
    except Exception:
        return False


ASSEMBLERS = ((["nvjitlink"] if _nvjitlink_works() else [])
              + (["ptxas"] if shutil.which("ptxas") else [])) or ["nvjitlink"]

VECTOR_ADD_PARAMS = (
    KernelParam("x", "pointer", "float32", aligned=16, noalias=True, readonly=True),
    KernelParam("y", "pointer", "float32", multipleof=8),
    KernelParam("z", "pointer", "float32", writeonly=True),
    KernelParam("n", "scalar", "int32", multipleof=4),
)
SCALAR_ARGS_PARAMS = (
    KernelParam("out", "pointer", "float64"),
    *(KernelParam(name, "scalar", dtype) for name, dtype in zip(
        ["a", "b", "c", "d", "e", "f", "g", "h", "hf", "bf", "fl", "db", "bo"],
        ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "bfloat16", "float32", "float64", "bool"])),
)
SCALAR_VALUES = (-5, -300, -70000, -5000000000, 250, 65000, 4000000000, 18000000000000000000,
                 1.5, 3.140625, 2.5, -0.125, True)


def build(name: str, params, assembler: str, **kw) -> CompiledKernel:
    target = Target(GPU_ARCH)
    ptx = llvm_to_ptx((DATA / f"{name}.ll").read_text(), target)
    cubin = assemble_ptx(ptx, target, use_ptxas=(assembler == "ptxas")).cubin
    return CompiledKernel(KernelSignature(name, params), kw.pop("num_warps", 4), kw.pop("shared_bytes", 0),
                          GPU_ARCH, cubin, ptx, **kw)


_count = itertools.count()


def import_launcher(tmp_path, kernel):
    name = f"gpu_launcher_{next(_count)}"
    path = tmp_path / f"{name}.py"
    path.write_text(generate_python_module(kernel, module_name=name))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_scalars() -> list[float]:
    values = [float(v) for v in SCALAR_VALUES[:8]]
    values += [1.5, 3.140625, 2.5, -0.125, 1.0]
    # uint64 18e18 and int64 -5e9 convert to double exactly as C does (round to nearest).
    return values


# ----------------------------------------------------------------------------- Python module

@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("assembler", ASSEMBLERS)
@pytest.mark.parametrize("shared_bytes", [0, 100_000])
def test_python_module_vector_add_torch(tmp_path, torch, assembler, shared_bytes):
    pytest.importorskip("cuda.core")
    module = import_launcher(tmp_path, build("vector_add", VECTOR_ADD_PARAMS, assembler,
                                             shared_bytes=shared_bytes))
    n = 1000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    z = torch.full((n + 64,), -1.0, device="cuda")
    module.vector_add(x, y, z, n, grid=(n + 127) // 128)
    torch.cuda.synchronize()
    assert torch.equal(z[:n], x + y)
    assert torch.all(z[n:] == -1.0)

    # A side stream, raw addresses, and a grid tuple.
    z.fill_(0.0)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())  # the fill runs on the default stream
    with torch.cuda.stream(stream):
        module.vector_add(x.data_ptr(), y.data_ptr(), z.data_ptr(), n, grid=((n + 127) // 128, 1, 1),
                          stream=stream)
    stream.synchronize()
    assert torch.equal(z[:n], x + y)

    # An object that offers only DLPack.
    class DLPackOnly:
        def __init__(self, t):
            self._t = t

        def __dlpack__(self, **kw):
            return self._t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self._t.__dlpack_device__()

    z.fill_(0.0)
    module.vector_add(DLPackOnly(x), DLPackOnly(y), DLPackOnly(z), n, grid=8)
    torch.cuda.synchronize()
    assert torch.equal(z[:n], x + y)

    # Refusals, before any launch.
    with pytest.raises(ValueError, match=r"'x' has address .* __aligned\(16\)"):
        module.vector_add(x[1:], y, z, 996, grid=1)
    with pytest.raises(TypeError, match="'y' points to float32, but the array's element type is float16"):
        module.vector_add(x, y.half(), z, n, grid=1)
    with pytest.raises(TypeError, match="needs CUDA device memory"):
        module.vector_add(x.cpu(), y, z, n, grid=1)


def test_python_module_cupy(tmp_path):
    cupy = pytest.importorskip("cupy")
    pytest.importorskip("cuda.core")
    module = import_launcher(tmp_path, build("vector_add", VECTOR_ADD_PARAMS, ASSEMBLERS[0]))
    n = 4096
    x = cupy.arange(n, dtype=cupy.float32)
    y = cupy.ones(n, dtype=cupy.float32)
    z = cupy.zeros(n, dtype=cupy.float32)
    module.vector_add(x, y, z, n, grid=n // 128)
    cupy.cuda.Device().synchronize()
    assert bool((z == x + y).all())


@pytest.mark.parametrize("assembler", ASSEMBLERS)
def test_python_module_every_scalar_type(tmp_path, torch, assembler):
    pytest.importorskip("cuda.core")
    module = import_launcher(tmp_path, build("scalar_args", SCALAR_ARGS_PARAMS, assembler, num_warps=2))
    out = torch.zeros(14, dtype=torch.float64, device="cuda")
    module.scalar_args(out, *SCALAR_VALUES, grid=1)
    torch.cuda.synchronize()
    assert out.cpu().tolist() == expected_scalars() + [64.0]


# ----------------------------------------------------------------------------- C header

def _libcuda_link_args() -> list[str]:
    """How to link the driver library: -lcuda when the linker finds it, else its full path."""
    dirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64",
            "/usr/local/nvidia/lib", "/usr/lib/wsl/lib", "/usr/local/cuda/lib64/stubs"]
    for d in dirs:
        if os.path.exists(os.path.join(d, "libcuda.so")) and "stubs" not in d:
            return [f"-L{d}", "-lcuda"]
    found = ctypes.util.find_library("cuda")
    candidates = [os.path.join(d, name) for d in dirs for name in ("libcuda.so.1", "libcuda.so")]
    candidates += glob.glob("/usr/lib*/**/libcuda.so.1", recursive=True)
    for path in candidates:
        if os.path.exists(path) and "stubs" not in path:
            return [path]
    return ["-lcuda"] if found else []


CC = shutil.which("cc")
CUDA_INCLUDE = find_cuda_include()
needs_cc = pytest.mark.skipif(CC is None or CUDA_INCLUDE is None, reason="needs cc and cuda.h")


def compile_and_run(tmp_path, sources: list[Path], flags: tuple[str, ...] = ("-std=c99",)) -> str:
    """Build ``sources`` with cc (``flags`` first, then warnings as errors) against libcuda and
    the headers in ``tmp_path``, run the program, and return what it printed (exit 0 asserted)."""
    link = _libcuda_link_args()
    if not link:
        pytest.skip("libcuda not found for linking")
    exe = tmp_path / "prog"
    cmd = [CC, *flags, "-Wall", "-Wextra", "-Werror", "-I", CUDA_INCLUDE, "-I", str(tmp_path),
           *map(str, sources), "-o", str(exe), *link]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    env = dict(os.environ)
    if link[0].startswith("/"):
        env["LD_LIBRARY_PATH"] = os.path.dirname(link[0]) + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@needs_cc
@pytest.mark.parametrize("assembler", ASSEMBLERS)
def test_c_header_vector_add(tmp_path, assembler):
    kernel = build("vector_add", VECTOR_ADD_PARAMS, assembler)
    (tmp_path / "vector_add.h").write_text(generate_c_header(kernel))
    out = compile_and_run(tmp_path, [HERE / "vector_add_driver.c"])
    assert out.strip().endswith("PASS"), out
    assert out.count("refused: vector_add: the address passed for 'x'") == 4


SCALAR_DRIVER = r"""
#include <stdio.h>
#include "scalar_args.h"
int main(void)
{
    CUdevice device; CUcontext ctx; CUdeviceptr out; double host[14]; int i; CUresult err;
    if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&ctx, device) ||
        cuCtxSetCurrent(ctx) || cuMemAlloc(&out, sizeof host)) return 2;
    err = scalar_args(NULL, 1, 1, 1, out, -5, -300, -70000, -5000000000ll, 250, 65000, 4000000000u,
                      18000000000000000000ull, 0x3e00 /* 1.5 */, 0x4049 /* 3.140625 */, 2.5f,
                      -0.125, true);
    if (err != CUDA_SUCCESS) { printf("launch failed: %d\n", (int)err); return 3; }
    if (cuCtxSynchronize() || cuMemcpyDtoH(host, out, sizeof host)) return 4;
    for (i = 0; i < 14; ++i) printf("%.17g\n", host[i]);
    return 0;
}
"""


@needs_cc
@pytest.mark.parametrize("assembler", ASSEMBLERS)
def test_c_header_every_scalar_type(tmp_path, assembler):
    kernel = build("scalar_args", SCALAR_ARGS_PARAMS, assembler, num_warps=3)
    (tmp_path / "scalar_args.h").write_text(generate_c_header(kernel))
    (tmp_path / "main.c").write_text(SCALAR_DRIVER)
    out = compile_and_run(tmp_path, [tmp_path / "main.c"])
    assert [float(v) for v in out.split()] == expected_scalars() + [96.0]
    assert np.float16(1.5).view(np.uint16) == 0x3E00
