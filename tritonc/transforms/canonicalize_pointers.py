"""canonicalize-pointers: carry a loop's pointer tiles as one scalar base pointer each.

A matmul main loop written as in the paper::

    TYPE *pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
    for (...) { ... *pa ...; pa += TK; }

carries ``pa`` as an ``scf.for`` iteration argument: every thread holds one 64-bit pointer per
element (group) of the tile and adds the increment to each one every trip, and the software
pipeliner carries another copy ``num_stages - 1`` trips ahead. Every element moves by the same
amount, so the tile is a fixed offset tile over one moving scalar: this pass carries the scalar
base pointer instead and rebuilds the tile in the body as ``tt.addptr(tt.splat(base_i), off)``
(one ``tt.addptr`` per offset tile) with the offsets computed once before the loop. This is modern Triton's pointer canonicalization
(``CanonicalizePointers.cpp`` of the AMD back end: a pointer tile becomes a "fat pointer", a
scalar base plus one offset tile, and a loop-carried pointer tile a loop-carried scalar base;
the offset is 64 bits wide unless 32 bits are proven enough).

Match, for an ``scf.for`` iteration argument ``p`` of pointer-tile type (all conditions exact,
else the argument is left as it is):

* its initial value is a *template* over one scalar pointer ``base``: ``tt.splat(base)``
  followed by a chain of ``tt.addptr(x, off_k)`` (``off_k`` an integer tile of 8 to 64 bits),
  ``tt.broadcast(x)`` and ``tt.expand_dims(x)``, each taking the previous link as its pointer
  operand (``A + rm[:, newaxis] * lda + rk[newaxis, :]`` as irgen emits it is
  ``addptr(broadcast(addptr(splat(A), rm*lda)), rk)``); the chain's tiles carry no layout
  (tt IR). The offsets are defined before the loop (the initial value is). *Uniform* offsets
  (a splat of a scalar, possibly through ``tt.broadcast``/``tt.expand_dims``, or a splat
  constant) are any number; the others, the *offset tiles*, at most :data:`MAX_OFFSET_TILES`
  (two: see "Registers");
* its yielded value is ``tt.addptr(p, step)`` directly in the body with ``step`` uniform: a
  ``tt.splat(s)`` of a scalar ``s`` defined outside the loop, possibly through
  ``tt.broadcast``/``tt.expand_dims``, or a splat ``arith.constant`` (8 to 64 bits).

Rewrite, before the loop: each uniform offset is added to ``base`` (a scalar ``tt.addptr`` of
the offset's scalar, in its own type), giving ``base'``; the *offsets* ``off_1 .. off_n`` of
the template are its offset tiles, in chain order, each in its own type and taken to the
final shape by the chain's later ``broadcast``/``expand_dims`` (applied to the offset instead
of the pointer); they are not added together. The loop carries ``base'`` instead of ``p``
(same position, scalar pointer type); the body starts with ``tt.addptr(... tt.addptr(
tt.splat(base_i), off_1) ..., off_n)`` (just the splat without offset tiles), which replaces
every use of ``p``; the slot's yielded value becomes the scalar ``tt.addptr(base_i, s)`` (``s``
of the step's own integer type; a scalar ``arith.constant`` before the loop for a constant
step). A use of the loop's result gets the tile rebuilt after the loop over the final base.
The old ``addptr(p, step)`` stays for its other users, if any; ``dce`` removes it (and the
unused template chain) otherwise.

Exactness: ``tt.addptr`` adds ``sext(off) * elem_bytes`` to a 64-bit address, wrapping (the
lowering emits a ``getelementptr`` without ``inbounds`` of the sign-extended offset, or the
equivalent ``mad.wide.s32``; the interpreter adds int64s). The element at index ``x`` of the
tile on trip ``i`` is, before and after the rewrite, ``base + sum_k sext(off_k[x]) * e + i *
sext(s) * e`` (mod 2^64): the rewrite only reorders 64-bit wrapping additions, each offset
still sign-extended on its own. Offsets are never added in their own (narrower) type: an i32
``rm*lda + rk`` can overflow where the two separate ``addptr`` do not, and no range analysis
here proves it cannot; summing them in i64 instead would be exact too, but would leave a
64-bit offset per element.

Registers (``ptxas -v``, sm_90; the lowering has the last word): the carried state is one
scalar base per tile, and the offset tiles are loop-invariant i32 values (when the source's
offsets are). The lowering (``codegen/llvm/memory.py``, "addresses formed at their use") then
forms each address of a load, store or ``cp.async`` whose tile is such a chain over a
loop-carried base right at the access, with one ``mad.wide.s32`` per offset, so per access only
the i32 offsets (one register each, shared along a row or column) live across trips; given
``getelementptr`` values instead, LLVM would hoist the invariant ``sext(off_1) * e + sext(off_2)
* e`` of every access (or strength-reduce it into a carried pointer): two registers per access.
``benchmarks/kernels/matmul.tri`` (``__spec16``, least ``.maxnreg`` without spills): 128x256x64
on 8 warps, 3 stages 214 -> 188, K-sliced from spilling at 255 to 242; 128x256x32 (sliced) 230
-> 222; ``examples/conv2d.tri`` 144 -> 138. Before, with the two offset tiles summed in i64,
this pass took ``examples/matmul.tri`` (golden settings) 121 -> 96 registers. With three or
more offset tiles the rewrite is left out (``examples/bmm.tri``, 3-D tiles: LLVM split the i64
sum back into one 64-bit add per offset and element; not measured with the ``mad.wide``
lowering).

Preconditions: tt IR (loops whose template tiles carry layouts are skipped). Requires no
analysis; preserves none when it changes the IR. Postconditions: a matched iteration argument
is a scalar pointer; its tile is a chain of ``addptr`` over ``splat(base_i)`` with
loop-invariant offsets. Run ``canonicalize``/``cse``/``dce`` after it (the old increments and template chains left
unused). In the driver it runs after ``licm`` (so steps computed in the body from invariants
are already hoisted) and before the second ``canonicalize``/``cse``.

Source: Triton ``third_party/amd/lib/TritonAMDGPUTransforms/CanonicalizePointers.cpp``
("fat pointers": scalar base + offset tile, 64-bit offsets by default; ``scf.for`` iteration
arguments rewritten to carry the scalar base). Here the offset tiles are kept apart instead of
being summed (exact without a range analysis; see "Exactness").
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import Builder
from ..ir.core import Block, Module, Operation, Region, Value
from ..ir.types import PointerType, ScalarType, TileType, element_type
from ..passes import AnalysisManager, Pass, register_pass

#: Ops that may follow the ``tt.splat`` of the base pointer in a template chain.
_CHAIN_OPS = ("tt.addptr", "tt.broadcast", "tt.expand_dims")

#: The most non-uniform offset tiles a template may add (see "Registers" in the module docstring).
MAX_OFFSET_TILES = 2


def _op(v: Value) -> Operation | None:
    owner = v.owner
    return owner if isinstance(owner, Operation) else None


def _defined_outside(v: Value, loop: Operation) -> bool:
    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is None or not loop.is_ancestor_of(op)


def _int_element(t) -> ScalarType | None:
    """The integer element type of ``t`` if it is one of 8 to 64 bits (``i1`` offsets are left
    alone: nothing here needs them)."""
    el = element_type(t)
    return el if isinstance(el, ScalarType) and el.is_int and el.bits >= 8 else None


def template_of(v: Value) -> tuple[Value, list[Operation]] | None:
    """``(base, chain)`` when ``v`` is a pointer tile built from the scalar pointer ``base`` by
    ``tt.splat`` (``chain[0]``) and then the ``_CHAIN_OPS`` of ``chain[1:]``, each taking the
    previous result as its pointer operand; None otherwise."""
    chain: list[Operation] = []
    while True:
        op = _op(v)
        if op is None or len(op.results) != 1:
            return None
        res = op.result.type
        if not isinstance(res, TileType) or res.layout is not None:
            return None
        if op.name == "tt.splat":
            base = op.operands[0]
            if not isinstance(base.type, PointerType):
                return None
            chain.append(op)
            chain.reverse()
            return base, chain
        if op.name not in _CHAIN_OPS:
            return None
        if op.name == "tt.addptr" and _int_element(op.operands[1].type) is None:
            return None
        chain.append(op)
        v = op.operands[0]  # tt.addptr's ``ptr``, the source of a broadcast / expand_dims


def uniform_value(v: Value) -> tuple[Value | None, int | None, ScalarType] | None:
    """``(s, None, type)`` when every element of the integer tile ``v`` is the scalar ``s`` (a
    ``tt.splat``, possibly through ``tt.broadcast``/``tt.expand_dims``), ``(None, value, type)``
    when ``v`` is a constant splat; None when neither can be shown."""
    el = _int_element(v.type)
    if el is None:
        return None
    while True:
        op = _op(v)
        if op is None:
            return None
        if op.name == "arith.constant":
            value = op.attrs["value"]
            return None if isinstance(value, list) else (None, int(value), el)
        if op.name == "tt.splat":
            s = op.operands[0]
            return (s, None, el) if s.type == el else None
        if op.name not in ("tt.broadcast", "tt.expand_dims"):
            return None
        v = op.operands[0]


def uniform_step(v: Value, loop: Operation) -> tuple[Value | None, int | None, ScalarType] | None:
    """:func:`uniform_value` of ``v`` if its scalar is defined outside ``loop``."""
    u = uniform_value(v)
    if u is None or (u[0] is not None and not _defined_outside(u[0], loop)):
        return None
    return u


def _scalar(b: Builder, u: tuple[Value | None, int | None, ScalarType]) -> Value:
    """The scalar of a :func:`uniform_value` result (a new ``arith.constant`` for a constant)."""
    scalar, value, ty = u
    return scalar if scalar is not None else b.constant(value, ty)


def offset_tiles(chain: list[Operation]) -> list[Operation]:
    """The ``tt.addptr`` ops of template ``chain`` whose offset is not uniform."""
    return [op for op in chain if op.name == "tt.addptr" and uniform_value(op.operands[1]) is None]


@dataclass
class _Match:
    index: int  # iteration-argument index (0: the first after the induction variable)
    base: Value
    chain: list[Operation]
    step: tuple[Value | None, int | None, ScalarType]


def match_loop(loop: Operation) -> list[_Match]:
    """The iteration arguments of ``loop`` the rewrite applies to (see the module docstring)."""
    body = loop.regions[0].block
    yield_op = body.terminator
    matches = []
    for j, (arg, init, y) in enumerate(zip(body.args[1:], loop.operands[3:], yield_op.operands)):
        if not isinstance(arg.type, TileType) or not isinstance(arg.type.element, PointerType) \
                or arg.type.layout is not None:
            continue
        inc = _op(y)
        if inc is None or inc.name != "tt.addptr" or inc.parent is not body or inc.operands[0] is not arg:
            continue
        step = uniform_step(inc.operands[1], loop)
        tmpl = template_of(init)
        if step is None or tmpl is None:
            continue
        base, chain = tmpl
        if chain[-1].result.type != arg.type or len(offset_tiles(chain)) > MAX_OFFSET_TILES:
            continue
        matches.append(_Match(j, base, chain, step))
    return matches


def split_template(b: Builder, base: Value, chain: list[Operation]) -> tuple[Value, list[Value]]:
    """``(base', offsets)`` for the template ``chain`` over ``base``, built at ``b``: the uniform
    offsets added to ``base`` (scalar ``tt.addptr``), the others taken to the final shape, each
    in its own type and in chain order (not summed: see the module docstring)."""
    terms: list[Value] = []
    for op in chain[1:]:
        shape = op.result.type.shape
        if op.name == "tt.addptr":
            off = op.operands[1]
            u = uniform_value(off)
            if u is not None:
                base = b.value("tt.addptr", [base, _scalar(b, u)], base.type)
                continue
            terms.append(off)
        elif op.name == "tt.broadcast":
            terms = [b.value("tt.broadcast", [t], TileType(t.type.element, shape)) for t in terms]
        else:  # tt.expand_dims
            terms = [b.value("tt.expand_dims", [t], TileType(t.type.element, shape), {"axis": op.attrs["axis"]})
                     for t in terms]
    return base, terms


def tile_over(b: Builder, base: Value, offsets: list[Value], ty: TileType) -> Value:
    """``tt.addptr(... tt.addptr(tt.splat(base), offsets[0]) ..., offsets[-1])`` of type ``ty``
    (just the splat without offsets)."""
    tile = b.value("tt.splat", [base], ty)
    for off in offsets:
        tile = b.value("tt.addptr", [tile, off], ty)
    return tile


def rewrite_loop(loop: Operation, matches: list[_Match]) -> None:
    """Carry each matched argument's scalar base instead of its tile (see the module docstring)."""
    body = loop.regions[0].block
    yield_op = body.terminator
    by_index = {m.index: m for m in matches}
    pre = Builder().before(loop)

    bases: dict[int, Value] = {}
    offsets: dict[int, list[Value]] = {}
    steps: dict[int, Value] = {}
    for m in matches:
        with pre.location(m.chain[-1].loc):
            bases[m.index], offsets[m.index] = split_template(pre, m.base, m.chain)
            steps[m.index] = _scalar(pre, m.step)

    # The new loop: the same operands but the matched inits replaced by their bases.
    old_args = body.args
    inits = list(loop.operands[3:])
    types = [a.type for a in old_args[1:]]
    for m in matches:
        inits[m.index], types[m.index] = bases[m.index], m.base.type
    new_loop = Operation("scf.for", list(loop.operands[:3]) + inits, types, dict(loop.attrs), loc=loop.loc,
                         result_names=[r.name for r in loop.results])
    nb = Block([old_args[0].type] + types, [a.name for a in old_args])
    new_loop.add_region(Region(nb))
    loop.parent.insert_before(loop, new_loop)

    # The tiles rebuilt at the top of the body, then the old body moved over.
    b = Builder().at_end(nb)
    replacement: dict[Value, Value] = {}
    for j, (old, new) in enumerate(zip(old_args, nb.args)):
        m = by_index.get(j - 1)
        if m is None:
            replacement[old] = new
        else:
            with b.location(m.chain[-1].loc):
                replacement[old] = tile_over(b, new, offsets[m.index], old.type)
    for op in list(body.ops):
        body.ops.remove(op)
        nb.append(op)
    for old, new in replacement.items():
        old.replace_all_uses_with(new)

    # Scalar increments, just before the yield.
    yb = Builder().before(yield_op)
    for m in matches:
        inc = _op(yield_op.operands[m.index])
        with yb.location(inc.loc):
            nxt = yb.value("tt.addptr", [nb.args[1 + m.index], steps[m.index]], m.base.type)
        yield_op.set_operand(m.index, nxt)

    # Results: the scalar bases; the tiles rebuilt after the loop for their users.
    after = Builder().after(new_loop)
    for j, (old, new) in enumerate(zip(loop.results, new_loop.results)):
        m = by_index.get(j)
        if m is None:
            old.replace_all_uses_with(new)
        elif old.uses:
            with after.location(m.chain[-1].loc):
                old.replace_all_uses_with(tile_over(after, new, offsets[j], old.type))
    loop.erase()


def _for_loops(ops: list[Operation]) -> list[Operation]:
    """The ``scf.for`` ops nested in ``ops``, innermost first."""
    result: list[Operation] = []
    for op in ops:
        for region in op.regions:
            result.extend(_for_loops(region.block.ops))
        if op.name == "scf.for":
            result.append(op)
    return result


@register_pass
@dataclass
class CanonicalizePointersPass(Pass):
    """Carry loop pointer tiles as scalar base pointers (see the module docstring)."""

    name = "canonicalize-pointers"

    def run(self, module: Module, am: AnalysisManager) -> bool:
        changed = False
        for f in module.functions:
            for loop in _for_loops(f.body.block.ops):
                matches = match_loop(loop)
                if matches:
                    rewrite_loop(loop, matches)
                    changed = True
        return changed
