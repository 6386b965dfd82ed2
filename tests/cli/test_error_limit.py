"""-ferror-limit (issue 18 item 7): the semantic checks go on after an error and every error is
printed in order, up to the limit (default 20), then "too many errors emitted, stopping now";
a failing declaration skips the rest of its block; the parser still stops at its first error."""
from __future__ import annotations

import re

import pytest

from cli_helpers import assert_clean, tritonc
from tritonc.diagnostics import CompileError, CompileErrors, DiagnosticSink
from tritonc.driver import Compilation
from tritonc.options import CompileOptions, artifact_identity

SEVERAL = """\
__global__ void k(float *X, int N) {
  int a = 1;
  a = undefined1;
  if (a) { a = undefined2; }
  break;
  int b = bad_decl;
  b = skipped_after_the_bad_declaration;
}
__device__ int twice(int v) { return v + missing_in_device; }
__global__ void k2(float *Y) {
  *Y = nope;
}
"""

EXPECTED = [("3:7", "use of undeclared identifier 'undefined1'"),
            ("4:16", "use of undeclared identifier 'undefined2'"),
            ("5:3", "'break' statement not in loop statement"),
            ("6:11", "use of undeclared identifier 'bad_decl'"),
            ("9:42", "use of undeclared identifier 'missing_in_device'"),
            ("11:8", "use of undeclared identifier 'nope'")]


def _errors(stderr: str) -> list[tuple[str, str]]:
    return re.findall(r"^e\.tri:(\d+:\d+): error: (.*)$", stderr, re.MULTILINE)


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "e.tri"
    path.write_text(SEVERAL)
    return path


def test_every_semantic_error_is_printed_in_order(source, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tritonc("e.tri", "-o", "e.cubin")
    assert run.status == 1
    assert _errors(run.stderr) == EXPECTED
    assert "too many errors" not in run.stderr
    assert "skipped_after" not in run.stderr
    assert "\n      a = undefined1;\n          ^\n" in run.stderr  # each with its line and caret
    assert_clean(run)
    assert not (tmp_path / "e.cubin").exists()


@pytest.mark.parametrize("spelling", [["-ferror-limit", "2"], ["-ferror-limit=2"]])
def test_the_limit_stops_the_checks(source, tmp_path, monkeypatch, spelling):
    monkeypatch.chdir(tmp_path)
    run = tritonc("e.tri", *spelling, "-o", "e.cubin")
    assert run.status == 1
    assert _errors(run.stderr) == EXPECTED[:2]
    assert run.stderr.rstrip().endswith("tritonc: fatal error: too many errors emitted, stopping now "
                                        "[-ferror-limit=2]")
    assert_clean(run)
    assert not (tmp_path / "e.cubin").exists()


def test_default_limit_is_20_and_0_is_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    body = "".join(f"  a = u{i};\n" for i in range(25))
    (tmp_path / "e.tri").write_text(f"__global__ void k(float *X) {{\n  int a = 0;\n{body}}}\n")
    run = tritonc("e.tri", "-o", "e.cubin")
    assert len(_errors(run.stderr)) == 20
    assert "too many errors emitted, stopping now [-ferror-limit=20]" in run.stderr
    run = tritonc("e.tri", "-ferror-limit=0", "-o", "e.cubin")
    assert [m for _, m in _errors(run.stderr)] == [f"use of undeclared identifier 'u{i}'" for i in range(25)]
    assert "too many errors" not in run.stderr
    run = tritonc("e.tri", "-ferror-limit", "25", "-o", "e.cubin")
    assert len(_errors(run.stderr)) == 25 and "fatal error: too many errors" in run.stderr


def test_errors_in_several_signatures_then_no_bodies(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.tri").write_text("__global__ int k(float *X) { return undefined; }\n"
                                    "__global__ void k2(float X[16]) { }\n")
    run = tritonc("e.tri", "-o", "e.cubin")
    assert run.status == 1
    found = _errors(run.stderr)
    assert [loc.split(":")[0] for loc, _ in found] == ["1", "2"], run.stderr
    assert "undeclared identifier" not in run.stderr  # the bodies were not checked


def test_the_parser_stops_at_its_first_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.tri").write_text("__global__ void k(float *X) {\n  int a = 1\n  int b = 2\n  a = u;\n}\n"
                                    "__global__ void j( {\n}\n")
    run = tritonc("e.tri", "-o", "e.cubin")
    assert run.status == 1
    assert run.stderr.count(": error:") == 1, run.stderr


@pytest.mark.parametrize("value", ["x", "-1", ""])
def test_bad_limits_are_usage_errors(source, tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    run = tritonc("e.tri", f"-ferror-limit={value}", "-o", "e.cubin")
    assert run.status == 2
    assert "Invalid value for -ferror-limit: '-ferror-limit=" in run.stderr
    assert "the limit must be a number of errors, 0 or more" in run.stderr
    assert not (tmp_path / "e.cubin").exists()


def test_missing_limit_at_the_end_is_a_usage_error(source, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tritonc("e.tri", "-o", "e.cubin", "-ferror-limit")
    assert run.status == 2 and "Invalid value for -ferror-limit" in run.stderr


def test_api_raises_compile_errors(source):
    with pytest.raises(CompileErrors) as info:
        Compilation(source, CompileOptions(arch="sm_80")).ttir
    err = info.value
    assert isinstance(err, CompileError) and err.message == EXPECTED[0][1]
    assert [d.message for d in err.diagnostics] == [m for _, m in EXPECTED]
    assert err.limit is None
    with pytest.raises(CompileErrors) as info:
        Compilation(source, CompileOptions(arch="sm_80", error_limit=3)).ttir
    assert [d.severity for d in info.value.diagnostics] == ["error"] * 3 + ["fatal error"]


def test_one_error_is_the_plain_compile_error(tmp_path):
    path = tmp_path / "one.tri"
    path.write_text("__global__ void k(float *X) {\n  int a = u;\n}\n")
    with pytest.raises(CompileError) as info:
        Compilation(path, CompileOptions(arch="sm_80")).ttir
    assert type(info.value) is CompileError and info.value.diagnostics == [info.value.diagnostic]


def test_error_limit_is_not_part_of_the_artifact_identity():
    assert artifact_identity(CompileOptions(error_limit=3)) == artifact_identity(CompileOptions())
    assert DiagnosticSink().error_limit == 20
    with pytest.raises(ValueError):
        CompileErrors([])
