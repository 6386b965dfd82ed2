"""From a compiled module to launcher descriptions: one :class:`CompiledKernel` per kernel.

The host-visible types come from the kernel's parameters in the tile IR: a scalar or
pointee type plus the ``unsigned`` parameter attribute (IR integers are signless), and the
promises ``multipleof`` / ``aligned`` and flags ``noalias`` / ``readonly`` / ``writeonly``.
"""
from __future__ import annotations

from ..ir.core import Function
from ..ir.types import PointerType, ScalarType, Type
from .signature import CompiledKernel, KernelParam, KernelSignature

_SIGNED = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
           "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}
_UNSIGNED = {"i8": "uint8", "i16": "uint16", "i32": "uint32", "i64": "uint64"}


def host_dtype(t: ScalarType, unsigned: bool) -> str:
    """The launcher dtype name of IR scalar ``t`` (``unsigned`` picks ``uint*`` for integers)."""
    if unsigned and t.name in _UNSIGNED:
        return _UNSIGNED[t.name]
    return _SIGNED[t.name]


def kernel_param(name: str, t: Type, attrs: dict) -> KernelParam:
    """The :class:`KernelParam` of one kernel parameter of IR type ``t`` with attributes ``attrs``."""
    unsigned = bool(attrs.get("unsigned"))
    if isinstance(t, PointerType):
        return KernelParam(name, "pointer", host_dtype(t.pointee, unsigned), multipleof=attrs.get("multipleof"),
                           aligned=attrs.get("aligned"), noalias=bool(attrs.get("noalias")),
                           readonly=bool(attrs.get("readonly")), writeonly=bool(attrs.get("writeonly")))
    if not isinstance(t, ScalarType):
        raise ValueError(f"parameter '{name}' of type {t} cannot be passed by the host")
    return KernelParam(name, "scalar", host_dtype(t, unsigned), multipleof=attrs.get("multipleof"))


def kernel_signature(f: Function) -> KernelSignature:
    names = [a.name or f"arg{i}" for i, a in enumerate(f.args)]
    return KernelSignature(f.name, tuple(kernel_param(n, a.type, attrs)
                                         for n, a, attrs in zip(names, f.args, f.arg_attrs)))


def compiled_kernels(comp) -> list[CompiledKernel]:
    """One :class:`CompiledKernel` per kernel of a :class:`~tritonc.driver.Compilation`, in source order."""
    defines = {k: ("1" if v is None else v) for k, v in comp.options.defines.items()}
    defines.update({k: str(v[0]) for k, v in comp.options.tune.items()})
    out = []
    for f in comp.ttgir.functions:
        if f.kind != "kernel":
            continue
        info = comp.lowered.kernels[f.name]
        out.append(CompiledKernel(kernel_signature(f), num_warps=info.num_warps, shared_bytes=info.shared_bytes,
                                  arch=comp.options.arch, cubin=comp.cubin, ptx=comp.ptx, defines=defines,
                                  num_stages=comp.options.num_stages))
    return out
