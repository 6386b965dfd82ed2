"""The op x dtype x shape x num_warps matrix (``tests/codegen/op_matrix.py``) on the GPU through
the generated Python module, against the interpreter; ``@`` on sm_90a (wgmma where the shape
allows) and on sm_90 (mma.sync). Skipped without an NVIDIA GPU, its driver and torch."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

CODEGEN_DIR = Path(__file__).resolve().parents[1] / "codegen"
if str(CODEGEN_DIR) not in sys.path:
    sys.path.insert(0, str(CODEGEN_DIR))

import op_matrix as OM  # noqa: E402
from test_spec_gpu import GPU_ARCH  # noqa: E402

from tritonc.driver import Compilation  # noqa: E402
from tritonc.fuzz.execute import load_launcher, run_gpu  # noqa: E402
from tritonc.fuzz.program import Program  # noqa: E402
from tritonc.interpreter import run_function  # noqa: E402
from tritonc.options import CompileOptions  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]

CASES = OM.cases()


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_matrix_gpu(case, arch, torch):
    if not GPU_ARCH.startswith("sm_9"):
        arch = GPU_ARCH
    comp = Compilation(case.source, CompileOptions(num_warps=case.num_warps, arch=arch,
                                                   allow_tf32="tf32" in case.id))
    ref = OM.arguments(case)
    run_function(comp.ttir, "k", (1,), ref)
    program = Program(case.source, "k", [], (1,), {})
    got = run_gpu(program, load_launcher(comp), OM.arguments(case), torch)
    OM.assert_matches(case, got[2], ref[2], f"GPU ({arch})")
