"""The pieces of ``software-pipeline`` that describe and rebuild a loop, apart from the rewrite.

* :class:`Candidate` / :class:`LoopPlan`: a load of the loop body that can go through a
  ``cp.async`` ring, and the plan for one ``scf.for``;
* :func:`limit_form` / :func:`prefix_mask`: proofs (from axis info) that a load's mask is a
  prefix of each 16-byte chunk, so a masked chunk becomes a ``cp.async`` with a byte count;
* :class:`LoopCloner` and :func:`build_limit`: rebuilding a load's pointer and mask
  computations outside the loop (prologue) or for a later iteration, in the layouts the copy
  needs (:func:`operand_wants`: the layouts an op's operands need for a result layout);
* :func:`is_zero_constant`: whether a load's ``other`` is zero (what ``cp.async`` fills).

The seam: this module answers "what would the pipelined loop compute" (plans and the
rebuilding of a load's address and mask); :mod:`tritonc.transforms.pipeline_schedule` decides
which loops and loads are pipelined and how, and :mod:`tritonc.transforms.software_pipeline`
rewrites the loop (its docstring gives the algorithm).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.ir.builder import Builder
from tritonc.ir.core import Operation, Value
from tritonc.ir.layout_algebra import inverse_permutation, trans_layout
from tritonc.ir.layouts import BlockedLayout, Layout, SliceLayout
from tritonc.ir.ops import get_opdef, has_trait
from tritonc.ir.types import I1, I32, MemDescType, TileType



_PREFIX_PREDICATES = {"slt": "lhs", "ult": "lhs", "sle": "lhs", "ule": "lhs",
                      "sgt": "rhs", "ugt": "rhs", "sge": "rhs", "uge": "rhs"}


def _same_layout(name: str) -> bool:
    """A pure op whose tile operands and results share one layout (memory accesses excluded:
    their operands' layouts are the pipeliner's own choice)."""
    return has_trait(name, "same-layout") and get_opdef(name).pure


def is_zero_constant(v: Value) -> bool:
    op = getattr(v, "op", None)
    while op is not None and op.name == "ttg.convert_layout":
        op = getattr(op.operands[0], "op", None)
    return op is not None and op.name == "arith.constant" and not isinstance(op.attrs["value"], list) \
        and float(op.attrs["value"]) == 0.0


@dataclass
class Candidate:
    """One pipelined load."""

    load: Operation
    alloc: Operation
    trans: Operation | None
    order: tuple[int, ...]
    vec: int
    mask_kind: str | None
    copy_layout: BlockedLayout
    limit: tuple | None = None
    ring_type: MemDescType = None  # type: ignore[assignment]
    ring: Value | None = None


@dataclass
class LoopPlan:
    loop: Operation
    candidates: list[Candidate]
    slice_ops: set[Operation]
    s0_args: list[int]  # iteration-argument indices carried ahead
    wants: dict[Value, Layout] = field(default_factory=dict)
    #: register staging (``SoftwarePipeliner.rewrite_staged``) rather than cp.async rings
    staged: bool = False


_LIMIT_PREDICATES = {"slt": ("lhs", 0), "sle": ("lhs", 1), "sgt": ("rhs", 0), "sge": ("rhs", 1)}


def limit_form(mask: Value, d: int, vec: int, axis: AxisInfoAnalysis):
    """``mask`` as a tree of run-constant terms (``("u", v)``), bounds ``x < b`` with ``x``
    contiguous along ``d`` and ``b`` run-constant (``("bound", x, b, plus)``: valid where
    ``b - x + plus > 0``), ``("and", l, r)`` and ``("bcast", t, op)``; None if it is not one."""
    if axis.info(mask).constancy[d] % vec == 0:
        return ("u", mask)
    op = getattr(mask, "op", None)
    if op is None:
        return None
    if op.name == "arith.andi":
        lhs, rhs = (limit_form(v, d, vec, axis) for v in op.operands)
        return None if lhs is None or rhs is None else ("and", lhs, rhs)
    if op.name == "tt.broadcast":
        src = op.operands[0]
        if not isinstance(src.type, TileType) or src.type.rank != mask.type.rank:
            return None
        inner = limit_form(src, d, vec, axis)
        return None if inner is None else ("bcast", inner, op)
    if op.name == "ttg.convert_layout":
        return limit_form(op.operands[0], d, vec, axis)
    if op.name == "arith.cmpi" and op.attrs["predicate"] in _LIMIT_PREDICATES:
        side, plus = _LIMIT_PREDICATES[op.attrs["predicate"]]
        lhs, rhs = op.operands
        x, bound = (lhs, rhs) if side == "lhs" else (rhs, lhs)
        if not isinstance(x.type, TileType) or x.type.element != I32 or bound.type != x.type:
            return None
        xi, bi = axis.info(x), axis.info(bound)
        if xi.contiguity[d] % vec == 0 and bi.constancy[d] % vec == 0:
            return ("bound", x, bound, plus)
    return None


def prefix_mask(mask: Value, d: int, vec: int, axis: AxisInfoAnalysis) -> bool:
    """Whether ``mask`` is, on every aligned run of ``vec`` elements along ``d``, true on a prefix."""
    info = axis.info(mask)
    if info.constancy[d] % vec == 0:
        return True
    op = getattr(mask, "op", None)
    if op is None:
        return False
    if op.name == "arith.andi":
        return all(prefix_mask(v, d, vec, axis) for v in op.operands)
    if op.name in ("tt.broadcast", "ttg.convert_layout"):
        src = op.operands[0]
        return isinstance(src.type, TileType) and src.type.rank == mask.type.rank and prefix_mask(src, d, vec, axis)
    if op.name == "arith.cmpi" and op.attrs["predicate"] in _PREFIX_PREDICATES:
        lhs, rhs = op.operands
        x, bound = (lhs, rhs) if _PREFIX_PREDICATES[op.attrs["predicate"]] == "lhs" else (rhs, lhs)
        xi, bi = axis.info(x), axis.info(bound)
        return xi.contiguity[d] % vec == 0 and bi.constancy[d] % vec == 0
    return False


class LoopCloner:
    """Clones the stage-0 slice for one iteration (``env``: induction variable and carried
    values of that iteration), rebuilding tiles in wanted layouts."""

    def __init__(self, plan: LoopPlan, env: dict[Value, Value], builder: Builder, hoist: Builder,
                 hoisted: dict, valid: Value | None = None):
        self.plan, self.env, self.b, self.hoist, self.hoisted = plan, env, builder, hoist, hoisted
        #: i1 scalar: whether the iteration being cloned exists; a ``tt.load`` of the slice (an
        #: index load) is masked by it, so it reads only what the original loop reads.
        self.valid = valid
        self.memo: dict = {}

    def convert(self, v: Value, layout: Layout | None, builder: Builder) -> Value:
        if layout is None or not isinstance(v.type, TileType) or v.type.layout == layout:
            return v
        return builder.value("ttg.convert_layout", [v], v.type.with_layout(layout))

    def get(self, v: Value, layout: Layout | None) -> Value:
        if not isinstance(v.type, TileType):
            layout = None
        key = (v, layout)
        if key in self.memo:
            return self.memo[key]
        if v in self.env:
            out = self.convert(self.env[v], layout, self.b)
        else:
            op = getattr(v, "op", None)
            if op is not None and op in self.plan.slice_ops:
                out = self.clone(op, v, layout)
            else:  # defined outside the loop: convert once, before the loop
                hk = (v, layout)
                if hk not in self.hoisted:
                    self.hoisted[hk] = self.convert(v, layout, self.hoist)
                out = self.hoisted[hk]
        self.memo[key] = out
        return out

    def clone_load(self, op: Operation, v: Value, layout: Layout | None) -> Value:
        """An index load of the slice, for the cloned iteration: in ``layout`` (the layout its
        consumer wants, so no conversion follows), its mask and'ed with :attr:`valid`."""
        if not isinstance(v.type, TileType):
            layout = None
        elif layout is None:
            layout = v.type.layout
        res_type = v.type.with_layout(layout) if layout is not None else v.type
        ptr, mask, other = op.get("ptr"), op.get("mask"), op.get("other")
        p = self.get(ptr, layout)
        m = self.get(mask, layout) if mask is not None else None
        if self.valid is not None:
            if layout is None:
                vm = self.valid
            else:
                vm = self.b.value("tt.splat", [self.valid], TileType(I1, tuple(v.type.shape), layout))
            m = vm if m is None else self.b.value("arith.andi", [m, vm], vm.type)
        operands = [p] + ([m] if m is not None else [])
        if other is not None:
            if m is None:
                raise ValueError("tt.load with 'other' but no mask")
            operands.append(self.get(other, layout))
        return self.b.create("tt.load", operands, [res_type], dict(op.attrs)).result

    def clone(self, op: Operation, v: Value, layout: Layout | None) -> Value:
        name = op.name
        if name == "tt.load":
            return self.clone_load(op, v, layout)
        res_type = v.type.with_layout(layout) if layout is not None else v.type
        if name == "ttg.convert_layout":
            return self.get(op.operands[0], layout if layout is not None else v.type.layout)
        if layout is None:
            operands = [self.get(x, x.type.layout if isinstance(x.type, TileType) else None) for x in op.operands]
            return self.b.create(name, operands, [v.type], dict(op.attrs)).result
        if name == "arith.constant":
            return self.b.create(name, [], [res_type], dict(op.attrs)).result
        wants: list[Layout | None] | None = None
        if name == "tt.broadcast":
            wants = [layout]
        elif name == "tt.expand_dims" and isinstance(layout, BlockedLayout):
            wants = [SliceLayout(op.attrs["axis"], layout)]
        elif name == "tt.trans" and isinstance(layout, BlockedLayout):
            wants = [trans_layout(layout, inverse_permutation(op.attrs["order"]))]
        elif _same_layout(name):
            wants = [layout if isinstance(x.type, TileType) else None for x in op.operands]
        if wants is None:  # no rule: clone as it was, convert the result
            operands = [self.get(x, x.type.layout if isinstance(x.type, TileType) else None) for x in op.operands]
            out = self.b.create(name, operands, [v.type], dict(op.attrs)).result
            return self.convert(out, layout, self.b)
        operands = [self.get(x, w) for x, w in zip(op.operands, wants)]
        return self.b.create(name, operands, [res_type], dict(op.attrs)).result


