"""The CMake helper cmake/TritoncKernel.cmake (issue 18 item 6): ``tritonc_add_kernel`` builds a
C++ program's kernel header with tritonc, rebuilds it when an #included file changes (its
depfile), and only then. The program links against the launcher tests' fake CUDA driver
(tests/launcher/fake_cuda), so it also runs here: it loads the module and launches once."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tritonc.launcher.c_header import find_cuda_include

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "launcher" / "fake_cuda"
CMAKE = shutil.which("cmake")
CUDA_INCLUDE = find_cuda_include()
TRITONC_BIN = Path(sys.executable).parent / "tritonc"
pytestmark = pytest.mark.skipif(CMAKE is None or shutil.which("c++") is None or CUDA_INCLUDE is None,
                                reason="needs cmake, c++ and cuda.h (nvidia-cuda-runtime wheel)")

CMAKELISTS = """
cmake_minimum_required(VERSION 3.20)
project(demo C CXX)
list(APPEND CMAKE_MODULE_PATH "{cmake_dir}")
include(TritoncKernel)
add_executable(app main.cpp "{fake}/fake_cuda.c")
target_include_directories(app PRIVATE "{cuda_include}" "{fake}")
tritonc_add_kernel(app kernels/scale.tri
                   OPTIONS --arch sm_80 -I "${{CMAKE_SOURCE_DIR}}/include" --symbol-prefix demo_
                   EMIT cubin)
"""

KERNEL = """\
#include "block.h"
__grid(cdiv(N, BLOCK))
__global__ void scale(float *Y __writeonly, float *X __readonly, float a, int N) {
  int offs[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool in[BLOCK] = offs < N;
  *?(in)(Y + offs) = a * (in ? *(X + offs) : 0);
}
"""

MAIN = """\
#include <cstdio>
#include "fake_cuda.h"
#include "scale.h"
int main()
{
    fake_current_context = fake_context(1);
    fake_num_params = 4; fake_param_sizes[0] = 8; fake_param_sizes[1] = 8; fake_param_sizes[2] = 4;
    fake_param_sizes[3] = 4;
    CUresult err = demo_scale(NULL, 0x1000, 0x2000, 2.0f, 1000);
    std::printf("RESULT %d\\n", (int)err);
    return err == CUDA_SUCCESS ? 0 : 1;
}
"""


def _run(cmd, cwd) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_tritonc_add_kernel_builds_and_tracks_includes(tmp_path):
    src, build = tmp_path / "src", tmp_path / "build"
    (src / "kernels").mkdir(parents=True)
    (src / "include").mkdir()
    (src / "CMakeLists.txt").write_text(CMAKELISTS.format(cmake_dir=ROOT / "cmake", fake=FAKE,
                                                          cuda_include=CUDA_INCLUDE))
    (src / "kernels" / "scale.tri").write_text(KERNEL)
    (src / "include" / "block.h").write_text("#define BLOCK 256\n")
    (src / "main.cpp").write_text(MAIN)
    _run([CMAKE, "-S", src, "-B", build, f"-DTRITONC_EXECUTABLE={TRITONC_BIN}"], tmp_path)
    env_build = [CMAKE, "--build", build]
    first = _run(env_build, tmp_path)
    assert "tritonc kernels/scale.tri -> scale.h" in first.stdout
    out_dir = build / "tritonc" / "app"
    header, cubin = out_dir / "scale.h", out_dir / "scale.cubin"
    assert header.exists() and cubin.read_bytes()[:4] == b"\x7fELF"
    assert str(src / "include" / "block.h") in (out_dir / "scale.d").read_text()
    run = _run([build / "app"], tmp_path)
    assert "CALL cuModuleLoadData" in run.stdout and "RESULT 0" in run.stdout
    assert "name=scale module=1 grid=4,1,1 " in run.stdout  # cdiv(1000, BLOCK=256)

    # nothing changed: nothing is rebuilt
    again = _run(env_build, tmp_path)
    assert "tritonc kernels/scale.tri" not in again.stdout
    # the included header changes: the kernel header is rebuilt, and the program with it
    time.sleep(1.1)
    (src / "include" / "block.h").write_text("#define BLOCK 512\n")
    changed = _run(env_build, tmp_path)
    assert "tritonc kernels/scale.tri -> scale.h" in changed.stdout
    assert "name=scale module=1 grid=2,1,1 " in _run([build / "app"], tmp_path).stdout  # BLOCK=512


@pytest.mark.parametrize("call, message", [
    ("tritonc_add_kernel(nosuch k.tri)", "tritonc_add_kernel: 'nosuch' is not a target"),
    ("tritonc_add_kernel(app k.tri BOGUS 1)", "tritonc_add_kernel: unknown arguments BOGUS;1"),
])
def test_tritonc_add_kernel_usage_errors(tmp_path, call, message):
    _configure_fails(tmp_path, call, message, [f"-DTRITONC_EXECUTABLE={TRITONC_BIN}"], None)


def test_tritonc_add_kernel_without_tritonc(tmp_path):
    if shutil.which("tritonc", path="/usr/bin:/bin") is not None:
        pytest.skip("a tritonc is installed system-wide")
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    env["PATH"] = f"{Path(CMAKE).parent}:/usr/bin:/bin"
    _configure_fails(tmp_path, "tritonc_add_kernel(app k.tri)",
                     "tritonc_add_kernel: tritonc not found; set TRITONC_EXECUTABLE", [], env)


def _configure_fails(tmp_path, call, message, defines, env):
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.c").write_text("int main(void) { return 0; }\n")
    (src / "CMakeLists.txt").write_text(
        f'cmake_minimum_required(VERSION 3.20)\nproject(demo C)\nlist(APPEND CMAKE_MODULE_PATH "{ROOT / "cmake"}")\n'
        f"include(TritoncKernel)\nadd_executable(app main.c)\n{call}\n")
    proc = subprocess.run([CMAKE, "-S", src, "-B", tmp_path / "build", *defines],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr
