/* See fake_cuda.h. Every call prints one line: "CALL name key=value ...". */
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#include "fake_cuda.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

CUcontext fake_current_context = NULL;
CUresult fake_module_load_result = CUDA_SUCCESS;
size_t fake_param_sizes[64];
int fake_num_params = 0;
int fake_launches = 0;
unsigned int fake_module_load_delay_ms = 0;

/* Contexts and modules are small integers disguised as pointers; functions point into a
 * table that remembers their names. */
struct fake_function { char name[128]; int module; };
static struct fake_function functions[256];
static int num_functions = 0;
static int num_modules = 0;

CUcontext fake_context(unsigned long long id) { return (CUcontext)(size_t)id; }

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    printf("CALL cuCtxGetCurrent\n");
    *pctx = fake_current_context;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    *ctxId = (unsigned long long)(size_t)ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    const unsigned char *bytes = (const unsigned char *)image;
    printf("CALL cuModuleLoadData context=%llu elf=%d aligned16=%d\n",
           (unsigned long long)(size_t)fake_current_context,
           bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F',
           ((size_t)image % 16) == 0);
    if (fake_module_load_delay_ms) {
        struct timespec delay;
        delay.tv_sec = fake_module_load_delay_ms / 1000u;
        delay.tv_nsec = (long)(fake_module_load_delay_ms % 1000u) * 1000000L;
        nanosleep(&delay, NULL);
    }
    if (fake_module_load_result != CUDA_SUCCESS) return fake_module_load_result;
    *module = (CUmodule)(size_t)(++num_modules);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    struct fake_function *f = &functions[num_functions++];
    printf("CALL cuModuleGetFunction module=%d name=%s\n", (int)(size_t)hmod, name);
    strncpy(f->name, name, sizeof f->name - 1);
    f->module = (int)(size_t)hmod;
    *hfunc = (CUfunction)f;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    printf("CALL cuModuleUnload module=%d\n", (int)(size_t)hmod);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    printf("CALL cuFuncSetAttribute name=%s attribute=%d value=%d\n",
           ((struct fake_function *)hfunc)->name, (int)attrib, value);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    int i;
    size_t j;
    struct fake_function *fn = (struct fake_function *)f;
    ++fake_launches;
    printf("CALL cuLaunchKernel name=%s module=%d grid=%u,%u,%u block=%u,%u,%u shared=%u stream=%llu"
           " params_null=%d extra_null=%d args=",
           fn->name, fn->module, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
           sharedMemBytes, (unsigned long long)(size_t)hStream, kernelParams == NULL, extra == NULL);
    for (i = 0; i < fake_num_params; ++i) {
        const unsigned char *arg = (const unsigned char *)kernelParams[i];
        if (i) printf(",");
        for (j = 0; j < fake_param_sizes[i]; ++j) printf("%02x", arg[j]);
    }
    printf("\n");
    return CUDA_SUCCESS;
}
