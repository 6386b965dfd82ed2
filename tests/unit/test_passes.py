"""PassManager (verify-each, IR dumps, timing), AnalysisManager caching, the pass registry and tritonc-opt."""
from __future__ import annotations

import io
from dataclasses import dataclass

import pytest

from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Module
from tritonc.ir.parser import parse_module
from tritonc.ir.types import F32
from tritonc.passes import (Analysis, AnalysisManager, Pass, PassManager, all_passes, dump_header, get_pass,
                            parse_pipeline, register_pass)
from tritonc.tools import opt

TEXT = """module {
  tt.func @k(%p: ptr<i32>, %x: i32) attributes {kernel} {
    %zero = arith.constant {value = 0} : i32
    %y = arith.addi %x, %zero : i32
    tt.store %p, %y
    tt.return
  }
}
"""


def module() -> Module:
    return parse_module(TEXT)


@dataclass
class BreakTypesPass(Pass):
    """Gives a result the wrong type (a buggy pass)."""

    name = "test-break-types"

    def run(self, module, am):
        op = next(op for op in module.walk() if op.name == "arith.addi")
        op.results[0].type = F32
        return True


@dataclass
class CrashPass(Pass):
    name = "test-crash"

    def run(self, module, am):
        raise KeyError("oops")


@dataclass
class NoOpPass(Pass):
    name = "test-no-op"

    def run(self, module, am):
        return False


class CountOps(Analysis):
    computed = 0

    def __init__(self, module, am):
        super().__init__(module, am)
        CountOps.computed += 1
        self.count = sum(1 for _ in module.walk())


@dataclass
class RenamePass(Pass):
    """Changes the IR and declares that it preserves CountOps (names do not change the count)."""

    name = "test-rename"
    requires = (CountOps,)
    preserves = (CountOps,)

    def run(self, module, am):
        for op in module.walk():
            for r in op.results:
                r.name = "v"
        return True


def test_verify_each_reports_the_pass_as_internal_error():
    with pytest.raises(InternalCompilerError, match="after pass 'test-break-types'.*arith.addi"):
        PassManager([BreakTypesPass()]).run(module())
    PassManager([BreakTypesPass()], verify_each=False).run(module())  # no verification: no error


def test_crash_in_pass_is_internal_error_naming_it():
    with pytest.raises(InternalCompilerError, match="pass 'test-crash' failed: KeyError"):
        PassManager([CrashPass()]).run(module())


def test_print_ir_after_selected_pass_and_unchanged_note():
    out = io.StringIO()
    changed = PassManager([get_pass("canonicalize"), NoOpPass(), get_pass("cse")],
                          print_ir_after={"canonicalize", "test-no-op"}, stream=out).run(module())
    text = out.getvalue()
    assert changed
    assert text.startswith(dump_header("canonicalize") + "\nmodule {\n")
    assert "tt.store %p, %x" in text  # x + 0 folded in the dump
    # a pass that changed nothing: the header says so, and the IR is printed all the same
    assert dump_header("test-no-op", changed=False) == "// -----// IR Dump After test-no-op (unchanged) //----- //"
    first, second = text.split(dump_header("test-no-op", changed=False) + "\n")
    assert second.startswith("module {\n") and "tt.store %p, %x" in second
    assert second == first.removeprefix(dump_header("canonicalize") + "\n")  # the same module, printed again
    assert dump_header("test-no-op") not in text
    assert dump_header("cse") not in text


def test_print_ir_after_all():
    out = io.StringIO()
    PassManager([get_pass("canonicalize"), get_pass("dce")], print_ir_after="all", stream=out).run(module())
    assert out.getvalue().count("IR Dump After") == 2


def test_time_passes_table():
    out = io.StringIO()
    pm = PassManager([get_pass("canonicalize"), get_pass("cse")], time_passes=True, stream=out)
    pm.run(module())
    table = out.getvalue()
    assert "Pass execution timing report" in table
    for row in ("canonicalize", "cse", "(verify)", "Total"):
        assert f"  {row}\n" in table
    assert [name for name, _ in pm.timings] == ["canonicalize", "cse", "(verify)"]


def test_analysis_manager_caches_and_invalidates():
    m = module()
    am = AnalysisManager(m)
    CountOps.computed = 0
    assert am.get(CountOps) is am.get(CountOps) and CountOps.computed == 1
    PassManager([RenamePass()]).run(m, am)  # changed, but preserves CountOps
    assert am.cached(CountOps) is not None and CountOps.computed == 1
    PassManager([get_pass("canonicalize")]).run(m, am)  # changed, preserves nothing
    assert am.cached(CountOps) is None
    assert am.get(CountOps).count == 2 and CountOps.computed == 2  # tt.store, tt.return
    PassManager([NoOpPass()]).run(m, am)  # unchanged: cache kept
    assert am.cached(CountOps) is not None


