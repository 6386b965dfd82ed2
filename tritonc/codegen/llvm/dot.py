"""``tt.dot``: which instruction a dot is lowered to, in one decision table.

``accelerate-matmul`` decided it (the layouts it gave the dot); :func:`dot_instruction` reads
the decision back from the result layout and checks that the :class:`~tritonc.target.Target`
has the instruction, as the legacy Triton-C ``visit_dot_inst`` did:

=======================================  ============  =========================  ==============
result layout                            instruction   the Target must have       lowering
=======================================  ============  =========================  ==============
``#ttg.mma<version=3>``                  ``wgmma``     wgmma (``sm_90a``)         ``dot_wgmma``
``#ttg.mma<version=2>``                  ``mma.sync``  mma.sync (``sm_80``+)      ``dot_mma``
any other (blocked, slice)               ``fma``       (every target)             ``dot_fma``
=======================================  ============  =========================  ==============
"""
from __future__ import annotations

from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Operation
from tritonc.ir.layouts import MmaLayout
from tritonc.target import Target

from .dot_fma import lower_fma_dot
from .dot_mma import lower_mma_dot
from .dot_wgmma import lower_wgmma_dot
from .lowering import KernelLowering, lowers

#: mma layout version -> instruction.
_MMA_VERSIONS = {2: "mma.sync", 3: "wgmma"}

#: instruction -> ``lower(lw, op)``.
LOWER_DOT = {"fma": lower_fma_dot, "mma.sync": lower_mma_dot, "wgmma": lower_wgmma_dot}


def dot_instruction(op: Operation, target: Target) -> str:
    """The instruction ``tt.dot`` ``op`` is lowered to on ``target`` (the module docstring's
    table): ``"wgmma"``, ``"mma.sync"`` or ``"fma"``.

    Raises:
        InternalCompilerError: an mma layout of a version without an instruction, or one the
            target does not have (``accelerate-matmul`` ran for another target).
    """
    layout = op.result.type.layout
    if not isinstance(layout, MmaLayout):
        return "fma"
    instruction = _MMA_VERSIONS.get(layout.version)
    if instruction is None:
        raise InternalCompilerError(f"lowering: tt.dot with an mma layout of version {layout.version}")
    if not target.has_dot_instruction(instruction):
        raise InternalCompilerError(f"lowering: tt.dot in {layout} needs {instruction}, "
                                    f"which the target {target} does not have")
    return instruction


@lowers("tt.dot")
def _dot(lw: KernelLowering, op: Operation) -> None:
    LOWER_DOT[dot_instruction(op, lw.target)](lw, op)
