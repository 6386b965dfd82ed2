"""Every ```c block of docs/language.md is real code: it compiles through the frontend (parse,
sema, IR generation) without a warning. A first line ``// -D NAME=VALUE -D ...`` gives the
block's macros."""
import re
from pathlib import Path

import pytest

from tritonc.diagnostics import DiagnosticSink, SourceManager
from tritonc.driver import frontend
from tritonc.ir.verifier import verify_module
from tritonc.options import CompileOptions

DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
BLOCKS = re.findall(r"^```c\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def _defines(block: str) -> dict[str, str]:
    first = block.splitlines()[0]
    if not first.startswith("// -D "):
        return {}
    out = {}
    for item in first[len("// "):].split("-D ")[1:]:
        name, _, value = item.strip().partition("=")
        out[name] = value or "1"
    return out


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_doc_example_compiles(block):
    diag = DiagnosticSink()
    module = frontend(block, "language.md", CompileOptions(defines=_defines(block)), SourceManager(), diag)
    verify_module(module)
    assert [f.name for f in module.functions if f.kind == "kernel"], "a block defines at least one kernel"
    assert not diag.warnings, [w.message for w in diag.warnings]
