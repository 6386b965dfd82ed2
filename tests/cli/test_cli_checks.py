"""Checks of the command line against what it asks for: an analysis that cannot run at the
chosen --emit is bad usage (exit 2); an output whose suffix names another kind than the one
written to it is a warning (-Woutput-suffix)."""
from __future__ import annotations

import pytest

from cli_helpers import ELF_MAGIC, EXAMPLES_DIR, assert_clean, leftovers, tritonc

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ----------------------------------------------------------------------------- --print-analysis

@pytest.mark.parametrize("name", ["liveness", "allocation"])
def test_gpu_analysis_with_emit_ttir_is_bad_usage(in_tmp, name):
    run = tritonc(VECTOR_ADD, "--print-analysis", name, "--emit=ttir", "-o", "-")
    assert_clean(run)
    assert run.status == 2 and run.stdout == ""
    assert run.err_lines[-1] == (f"Error: Invalid value for --print-analysis: '{name}' runs on the GPU tile IR, "
                                 "which --emit=ttir does not build; emit ttgir or a later kind")
    run = tritonc(VECTOR_ADD, "--print-analysis", name, "-o", "k.ttir")  # the kind from the suffix
    assert run.status == 2 and list(in_tmp.iterdir()) == []


def test_analysis_with_M_is_bad_usage(in_tmp):
    run = tritonc(VECTOR_ADD, "--print-analysis", "axis-info", "-M")
    assert_clean(run)
    assert run.status == 2 and run.stdout == ""
    assert run.err_lines[-1] == ("Error: Invalid value for --print-analysis: 'axis-info' cannot run: "
                                 "-M and -MM compile nothing")


@pytest.mark.parametrize("name, emit, header", [
    ("axis-info", "ttir", "// -----// Analysis axis-info //----- //"),
    ("liveness", "ttgir", "// -----// Analysis liveness //----- //"),
    ("liveness", "ttir,ptx", "// -----// Analysis liveness //----- //"),  # ptx builds the GPU tile IR
    ("allocation", "cubin", "// -----// Analysis allocation //----- //"),
])
def test_analyses_that_can_run_print(in_tmp, name, emit, header):
    run = tritonc(VECTOR_ADD, "--print-analysis", name, f"--emit={emit}", "-o", "out")
    assert run.status == 0, run.output
    assert header in run.stderr


# ----------------------------------------------------------------------------- -Woutput-suffix

def test_suffix_of_another_kind_warns(in_tmp):
    run = tritonc(VECTOR_ADD, "-o", "c.ptx", "--emit=cubin")
    assert_clean(run)
    assert run.status == 0
    assert run.err_lines == ["tritonc: warning: output 'c.ptx' has the suffix of ptx output, but --emit=cubin "
                             "writes cubin output to it [-Woutput-suffix]"]
    assert (in_tmp / "c.ptx").read_bytes()[:4] == ELF_MAGIC  # written all the same, as asked


@pytest.mark.parametrize("args", [
    ["-o", "k.ptx"],                        # the kind from the suffix
    ["-o", "k.ptx", "--emit=ptx"],
    ["-o", "k.bin", "--emit=cubin"],        # a suffix of no output kind: nothing to disagree with
    ["-o", "kernel", "--emit=ptx"],
    ["-o", "out/k", "--emit=ptx,ttir"],     # several kinds get their own suffixes
    ["-o", "out/k.ptx", "--emit=ptx,ttir"],
    ["--emit=ttir", "-o", "-"],
])
def test_matching_or_neutral_suffix_does_not_warn(in_tmp, args):
    run = tritonc(VECTOR_ADD, *args)
    assert run.status == 0, run.output
    assert run.stderr == ""


def test_suffix_warning_follows_w_flags(in_tmp):
    run = tritonc(VECTOR_ADD, "-o", "k.ll", "--emit=ttir", "-Wno-output-suffix")
    assert (run.status, run.stderr) == (0, "")
    run = tritonc(VECTOR_ADD, "-o", "k.h", "--emit=py", "-Werror")
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: output 'k.h' has the suffix of header output, but --emit=py "
                             "writes py output to it [-Woutput-suffix]"]
    assert not (in_tmp / "k.h").exists() and leftovers(in_tmp) == []