def test_registry_lists_and_builds_passes():
    names = all_passes()
    for name in ("canonicalize", "cse", "dce", "licm", "inline"):
        assert name in names and names[name].name == name
    assert get_pass("inline", max_depth=3).max_depth == 3
    with pytest.raises(ValueError, match="unknown pass 'no-such-pass'"):
        get_pass("no-such-pass")
    with pytest.raises(ValueError, match="pass 'cse' has no option 'depth'"):
        get_pass("cse", depth=1)


def test_register_pass_rejects_a_second_pass_with_the_same_name():
    @dataclass
    class Impostor(Pass):
        name = "cse"

    with pytest.raises(ValueError, match="pass name 'cse' is taken"):
        register_pass(Impostor)


def test_parse_pipeline_with_options():
    passes = parse_pipeline("inline{max-depth=5},canonicalize,cse")
    assert [p.name for p in passes] == ["inline", "canonicalize", "cse"]
    assert passes[0].max_depth == 5
    assert parse_pipeline("") == []
    with pytest.raises(ValueError, match="option 'max-depth' of pass 'inline' expects an integer"):
        parse_pipeline("inline{max-depth=lots}")
    with pytest.raises(ValueError, match="unknown pass 'Bad Name'"):
        parse_pipeline("Bad Name")
    with pytest.raises(ValueError, match="unclosed"):
        parse_pipeline("inline{max-depth=5")


def test_parse_pipeline_boolean_option():
    """specialize's ``prune`` (on by default) takes true or false, nothing else."""
    assert parse_pipeline("specialize")[0].prune is True
    assert parse_pipeline("specialize{prune=false}")[0].prune is False
    with pytest.raises(ValueError, match="option 'prune' of pass 'specialize' expects true or false, got 'maybe'"):
        parse_pipeline("specialize{prune=maybe}")


# --- tritonc-opt -------------------------------------------------------------------------------

def run_opt(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = opt.run(argv, out, err, stdin=io.StringIO(stdin))
    return status, out.getvalue(), err.getvalue()


def test_opt_runs_passes_and_prints_ir():
    status, out, err = run_opt(["-", "--passes=canonicalize", "--print-ir-after=canonicalize"], TEXT)
    assert status == 0 and "tt.store %p, %x" in out and "arith.addi" not in out
    assert err.startswith(dump_header("canonicalize"))


def test_opt_writes_output_file(tmp_path):
    source = tmp_path / "in.ttir"
    source.write_text(TEXT)
    target = tmp_path / "out.ttir"
    status, out, _ = run_opt([str(source), "--passes=canonicalize,dce", "-o", str(target)])
    assert status == 0 and out == "" and "arith.addi" not in target.read_text()


def test_opt_exit_statuses(tmp_path):
    assert run_opt(["-", "--passes=bogus"], TEXT)[0] == 2
    assert run_opt(["-", "--passes=cse", "--print-ir-after=dce"], TEXT)[0] == 2
    status, _, err = run_opt(["-", "--passes=cse"], TEXT.replace("%x, %zero", "%x, %nope"))
    assert status == 1 and err.startswith("<stdin>:4:") and "error: use of undefined value %nope" in err
    bad = TEXT.replace("%y = arith.addi %x, %zero : i32", "%y = arith.addi %x, %zero : f32")
    status, _, err = run_opt(["-", "--passes=cse"], bad)
    assert status == 1 and "input IR does not verify" in err
    assert run_opt([str(tmp_path / "missing.ttir"), "--passes=cse"])[0] == 1
    status, out, _ = run_opt(["--list-passes"])
    assert status == 0 and "canonicalize" in out and "licm" in out


def test_opt_emits_llvm_ir_and_ptx():
    status, out, err = run_opt(["-", "--emit=llir", "--arch=sm_80"], TEXT)
    assert status == 0, err
    assert "define ptx_kernel void" in out and 'target triple = "nvptx64-nvidia-cuda"' in out
    status, out, err = run_opt(["-", "--emit=ptx", "--arch=sm_80"], TEXT)
    assert status == 0 and ".target sm_80" in out and ".entry" in out


def test_opt_emit_errors():
    assert run_opt(["-", "--emit=cubin"], TEXT)[0] == 2
    assert run_opt(["-", "--emit=ptx", "--arch=sm_70"], TEXT)[0] == 2
    tile = ("module attributes {num_warps = 4} {\n  tt.func @k() attributes {kernel} {\n"
            "    %r = tt.make_range {start = 0, end = 16} : i32[16]\n    tt.return\n  }\n}\n")
    status, _, err = run_opt(["-", "--emit=llir"], tile)  # no layouts: not lowerable
    assert status == 3 and "internal compiler error" in err and "has no layout" in err


def test_tritonc_opt_is_an_installed_command(tmp_path):
    """The RUN lines name ``tritonc-opt``: the console script next to this python runs it."""
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "tritonc-opt"
    assert exe.exists(), "tritonc-opt is not installed (pip install -e .)"
    source = tmp_path / "k.ttir"
    source.write_text(TEXT)
    proc = subprocess.run([str(exe), str(source), "--passes=canonicalize", "--emit=llir", "--arch=sm_80"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "define ptx_kernel void" in proc.stdout
