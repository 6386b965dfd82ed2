"""docs/language.md is the complete, self-contained language reference, and it is real.

* Every ```c block compiles through the frontend (parse, sema, IR generation). A first line
  ``// -D NAME=VALUE -D ...`` gives the block's macros; ``// warns: -Wname ...`` the warnings it
  must give (else none); ``// error: message`` makes it a rejected program, with that message.
* It names every built-in, alias, prelude macro, attribute spelling and warning flag the
  compiler knows, so the reference cannot fall behind the implementation.
* It covers every section of the language (the topics below), marks what tritonc does not do
  yet as "not implemented yet", and points nowhere outside the repository.
"""
import re
from pathlib import Path

import pytest

from tritonc.diagnostics import WARNING_FLAGS, CompileError, DiagnosticSink, SourceManager
from tritonc.frontend_stage import frontend
from tritonc.frontend.ast import CALL_ALIASES
from tritonc.frontend.preprocess import PRELUDE_MACROS
from tritonc.frontend.sema_calls import BUILTINS
from tritonc.ir.verifier import verify_module
from tritonc.options import CompileOptions

DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```c\n(.*?)^```", TEXT, flags=re.S | re.M)


def _directive(block: str, word: str) -> str | None:
    for line in block.splitlines():
        if not line.startswith("//"):
            return None
        if line.startswith(f"// {word}:"):
            return line[len(f"// {word}:"):].strip()
    return None


def _defines(block: str) -> dict[str, str]:
    out = {}
    for line in block.splitlines():
        if not line.startswith("// -D "):
            continue
        for item in line[len("// "):].split("-D ")[1:]:
            name, _, value = item.strip().partition("=")
            out[name] = value or "1"
    return out


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 15


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_doc_example_compiles(block):
    diag = DiagnosticSink()
    options = CompileOptions(defines=_defines(block))
    error = _directive(block, "error")
    if error is not None:
        with pytest.raises(CompileError) as info:
            frontend(block, "language.md", options, SourceManager(), diag)
        assert info.value.message == error
        return
    module = frontend(block, "language.md", options, SourceManager(), diag)
    verify_module(module)
    assert [f.name for f in module.functions if f.kind == "kernel"], "a block defines at least one kernel"
    warns = (_directive(block, "warns") or "").split()
    assert sorted({re.search(r"\[(-W[\w-]+)\]$", w.message).group(1) for w in diag.warnings}) == sorted(warns), \
        [w.message for w in diag.warnings]


def test_the_doc_points_nowhere_outside_the_repository():
    assert "/work/" not in TEXT and "shared/" not in TEXT and "spec/triton-c.md" not in TEXT


@pytest.mark.parametrize("name", sorted(set(BUILTINS) | set(CALL_ALIASES) | set(PRELUDE_MACROS) - {"__attribute__"}))
def test_every_builtin_alias_and_prelude_name_is_documented(name):
    assert re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", TEXT), f"'{name}' is not in docs/language.md"


@pytest.mark.parametrize("flag", sorted(WARNING_FLAGS))
def test_every_warning_flag_is_documented(flag):
    assert f"`-W{flag}`" in TEXT


@pytest.mark.parametrize("spelling", [
    "__noalias", "__readonly", "__writeonly", "__aligned", "__multipleof", "__retune", "restrict",
    "read_only", "write_only", "align(n)", "multiple_of", "__attribute__", "kernel void", "tunable"])
def test_every_attribute_spelling_is_documented(spelling):
    assert spelling in TEXT


# The language's topics, each with a phrase the reference must contain.
TOPICS = {
    "program instances and the grid": "get_num_programs",
    "the preprocessor": "#include",
    "several kernels per file": "A file may hold several kernels",
    "shape-polymorphic device functions": "shape-polymorphic",
    "--kernel selection": "--kernel K",
    "built-in names for user functions": "may take a built-in's name",
    "shadowing": "-Wshadow",
    "double promotion": "-Wdouble-promotion",
    "nested arrays rejected": "T x[16, 8]",
    "readonly stores": "-Wreadonly-store",
    "launch grid": "__grid(",
    "tunables": "const tunable int",
    "range": "lo ... hi",
    "subscripts never index": "A subscript never indexes",
    "masked loads": "c ? *p : other",
    "matrix product": "[M, K, B] @ [K, N, B]",
    "atomics": "atomic_cas(p, cmp, v)",
    "random numbers": "randint(seed, offsets)",
    "predicated statements": "@mask stmt;",
    "host interface and promises": "refused with an error",
    "interpreter promises": "tritonc.interpret",
    "constant memory": "__constant__",
    "reference examples": "softmax",
}


@pytest.mark.parametrize("topic", sorted(TOPICS))
def test_every_topic_of_the_language_is_covered(topic):
    assert TOPICS[topic] in TEXT, f"docs/language.md does not cover {topic} ({TOPICS[topic]!r})"


def test_the_not_implemented_list_matches_the_body():
    """Section 15 lists what the page marks as not implemented yet, and nothing is so marked
    while it says nothing is (tritonc-tune, the last entry, is implemented)."""
    body, listed = TEXT.split("## 15. Not implemented yet", 1)
    marked = [p for p in body.split("\n\n")
              if "not implemented yet" in p.lower() and "#15-not-implemented-yet" not in p]
    assert "Nothing at present" in listed
    assert marked == [], marked
