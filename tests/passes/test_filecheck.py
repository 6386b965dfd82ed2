"""Runs every ``tests/passes/**/*.ttir`` file as a lit-style FileCheck test (one pytest item each).

Each file starts with ``// RUN: tritonc-opt %s --passes=<name> | filecheck %s``. ``%s`` is the
file; ``tritonc-opt`` runs in this process (``tritonc.tools.opt.run``) to save a Python start
per file; the other stages (``filecheck``) are spawned with the previous stage's output on
stdin. A failing stage fails the test with its output.
"""
from __future__ import annotations

import io
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tritonc.tools import opt

HERE = Path(__file__).parent
TEST_FILES = sorted(HERE.rglob("*.ttir"))
_FILECHECK = Path(sys.executable).parent / "filecheck"
FILECHECK = [str(_FILECHECK)] if _FILECHECK.exists() else [sys.executable, "-m", "filecheck"]


def run_lines(path: Path) -> list[str]:
    """The commands of the ``RUN:`` lines (a trailing ``\\`` continues a command)."""
    commands, pending = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if "RUN:" not in line:
            continue
        part = line.split("RUN:", 1)[1].strip()
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        commands.append(pending + part)
        pending = ""
    return commands


def run_pipeline(command: str, path: Path) -> None:
    data = ""
    for stage in command.split("|"):
        argv = [str(path) if a == "%s" else a for a in shlex.split(stage)]
        if argv[0] == "tritonc-opt":
            out, err = io.StringIO(), io.StringIO()
            status = opt.run(argv[1:], out, err, stdin=io.StringIO(data))
            output, errors = out.getvalue(), err.getvalue()
        else:
            if argv[0] == "filecheck":
                argv = FILECHECK + argv[1:]
            proc = subprocess.run(argv, input=data, capture_output=True, text=True)
            status, output, errors = proc.returncode, proc.stdout, proc.stderr
        if status != 0:
            pytest.fail(f"`{stage.strip()}` exited with status {status}\n{errors}{output}", pytrace=False)
        data = output


@pytest.mark.parametrize("path", TEST_FILES, ids=[str(p.relative_to(HERE)) for p in TEST_FILES])
def test_filecheck(path: Path) -> None:
    commands = run_lines(path)
    assert commands, f"{path} has no RUN: line"
    for command in commands:
        run_pipeline(command, path)
