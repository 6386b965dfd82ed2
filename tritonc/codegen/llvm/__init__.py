"""ttg IR -> LLVM IR for NVPTX: the entry point :func:`lower_module`.

The lowering is split by op family (each module's docstring says what it emits and why):
``lowering`` (kernel driver, ABI, shared memory, value model), ``layout_math`` (which
element each register of each thread holds), ``elementwise`` and ``math_ops``, ``memory``,
``reduce``, ``convert`` (layout conversions, broadcast, expand_dims, reshape, trans),
``dot`` (which instruction a dot uses: one decision table), ``dot_fma``, ``dot_mma`` and
``dot_wgmma`` (tensor cores), ``shared_ops`` (explicit shared-memory buffers, ldmatrix,
cp.async), ``atomics``, ``control_flow``, ``tile_ops``, ``philox`` (random numbers). The handler table (``lowering.HANDLERS``)
is filled by importing these modules.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import llvmlite.ir as ir

from tritonc.target import DATALAYOUT, TRIPLE
from tritonc.ir.core import Module
from tritonc.ir.effects import WGMMA_ALIGNMENT
from tritonc.options import CodegenOptions
from tritonc.target import Target

from . import atomics, control_flow, convert, dot, elementwise, math_ops, memory, philox, reduce, shared_ops, tile_ops  # noqa: F401
from .debug_info import LineInfo
from .lowering import I8, SPTR, KernelInfo, KernelLowering, ParamInfo, uses_wgmma

__all__ = ["lower_module", "lower_kernels", "LoweredModule", "KernelInfo", "ParamInfo"]


@dataclass
class LoweredModule:
    """The LLVM IR text of a module and, per kernel, what a launcher needs."""

    llvm_ir: str
    kernels: dict[str, KernelInfo] = field(default_factory=dict)


def lower_module(module: Module, target: Target, options: CodegenOptions | None = None, *,
                 lineinfo: bool = False) -> LoweredModule:
    """Lower every kernel of a ttg module (after ``assign-layouts``) to one LLVM module for
    ``target``, with the code generator's switches ``options`` (default: the defaults).
    ``lineinfo``: attach debug locations from the ops' source locations, so the PTX gets
    ``.file`` / ``.loc`` directives (:mod:`tritonc.codegen.llvm.debug_info`).

    Device functions (``kind == "device"``) are skipped: they must have been inlined.

    Raises:
        InternalCompilerError: the module is not lowerable (a tile without layout, an op this
            lowering does not implement, a call that was not inlined).
    """
    llmod, smem = _llvm_module(module)
    kernels: dict[str, KernelInfo] = {}
    line_info = None
    if lineinfo:
        main = next((f.loc.file for f in module.functions if f.kind == "kernel" and f.loc is not None), "<source>")
        line_info = LineInfo(llmod, main)
    num_warps = int(module.attrs.get("num_warps", 4))
    for f in module.functions:
        if f.kind != "kernel":
            continue
        kernels[f.name] = KernelLowering(llmod, smem, f, module.num_warps_of(f, num_warps), target, options,
                                         line_info).build()
    return LoweredModule(str(llmod), kernels)


def lower_kernels(module: Module, target: Target, options: CodegenOptions | None = None) -> Iterator[LoweredModule]:
    """Lower the kernels of a ttg module one at a time, each into an LLVM module of its own
    (one kernel in ``kernels``), in the module's order, so that a caller can compile one
    kernel's LLVM IR while the next is being lowered (``tritonc.driver``). Each module is the
    one :func:`lower_module` makes with that kernel alone: the same declarations (the shared
    memory's alignment is decided over the whole module) and the same function body, so the
    PTX of the parts, joined by :func:`tritonc.codegen.target.join_ptx`, is the PTX of the
    whole module. No line information (``-lineinfo`` needs :func:`lower_module`).

    Raises:
        InternalCompilerError: as :func:`lower_module`, when the generator reaches the kernel.
    """
    align = _smem_alignment(module)
    num_warps = int(module.attrs.get("num_warps", 4))
    for f in module.functions:
        if f.kind != "kernel":
            continue
        llmod, smem = _llvm_module(module, align)
        info = KernelLowering(llmod, smem, f, module.num_warps_of(f, num_warps), target, options).build()
        yield LoweredModule(str(llmod), {f.name: info})


def _smem_alignment(module: Module) -> int:
    """The alignment of ``@global_smem``: wgmma's (its shared-memory descriptors need it) when
    any kernel of ``module`` uses wgmma, else 16 bytes."""
    return WGMMA_ALIGNMENT if any(uses_wgmma(f) for f in module.functions) else 16


def _llvm_module(module: Module, smem_align: int | None = None) -> tuple[ir.Module, ir.GlobalVariable]:
    """An empty NVPTX LLVM module and its ``@global_smem`` (dynamic shared memory), aligned to
    ``smem_align`` (default: :func:`_smem_alignment` of ``module``)."""
    llmod = ir.Module(name="tritonc", context=ir.Context())  # its own named types (struct_type)
    llmod.triple = TRIPLE
    llmod.data_layout = DATALAYOUT
    smem = ir.GlobalVariable(llmod, ir.ArrayType(I8, 0), "global_smem", addrspace=3)
    smem.linkage = "external"
    smem.align = _smem_alignment(module) if smem_align is None else smem_align
    smem.type = SPTR  # an opaque `ptr addrspace(3)` (llvmlite would print a typed pointer)
    return llmod, smem
