"""Thread-safe first load of the C header (issue 18 item 5): eight threads that load at once
load the module once (the table's mutex), and each thread sees its own last error
(thread-local), against the fake CUDA driver whose cuModuleLoadData sleeps to widen the race."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from fixture_kernels import VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.c_header import find_cuda_include, generate_c_header

FAKE = Path(__file__).parent / "fake_cuda"
CUDA_INCLUDE = find_cuda_include()
CC = shutil.which("cc")
CXX = shutil.which("c++")
pytestmark = pytest.mark.skipif(CUDA_INCLUDE is None or CC is None or CXX is None,
                                reason="needs cc, c++ and cuda.h (nvidia-cuda-runtime wheel)")

PROGRAM = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "fake_cuda.h"
#include "k.h"

static int refused[8];
static int clean[8];

static void *worker(void *arg)
{
    int i = (int)(size_t)arg;
    if (vector_add_load() != CUDA_SUCCESS) return NULL;
    if (i % 2 == 0) {  /* a broken promise: refused before any CUDA call, error kept per thread */
        refused[i] = vector_add(NULL, 1, 1, 1, 0x1008, 0x2008, 0x3000, 64) == CUDA_ERROR_INVALID_VALUE
                     && vector_add_last_error() != NULL
                     && strstr(vector_add_last_error(), "'x'") != NULL;
    }
    clean[i] = (i % 2 == 0) == (vector_add_last_error() != NULL);
    return NULL;
}

int main(void)
{
    pthread_t threads[8];
    int i, ok = 1;
    fake_current_context = fake_context(3);
    fake_module_load_delay_ms = 50;
    for (i = 0; i < 8; ++i) pthread_create(&threads[i], NULL, worker, (void *)(size_t)i);
    for (i = 0; i < 8; ++i) pthread_join(threads[i], NULL);
    for (i = 0; i < 8; ++i) ok = ok && clean[i] && (i % 2 == 1 || refused[i]);
    printf("THREADS %s\n", ok ? "ok" : "bad");
    printf("MAIN_ERROR %s\n", vector_add_last_error() == NULL ? "none" : "set");
    return 0;
}
"""


@pytest.mark.parametrize("cxx", [False, True])
def test_eight_threads_load_once(tmp_path, cxx):
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})
    (tmp_path / "k.h").write_text(generate_c_header(k))
    src = tmp_path / ("main.cpp" if cxx else "main.c")
    src.write_text(PROGRAM)
    fake = tmp_path / "fake.o"
    subprocess.run([CC, "-std=c99", "-c", "-I", CUDA_INCLUDE, str(FAKE / "fake_cuda.c"), "-o", str(fake)], check=True)
    compiler = [CXX, "-std=c++11"] if cxx else [CC, "-std=c99"]
    exe = tmp_path / "main"
    proc = subprocess.run([*compiler, "-pthread", "-Wall", "-Wextra", "-Werror", "-I", CUDA_INCLUDE, "-I", str(FAKE),
                           "-I", str(tmp_path), str(src), str(fake), "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len([x for x in lines if x.startswith("CALL cuModuleLoadData")]) == 1, lines
    assert len([x for x in lines if x.startswith("CALL cuModuleGetFunction")]) == 1
    assert "THREADS ok" in lines and "MAIN_ERROR none" in lines
