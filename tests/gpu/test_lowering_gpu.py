"""The lowering's test kernels (``tests/codegen/lowering_kernels.py``) run on a GPU.

Each kernel goes tt IR -> assign-layouts -> remove-layout-conversions -> LLVM IR -> PTX
(for sm_80 and sm_90; sm_80 PTX runs on newer GPUs through the driver's JIT and exercises the
pre-Hopper code paths), is loaded with ``cuModuleLoadData`` and launched with
``cuLaunchKernel`` (``cuda.bindings.driver``) on random inputs with ragged sizes and outputs
filled with garbage first; the results are compared with numpy.

Skipped without a GPU (``cuInit`` fails or no device). Where llvmlite 0.50 is missing (the
GPU machine's Python may carry an older one), PTX prebuilt on another machine is read from
``$TRITONC_GPU_PTX_DIR/<kernel>.<arch>.ptx``; ``python tests/gpu/test_lowering_gpu.py
--write-ptx DIR`` writes it.
"""
from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "codegen"))
import lowering_kernels as K  # noqa: E402

ARCHS = ("sm_80", "sm_90")


def _driver():
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        return None
    try:
        (err,) = cu.cuInit(0)
        if err != cu.CUresult.CUDA_SUCCESS:
            return None
        err, count = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS or count == 0:
            return None
    except Exception:
        return None
    return cu


def compile_kernel(name: str, arch: str) -> tuple[str, int, int]:
    """``(ptx, num_warps, shared_bytes)`` for test kernel ``name``."""
    from tritonc.ir.parser import parse_module
    from tritonc.passes import PassManager, get_pass

    module = parse_module(K.KERNELS[name].ir)
    PassManager([get_pass(n) for n in K.LOWERING_PASSES]).run(module)
    from tritonc.codegen.llvm import lower_module
    from tritonc.codegen.target import Target, llvm_to_ptx

    lowered = lower_module(module, Target(arch))
    info = lowered.kernels[name]
    return llvm_to_ptx(lowered.llvm_ir, Target(arch)), info.num_warps, info.shared_bytes


def load_ptx(name: str, arch: str) -> tuple[str, int, int]:
    try:
        import llvmlite
        native = llvmlite.__version__.startswith("0.50")
    except ImportError:
        native = False
    if native:
        return compile_kernel(name, arch)
    folder = os.environ.get("TRITONC_GPU_PTX_DIR")
    if not folder:
        pytest.skip("llvmlite 0.50 is not installed and TRITONC_GPU_PTX_DIR is not set")
    path = Path(folder) / f"{name}.{arch}.ptx"
    meta = (Path(folder) / f"{name}.{arch}.meta").read_text().split()
    return path.read_text(), int(meta[0]), int(meta[1])


def write_ptx(folder: str) -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    for name in K.KERNELS:
        for arch in ARCHS:
            ptx, warps, smem = compile_kernel(name, arch)
            (Path(folder) / f"{name}.{arch}.ptx").write_text(ptx)
            (Path(folder) / f"{name}.{arch}.meta").write_text(f"{warps} {smem}\n")


class _Launcher:
    def __init__(self, cu):
        self.cu = cu
        err, self.dev = cu.cuDeviceGet(0)
        self._ok(err)
        err, self.ctx = cu.cuDevicePrimaryCtxRetain(self.dev)
        self._ok(err)
        self._ok(cu.cuCtxSetCurrent(self.ctx)[0])

    def _ok(self, err):
        if err != self.cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"CUDA error {err}")

    def run(self, ptx: str, name: str, num_warps: int, smem: int, grid, args):
        cu = self.cu
        err, mod = cu.cuModuleLoadData(ptx.encode() + b"\0")
        self._ok(err)
        err, fn = cu.cuModuleGetFunction(mod, name.encode())
        self._ok(err)
        if smem > 48 * 1024:
            attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self._ok(cu.cuFuncSetAttribute(fn, attr, smem)[0])
        holders, buffers = [], []
        for a in args:
            if isinstance(a, np.ndarray):
                a = np.ascontiguousarray(a)
                err, dptr = cu.cuMemAlloc(max(a.nbytes, 1))
                self._ok(err)
                self._ok(cu.cuMemcpyHtoD(dptr, a.ctypes.data, a.nbytes)[0])
                buffers.append((dptr, a))
                holders.append(ctypes.c_uint64(int(dptr)))
            else:
                holders.append(_ctype(a))
        params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        g = tuple(grid) + (1,) * (3 - len(grid))
        self._ok(cu.cuLaunchKernel(fn, g[0], g[1], g[2], 32 * num_warps, 1, 1, smem, 0,
                                   ctypes.addressof(params), 0)[0])
        self._ok(cu.cuCtxSynchronize()[0])
        outs = []
        for a in args:
            if isinstance(a, np.ndarray):
                dptr, host = buffers.pop(0)
                out = np.empty_like(host)
                self._ok(cu.cuMemcpyDtoH(out.ctypes.data, dptr, out.nbytes)[0])
                self._ok(cu.cuMemFree(dptr)[0])
                outs.append(out)
            else:
                outs.append(a)
        cu.cuModuleUnload(mod)
        return outs


def _ctype(a):
    a = np.asarray(a)
    table = {np.dtype(np.int8): ctypes.c_int8, np.dtype(np.uint8): ctypes.c_uint8, np.dtype(np.int16): ctypes.c_int16,
             np.dtype(np.uint16): ctypes.c_uint16, np.dtype(np.float16): ctypes.c_uint16,
             np.dtype(np.int32): ctypes.c_int32, np.dtype(np.uint32): ctypes.c_uint32,
             np.dtype(np.int64): ctypes.c_int64, np.dtype(np.float32): ctypes.c_float,
             np.dtype(np.float64): ctypes.c_double}
    if a.dtype == np.float16:
        return ctypes.c_uint16(int(a.view(np.uint16)))
    return table[a.dtype](a.item())


_CU = _driver()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(_CU is None, reason="no CUDA GPU")]


@pytest.fixture(scope="module")
def launcher():
    return _Launcher(_CU)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", sorted(K.KERNELS))
def test_kernel_on_gpu(launcher, name, arch):
    k = K.KERNELS[name]
    ptx, num_warps, smem = load_ptx(name, arch)
    for seed in (0, 1):
        grid, args = k.make(np.random.default_rng(seed))
        before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        outs = launcher.run(ptx, name, num_warps, smem, grid, args)
        k.check(before, outs)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write-ptx":
        write_ptx(sys.argv[2])
    else:
        print(__doc__)
