"""Eight threads load and launch the C header's kernel at once (issue 18: a thread-safe first
load). examples/vector_add.tri's header, built as the CLI builds it; a C program starts 8
pthreads that meet at a barrier, then each calls ``vector_add_load()`` and launches
``vector_add(stream, z, x, y, n)`` on the declared grid in the device's primary context, and
checks its own output. Skipped without a GPU, cc and cuda.h."""
from __future__ import annotations

import pytest

from gpu_helpers import gpu_arch  # tests/gpu is on sys.path
from test_launchers_gpu import CC, CUDA_INCLUDE, compile_and_run
from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.tools.examples import EXAMPLES_DIR

ARCH = gpu_arch()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(ARCH is None or CC is None or CUDA_INCLUDE is None,
                                                  reason="needs an NVIDIA GPU, cc and cuda.h")]

DRIVER = r"""
#define _POSIX_C_SOURCE 200112L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "vector_add.h"

#define THREADS 8
#define N 100003
static pthread_barrier_t start;
static CUcontext ctx;
static int failures[THREADS];

static void *worker(void *arg)
{
    int t = (int)(size_t)arg, i, bad = 0;
    float *hx = malloc(N * sizeof(float)), *hy = malloc(N * sizeof(float)), *hz = malloc(N * sizeof(float));
    CUdeviceptr dx, dy, dz;
    CUstream stream;
    if (cuCtxSetCurrent(ctx) || cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) { failures[t] = -1; return NULL; }
    for (i = 0; i < N; ++i) { hx[i] = (float)(t * N + i); hy[i] = (float)(1000 * t) - (float)i; }
    if (cuMemAlloc(&dx, N * 4) || cuMemAlloc(&dy, N * 4) || cuMemAlloc(&dz, N * 4) ||
        cuMemcpyHtoD(dx, hx, N * 4) || cuMemcpyHtoD(dy, hy, N * 4) || cuMemsetD32(dz, 0xffffffff, N)) {
        failures[t] = -2; return NULL;
    }
    pthread_barrier_wait(&start);          /* every thread asks for the module at once */
    if (vector_add_load() != CUDA_SUCCESS) { failures[t] = -3; return NULL; }
    if (vector_add(stream, dz, dx, dy, N) != CUDA_SUCCESS) { failures[t] = -4; return NULL; }
    if (cuStreamSynchronize(stream) || cuMemcpyDtoH(hz, dz, N * 4)) { failures[t] = -5; return NULL; }
    for (i = 0; i < N; ++i) bad += hz[i] != hx[i] + hy[i];
    failures[t] = bad;
    cuMemFree(dx); cuMemFree(dy); cuMemFree(dz); cuStreamDestroy(stream);
    free(hx); free(hy); free(hz);
    return NULL;
}

int main(void)
{
    CUdevice device;
    pthread_t threads[THREADS];
    int t, total = 0;
    if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&ctx, device)) return 2;
    pthread_barrier_init(&start, NULL, THREADS);
    for (t = 0; t < THREADS; ++t) pthread_create(&threads[t], NULL, worker, (void *)(size_t)t);
    for (t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
    for (t = 0; t < THREADS; ++t) {
        printf("thread %d: %d\n", t, failures[t]);
        total += failures[t] != 0;
    }
    printf(total ? "FAIL\n" : "PASS\n");
    return total != 0;
}
"""


def test_eight_threads_load_and_launch_at_once(tmp_path):
    comp = Compilation(EXAMPLES_DIR / "vector_add.tri", CompileOptions(arch=ARCH, specialize=True))
    (tmp_path / "vector_add.h").write_text(comp.header)
    (tmp_path / "driver.c").write_text(DRIVER)
    out = compile_and_run(tmp_path, [tmp_path / "driver.c"], flags=("-std=c11", "-pthread"))
    assert out.strip().endswith("PASS"), out
    assert out.count(": 0\n") == 8
