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
