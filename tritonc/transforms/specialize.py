"""``specialize``: give each kernel a few variants that assume facts about its arguments.

Launch-time specialisation per parameter, after OpenAI Triton's JIT specialisation
(``triton/runtime/jit.py``: an integer argument equal to 1 and one divisible by 16 are separate
facts, a pointer argument 16-byte aligned is a third). A fact is recorded in the variant's
parameter attributes, where every later pass and the launchers (``launcher/build.py``) read it:

* ``align16`` (pointer): ``aligned = 16`` (the address is a multiple of 16 bytes);
* ``div16`` (integer, not ``bool``): ``multipleof = lcm(multipleof, 16)``;
* ``eq1`` (integer, not ``bool``): ``equal_to = 1``, and every use of the parameter in the
  variant is replaced by the constant 1, so axis info sees a unit stride as the literal it is
  (``x * 1`` is ``x``: contiguity along the axis it multiplies) and the generated code needs no
  multiplication.

**Which parameters get which fact** (only where the fact can change the code):

* ``align16``: every pointer parameter the kernel reads whose promises do not already make its
  address a multiple of 16 (alignment decides the width of every access through it);
* ``div16``: every integer parameter the kernel reads whose ``multipleof`` is not already a
  multiple of 16 (sizes in masks, strides in addresses, loop bounds: divisibility feeds the
  vector width of masked and strided accesses), except divisors (:func:`divisor_params`);
* ``eq1``: a *stride-like* integer parameter, found by a structural test: the parameter
  (through ``splat`` / ``broadcast`` / ``expand_dims`` / integer casts) is a factor of an
  ``arith.muli`` whose other factor is a tile, inside the backward slice of the *innermost
  term* of a tile pointer used by a load, store or atomic of the kernel. The innermost term is
  the offset of the last ``tt.addptr`` that built the pointer (looking through ``broadcast``,
  ``expand_dims`` and loop-carried pointers to their initial value;
  ``analysis/address_terms.py``): in
  ``X + i * sx0 + j * sx1 + k * sx2`` it is ``k * sx2``, so ``sx2`` is stride-like and ``sx0``
  is not; in conv2d's ``... + rh * lda_h + rw`` with ``rw = (rq * stride_w - pad_w) + rs``
  it is ``rw``, so ``stride_w`` is. Only a unit stride in the innermost term makes an access
  contiguous, so only that one is worth a variant. Accesses inside device functions are not
  looked through (the test runs before ``inline``), and a parameter with a ``multipleof``
  promise above 1 can never equal 1.

**Only the facts that change an access** (:func:`prune_facts`, on by default; the pass option
``prune=false`` keeps every eligible fact): after a variant is built with every eligible
``div16`` / ``align16`` fact, each fact is given back, one parameter at a time, unless it
changes what axis info tells the later passes about some tile access of the kernel
(:func:`access_facts`: the order of its dimensions, its widest vector access, the run of
elements its mask is constant over within one access). A convolution's image height, a row
count that only masks whole rows, a gather's bound: their facts widen nothing, so the variant
does not ask for them and runs for a 28 x 28 image; a variant left with no fact (a gather
kernel) is not built at all, and one whose facts equal an earlier variant's is dropped. An
``eq1`` variant left with its ``eq1`` facts alone is named ``K__spec_s1``. The ``eq1`` variants
are not built when the unit strides change no access either (bmm's batch stride with one
matrix a program instance: that axis has one element). Kernels that call
device functions keep every fact (their accesses there are not seen before ``inline``).

**Bounds** (``le<K>``, parameter attribute ``at_most = K``): a kernel whose body branches on
an integer parameter compared with a constant (``if (N <= BLOCK)``: the row fits one tile,
else a loop over tiles) gets one more variant, on top of its most specialised one (or of the
kernel itself), that assumes the parameter is at most K, K the smallest bound of those
branches (:func:`bound_facts`; signed ``<``, ``<=``, ``>``, ``>=`` of an ``scf.if`` of the
kernel's body, not one nested in another branch or loop). Each comparison the bound decides
is replaced by its value, so ``canonicalize`` keeps only the branch taken: the registers of the
other branch's tiles are no longer the kernel's. softmax at BLOCK = 1024 on 4 warps went from
47 to 32 registers (16 CTAs an SM instead of 10) and from 0.95x to 1.01x Triton's speed at
4096 x 1024 on an H100 (``benchmarks/RESULTS.md``, session 9). The variant is named
``K__spec16_le`` (``K__spec_le`` on the kernel itself) and launched first while its facts
hold; a launch with a larger value runs the variant below it.

**Variants, most specialised first, at most** :data:`MAX_VARIANTS` **per kernel** (plus the
generic kernel itself, and the bounded variant):

1. ``K__spec_s1_d16``: the stride-like integers equal 1, every other eligible integer is a
   multiple of 16, every eligible pointer 16-byte aligned;
2. ``K__spec_s1``: the stride-like integers equal 1, nothing else (an odd size or offset,
   e.g. conv2d's ``pad = 1``, or an unaligned view: the accesses are still proven contiguous,
   so coalesced, though not vectorised);
3. ``K__spec16``: every eligible integer a multiple of 16, every eligible pointer aligned (the
   all-``div16`` variant of earlier versions, same name).

Variants 1 and 2 exist only when the kernel has stride-like integers; a variant whose facts
equal an earlier one's is dropped (1 == 2 when no other integer is eligible). Variants 1/2 and
3 exclude each other (1 is not a multiple of 16), so the order matters only between 1 and 2.
Why not every combination: Triton's JIT compiles each combination of facts it meets; an
ahead-of-time cubin cannot hold ``3^n`` variants, and real launches mostly pass aligned buffers
with either unit innermost strides or none at all. The launchers check each variant's facts at
launch (``launcher/facts.py``, :data:`~tritonc.launcher.facts.FACTS`) and run the first
that holds, else the generic kernel. Compile time and cubin size grow by one kernel per variant.

Each variant carries the function attribute ``variant_of = "K"``; a kernel without eligible
parameters, or one that is itself a variant, gets no copy.

Preconditions: a verified tt module straight from the frontend (before ``inline``, so the
assumptions are in place for every later pass). Preserves: nothing (adds functions).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..analysis.address_terms import innermost_term
from ..analysis.axis_info import AxisInfoAnalysis, pow2_divisor
from ..ir.builder import Builder
from ..ir.clone import clone_function
from ..ir.core import Function, Module, OpResult, Value
from ..ir.types import PointerType, ScalarType, TileType, element_type
from ..passes import AnalysisManager, Pass, register_pass

#: The function attribute naming the kernel a variant specialises.
VARIANT_OF = "variant_of"
#: The parameter attribute of the ``eq1`` fact (the argument equals this value).
EQUAL_TO = "equal_to"
#: The parameter attribute of a bound fact ``le<K>`` (the argument is at most K, signed).
AT_MOST = "at_most"
#: Specialised variants per kernel, at most (the generic kernel comes on top).
MAX_VARIANTS = 3
#: The divisibility (integers) and alignment in bytes (pointers) of ``div16`` / ``align16``.
DIVISOR = 16

_MEMORY_OPS = ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")
_SHAPE_OPS = ("tt.splat", "tt.broadcast", "tt.expand_dims", "arith.extsi", "arith.extui", "arith.trunci",
              "ttg.convert_layout")


def variant_name(kernel: str, suffix: str, taken: set[str]) -> str:
    """``<kernel>__spec<suffix>``, with ``_`` appended while the name is taken."""
    name = f"{kernel}__spec{suffix}"
    while name in taken:
        name += "_"
    return name


def _is_int(t) -> bool:
    return isinstance(t, ScalarType) and t.is_int and t.bits > 1


def aligned_attrs(arg_type, attrs: dict[str, Any]) -> dict[str, Any] | None:
    """``attrs`` with the ``align16`` fact, or ``None`` when not a pointer or already promised."""
    if not isinstance(arg_type, PointerType):
        return None
    promises = [int(attrs[a]) for a in ("aligned", "multipleof") if attrs.get(a)]
    if promises and math.lcm(*promises) % DIVISOR == 0:
        return None
    return {**attrs, "aligned": max(int(attrs.get("aligned") or 1), DIVISOR)}


def divisible_attrs(arg_type, attrs: dict[str, Any]) -> dict[str, Any] | None:
    """``attrs`` with the ``div16`` fact, or ``None`` when not an integer or already promised."""
    if not _is_int(arg_type):
        return None
    multiple = int(attrs.get("multipleof") or 1)
    if multiple % DIVISOR == 0:
        return None
    return {**attrs, "multipleof": math.lcm(multiple, DIVISOR)}


def _strip(v: Value) -> Value:
    """``v`` through shape ops and integer casts (a splat of a scalar is the scalar)."""
    while isinstance(v, OpResult) and v.owner.name in _SHAPE_OPS:
        v = v.owner.operands[0]
    return v


def stride_like_params(f: Function) -> set[int]:
    """Indices of ``f``'s integer parameters that are stride-like (the structural test of the
    module docstring)."""
    params = {a: i for i, a in enumerate(f.args) if _is_int(a.type)}
    found: set[int] = set()
    seen: set[Value] = set()
    for op in f.walk():
        if op.name not in _MEMORY_OPS or not op.operands or not isinstance(op.operands[0].type, TileType):
            continue
        term = innermost_term(op.operands[0])
        stack = [term] if term is not None else []
        while stack:
            v = stack.pop()
            if v in seen or not isinstance(v, OpResult):
                continue
            seen.add(v)
            d = v.owner
            if d.name == "tt.load" or d.name.startswith("tt.atomic"):
                continue  # an index read from memory: not an affine address
            if d.name == "arith.muli" and isinstance(v.type, TileType):
                for x, y in (d.operands, d.operands[::-1]):
                    p = _strip(x)
                    if p in params and isinstance(_strip(y).type, TileType):
                        found.add(params[p])
            stack.extend(d.operands)
    return found


#: Integer division and remainder: their divisor operand (:func:`divisor_params`).
_DIVISIONS = ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui")


def divisor_params(f: Function) -> set[int]:
    """Indices of ``f``'s integer parameters used as the divisor of a division or remainder
    (through shape ops and casts). They get no ``div16`` fact: a divisor known to be a multiple
    of 16 makes ``m % Q`` and ``m / Q`` run in aligned 16s (``analysis/axis_info_rules.py``),
    which can widen an access, but the sizes programs divide by (an image's width of 28, its
    14 x 14 pixels) mostly are not multiples of 16, and a variant that asked for it would no
    longer run them. A kernel that wants the wide access tests the divisor itself and promises
    a value that visibly has the fact (``if (PQ % 8 == 0) { int pq = PQ / 8 * 8; ... }``:
    ``examples/conv2d_nchw.tri``)."""
    params = {a: i for i, a in enumerate(f.args) if _is_int(a.type)}
    found: set[int] = set()
    for op in f.walk():
        if op.name in _DIVISIONS and len(op.operands) == 2:
            p = _strip(op.operands[1])
            if p in params:
                found.add(params[p])
    return found


def access_facts(f: Function) -> tuple:
    """What the later passes read off axis info for each tile access of ``f``, with ``f``'s
    parameter attributes as they are now: per memory op, in program order, the pointer's order
    of dimensions and its contiguity along the first (coalescing), its widest access
    (:meth:`AxisInfoAnalysis.max_vector_elems`: the layout's vector width, ``cp.async`` sizes,
    the lowering's) and how many elements its mask is constant over along the fastest
    dimension, up to one access (16 bytes of contiguous elements: whether a copy can be masked
    per vector). Two attribute sets with equal access facts give the same layouts and vector
    widths."""
    axis = AxisInfoAnalysis(f)
    out = []
    for op in f.walk():
        if op.name not in _MEMORY_OPS:
            continue
        ptr = op.get("ptr")
        if not isinstance(ptr.type, TileType):
            continue
        order = tuple(axis.order(ptr))
        mask = op.get("mask") if "mask" in op.opdef.operand_names else None
        run = None
        if mask is not None and isinstance(mask.type, TileType):
            # a mask constant over more elements than one access can reach changes nothing
            cap = min(max(1, 16 // max(1, element_type(ptr.type).pointee.bytes)),
                      pow2_divisor(axis.info(ptr).contiguity[order[0]]))
            run = min(pow2_divisor(axis.info(mask).constancy[order[0]]), cap)
        out.append((order, axis.info(ptr).contiguity[order[0]], axis.max_vector_elems(ptr), run))
    return tuple(out)


def prune_facts(generic: Function, variant: Function, keep: set[int]) -> None:
    """Give ``variant``'s parameters back the generic kernel's attributes wherever their
    ``div16`` / ``align16`` fact changes none of :func:`access_facts` (the parameters in
    ``keep``, those that equal 1, stay): one parameter at a time, each removal checked against
    the facts of the variant with every fact. A variant then applies to every launch whose
    arguments satisfy the facts that matter (a conv's image height of 28 no longer rules out
    its 16-byte copies)."""
    want = access_facts(variant)
    for i, old in enumerate(generic.arg_attrs):
        fact = variant.arg_attrs[i]
        if i in keep or fact == old:
            continue
        variant.arg_attrs = [*variant.arg_attrs[:i], old, *variant.arg_attrs[i + 1:]]
        if access_facts(variant) != want:
            variant.arg_attrs = [*variant.arg_attrs[:i], fact, *variant.arg_attrs[i + 1:]]


def _with_eq1(attrs: list[dict[str, Any]], ones: set[int]) -> list[dict[str, Any]]:
    return [{**a, EQUAL_TO: 1} if i in ones else a for i, a in enumerate(attrs)]


def _variant(f: Function, attrs: list[dict[str, Any]], ones: set[int]) -> Function:
    """A detached copy of kernel ``f`` with parameter attributes ``attrs``, every use of the
    parameters in ``ones`` replaced by the constant 1."""
    variant = clone_function(f)
    variant.attrs[VARIANT_OF] = f.name
    variant.arg_attrs = attrs
    body = variant.body.block
    for i in sorted(ones):
        arg = variant.args[i]
        with Builder().insertion(body, 0) as b:
            one = b.constant(1, arg.type)
        arg.replace_all_uses_with(one)
    return variant


#: ``P pred C`` (``arith.cmpi``, signed) decided by the fact ``P <= K``:
#: predicate -> (K - C, the comparison's value under the fact).
_DECIDED_BY_BOUND = {"sle": (0, True), "slt": (-1, True), "sgt": (0, False), "sge": (-1, False)}
#: ``C pred P`` is ``P swapped[pred] C``.
_SWAPPED = {"sle": "sge", "slt": "sgt", "sgt": "slt", "sge": "sle"}


def bound_comparison(op, params: dict[Value, int]) -> tuple[int, int, bool] | None:
    """``(parameter index, K, value)`` when ``op`` is a scalar signed ``arith.cmpi`` of an
    integer parameter (in ``params``, possibly sign-extended) with a constant that the fact
    "the parameter is at most K" decides, to ``value``; else ``None``."""
    if op.name != "arith.cmpi" or isinstance(op.results[0].type, TileType):
        return None
    x, y = op.operands
    for p, c, pred in ((x, y, op.attrs.get("predicate")), (y, x, _SWAPPED.get(op.attrs.get("predicate")))):
        while isinstance(p, OpResult) and p.owner.name == "arith.extsi":
            p = p.owner.operands[0]
        if (p in params and pred in _DECIDED_BY_BOUND and isinstance(c, OpResult)
                and c.owner.name == "arith.constant" and isinstance(c.owner.attrs.get("value"), int)):
            delta, value = _DECIDED_BY_BOUND[pred]
            return params[p], c.owner.attrs["value"] + delta, value
    return None


def bound_facts(f: Function) -> dict[int, int]:
    """The bound facts worth a variant of ``f``: parameter index -> K, for each integer
    parameter that an ``scf.if`` of the kernel's body (not one nested in a branch or loop)
    branches on by comparing it with a constant (``N <= BLOCK``: one tile holds the row), K the
    smallest such bound (the fact then decides each of those branches). A parameter already
    promised a value (``eq1``) has none."""
    params = {a: i for i, a in enumerate(f.args)
              if _is_int(a.type) and a.uses and EQUAL_TO not in f.arg_attrs[i]}
    out: dict[int, int] = {}
    for op in f.body.block.ops:
        if op.name != "scf.if":
            continue
        cond = op.operands[0]
        found = bound_comparison(cond.owner, params) if isinstance(cond, OpResult) else None
        if found is not None:
            i, k, _ = found
            out[i] = min(k, out.get(i, k))
    return out


def _bounded_variant(f: Function, base: Function, bounds: dict[int, int]) -> Function:
    """A detached copy of ``base`` (kernel ``f`` or one of its variants) that also assumes each
    parameter ``i`` of ``bounds`` is at most ``bounds[i]``: ``at_most`` on the parameter, and
    every comparison the facts decide replaced by its constant value (``canonicalize`` then
    drops the branch not taken, and with it the registers it needed)."""
    variant = clone_function(base)
    variant.attrs[VARIANT_OF] = f.name
    variant.arg_attrs = [{**a, AT_MOST: bounds[i]} if i in bounds else a for i, a in enumerate(variant.arg_attrs)]
    params = {variant.args[i]: i for i in bounds}
    body = variant.body.block
    for op in list(variant.walk()):
        found = bound_comparison(op, params)
        if found is None:
            continue
        i, k, value = found
        if bounds[i] <= k:  # P <= bounds[i] <= k decides it
            with Builder().insertion(body, 0) as b:
                op.results[0].replace_all_uses_with(b.constant(value, op.results[0].type))
    return variant


def _calls(f: Function) -> bool:
    return any(op.name == "tt.call" for op in f.walk())


def _facts_key(attrs: list[dict]) -> tuple:
    return tuple(tuple(sorted(a.items())) for a in attrs)


def planned_variants(f: Function) -> list[tuple[str, list[dict[str, Any]], set[int]]]:
    """The variants of kernel ``f`` (module docstring): ``(name suffix, parameter attributes,
    indices of the parameters that equal 1)`` each, most specialised first."""
    used = [bool(a.uses) for a in f.args]
    aligned = [aligned_attrs(a.type, attrs) if u else None for a, attrs, u in zip(f.args, f.arg_attrs, used)]
    divisors = divisor_params(f)
    divisible = [divisible_attrs(a.type, attrs) if u and i not in divisors else None
                 for i, (a, attrs, u) in enumerate(zip(f.args, f.arg_attrs, used))]
    ones = {i for i in stride_like_params(f)
            if used[i] and int(f.arg_attrs[i].get("multipleof") or 1) == 1 and EQUAL_TO not in f.arg_attrs[i]}

    def attrs_with(eq1: set[int], more: bool) -> list[dict[str, Any]]:
        out = []
        for i, old in enumerate(f.arg_attrs):
            if i in eq1:
                out.append({**old, EQUAL_TO: 1})
            elif more and divisible[i] is not None:
                out.append(divisible[i])
            elif more and aligned[i] is not None:
                out.append(aligned[i])
            else:
                out.append(old)
        return out

    plans = []
    if ones:
        plans.append(("_s1_d16", attrs_with(ones, True), ones))
        plans.append(("_s1", attrs_with(ones, False), ones))
    plans.append(("16", attrs_with(set(), True), set()))
    out, keys = [], {_facts_key(f.arg_attrs)}
    for suffix, attrs, eq1 in plans:
        key = _facts_key(attrs)
        if key not in keys:
            keys.add(key)
            out.append((suffix, attrs, eq1))
    return out[:MAX_VARIANTS]


@register_pass
@dataclass
class SpecializePass(Pass):
    """Add variants of each kernel that assume per-parameter facts (``eq1``, ``div16``,
    ``align16``; see the module docstring)."""

    name = "specialize"
    #: drop the facts that change no access (:func:`prune_facts`); off: every eligible fact
    prune: bool = True

    def run(self, module: Module, am: AnalysisManager) -> bool:
        taken = {f.name for f in module.functions}
        changed = False
        for f in list(module.functions):
            if f.kind != "kernel" or VARIANT_OF in f.attrs:
                continue
            at = module.functions.index(f) + 1
            # accesses inside device functions are not seen before inlining: keep every fact
            prune = self.prune and not _calls(f)
            keys = {_facts_key(f.arg_attrs)}
            plans = planned_variants(f)
            eq1 = next((ones for _, _, ones in plans if ones), None)
            if prune and eq1 and access_facts(_variant(f, _with_eq1(f.arg_attrs, eq1), eq1)) == access_facts(f):
                # unit strides that make no access contiguous (a batch axis of one matrix)
                plans = [plan for plan in plans if not plan[2]]
            made: list[tuple[str, Function]] = []
            for suffix, attrs, ones in plans:
                variant = _variant(f, attrs, ones)  # named once its facts are final
                if prune:
                    prune_facts(f, variant, ones)
                    key = _facts_key(variant.arg_attrs)
                    if key in keys:  # no fact left, or the same facts as an earlier variant
                        continue
                    keys.add(key)
                    if ones and all(i in ones or a == g for i, (a, g) in
                                    enumerate(zip(variant.arg_attrs, f.arg_attrs))):
                        suffix = "_s1"  # eq1 facts only: no div16 / align16 fact mattered
                made.append((suffix, variant))
            # the bounds on top of the most specialised variant, launched before it
            first_suffix, first = made[0] if made else ("", f)
            bounds = bound_facts(first)
            if bounds:
                made.insert(0, (f"{first_suffix}_le", _bounded_variant(f, first, bounds)))
            for suffix, variant in made:
                variant.name = variant_name(f.name, suffix, taken)
                taken.add(variant.name)
                variant.parent = module
                module.functions.insert(at, variant)
                at += 1
                changed = True
        return changed
