"""``make sanitize`` (tritonc/tools/sanitize.py) without a GPU: the one-line failure when
compute-sanitizer is missing, and the verdicts it derives from a sanitizer's exit status
(a stand-in script plays compute-sanitizer)."""
from __future__ import annotations

import os
import stat
import sys

import pytest

from tritonc.tools import sanitize


def test_missing_sanitizer_is_one_clear_line(monkeypatch, tmp_path, capsys):
    if os.path.exists("/usr/local/cuda/bin/compute-sanitizer"):
        pytest.skip("this machine has compute-sanitizer")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert sanitize.main(["--programs", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "compute-sanitizer not found" in err[0]


def _fake_sanitizer(tmp_path, exit_code: int) -> str:
    script = tmp_path / "compute-sanitizer"
    script.write_text(f"#!/bin/sh\necho \"========= ERROR SUMMARY: {1 if exit_code else 0} errors\"\n"
                      f"echo \"$@\" > {tmp_path}/args\nexit {exit_code}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.mark.parametrize("code,verdict,status", [(0, "clean", 0), (86, "DEVICE ERRORS", 1), (1, "FAILED (exit 1)", 1)])
def test_verdicts_and_arguments(monkeypatch, tmp_path, capsys, code, verdict, status):
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: _fake_sanitizer(tmp_path, code))
    rc = sanitize.main(["--tools", "racecheck", "--programs", "3", "--seed", "5", "--log-dir", str(tmp_path / "logs")])
    out = capsys.readouterr().out
    assert rc == status
    runs = [ln for ln in out.splitlines() if ln.startswith("  racecheck")]
    assert len(runs) == 2 and all(verdict in ln for ln in runs)  # examples and generated programs
    args = (tmp_path / "args").read_text().split()
    assert args[:6] == ["--tool", "racecheck", "--report-api-errors", "no", "--error-exitcode", "86"]
    assert args[args.index(sys.executable) + 1:][:3] == ["-m", "tritonc.fuzz", "-n"]
    assert (tmp_path / "logs" / "racecheck-examples.log").exists()
