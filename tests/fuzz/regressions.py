"""Minimised generated programs that once failed a differential run (``make fuzz``), each with
the reason; ``test_regressions.py`` runs them against the interpreter on every executor.

Paste the ``Program(...)`` a failing run prints into :data:`CASES` as ``(id, reason, program,
xfail)``; ``xfail`` is ``None`` once the bug is fixed, else the reason it is still open.
"""
from tritonc.fuzz.program import Buffer, Program, Scalar  # noqa: F401 (used by pasted cases)

CASES: list = []
