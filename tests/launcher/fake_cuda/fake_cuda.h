/* A fake CUDA driver for testing tritonc's generated C headers without a GPU.
 *
 * It implements the driver calls the headers make (cuCtxGetCurrent, cuCtxGetId,
 * cuModuleLoadData, cuModuleGetFunction, cuModuleUnload, cuFuncSetAttribute, cuLaunchKernel)
 * with the prototypes of the real cuda.h, logs every call as one line on stdout, and copies
 * the bytes of each launch argument (the test sets fake_param_sizes first).
 */
#pragma once
#include <cuda.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

extern CUcontext fake_current_context;          /* what cuCtxGetCurrent returns */
extern CUresult fake_module_load_result;        /* what cuModuleLoadData returns */
extern size_t fake_param_sizes[64];             /* bytes to log for each launch argument */
extern int fake_num_params;
extern int fake_launches;                       /* number of cuLaunchKernel calls */
extern unsigned int fake_module_load_delay_ms;  /* cuModuleLoadData sleeps this long (races) */

/* A fake context whose cuCtxGetId is `id` (id > 0). */
CUcontext fake_context(unsigned long long id);

#ifdef __cplusplus
}
#endif
