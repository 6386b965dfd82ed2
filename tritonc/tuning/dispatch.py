"""Tuned dispatch: the rule by which launchers pick a kernel's variant from a tuning table's buckets at launch time.

``tritonc FILE.tri --tuning table.json`` (``tritonc.tuning.table``) turns a table written by
``tritonc-tune`` into one :class:`TunedDispatch` per kernel; the launchers' default entry
point (C ``K(stream, args...)``, Python ``K(args...)``) then launches
``variants[choose(key values)]`` instead of the cost model's default variant. It is a layer
above the existing variant selection: the variant it picks still runs its own
specialisation check (``K__v3__spec16`` when the arguments allow).

The rule, the same in C, Python and :meth:`TunedDispatch.choose` (which the tests compare):

* The key is the values of the kernel's integer scalar parameters ``key`` (its ``__retune``
  parameters, or those the sizes file names).
* Each key value ``v`` has a coordinate per axis: for a power-of-two axis
  ``ceil(log2(v))`` (``0`` for ``v <= 1``), i.e. the bucket is the smallest power of two
  ``>= v``; for a ranges axis with ascending bounds ``b``, the number of bounds ``<= v``
  (Python's ``bisect_right``), i.e. the index of the range ``[b[i-1], b[i])`` holding ``v``.
* The entry at the least L1 distance (sum over axes of ``|coordinate difference|``; a
  difference of one coordinate is a factor of two on a power-of-two axis) wins; on a tie the
  earlier entry in table order wins (entries are sorted by coordinates, so the smaller bucket).
* No entry: the default variant.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

#: The largest key value the C launcher handles exactly (key values travel as ``long long``).
KEY_MAX = 2**63 - 1


def pow2_coordinate(value: int) -> int:
    """``ceil(log2(value))``, ``0`` for ``value <= 1``: the exponent of the smallest power of two
    ``>= value``."""
    return 0 if value <= 1 else (value - 1).bit_length()


def range_coordinate(value: int, bounds: tuple[int, ...]) -> int:
    """How many of the ascending ``bounds`` are ``<= value``."""
    return bisect_right(bounds, value)


@dataclass(frozen=True)
class TunedDispatch:
    """A kernel's tuned choice.

    Args:
        key: the parameter names whose values form the key (integer scalars of the kernel).
        rules: per key axis, ``None`` for power-of-two buckets or the ascending range bounds.
        entries: ``(coordinates, variant index)`` pairs, sorted by coordinates; the variant
            index is into the dispatcher's variants.

    Raises:
        ValueError: ``rules`` and ``key`` differ in length, bounds not strictly ascending, or
            an entry with the wrong number of coordinates.
    """

    key: tuple[str, ...]
    rules: tuple[tuple[int, ...] | None, ...]
    entries: tuple[tuple[tuple[int, ...], int], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", tuple(self.key))
        object.__setattr__(self, "rules", tuple(None if r is None else tuple(r) for r in self.rules))
        object.__setattr__(self, "entries", tuple(sorted((tuple(c), int(v)) for c, v in self.entries)))
        if len(self.rules) != len(self.key):
            raise ValueError(f"tuned dispatch: {len(self.key)} key names but {len(self.rules)} bucketing rules")
        for name, r in zip(self.key, self.rules):
            if r is not None and (not r or any(a >= b for a, b in zip(r, r[1:]))):
                raise ValueError(f"tuned dispatch: the ranges of '{name}' need strictly ascending bounds, got {list(r)}")
        for coords, _ in self.entries:
            if len(coords) != len(self.key):
                raise ValueError(f"tuned dispatch: an entry has {len(coords)} coordinates for {len(self.key)} keys")

    def coordinates(self, values) -> tuple[int, ...]:
        """The bucket coordinates of key ``values`` (ints, in ``key`` order)."""
        return tuple(pow2_coordinate(int(v)) if r is None else range_coordinate(int(v), r)
                     for v, r in zip(values, self.rules))

    def choose(self, values, default: int) -> int:
        """The variant index for key ``values`` (see the module docstring); ``default`` when the
        table has no entry."""
        coords = self.coordinates(values)
        best, best_distance = default, None
        for c, variant in self.entries:
            distance = sum(abs(a - b) for a, b in zip(c, coords))
            if best_distance is None or distance < best_distance:
                best, best_distance = variant, distance
        return best

    def python_literal(self, key_indices: list[int]) -> str:
        """``(key parameter indices, rules, entries)`` as a Python literal for the runtime's
        ``_tuned_variant``."""
        return repr((tuple(key_indices), self.rules, self.entries))
