"""--resource-usage (registers, barriers, shared memory, stack frame and spills per kernel, from
nvJitLink's report) and -Wspill (a kernel that spills registers)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_helpers import ELF_MAGIC, EXAMPLES_DIR, assert_clean, tritonc

MATMUL = EXAMPLES_DIR / "matmul.tri"
LINE = re.compile(r"tritonc info: kernel '(?P<name>[\w]+)'(?P<variant> \(variant [^)]*\))? for 'sm_90a': "
                  r"Used (?P<regs>\d+) registers, used (?P<bars>\d+) barriers, (?P<smem>\d+) bytes smem "
                  r"\+ (?P<dyn>\d+) bytes dynamic smem, (?P<stack>\d+) bytes stack frame, "
                  r"(?P<st>\d+) bytes spill stores, (?P<ld>\d+) bytes spill loads$")

#: 128x128 floats at 1 warp: 512 values per thread, over the 255 registers a thread may have,
#: so ptxas spills (about 1 KB each way with nvJitLink 12.x); compiles in about 2 s.
SPILLS = (Path(__file__).resolve().parents[1] / "data" / "big_tile.tri").read_text()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(run) -> list[re.Match]:
    return [m for m in map(LINE.match, run.err_lines) if m]


def test_resource_usage_matmul(in_tmp):
    run = tritonc(MATMUL, "-o", "m.cubin", "--no-cache", "--resource-usage")
    assert_clean(run)
    assert run.status == 0 and (in_tmp / "m.cubin").read_bytes().startswith(ELF_MAGIC)
    found = {m["name"]: m for m in _lines(run)}
    assert set(found) == {"matmul", "matmul__spec16"}, run.stderr
    assert len(run.err_lines) == 2
    for m in found.values():
        assert 32 <= int(m["regs"]) <= 255 and int(m["bars"]) >= 1
        assert int(m["dyn"]) > 0  # the pipelined operand rings are dynamic shared memory
        assert (m["st"], m["ld"]) == ("0", "0")


def test_resource_usage_is_off_by_default(in_tmp):
    run = tritonc(MATMUL, "-o", "m.cubin", "--no-cache")
    assert run.status == 0 and run.stderr == ""


def test_resource_usage_per_variant(in_tmp):
    run = tritonc(MATMUL, "-o", "m.cubin", "--no-cache", "--resource-usage", "--num-warps", "4,8", "-j", "1")
    assert_clean(run)
    assert run.status == 0
    found = {m["name"]: m["variant"] for m in _lines(run)}
    assert found == {"matmul__v0": " (variant v0: num_warps=4)", "matmul__v0__spec16": " (variant v0: num_warps=4)",
                     "matmul__v1": " (variant v1: num_warps=8)", "matmul__v1__spec16": " (variant v1: num_warps=8)"}


def test_resource_usage_replayed_from_the_cache(in_tmp, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(in_tmp / "cache"))
    monkeypatch.delenv("TRITONC_NO_CACHE", raising=False)
    first = tritonc(MATMUL, "-o", "a.cubin", "--resource-usage")
    second = tritonc(MATMUL, "-o", "b.cubin", "--resource-usage")
    plain = tritonc(MATMUL, "-o", "c.cubin")
    assert first.status == second.status == plain.status == 0
    assert len(_lines(first)) == 2 and second.stderr == first.stderr
    assert plain.stderr == ""


def test_spill_warning(in_tmp):
    (in_tmp / "big.tri").write_text(SPILLS)
    run = tritonc("big.tri", "-o", "big.cubin", "--no-cache", "--num-warps", "1", "--resource-usage")
    assert_clean(run)
    assert run.status == 0 and (in_tmp / "big.cubin").exists()
    warnings = [i for i, line in enumerate(run.err_lines) if "[-Wspill]" in line]
    assert warnings, run.stderr
    first = run.err_lines[warnings[0]]
    m = re.fullmatch(r"big\.tri:1:17: warning: kernel '(big(?:__spec16)?)' spills registers: (\d+) bytes spill "
                     r"stores, (\d+) bytes spill loads per thread \((\d+) registers\) \[-Wspill\]", first)
    assert m, first
    assert run.err_lines[warnings[0] + 2].strip() == "^"
    usage = {u["name"]: u for u in _lines(run)}
    assert (usage[m[1]]["st"], usage[m[1]]["ld"]) == (m[2], m[3]) and int(m[2]) > 0


def test_no_spill_warning(in_tmp):
    (in_tmp / "big.tri").write_text(SPILLS)
    run = tritonc("big.tri", "-o", "big.cubin", "--no-cache", "--num-warps", "1", "-Wno-spill")
    assert run.status == 0 and run.stderr == ""


def test_spill_warning_as_error(in_tmp):
    (in_tmp / "big.tri").write_text(SPILLS)
    run = tritonc("big.tri", "-o", "big.cubin", "--no-cache", "--num-warps", "1", "-Werror")
    assert_clean(run)
    assert run.status == 1 and not (in_tmp / "big.cubin").exists()
    assert re.match(r"big\.tri:1:17: error: kernel 'big(__spec16)?' spills registers: .* \[-Wspill\]$",
                    run.err_lines[0])

