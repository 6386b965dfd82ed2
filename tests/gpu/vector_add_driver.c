/* C driver for tests/gpu/test_launchers_gpu.py: launches vector_add through the generated
 * header "vector_add.h" (signature: float *x __aligned(16), float *y __multipleof(8),
 * float *z, int32 n __multipleof(4)) in the primary context, in a second context of the same
 * device (the header keeps one module per context), and in the primary context again, and
 * checks z = x + y, the untouched tail of z, a refused launch that breaks a promise and an
 * empty grid. Prints PASS and exits 0 when everything holds. Build: cc -std=c99 -I<cuda.h dir>
 * -I<header dir> vector_add_driver.c -lcuda */
#include <stdio.h>
#include <string.h>

#include "vector_add.h"

#define N 1000
#define TAIL 64

#define CK(call)                                                                  \
    do {                                                                          \
        CUresult ck_err = (call);                                                 \
        if (ck_err != CUDA_SUCCESS) {                                             \
            const char *ck_msg = NULL;                                            \
            cuGetErrorString(ck_err, &ck_msg);                                    \
            fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__,    \
                    #call, (int)ck_err, ck_msg ? ck_msg : "?");                   \
            return 1;                                                             \
        }                                                                         \
    } while (0)

static float hx[N], hy[N], hz[N + TAIL];

/* Allocate, launch, check and free in the current context; returns 0 when all is well. */
static int run_once(const char *where, float scale)
{
    CUdeviceptr dx, dy, dz;
    int i, bad = 0;
    CUresult refused;
    for (i = 0; i < N; ++i) {
        hx[i] = scale * (float)i;
        hy[i] = 1000.0f - (float)i;
    }
    for (i = 0; i < N + TAIL; ++i) hz[i] = -1.0f;
    CK(cuMemAlloc(&dx, sizeof hx));
    CK(cuMemAlloc(&dy, sizeof hy));
    CK(cuMemAlloc(&dz, sizeof hz));
    CK(cuMemcpyHtoD(dx, hx, sizeof hx));
    CK(cuMemcpyHtoD(dy, hy, sizeof hy));
    CK(cuMemcpyHtoD(dz, hz, sizeof hz));

    CK(vector_add(NULL, (N + 127) / 128, 1, 1, dx, dy, dz, N));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(hz, dz, sizeof hz));
    for (i = 0; i < N; ++i)
        if (hz[i] != hx[i] + hy[i]) {
            if (bad++ < 5) fprintf(stderr, "%s: z[%d] = %g, expected %g\n", where, i, hz[i], hx[i] + hy[i]);
        }
    for (i = N; i < N + TAIL; ++i)
        if (hz[i] != -1.0f) {
            if (bad++ < 10) fprintf(stderr, "%s: z[%d] = %g was written past n\n", where, i, hz[i]);
        }

    refused = vector_add(NULL, 1, 1, 1, dx + 4, dy, dz, N);  /* x + 4 bytes breaks __aligned(16) */
    if (refused != CUDA_ERROR_INVALID_VALUE || vector_add_last_error() == NULL) {
        fprintf(stderr, "%s: a launch breaking __aligned(16) returned %d\n", where, (int)refused);
        ++bad;
    } else {
        printf("%s: refused: %s\n", where, vector_add_last_error());
    }
    if (vector_add(NULL, 0, 1, 1, dx, dy, dz, N) != CUDA_SUCCESS) {
        fprintf(stderr, "%s: an empty grid did not return CUDA_SUCCESS\n", where);
        ++bad;
    }
    CK(cuMemFree(dx));
    CK(cuMemFree(dy));
    CK(cuMemFree(dz));
    printf("%s: %s\n", where, bad ? "mismatch" : "ok");
    return bad;
}

int main(void)
{
    CUdevice device;
    CUcontext primary, second;
    int bad = 0;
    CK(cuInit(0));
    CK(cuDeviceGet(&device, 0));
    CK(cuDevicePrimaryCtxRetain(&primary, device));
    CK(cuCtxSetCurrent(primary));
    printf("kernel %s for %s, %u threads per block\n", vector_add_metadata.name,
           vector_add_metadata.arch, vector_add_metadata.block_threads);

    CK(vector_add_load());
    bad += run_once("primary context", 0.5f);

    CK(cuCtxCreate(&second, NULL, 0, device));  /* becomes current */
    bad += run_once("second context", 2.0f);
    CK(vector_add_unload());
    CK(cuCtxDestroy(second));

    CK(cuCtxSetCurrent(primary));
    bad += run_once("primary context again", 3.0f);
    CK(vector_add_unload());
    bad += run_once("primary context after unload", 4.0f);

    CK(cuDevicePrimaryCtxRelease(device));
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
