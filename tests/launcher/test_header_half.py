"""float16 / bfloat16 launcher arguments (issue 18 item 5): C++ with the CUDA toolkit's
cuda_fp16.h / cuda_bf16.h on the include path takes __half / __nv_bfloat16; without them, and
in C, the arguments are their bits in uint16_t. Both launch the same bytes (fake driver)."""
from __future__ import annotations

import glob
import shutil
import subprocess
from pathlib import Path

import pytest

from fixture_kernels import make_kernel
from tritonc.launcher.c_header import find_cuda_include, generate_c_header
from tritonc.launcher.c_launch import c_arg_type
from tritonc.launcher.signature import KernelParam

FAKE = Path(__file__).parent / "fake_cuda"
CUDA_INCLUDE = find_cuda_include()
CC = shutil.which("cc")
CXX = shutil.which("c++")
pytestmark = pytest.mark.skipif(CUDA_INCLUDE is None or CC is None or CXX is None,
                                reason="needs cc, c++ and cuda.h (nvidia-cuda-runtime wheel)")
TOOLKIT = next((d for d in ["/usr/local/cuda/include", *sorted(glob.glob("/usr/local/cuda-*/include"))]
                if Path(d, "cuda_fp16.h").is_file() and Path(d, "crt", "host_defines.h").is_file()), None)
PARAMS = (KernelParam("out", "pointer", "float32"), KernelParam("hf", "scalar", "float16"),
          KernelParam("bf", "scalar", "bfloat16"), KernelParam("n", "scalar", "int32"))

CXX_MAIN = r"""
#include <cstdio>
#include <type_traits>
#include "fake_cuda.h"
#include "k.h"
int main()
{
    fake_num_params = 4; fake_param_sizes[0] = 8; fake_param_sizes[1] = 2; fake_param_sizes[2] = 2;
    fake_param_sizes[3] = 4;
    fake_current_context = fake_context(1);
#if EXPECT_CUDA_TYPES
    static_assert(std::is_same<TRITONC_FLOAT16, __half>::value, "float16 is __half");
    static_assert(std::is_same<TRITONC_BFLOAT16, __nv_bfloat16>::value, "bfloat16 is __nv_bfloat16");
    CUresult (*f)(CUstream, unsigned, unsigned, unsigned, CUdeviceptr, __half, __nv_bfloat16, int32_t) = scalar_args;
    std::printf("RESULT %d\n", (int)f(NULL, 1, 1, 1, 0x1000, __float2half(1.5f), __float2bfloat16(1.5f), 7));
#else
    static_assert(std::is_same<TRITONC_FLOAT16, uint16_t>::value, "float16 is uint16_t");
    static_assert(std::is_same<TRITONC_BFLOAT16, uint16_t>::value, "bfloat16 is uint16_t");
    std::printf("RESULT %d\n", (int)scalar_args(NULL, 1, 1, 1, 0x1000, 0x3e00, 0x3fc0, 7));
#endif
    return 0;
}
"""
ARGS = "args=0010000000000000,003e,c03f,07000000"  # 1.5 in float16 and bfloat16, little-endian


def build_run(tmp_path: Path, *flags: str) -> list[str]:
    k = make_kernel("scalar_args", PARAMS)  # the fixture cubin; the fake driver reads only its name
    (tmp_path / "k.h").write_text(generate_c_header(k))
    (tmp_path / "main.cpp").write_text(CXX_MAIN)
    fake = tmp_path / "fake.o"
    subprocess.run([CC, "-std=c99", "-c", "-I", CUDA_INCLUDE, str(FAKE / "fake_cuda.c"), "-o", str(fake)], check=True)
    exe = tmp_path / "main"
    proc = subprocess.run([CXX, "-std=c++11", "-Wall", "-Wextra", "-Werror", *flags, "-I", str(FAKE), "-I", str(tmp_path),
                           str(tmp_path / "main.cpp"), str(fake), "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.skipif(TOOLKIT is None, reason="needs the CUDA toolkit's cuda_fp16.h and crt/ headers")
def test_cuda_half_types_with_the_toolkit(tmp_path):
    lines = build_run(tmp_path, "-DEXPECT_CUDA_TYPES=1", "-I", TOOLKIT)
    launch = [x for x in lines if x.startswith("CALL cuLaunchKernel")]
    assert launch and launch[0].endswith(ARGS) and "RESULT 0" in lines, lines


def test_uint16_without_cuda_fp16(tmp_path):
    # the runtime wheel's include folder has cuda_fp16.h but not the crt/ headers it needs
    lines = build_run(tmp_path, "-DEXPECT_CUDA_TYPES=0", "-I", CUDA_INCLUDE)
    launch = [x for x in lines if x.startswith("CALL cuLaunchKernel")]
    assert launch and launch[0].endswith(ARGS) and "RESULT 0" in lines, lines


@pytest.mark.skipif(TOOLKIT is None, reason="needs the CUDA toolkit's cuda_fp16.h and crt/ headers")
def test_opt_out_and_c_keep_uint16(tmp_path):
    lines = build_run(tmp_path, "-DEXPECT_CUDA_TYPES=0", "-DTRITONC_NO_CUDA_FP16", "-I", TOOLKIT)
    assert "RESULT 0" in lines
    (tmp_path / "c.c").write_text('#include "k.h"\n_Static_assert(sizeof(TRITONC_FLOAT16) == 2, "");\n'
                                  "static uint16_t *p = (TRITONC_FLOAT16 *)0;\nint main(void) { return p != 0; }\n")
    subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I", TOOLKIT, "-I", str(tmp_path),
                    str(tmp_path / "c.c")], check=True)


def test_c_arg_type_names():
    assert [c_arg_type(p) for p in PARAMS] == ["CUdeviceptr", "TRITONC_FLOAT16", "TRITONC_BFLOAT16", "int32_t"]
    assert c_arg_type(PARAMS[1], "mm_") == "MM_FLOAT16"
