"""From a compiled module to launcher descriptions: one :class:`CompiledKernel` per kernel.

The host-visible types come from the kernel's parameters in the tile IR: a scalar or
pointee type plus the ``unsigned`` parameter attribute (IR integers are signless), and the
promises ``multipleof`` / ``aligned`` and flags ``noalias`` / ``readonly`` / ``writeonly``.
A kernel's specialised variants (functions with ``variant_of = "<kernel>"``, made by the
``specialize`` pass) become its :class:`KernelVariant` s: their facts (``eq1``, ``div16``,
``align16``, bounds ``le<K>``: ``launcher/facts.py``) are read from the
parameter attributes the variant adds (``equal_to = 1``, ``multipleof`` a multiple of 16,
``aligned = 16``, ``at_most = K``).
"""
from __future__ import annotations

import math

from ..ir.core import Function
from ..ir.types import PointerType, ScalarType, Type
from ..transforms.specialize import AT_MOST
from .facts import FACTS, bound_fact_name
from .signature import CompiledKernel, KernelParam, KernelSignature, KernelVariant

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
    return [CompiledKernel(cubin=comp.cubin, ptx=comp.ptx, **d) for d in kernel_descriptions(comp)]


def kernel_descriptions(comp) -> list[dict]:
    """The arguments of :class:`CompiledKernel` for each kernel of ``comp`` but the code
    (``cubin``, ``ptx``): plain data that can cross a process boundary (variants compiled in
    parallel are linked into one cubin afterwards)."""
    defines = {k: ("1" if v is None else v) for k, v in comp.options.defines.items()}
    defines.update({k: str(v[0]) for k, v in comp.options.tune.items()})
    defines.update({k: str(v) for k, v in comp.tunables.items()})
    # meta-parameters: every const tunable's value, and the --tune macros' values
    tunables = dict(comp.tunables)
    tunables.update({k: int(v[0]) for k, v in comp.options.tune.items() if k not in tunables})
    out = []
    kernels = [f for f in comp.ttgir.functions if f.kind == "kernel"]
    for f in kernels:
        if "variant_of" in f.attrs:
            continue
        info = comp.kernel_infos[f.name]
        signature = kernel_signature(f)
        variants = tuple(kernel_variant(f, g, comp.kernel_infos[g.name].shared_bytes)
                         for g in kernels if g.attrs.get("variant_of") == f.name)
        out.append(dict(signature=signature, num_warps=info.num_warps, shared_bytes=info.shared_bytes,
                        arch=comp.options.arch, defines=defines, num_stages=comp.num_stages, variants=variants,
                        grid=comp.grids.get(f.name), tunables=tunables))
    return out


def _address_multiple(attrs: dict) -> int:
    values = [int(attrs[a]) for a in ("aligned", "multipleof") if attrs.get(a)]
    return math.lcm(*values) if values else 1


def _facts_of(t: Type, generic: dict, variant: dict) -> list[str]:
    """The fact names (:func:`~tritonc.launcher.facts.fact`) variant attributes ``variant``
    add to a parameter of type ``t`` with attributes ``generic`` (``transforms/specialize.py``):
    ``eq1``, ``div16`` or ``align16``, and a bound ``le<K>`` from ``at_most = K``."""
    if isinstance(t, PointerType):
        m = FACTS["align16"].multiple
        return ["align16"] if _address_multiple(variant) % m == 0 and _address_multiple(generic) % m else []
    out = []
    if variant.get("equal_to") == FACTS["eq1"].equal and generic.get("equal_to") != variant.get("equal_to"):
        out.append("eq1")
    m = FACTS["div16"].multiple
    if int(variant.get("multipleof") or 1) % m == 0 and int(generic.get("multipleof") or 1) % m:
        out.append("div16")
    if variant.get(AT_MOST) is not None and variant.get(AT_MOST) != generic.get(AT_MOST):
        out.append(bound_fact_name(variant[AT_MOST]))
    return out


def variant_facts(generic: Function, variant: Function) -> tuple[tuple[int, str], ...]:
    """``(parameter index, fact name)`` of each fact that function ``variant`` (a specialised
    copy of kernel ``generic``) assumes, in parameter order.

    Raises:
        ValueError: the variant strengthens a promise in a way no fact describes.
    """
    out = []
    for i, (a, g, v) in enumerate(zip(generic.args, generic.arg_attrs, variant.arg_attrs)):
        facts = _facts_of(a.type, g, v)
        out.extend((i, f) for f in facts)
        if not facts and g != v:
            raise ValueError(f"variant '{variant.name}': parameter {i} of '{generic.name}' has attributes "
                             f"{v} instead of {g}, which no fact describes")
    return tuple(out)


def kernel_variant(generic: Function, f: Function, shared_bytes: int) -> KernelVariant:
    """The :class:`KernelVariant` of variant function ``f`` of kernel function ``generic``."""
    names = [a.name or f"arg{i}" for i, a in enumerate(generic.args)]
    return KernelVariant(f.name, tuple((names[i], fact) for i, fact in variant_facts(generic, f)), shared_bytes)
