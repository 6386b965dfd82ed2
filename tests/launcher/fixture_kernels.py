"""Compiled fixture kernels for the launcher tests (built from tests/codegen/data/*.ll).

Imported by tests/launcher/conftest.py (fixtures) and by the test modules (helpers)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from tritonc.codegen.cubin import ptx_to_cubin
from tritonc.codegen.target import Target, llvm_to_ptx
from tritonc.launcher.signature import CompiledKernel, KernelParam, KernelSignature

DATA = Path(__file__).parent.parent / "codegen" / "data"

VECTOR_ADD_PARAMS = (
    KernelParam("x", "pointer", "float32", aligned=16, noalias=True, readonly=True),
    KernelParam("y", "pointer", "float32", multipleof=8),
    KernelParam("z", "pointer", "float32", writeonly=True),
    KernelParam("n", "scalar", "int32", multipleof=4),
)

SCALAR_ARGS_PARAMS = (
    KernelParam("out", "pointer", "float64"),
    KernelParam("a", "scalar", "int8"),
    KernelParam("b", "scalar", "int16"),
    KernelParam("c", "scalar", "int32"),
    KernelParam("d", "scalar", "int64"),
    KernelParam("e", "scalar", "uint8"),
    KernelParam("f", "scalar", "uint16"),
    KernelParam("g", "scalar", "uint32"),
    KernelParam("h", "scalar", "uint64"),
    KernelParam("hf", "scalar", "float16"),
    KernelParam("bf", "scalar", "bfloat16"),
    KernelParam("fl", "scalar", "float32"),
    KernelParam("db", "scalar", "float64"),
    KernelParam("bo", "scalar", "bool"),
)


def llvm_source(ll_name: str) -> str:
    """A fixture module; ``both.ll`` is vector_add.ll and scalar_args.ll in one module."""
    if ll_name == "both.ll":
        first = (DATA / "vector_add.ll").read_text()
        second = (DATA / "scalar_args.ll").read_text()
        return first + "\n".join(line for line in second.splitlines() if not line.startswith("declare"))
    return (DATA / ll_name).read_text()


@lru_cache(maxsize=None)
def cubin_for(ll_name: str, arch: str) -> tuple[bytes, str]:
    target = Target(arch)
    ptx = llvm_to_ptx(llvm_source(ll_name), target)
    return ptx_to_cubin(ptx, target), ptx


def make_kernel(name: str, params, *, ll_name: str | None = None, arch: str = "sm_90",
                num_warps: int = 4, shared_bytes: int = 0, defines=None) -> CompiledKernel:
    cubin, ptx = cubin_for(ll_name or f"{name}.ll", arch)
    return CompiledKernel(KernelSignature(name, tuple(params)), num_warps, shared_bytes, arch,
                          cubin, ptx, dict(defines or {}))
