"""Whole-pipeline golden files: fresh output must equal golden/<example>/* byte for byte.

Regenerate with ``make golden`` and review the diff.
"""
import difflib

import pytest

from tritonc.tools.examples import EXAMPLES
from tritonc.tools.golden import GOLDEN_KINDS, golden_path, render


@pytest.mark.parametrize("kind", GOLDEN_KINDS)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_golden(example, kind):
    path = golden_path(example, kind)
    assert path.exists(), f"{path} is missing: run 'make golden'"
    expected = path.read_text()
    actual = render(example, kind)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            str(path), "fresh output"))
        pytest.fail(f"golden mismatch for {path} (run 'make golden' and review):\n{diff}")
