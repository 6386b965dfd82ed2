"""The default number of warps when none is given (tritonc.analysis.num_warps)."""
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.tools.examples import by_name

SOFTMAX = by_name("softmax").path


@pytest.mark.parametrize("block, warps", [(256, 4), (1024, 4), (2048, 4), (4096, 8), (8192, 16), (16384, 16)])
def test_softmax_rule(block, warps):
    """fp32 rows: 4 warps up to 8 KiB, 8 up to 16 KiB, 16 beyond."""
    comp = Compilation(SOFTMAX, CompileOptions(defines={"BLOCK": str(block)}))
    assert comp.num_warps == warps
    assert comp.ttgir.attrs["num_warps"] == warps


@pytest.mark.parametrize("block, warps", [(2048, 4), (4096, 8), (8192, 16), (16384, 16)])
def test_half_rows_count_their_bytes_and_their_carried_fp32_sums(block, warps):
    """examples/layernorm.tri loads fp16 rows and reduces them in fp32; its long-row loop
    carries fp32 sums of BLOCK elements from trip to trip: those count (4 * BLOCK bytes)."""
    comp = Compilation(by_name("layernorm").path, CompileOptions(defines={"BLOCK": str(block)}))
    assert comp.num_warps == warps


@pytest.mark.parametrize("tm, tn, warps", [(64, 64, 4), (128, 128, 4), (128, 256, 8)])
def test_matmul_rule_uses_the_accumulator_only(tm, tn, warps):
    comp = Compilation(by_name("matmul").path, CompileOptions(tune={"TM": [tm], "TN": [tn], "TK": [32]}))
    assert comp.num_warps == warps


def test_an_explicit_value_wins():
    comp = Compilation(SOFTMAX, CompileOptions(defines={"BLOCK": "4096"}, num_warps=2))
    assert comp.num_warps == 2
    assert ".maxntid 64" in comp.ptx


def test_scalar_kernel_gets_four_warps():
    comp = Compilation("__global__ void k(int *p) { *p = 1; }\n", CompileOptions())
    assert comp.num_warps == 4
