"""The op x dtype x shape x num_warps matrix (``op_matrix.py``) through the whole compiler and
the SIMT simulator, against the interpreter (sm_90a for ``@`` so wgmma shapes are covered,
else sm_80 and sm_90 alternating)."""
from __future__ import annotations

import zlib

import pytest

import op_matrix as OM  # tests/codegen is on sys.path
from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

CASES = OM.cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_matrix_simulator(case):
    arch = "sm_90a" if case.id.startswith("dot") else ("sm_80" if zlib.crc32(case.id.encode()) % 2 else "sm_90")
    comp = Compilation(case.source, CompileOptions(num_warps=case.num_warps, arch=arch,
                                                   allow_tf32="tf32" in case.id))
    sim, ref = OM.arguments(case), OM.arguments(case)
    run_kernel(comp.ttgir, "k", (1,), sim, arch=arch)
    run_function(comp.ttir, "k", (1,), ref)
    OM.assert_matches(case, sim[2], ref[2], f"simulator ({arch})")
