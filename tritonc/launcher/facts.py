"""The facts a specialised variant of a kernel may assume of one argument
(``transforms/specialize.py``), described once for every reader: the C header's tests
(:meth:`Fact.c_test`), the Python module's (:attr:`Fact.python`), the metadata JSON and the
differential runs' simulator (:meth:`Fact.holds`).

``eq1`` (an integer equals 1), ``div16`` (an integer is a multiple of 16) and ``align16`` (an
address is a multiple of 16 bytes) are :data:`FACTS`; ``le<K>`` (an integer is at most K, signed)
is a family, one fact per bound (:func:`fact`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tritonc.launcher.signature import KernelParam


@dataclass(frozen=True)
class Fact:
    """A fact a specialised variant assumes of one argument (``transforms/specialize.py``),
    after OpenAI Triton's JIT specialisation (``triton/runtime/jit.py``: ``== 1``, ``% 16``).

    Every launcher reads this one description: the C header's test (:meth:`c_test`), the
    Python module's (:attr:`python`, a lambda body over ``v``), the metadata JSON and the
    differential runs' simulator (:meth:`holds`).

    Args:
        name: ``eq1``, ``div16``, ``align16``, or ``le<K>`` (:func:`fact`).
        kind: ``"scalar"`` (an integer argument's value) or ``"pointer"`` (its address, bytes).
        equal: the value must equal this (``None``: no such test).
        multiple: the value must be a multiple of this (``None``: no such test).
        at_most: the value must be at most this, as a signed integer (``None``: no such test).
    """

    name: str
    kind: str
    equal: int | None = None
    multiple: int | None = None
    at_most: int | None = None

    def holds(self, value: int) -> bool:
        """Whether an argument (the integer, or the address in bytes) has the fact."""
        value = int(value)
        if self.equal is not None:
            return value == self.equal
        if self.at_most is not None:
            return value <= self.at_most
        return value % self.multiple == 0

    @property
    def python(self) -> str:
        """The test as a Python expression over ``v`` (an int)."""
        if self.at_most is not None:
            return f"v <= {self.at_most}"
        return f"v == {self.equal}" if self.equal is not None else f"v % {self.multiple} == 0"

    def c_test(self, p: KernelParam, cname: str) -> str:
        """The C condition on argument ``cname`` of parameter ``p``."""
        if p.is_pointer:
            return f"({cname} % {self.multiple}ull) == 0"
        n = next(v for v in (self.equal, self.at_most, self.multiple) if v is not None)
        literal = {"int64": f"INT64_C({n})", "uint64": f"UINT64_C({n})", "uint32": f"{n}u"}.get(p.dtype, str(n))
        if self.at_most is not None:
            if p.dtype.startswith("uint") and n < 0:
                return "0"  # no unsigned value is at most a negative bound
            return f"({cname} <= {literal})"
        return f"({cname} == {literal})" if self.equal is not None else f"({cname} % {literal}) == 0"

    def describe(self, param: str) -> str:
        """``n == 1`` / ``n % 16 == 0`` / ``n <= 1024``: the condition in words for comments
        and docs."""
        if self.at_most is not None:
            return f"{param} <= {self.at_most}"
        return f"{param} == {self.equal}" if self.equal is not None else f"{param} % {self.multiple} == 0"


#: The facts a variant may assume, by name (the one place describing them), but the bounds.
FACTS: dict[str, Fact] = {f.name: f for f in (
    Fact("eq1", "scalar", equal=1),
    Fact("div16", "scalar", multiple=16),
    Fact("align16", "pointer", multiple=16),
)}

#: The name of the fact "an integer is at most K" (``le1024``, ``le-1``): a variant that
#: assumes it has the branches on ``n <= K`` decided (``transforms/specialize.py``).
_BOUND_RE = re.compile(r"le(-?[0-9]+)")


def bound_fact_name(at_most: int) -> str:
    """The fact name of "the integer argument is at most ``at_most``": ``le<at_most>``."""
    return f"le{int(at_most)}"


def fact(name: str) -> Fact:
    """The :class:`Fact` called ``name``: one of :data:`FACTS`, or a bound ``le<K>``.

    Raises:
        KeyError: no such fact.
    """
    if name in FACTS:
        return FACTS[name]
    m = _BOUND_RE.fullmatch(name)
    if m is None:
        raise KeyError(name)
    return Fact(name, "scalar", at_most=int(m.group(1)))


def is_fact(name: str) -> bool:
    """Whether ``name`` names a fact (:func:`fact`)."""
    try:
        fact(name)
    except KeyError:
        return False
    return True
