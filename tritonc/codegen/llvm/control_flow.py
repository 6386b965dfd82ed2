"""Structured control flow to LLVM basic blocks: ``scf.for``, ``scf.while``, ``scf.if``.

Loop-carried and result values become one ``phi`` per *register* (a tile of ``n`` registers
is ``n`` phis; a scalar one). Conditions are scalars, hence uniform: every thread of the CTA
takes the same branches, which is what makes the barriers inside loops and ifs legal.

* ``scf.for(lb, ub, step, inits) {predicate}``: ``header: iv = phi [lb, pre], [iv + step,
  latch]; carried = phi ...; br (icmp predicate iv, ub), body, exit``. The body's
  ``scf.yield`` feeds the phis from the latch (the block the body ends in).
* ``scf.while``: the "before" region is the loop header (phis for the carried values); its
  ``scf.condition(c, values)`` branches to the "after" region (which receives ``values``) or
  to the exit (where ``values`` are the results); the "after" region's yield loops back.
* ``scf.if``: then/else blocks and a merge block with one phi per result register.
"""
from __future__ import annotations

from tritonc.ir.core import Block, Operation, Value
from tritonc.ir.types import TileType

from .lowering import KernelLowering, lowers

_ICMP = {"eq": ("s", "=="), "ne": ("s", "!="), "slt": ("s", "<"), "sle": ("s", "<="), "sgt": ("s", ">"),
         "sge": ("s", ">="), "ult": ("u", "<"), "ule": ("u", "<="), "ugt": ("u", ">"), "uge": ("u", ">=")}


def flatten(lw: KernelLowering, values: list[Value]) -> list:
    """All registers of ``values`` in order (a scalar is one register)."""
    out = []
    for v in values:
        x = lw.get(v)
        out.extend(x if isinstance(x, list) else [x])
    return out


def unflatten(lw: KernelLowering, targets: list[Value], regs: list) -> None:
    """Define ``targets`` from a flat register list (the inverse of :func:`flatten`)."""
    i = 0
    for v in targets:
        if isinstance(v.type, TileType):
            n = lw.dist(v).num_regs
            lw.set(v, list(regs[i:i + n]))
            i += n
        else:
            lw.set(v, regs[i])
            i += 1


def lower_body(lw: KernelLowering, block: Block) -> None:
    """Lower every op of a region's block except its terminator."""
    for op in block.ops[:-1]:
        lw.lower_op(op)


def _phis(lw: KernelLowering, regs: list, pred_block) -> list:
    phis = []
    for r in regs:
        phi = lw.b.phi(r.type)
        phi.add_incoming(r, pred_block)
        phis.append(phi)
    return phis


@lowers("scf.for")
def _for(lw: KernelLowering, op: Operation) -> None:
    b = lw.b
    lb, ub, step = (lw.get(v) for v in op.operands[:3])
    body = op.regions[0].block
    inits = flatten(lw, op.operands[3:])
    pre = b.block
    header = b.append_basic_block("for.header")
    body_bb = b.append_basic_block("for.body")
    exit_bb = b.append_basic_block("for.exit")
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(lb.type)
    iv.add_incoming(lb, pre)
    phis = _phis(lw, inits, pre)
    kind, pred = _ICMP[op.attrs.get("predicate", "slt")]
    cond = b.icmp_signed(pred, iv, ub) if kind == "s" else b.icmp_unsigned(pred, iv, ub)
    b.cbranch(cond, body_bb, exit_bb)
    b.position_at_end(body_bb)
    lw.set(body.args[0], iv)
    unflatten(lw, body.args[1:], phis)
    lower_body(lw, body)
    yields = flatten(lw, body.terminator.operands)
    nxt = b.add(iv, step)
    latch = b.block
    iv.add_incoming(nxt, latch)
    for phi, y in zip(phis, yields):
        phi.add_incoming(y, latch)
    b.branch(header)
    b.position_at_end(exit_bb)
    unflatten(lw, op.results, phis)


@lowers("scf.while")
def _while(lw: KernelLowering, op: Operation) -> None:
    b = lw.b
    before, after = op.regions[0].block, op.regions[1].block
    inits = flatten(lw, op.operands)
    pre = b.block
    header = b.append_basic_block("while.before")
    after_bb = b.append_basic_block("while.after")
    exit_bb = b.append_basic_block("while.exit")
    b.branch(header)
    b.position_at_end(header)
    phis = _phis(lw, inits, pre)
    unflatten(lw, before.args, phis)
    lower_body(lw, before)
    cond_op = before.terminator
    cond = lw.get(cond_op.operands[0])
    forwarded = flatten(lw, cond_op.operands[1:])
    b.cbranch(cond, after_bb, exit_bb)
    b.position_at_end(after_bb)
    unflatten(lw, after.args, forwarded)
    lower_body(lw, after)
    yields = flatten(lw, after.terminator.operands)
    latch = b.block
    for phi, y in zip(phis, yields):
        phi.add_incoming(y, latch)
    b.branch(header)
    b.position_at_end(exit_bb)
    unflatten(lw, op.results, forwarded)


@lowers("scf.if")
def _if(lw: KernelLowering, op: Operation) -> None:
    b = lw.b
    cond = lw.get(op.operands[0])
    then_bb = b.append_basic_block("if.then")
    else_bb = b.append_basic_block("if.else")
    merge = b.append_basic_block("if.end")
    b.cbranch(cond, then_bb, else_bb)
    ends = []
    for region, bb in zip(op.regions, (then_bb, else_bb)):
        b.position_at_end(bb)
        lower_body(lw, region.block)
        ends.append((flatten(lw, region.block.terminator.operands), b.block))
        b.branch(merge)
    b.position_at_end(merge)
    merged = []
    for i in range(len(ends[0][0])):
        phi = b.phi(ends[0][0][i].type)
        for regs, block in ends:
            phi.add_incoming(regs[i], block)
        merged.append(phi)
    unflatten(lw, op.results, merged)
