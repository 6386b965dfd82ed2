"""The bounded differential run of CI (issue 11, item 5): generated programs on a fixed list of
seeds, interpreter (frontend IR, the reference) against the interpreter on the optimised IR and
the SIMT simulator. Deterministic: hypothesis runs from ``@seed`` with its database off and
no deadline, so a given tree of the compiler always sees the same programs.

A failure prints the program as a ready-to-paste entry of ``regressions.py``; ``make fuzz``
draws fresh seeds and minimises what it finds.
"""
from __future__ import annotations

import pytest

from tritonc.fuzz.runner import fuzz

#: (seed, programs): 10-25 s per entry on one core.
SEEDS = [(11, 100), (23, 100), (37, 100), (41, 100), (53, 100), (67, 100), (71, 100), (89, 100)]


@pytest.mark.parametrize("seed,count", SEEDS, ids=[f"seed{s}" for s, _ in SEEDS])
def test_generated_programs_agree(seed, count):
    stats = fuzz(count, seed, target="sim", shrink=False)
    assert stats.programs == count
    assert not stats.failures, "\n".join(f.report() for f in stats.failures)
