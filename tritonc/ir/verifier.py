"""IR verifier: structure, SSA dominance in structured regions, and each op's own type rules.

Checks, for every function of a module:

* every op is registered, has the operand count its ``OpDef`` allows, its required attributes,
  its number of regions, and (for fixed-result ops) its number of results;
* every operand is defined before its use, in the same block or an enclosing one (dominance
  for structured control flow), and use lists agree with operands;
* terminators end their blocks (``tt.return`` the function body, ``scf.yield`` /
  ``scf.condition`` the regions of ``scf.*`` ops) and appear nowhere else;
* the op's ``verify`` hook (types and shapes, see ``ops.py``);
* ``tt.return`` values match the function's result types.

Raises :class:`~tritonc.ir.ops.VerifyError` on the first violation; the message names the op
and, where known, its source location.
"""
from __future__ import annotations

from .core import Block, Function, Module, Operation, Value
from .ops import VerifyError, get_opdef


def verify_module(module: Module) -> None:
    """Verify every function of ``module``; raises VerifyError."""
    for f in module.functions:
        verify_function(f)


def verify_function(f: Function) -> None:
    _verify_block(f.body.block, set(f.args), f, expected_terminator="tt.return")


def _where(op: Operation) -> str:
    return f" (at {op.loc})" if op.loc is not None else ""


def _verify_block(block: Block, visible: set[Value], f: Function, expected_terminator: str | None) -> None:
    scope = set(visible) | set(block.args)
    for i, op in enumerate(block.ops):
        if op.parent is not block:
            raise VerifyError(f"'{op.name}' has a wrong parent block{_where(op)}")
        opdef = get_opdef(op.name)
        last = i == len(block.ops) - 1
        if opdef.terminator and not last:
            raise VerifyError(f"terminator '{op.name}' in the middle of a block{_where(op)}")
        _verify_counts(op, opdef)
        for index, v in enumerate(op.operands):
            if v not in scope:
                raise VerifyError(f"'{op.name}' uses a value that does not dominate it: {v!r}{_where(op)}")
            if (op, index) not in v.uses:
                raise VerifyError(f"use list of {v!r} misses '{op.name}' operand {index}")
        for region in op.regions:
            if region.parent is not op:
                raise VerifyError(f"region of '{op.name}' has a wrong parent")
            term = "scf.condition" if (op.name == "scf.while" and region is op.regions[0]) else "scf.yield"
            _verify_block(region.block, scope, f, term)
        if opdef.verify is not None:
            try:
                opdef.verify(op)
            except VerifyError as e:
                raise VerifyError(f"{e}{_where(op)}") from None
            except (KeyError, IndexError, AttributeError) as e:
                raise VerifyError(f"'{op.name}' is malformed: {e!r}{_where(op)}") from None
        scope.update(op.results)
    term = block.terminator
    if expected_terminator is not None:
        if term is None or term.name != expected_terminator:
            found = term.name if term is not None else "nothing"
            raise VerifyError(f"block must end in '{expected_terminator}', found '{found}'")
    if expected_terminator == "tt.return":
        types = [v.type for v in term.operands]  # type: ignore[union-attr]
        if types != f.result_types:
            raise VerifyError(f"tt.return in @{f.name} returns {[str(t) for t in types]}, expected {[str(t) for t in f.result_types]}")


def _verify_counts(op: Operation, opdef) -> None:
    fewest, most = opdef.operand_range
    n = len(op.operands)
    if n < fewest or (most is not None and n > most):
        raise VerifyError(f"'{op.name}' has {n} operands, expected {'at least ' if most != fewest else ''}{fewest}{_where(op)}")
    for attr in opdef.attrs:
        if attr not in op.attrs:
            raise VerifyError(f"'{op.name}' lacks attribute '{attr}'{_where(op)}")
    if len(op.regions) != opdef.num_regions:
        raise VerifyError(f"'{op.name}' has {len(op.regions)} regions, expected {opdef.num_regions}{_where(op)}")
    if opdef.num_results is not None and len(op.results) != opdef.num_results:
        raise VerifyError(f"'{op.name}' has {len(op.results)} results, expected {opdef.num_results}{_where(op)}")
    for r in op.results:
        if r.op is not op:
            raise VerifyError(f"result of '{op.name}' has a wrong owner")
