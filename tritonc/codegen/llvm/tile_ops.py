"""Tile sources and CTA-level ops: program ids, ``make_range``, ``splat``, ``gpu.barrier``.

* ``tt.get_program_id {axis}`` / ``tt.get_num_programs {axis}``: ``%ctaid.{x,y,z}`` /
  ``%nctaid.{x,y,z}`` (PTX ISA 10 special registers), uniform scalars.
* ``tt.make_range {start, end}``: register ``r`` holds ``start + coordinate(r)``, the
  coordinate from the layout (``layout_math.coords_ir``), so any layout works, slices too.
* ``tt.splat(x)``: every register is the scalar ``x`` (no instruction).
* ``gpu.barrier``: ``bar.sync 0`` (``llvm.nvvm.barrier.cta.sync.aligned.all``), after a
  ``fence.proxy.async`` in kernels with wgmma unless marked ``no_proxy_fence``.
* ``tt.return``: ``ret void`` (kernels return nothing); ``tt.call``: refused (inline first).
"""
from __future__ import annotations

from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Operation

from .layout_math import coords_ir
from .lowering import I32, KernelLowering, const, lowers

_AXES = "xyz"


@lowers("tt.get_program_id")
def _program_id(lw: KernelLowering, op: Operation) -> None:
    lw.set(op.result, lw.sreg(f"ctaid.{_AXES[op.attrs['axis']]}"))


@lowers("tt.get_num_programs")
def _num_programs(lw: KernelLowering, op: Operation) -> None:
    lw.set(op.result, lw.sreg(f"nctaid.{_AXES[op.attrs['axis']]}"))


@lowers("tt.make_range")
def _make_range(lw: KernelLowering, op: Operation) -> None:
    dist = lw.dist(op.result)
    start = int(op.attrs["start"])
    regs = []
    for c in coords_ir(lw, dist):
        regs.append(lw.b.add(c[0], const(I32, start)) if start else c[0])
    lw.set(op.result, regs)


@lowers("tt.splat")
def _splat(lw: KernelLowering, op: Operation) -> None:
    lw.set(op.result, [lw.get(op.operands[0])] * lw.dist(op.result).num_regs)


@lowers("gpu.barrier")
def _barrier(lw: KernelLowering, op: Operation) -> None:
    lw.barrier(proxy_fence=not op.attrs.get("no_proxy_fence"))


@lowers("tt.return")
def _return(lw: KernelLowering, op: Operation) -> None:
    if op.operands:
        raise InternalCompilerError("a kernel cannot return values")
    lw.b.ret_void()


@lowers("tt.call")
def _call(lw: KernelLowering, op: Operation) -> None:
    raise InternalCompilerError(f"call to @{op.attrs.get('callee')} was not inlined before lowering")
