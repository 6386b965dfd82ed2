"""Helpers for the CLI tests: run ``tritonc`` in-process (click's CliRunner through the real
console-script entry ``tritonc.cli.main``) or as a real process, and check what it printed."""
from __future__ import annotations

import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from tritonc import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "examples"
#: The installed console script (``pip install -e .`` puts it next to the venv's python).
TRITONC_BIN = Path(sys.executable).parent / "tritonc"

ELF_MAGIC = b"\x7fELF"


@dataclass
class Run:
    """What one ``tritonc`` invocation did."""

    status: int
    stdout_bytes: bytes
    stderr: str

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", errors="replace")

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def err_lines(self) -> list[str]:
        return self.stderr.splitlines()


class _ConsoleScript:
    """Lets CliRunner drive ``tritonc.cli.main`` (what the ``tritonc`` command runs) rather
    than the click command object, so the test goes through the same entry as a user."""

    name = "tritonc"

    def main(self, args, prog_name=None, **_):
        cli.main(list(args))


def tritonc(*args: str | os.PathLike, input: str | bytes | None = None, env: dict | None = None) -> Run:
    """Run ``tritonc ARGS`` in this process. A Python exception escaping ``main`` fails the
    test with its traceback (a user would have seen that traceback)."""
    result = CliRunner().invoke(_ConsoleScript(), [str(a) for a in args], input=input, env=env,
                                prog_name="tritonc")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        shown = "".join(traceback.format_exception(*result.exc_info))
        raise AssertionError(f"tritonc {' '.join(map(str, args))} raised instead of reporting:\n{shown}")
    return Run(result.exit_code, result.stdout_bytes, result.stderr)


def tritonc_process(*args: str | os.PathLike, input: bytes | None = None, cwd=None, env=None) -> Run:
    """Run the installed ``tritonc`` command as a real process."""
    proc = subprocess.run([str(TRITONC_BIN), *map(str, args)], input=input, cwd=cwd, capture_output=True,
                          env={**os.environ, **(env or {})}, timeout=300)
    return Run(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", errors="replace"))


def assert_clean(run: Run) -> None:
    """No Python traceback reached the user."""
    assert "Traceback" not in run.output, run.output


def quoted(path: Path, line: int, col: int) -> list[str]:
    """The two lines a diagnostic at ``path:line:col`` shows under its header: the source line
    (tabs expanded to one space) and a caret under column ``col``."""
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
    return ["    " + text.expandtabs(1), "    " + " " * (col - 1) + "^"]


def leftovers(folder: Path) -> list[str]:
    """Temporary files tritonc may have left in ``folder`` (it must not)."""
    return sorted(p.name for p in folder.rglob(".tritonc-*"))
