"""What the assembler's report says about a build, told to the user: ``-Wshared-memory``,
``-Wspill`` and ``--resource-usage``.

The report is :class:`~tritonc.codegen.cubin.ResourceUsage` per kernel symbol (registers,
barriers, static shared memory, stack frame, spill stores and loads: nvJitLink's or ptxas's
info log); the warnings are located at the kernel's definition in the frontend's tt IR
(:func:`source_kernel` maps a PTX symbol, a specialised or tuned variant's included, to it).
:class:`tritonc.driver.Compilation` and the variant builds (:mod:`tritonc.variants`) use them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .diagnostics import DiagnosticSink
from .target import Target

if TYPE_CHECKING:
    from .ir.core import Module


def source_kernel(symbol: str, module: Module):
    """The kernel of ``module`` that PTX symbol ``symbol`` comes from (its specialised variant
    ``K__spec16`` or a variant suffix included), or ``None``."""
    best = None
    for f in module.functions:
        if f.kind == "kernel" and (symbol == f.name or symbol.startswith(f.name + "__")):
            if best is None or len(f.name) > len(best.name):
                best = f
    return best


def warn_shared_memory(kernels: dict, target: Target, module: Module, diag: DiagnosticSink) -> None:
    """``-Wshared-memory``: a kernel (``kernels``: symbol -> lowered kernel with ``shared_bytes``)
    that needs more shared memory than one CTA may have on GPUs of ``target``'s architecture
    (:attr:`~tritonc.target.Target.max_shared_bytes_per_cta`), located at its definition in
    ``module``. A warning, not an error: the dynamic shared memory is checked at launch, and
    sm_80 code with 192 KiB does run on an H100 (227 KiB per CTA)."""
    limit = target.max_shared_bytes_per_cta
    for name, k in sorted(kernels.items()):
        if k.shared_bytes > limit:
            f = source_kernel(name, module)
            diag.warn("shared-memory",
                      f"kernel '{name}' needs {k.shared_bytes} bytes ({k.shared_bytes / 1024:.0f} KiB) of shared "
                      f"memory, more than a CTA has on {target.arch} GPUs ({limit} bytes, {limit // 1024} KiB): it "
                      "launches only on later GPUs with more; use smaller tiles or fewer stages (--num-stages)",
                      f.loc if f is not None else None)


def warn_spills(resources: dict, module: Module, diag: DiagnosticSink) -> None:
    """``-Wspill``: one warning per kernel symbol of ``resources`` (symbol ->
    :class:`~tritonc.codegen.cubin.ResourceUsage`) that spills registers to local memory,
    located at the kernel's definition in ``module`` (the frontend's tt IR)."""
    for name, u in sorted(resources.items()):
        if not u.spills:
            continue
        f = source_kernel(name, module)
        diag.warn("spill", f"kernel '{name}' spills registers: {u.spill_store_bytes} bytes spill stores, "
                           f"{u.spill_load_bytes} bytes spill loads per thread ({u.registers} registers)",
                  f.loc if f is not None else None)


def format_resource_usage(resources: dict, arch: str, dynamic_shared: dict | None = None,
                          variant: str = "") -> list[str]:
    """``--resource-usage``: one line per kernel symbol, as nvcc's ``--resource-usage``
    (ptxas ``-v``) reports it: registers, barriers, static shared memory, stack frame (local
    memory) and spill stores/loads, all from the assembler's report (``resources``: symbol ->
    :class:`~tritonc.codegen.cubin.ResourceUsage`). Stack and spill bytes are per thread;
    shared memory per CTA: the static shared memory of the report, plus the dynamic shared
    memory the launchers pass (``dynamic_shared``: symbol -> bytes), when given. ``variant``
    (``" (variant v1: TM=64)"``) follows the kernel's name."""
    lines = []
    for name, u in sorted(resources.items()):
        dyn = (dynamic_shared or {}).get(name)
        smem = f"{u.shared_bytes} bytes smem" + (f" + {dyn} bytes dynamic smem" if dyn is not None else "")
        lines.append(f"tritonc info: kernel '{name}'{variant} for '{arch}': Used {u.registers} registers, "
                     f"used {u.barriers} barriers, {smem}, {u.stack_bytes} bytes stack frame, "
                     f"{u.spill_store_bytes} bytes spill stores, {u.spill_load_bytes} bytes spill loads")
    return lines
