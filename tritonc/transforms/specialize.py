"""``specialize``: give each kernel a variant that assumes aligned pointers and divisible integers.

Launch-time specialisation, after Triton's divisibility-by-16 specialisation. For each kernel
``K`` the pass adds a copy ``K__spec16`` right after it (a kernel function like any other: the
rest of the pipeline and the lowering treat it as one) in which every *eligible* parameter
carries a promise:

* a pointer parameter whose promises (``aligned``, ``multipleof``) do not already make its
  address a multiple of 16 bytes gets ``aligned = 16``;
* an integer parameter (not ``bool``) whose ``multipleof`` is not already a multiple of 16 gets
  ``multipleof = lcm(multipleof, 16)``;
* parameters the kernel never reads are not eligible (a check of them at launch would only
  make the variant apply less often).

The copy carries the function attribute ``variant_of = "K"``. A kernel without eligible
parameters, or one that is itself a variant, gets no copy. The launchers (``launcher/``) check
the actual arguments at launch and run ``K__spec16`` when every assumption holds, ``K``
otherwise; axis info (``analysis/axis_info.py``) sees the promises as seeds, so the variant's
loads and stores can be vectorised where the generic kernel's cannot.

**Policy: one specialised variant per kernel, all eligible parameters at once.** Triton's JIT
keys its cache on one bit per argument and compiles each combination it meets; an ahead-of-time
cubin cannot hold ``2^n`` variants (``link.py`` dispatches over the variants the user compiled
by hand). Real launches mostly pass allocator-aligned buffers and sizes that are multiples of
16, or not at all; the cost of the all-or-nothing rule is that one odd size falls back to the
generic kernel for the whole launch. Compile time and cubin size grow by one kernel each.

Preconditions: a verified tt module straight from the frontend (before ``inline``, so the
assumptions are in place for every later pass). Preserves: nothing (adds functions).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..ir.clone import clone_function
from ..ir.core import Module
from ..ir.types import PointerType, ScalarType
from ..passes import AnalysisManager, Pass, register_pass

#: The function attribute naming the kernel a variant specialises.
VARIANT_OF = "variant_of"


def variant_name(kernel: str, divisor: int, taken: set[str]) -> str:
    """``<kernel>__spec<divisor>``, with ``_`` appended while the name is taken."""
    name = f"{kernel}__spec{divisor}"
    while name in taken:
        name += "_"
    return name


def specialized_attrs(arg_type, attrs: dict[str, Any], divisor: int) -> dict[str, Any] | None:
    """The parameter attributes with the variant's assumption added, or ``None`` when the
    parameter is not eligible (not a pointer or non-bool integer, or already promised)."""
    if isinstance(arg_type, PointerType):
        promises = [int(attrs[a]) for a in ("aligned", "multipleof") if attrs.get(a)]
        if promises and math.lcm(*promises) % divisor == 0:
            return None
        return {**attrs, "aligned": max(int(attrs.get("aligned") or 1), divisor)}
    if isinstance(arg_type, ScalarType) and arg_type.is_int and arg_type.bits > 1:
        multiple = int(attrs.get("multipleof") or 1)
        if multiple % divisor == 0:
            return None
        return {**attrs, "multipleof": math.lcm(multiple, divisor)}
    return None


@register_pass
@dataclass
class SpecializePass(Pass):
    """Add a variant of each kernel that assumes 16-byte-aligned pointers and integers divisible by 16."""

    name = "specialize"
    #: The alignment (bytes) / divisibility the variant assumes; a power of two.
    divisor: int = 16

    def run(self, module: Module, am: AnalysisManager) -> bool:
        if self.divisor < 2 or self.divisor & (self.divisor - 1):
            raise ValueError(f"specialize: divisor must be a power of two >= 2, got {self.divisor}")
        taken = {f.name for f in module.functions}
        changed = False
        for f in list(module.functions):
            if f.kind != "kernel" or VARIANT_OF in f.attrs:
                continue
            new_attrs = [specialized_attrs(a.type, attrs, self.divisor) if a.uses else None
                         for a, attrs in zip(f.args, f.arg_attrs)]
            if all(a is None for a in new_attrs):
                continue
            variant = clone_function(f, variant_name(f.name, self.divisor, taken))
            taken.add(variant.name)
            variant.attrs[VARIANT_OF] = f.name
            variant.arg_attrs = [new if new is not None else old for new, old in zip(new_attrs, f.arg_attrs)]
            variant.parent = module
            module.functions.insert(module.functions.index(f) + 1, variant)
            changed = True
        return changed
