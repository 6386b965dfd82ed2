"""GPU test of fatbins (issue 18 item 2): examples/vector_add.tri built for a list of
architectures (``tritonc.multiarch``) loads and runs through the generated Python module and
through the generated C header; a fatbin without SASS for the GPU (``--arch sm_80`` on a Hopper)
runs through the driver's JIT of its PTX. Skipped without an NVIDIA GPU, torch and cuda.core
(the header test also needs cc, cuda.h and libcuda)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.core")

from tritonc.codegen.fatbin import parse_fatbin  # noqa: E402
from gpu_helpers import gpu_arch, module_from_source  # noqa: E402  (tests/gpu is on sys.path)
from tritonc.driver import Compilation  # noqa: E402
from tritonc.launcher.c_header import find_cuda_include  # noqa: E402
from tritonc.multiarch import FatbinBuild  # noqa: E402
from tritonc.options import ARCHS, CompileOptions  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GPU_ARCH = gpu_arch()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPU_ARCH is None or GPU_ARCH not in ARCHS, reason="needs an NVIDIA GPU tritonc targets"),
]


def _archs_with_gpu() -> tuple[str, ...]:
    """A list with an image for this GPU (sm_90a on Hopper) and one for another architecture."""
    mine = "sm_90a" if GPU_ARCH == "sm_90" else GPU_ARCH
    return ("sm_80", mine) if mine != "sm_80" else ("sm_80", "sm_90a")


def _build(archs) -> FatbinBuild:
    comp = Compilation(EXAMPLES / "vector_add.tri",
                       CompileOptions(defines={"BLOCK": "1024"}, arch=archs[0], specialize=True))
    return FatbinBuild(comp, tuple(archs))


def _module(tmp_path, build: FatbinBuild):
    return module_from_source(build.emit("py"), "fatbin_launcher")


def _check_module(module) -> None:
    for n in (4096, 4093):  # the __spec16 variant and the generic kernel
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        z = torch.full_like(x, float("nan"))
        module.vector_add(z, x, y, n)  # the declared grid
        torch.cuda.synchronize()
        torch.testing.assert_close(z, x + y)


def test_fatbin_runs_through_the_python_module(tmp_path):
    build = _build(_archs_with_gpu())
    assert [e.kind for e in parse_fatbin(build.fatbin)].count("elf") == 2
    _check_module(_module(tmp_path, build))


@pytest.mark.skipif(GPU_ARCH is None or GPU_ARCH[3] == "8", reason="needs a GPU newer than sm_8x for the PTX JIT")
def test_fatbin_without_sass_for_the_gpu_runs_its_ptx(tmp_path):
    """sm_80 SASS does not run on sm_90: the driver JIT-compiles the fatbin's sm_80 PTX."""
    build = _build(("sm_80", "sm_100"))
    assert [(e.kind, e.arch) for e in parse_fatbin(build.fatbin)] == [("elf", "sm_80"), ("ptx", "sm_80"),
                                                                      ("ptx", "sm_100")]
    _check_module(_module(tmp_path, build))


HEADER_DRIVER = r"""
#include <stdio.h>
#include "va.h"
#define N 5000
static float hx[N], hy[N], hz[N];
int main(void)
{
    CUdevice device; CUcontext ctx; CUdeviceptr x, y, z; int i;
    if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&ctx, device) ||
        cuCtxSetCurrent(ctx)) return 2;
    for (i = 0; i < N; ++i) { hx[i] = (float)i; hy[i] = 0.5f * (float)i; }
    if (cuMemAlloc(&x, sizeof hx) || cuMemAlloc(&y, sizeof hy) || cuMemAlloc(&z, sizeof hz) ||
        cuMemcpyHtoD(x, hx, sizeof hx) || cuMemcpyHtoD(y, hy, sizeof hy)) return 3;
    if (vector_add(NULL, z, x, y, N) != CUDA_SUCCESS) {
        printf("launch failed: %s\n", vector_add_last_error() ? vector_add_last_error() : "?");
        return 4;
    }
    if (cuCtxSynchronize() || cuMemcpyDtoH(hz, z, sizeof hz)) return 5;
    for (i = 0; i < N; ++i)
        if (hz[i] != 1.5f * (float)i) { printf("z[%d] = %g\n", i, hz[i]); return 6; }
    printf("PASS\n");
    return 0;
}
"""


def _libcuda() -> list[str]:
    import ctypes.util

    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/cuda/lib64/stubs"):
        if os.path.exists(os.path.join(d, "libcuda.so")):
            return [os.path.join(d, "libcuda.so")]
    found = ctypes.util.find_library("cuda")
    return ["-lcuda"] if found else []


@pytest.mark.skipif(shutil.which("cc") is None or find_cuda_include() is None, reason="needs cc and cuda.h")
@pytest.mark.parametrize("archs", [_archs_with_gpu() if GPU_ARCH else ("sm_80", "sm_90a"), ("sm_80", "sm_120")])
def test_fatbin_runs_through_the_c_header(tmp_path, archs):
    build = _build(archs)
    header = build.emit("header")
    assert "fatbin of" in header
    (tmp_path / "va.h").write_text(header)
    (tmp_path / "main.c").write_text(HEADER_DRIVER)
    link = _libcuda()
    if not link:
        pytest.skip("libcuda not found for linking")
    exe = tmp_path / "prog"
    proc = subprocess.run(["cc", "-std=c99", "-I", find_cuda_include(), "-I", str(tmp_path), str(tmp_path / "main.c"),
                           "-o", str(exe), *link], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
