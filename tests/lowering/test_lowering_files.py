"""Runs every ``tests/lowering/<family>/*.ttgir`` file as a lit-style FileCheck test: a kernel
through the passes that make it lowerable (layouts, the shared-memory plan), then
``tritonc-opt --emit=ptx`` / ``--emit=llir`` piped into ``filecheck``. The runner is the pass
tests' (``tests/passes/test_filecheck.py``: ``tritonc-opt`` in this process, other stages
spawned). The same kernels run on a GPU in ``tests/gpu/test_lowering_gpu.py``
(``tests/codegen/lowering_kernels.py`` reads them from here).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TEST_FILES = sorted(HERE.rglob("*.ttgir"))

_spec = importlib.util.spec_from_file_location("pass_filecheck", HERE.parent / "passes" / "test_filecheck.py")
_runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_runner)


def test_every_family_has_files():
    assert {p.parent.name for p in TEST_FILES} == {"atomics", "control-flow", "convert", "dot", "elementwise",
                                                   "memory", "reduce"}


@pytest.mark.parametrize("path", TEST_FILES, ids=[str(p.relative_to(HERE)) for p in TEST_FILES])
def test_lowering_file(path: Path) -> None:
    commands = _runner.run_lines(path)
    assert any("--emit=ptx" in c for c in commands), f"{path} has no PTX RUN: line"
    for command in commands:
        _runner.run_pipeline(command, path)
