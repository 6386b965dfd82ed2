"""group-program-order: launch a matmul's 2-D grid of program instances in groups of rows, for
L2 reuse.

A CTA's hardware index runs ``x`` fastest, so by default the CTAs resident at one time hold a
few columns of output tiles over *all* rows: every one of them reads its own ``A`` row panel,
and the ``B`` column panels they share are few. Grouping ``G`` rows (Triton's tutorial 03,
"L2 cache optimizations"; CUTLASS's threadblock swizzle) makes the CTAs resident together
cover a ``G``-row band: ``A`` panels are reused across the band's columns and ``B`` panels
across its rows, so fewer bytes come from HBM.

Rewrite: the program ids of axes 0 and 1 become, from the hardware ids ``(x, y)`` and the grid
``(gm, gn)``::

    linear = x + y * gm            width = G * gn          group = linear / width
    first  = group * G             size  = min(gm - first, G)
    pid0   = first + (linear % width) % size               pid1 = (linear % width) / size

a bijection of ``[0, gm) x [0, gn)`` onto itself, so every program instance still runs exactly
once; axis 2 is left alone. The language leaves the order of program instances unspecified,
so this preserves meaning -- for kernels whose instances do not wait for one another. It is
applied only to kernels that:

* contain a ``tt.dot`` inside a loop (a K loop: where L2 reuse pays for the ~10 integer ops);
* read the program ids of both axes 0 and 1;
* have no atomics (a kernel that spins on a lock or counter set by another program instance
  might wait on one launched later under the new order).

``G`` is :data:`GROUP_SIZE` (8, as Triton's tutorial). ``-fno-group-program-order`` turns
the pass off. Preconditions: tt IR before ``canonicalize`` (the new ops are folded and CSE'd
with the rest). Preserves nothing. Measured on an H100 (benchmarks/RESULTS.md): +1-2 % on the
default-build fp16 4096^3 matmul.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import Builder
from ..ir.core import Function, Module, Operation
from ..ir.types import I32
from ..passes import AnalysisManager, Pass, register_pass

#: Rows of program instances per group.
GROUP_SIZE = 8

_ATOMICS = ("tt.atomic_rmw", "tt.atomic_cas")


def _eligible(f: Function) -> dict[int, list[Operation]] | None:
    """The ``tt.get_program_id`` ops of ``f`` by axis, if ``f`` qualifies (module docstring)."""
    if f.kind != "kernel":
        return None
    ids: dict[int, list[Operation]] = {0: [], 1: [], 2: []}
    dot_in_loop = False
    for op in f.walk():
        if op.name in _ATOMICS:
            return None
        if op.name == "tt.get_program_id":
            ids[op.attrs["axis"]].append(op)
        elif op.name == "tt.dot":
            parent = op.parent_op()
            while parent is not None and parent.name not in ("scf.for", "scf.while"):
                parent = parent.parent_op()
            dot_in_loop |= parent is not None
    if not dot_in_loop or not ids[0] or not ids[1]:
        return None
    return ids


def group_program_order(f: Function, group: int = GROUP_SIZE) -> bool:
    """Rewrite ``f``'s program ids of axes 0 and 1 into grouped order; True if it did."""
    ids = _eligible(f)
    if ids is None:
        return False
    b = Builder()
    b.block, b.index = f.body.block, 0
    b.loc = ids[0][0].loc
    x = b.value("tt.get_program_id", [], I32, {"axis": 0})
    y = b.value("tt.get_program_id", [], I32, {"axis": 1})
    gm = b.value("tt.get_num_programs", [], I32, {"axis": 0})
    gn = b.value("tt.get_num_programs", [], I32, {"axis": 1})
    g = b.constant(group, I32)
    linear = b.value("arith.addi", [x, b.value("arith.muli", [y, gm], I32)], I32)
    width = b.value("arith.muli", [g, gn], I32)
    first = b.value("arith.muli", [b.value("arith.divsi", [linear, width], I32), g], I32)
    size = b.value("arith.minsi", [b.value("arith.subi", [gm, first], I32), g], I32)
    within = b.value("arith.remsi", [linear, width], I32)
    pid0 = b.value("arith.addi", [first, b.value("arith.remsi", [within, size], I32)], I32, name_hint="pid_0")
    pid1 = b.value("arith.divsi", [within, size], I32, name_hint="pid_1")
    for axis, new in ((0, pid0), (1, pid1)):
        for op in ids[axis]:
            op.result.replace_all_uses_with(new)
            op.erase()
    return True


@register_pass
@dataclass
class GroupProgramOrderPass(Pass):
    """Launch matmul-like kernels' program instances in groups of rows (module docstring)."""

    name = "group-program-order"
    #: ``-fno-group-program-order`` keeps the hardware order.
    group_program_order: bool = True

    def run(self, module: Module, am: AnalysisManager) -> bool:
        if not self.group_program_order:
            return False
        changed = False
        for f in module.functions:
            changed |= group_program_order(f)
        return changed
