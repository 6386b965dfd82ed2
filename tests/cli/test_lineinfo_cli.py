"""-lineinfo / --lineinfo on the command line: .file/.loc in the PTX, the line table in the cubin,
and the option in the compile cache's key (tests/codegen/test_lineinfo.py checks the lines)."""
from __future__ import annotations

import re

import pytest

from cli_helpers import EXAMPLES_DIR, assert_clean, tritonc


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


SOFTMAX = EXAMPLES_DIR / "softmax.tri"


@pytest.mark.parametrize("spelling", ["-lineinfo", "--lineinfo"])
def test_lineinfo_option(in_tmp, monkeypatch, spelling):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(in_tmp / "cache"))
    monkeypatch.delenv("TRITONC_NO_CACHE", raising=False)
    run = tritonc(SOFTMAX, "--emit=ptx,cubin", "-o", "s", spelling)
    assert_clean(run)
    assert run.status == 0 and run.stderr == ""
    ptx = (in_tmp / "s.ptx").read_text()
    assert f'.file\t1 "{SOFTMAX}"' in ptx and re.search(r"^\s*\.loc\s+1\s+(2[2-9]|[3-6][0-9])\s", ptx, re.MULTILINE)
    assert b".nv_debug_line_sass" in (in_tmp / "s.cubin").read_bytes()
    # the option is part of the compile cache's key: the same build without it has no lines
    run = tritonc(SOFTMAX, "--emit=ptx,cubin", "-o", "t")
    assert run.status == 0
    assert ".loc" not in (in_tmp / "t.ptx").read_text()
    assert b".nv_debug_line_sass" not in (in_tmp / "t.cubin").read_bytes()
