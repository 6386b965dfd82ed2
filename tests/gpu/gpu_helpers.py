"""What the GPU tests share: the GPU's architecture (or None without a usable GPU and driver)
and a fresh import of a compilation's generated Python launcher."""
from __future__ import annotations

import importlib.util
import itertools

_count = itertools.count()


def gpu_arch() -> str | None:
    """The sm_XX of device 0 when a GPU and driver are usable (cuda-python's driver API), else None."""
    try:
        from cuda.bindings import driver

        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return None
        err, count = driver.cuDeviceGetCount()
        if err != driver.CUresult.CUDA_SUCCESS or count < 1:
            return None
        attr = driver.CUdevice_attribute
        _, major = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0)
        _, minor = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0)
        return f"sm_{major}{minor}"
    except Exception:
        try:  # no cuda-python driver bindings: ask torch
            import torch

            if torch.cuda.is_available():
                major, minor = torch.cuda.get_device_capability(0)
                return f"sm_{major}{minor}"
        except Exception:
            pass
        return None


def module_from_source(text: str, prefix: str = "gpu_test_launcher"):
    """``text`` (a generated Python launcher module's source) executed as a fresh module."""
    name = f"{prefix}_{next(_count)}"
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
    exec(compile(text, name, "exec"), module.__dict__)
    return module


def launcher(comp):
    """The generated Python module of ``comp`` (a :class:`~tritonc.driver.Compilation`),
    executed as a fresh module."""
    return module_from_source(comp.python_module)