def build_limit(b: Builder, cloner: "LoopCloner", node, layout: Layout):
    """The tile of :func:`limit_form` tree ``node`` in ``layout``: ``("u", i1 tile)`` or
    ``("l", i32 tile)`` (an element is valid where it is positive)."""
    kind = node[0]
    if kind == "u":
        return "u", cloner.get(node[1], layout)
    if kind == "bound":
        _, x, bound, plus = node
        lim = b.value("arith.subi", [cloner.get(bound, layout), cloner.get(x, layout)], x.type.with_layout(layout))
        if plus:
            lim = b.value("arith.addi", [lim, b.constant(plus, lim.type)], lim.type)
        return "l", lim
    if kind == "bcast":
        inner_kind, v = build_limit(b, cloner, node[1], layout)
        shape = node[2].result.type.shape
        return inner_kind, b.value("tt.broadcast", [v], TileType(v.type.element, shape, layout))
    lk, lv = build_limit(b, cloner, node[1], layout)
    rk, rv = build_limit(b, cloner, node[2], layout)
    if lk == rk == "u":
        return "u", b.value("arith.andi", [lv, rv], lv.type)
    if lk == rk == "l":
        return "l", b.value("arith.minsi", [lv, rv], lv.type)
    u, lim = (lv, rv) if lk == "u" else (rv, lv)
    return "l", b.value("arith.select", [u, lim, b.constant(0, lim.type)], lim.type)


def operand_wants(op: Operation, layout: Layout) -> list[Layout | None]:
    """The layouts :class:`LoopCloner` asks of ``op``'s operands for a result in ``layout``."""
    name = op.name
    tiles = [isinstance(x.type, TileType) for x in op.operands]
    if name in ("tt.broadcast", "ttg.convert_layout"):
        return [layout]
    if name == "tt.expand_dims" and isinstance(layout, BlockedLayout):
        return [SliceLayout(op.attrs["axis"], layout)]
    if name == "tt.trans" and isinstance(layout, BlockedLayout):
        return [trans_layout(layout, inverse_permutation(op.attrs["order"]))]
    if _same_layout(name) or name == "tt.load":
        return [layout if t else None for t in tiles]
    return [x.type.layout if t else None for x, t in zip(op.operands, tiles)]
