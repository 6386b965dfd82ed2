"""print -> parse -> print is the identity for the tt and ttg IR of every example."""
import pytest

from tritonc.driver import Compilation
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.ir.verifier import verify_module
from tritonc.tools.examples import EXAMPLES
from tritonc.tools.golden import golden_options


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_example_ir_roundtrips(example):
    comp = Compilation(example.path, golden_options(example))
    for module in (comp.ttir, comp.ttgir):
        text = print_module(module)
        again = parse_module(text)
        verify_module(again)
        assert print_module(again) == text


@pytest.mark.parametrize("stages", [4, 6])
def test_wgmma_ir_roundtrips(stages):
    """The sm_90a matmul: mma v3 layouts, blocked shared layouts, ``pending`` dots,
    ``ttg.wgmma_wait`` and ``no_war`` copies print and parse back."""
    from pathlib import Path

    from tritonc.options import CompileOptions

    kernel = Path(__file__).resolve().parents[2] / "benchmarks" / "kernels" / "matmul.tri"
    opts = CompileOptions(tune={"TM": [128], "TN": [256], "TK": [64 if stages == 4 else 32]}, num_warps=8,
                          num_stages=stages, arch="sm_90a")
    text = print_module(Compilation(kernel, opts).ttgir)
    assert "version=3" in text and "block=64" in text and "ttg.wgmma_wait" in text
    assert ("no_war" in text) == (stages > 4)
    again = parse_module(text)
    verify_module(again)
    assert print_module(again) == text
