"""Every minimised program of ``regressions.py`` agrees with the interpreter on the interpreter
of the optimised IR and the SIMT simulator (for its arch), and on sm_80, sm_90 and sm_90a."""
from __future__ import annotations

import dataclasses

import pytest

from regressions import CASES  # tests/fuzz is on sys.path (rootdir conftest-free import)
from tritonc.fuzz.runner import check_program


def _params():
    out = []
    for case_id, reason, program, xfail in CASES:
        for arch in ("sm_80", "sm_90", "sm_90a"):
            marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
            out.append(pytest.param(program, arch, id=f"{case_id}-{arch}", marks=marks))
    return out


@pytest.mark.parametrize("program,arch", _params())
def test_regression(program, arch):
    program = dataclasses.replace(program, options={**program.options, "arch": arch})
    check_program(program, "sim")
