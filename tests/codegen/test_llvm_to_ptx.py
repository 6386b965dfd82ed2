"""tritonc.codegen.target: Target, llvm_to_ptx and its two LLVM traps (module docstring of tritonc/codegen/target.py)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tritonc.codegen import _llvm_worker
from tritonc.codegen import target as target_mod
from tritonc.codegen.target import INTRINSIC_REQUIREMENTS, declared_functions, external_functions, llvm_to_ptx
from tritonc.target import ARCHS, DATALAYOUT, DEFAULT_ARCH, Target
from tritonc.diagnostics import CompileError, InternalCompilerError

DATA = Path(__file__).parent / "data"
VECTOR_ADD = (DATA / "vector_add.ll").read_text()


def kernel_calling(decl: str, call: str, globals_: str = "") -> str:
    return (f"{globals_}\n{decl}\n"
            f"define ptx_kernel void @k() {{\n  {call}\n  ret void\n}}\n")


# ----------------------------------------------------------------------------- Target

def test_target_defaults():
    t = Target()
    assert t.arch == DEFAULT_ARCH == "sm_90a" and t.ptx_version == 86
    assert t.features == "+ptx86" and t.cpu == "sm_90a"
    assert t.triple == "nvptx64-nvidia-cuda"
    assert t.capability == 90 and t.arch_specific
    assert not Target("sm_90").arch_specific and Target("sm_90").capability == 90
    assert Target("sm_90a").arch_specific and Target("sm_90a").capability == 90
    assert Target("sm_86").capability == 86


@pytest.mark.parametrize("arch", ["sm_70", "sm_75", "sm_100", "90", "compute_90", ""])
def test_target_rejects_unsupported_arch(arch):
    with pytest.raises(CompileError, match="unsupported GPU architecture"):
        Target(arch)


@pytest.mark.parametrize("ptx", [70, 78, 89, 91, 100])
def test_target_rejects_unknown_ptx_version(ptx):
    with pytest.raises(CompileError, match="unsupported PTX version"):
        Target("sm_90", ptx)


@pytest.mark.parametrize("arch", ARCHS)
def test_datalayout_is_llvms_short_pointer_layout(arch):
    t = Target(arch)
    assert _llvm_worker.target_datalayout(t.triple, t.cpu, t.features) == DATALAYOUT
    assert "p3:32:32" in DATALAYOUT  # --nvptx-short-ptr: 32-bit shared pointers


# ----------------------------------------------------------------------------- llvm_to_ptx

@pytest.mark.parametrize("arch", ARCHS)
def test_vector_add_to_ptx(arch):
    ptx = llvm_to_ptx(VECTOR_ADD, Target(arch))
    assert ".version 8.6" in ptx
    assert re.search(rf"^\.target {arch}$", ptx, re.MULTILINE)
    assert ".visible .entry vector_add(" in ptx
    assert "%tid.x" in ptx and "%ctaid.x" in ptx
    assert "add.rn.f32" in ptx or "add.f32" in ptx
    assert ".extern" not in ptx


@pytest.mark.parametrize("ptx_version,text", [(80, "8.0"), (88, "8.8"), (90, "9.0")])
def test_ptx_version_feature(ptx_version, text):
    ptx = llvm_to_ptx(VECTOR_ADD, Target("sm_90", ptx_version))
    assert f".version {text}" in ptx


def test_in_process_and_worker_agree():
    t = Target("sm_80")
    assert llvm_to_ptx(VECTOR_ADD, t, isolate=False) == llvm_to_ptx(VECTOR_ADD, t, isolate=True)


def test_opt_levels_and_timings():
    timings: dict[str, float] = {}
    o0 = llvm_to_ptx(VECTOR_ADD, Target(), opt_level=0, timings=timings)
    assert {"parse", "verify", "opt", "emit"} <= timings.keys()
    assert all(v >= 0 for v in timings.values())
    o3 = llvm_to_ptx(VECTOR_ADD, Target(), opt_level=3)
    assert o0 != o3  # O3 folds the address arithmetic (mad.lo / mul.wide)
    with pytest.raises(ValueError):
        llvm_to_ptx(VECTOR_ADD, Target(), opt_level=4)


def test_explicit_matching_header_is_accepted():
    ir = f'target datalayout = "{DATALAYOUT}"\ntarget triple = "nvptx64-nvidia-cuda"\n' + VECTOR_ADD
    assert ".entry vector_add" in llvm_to_ptx(ir, Target())


def test_wrong_triple_is_rejected():
    ir = 'target triple = "x86_64-unknown-linux-gnu"\n' + VECTOR_ADD
    with pytest.raises(InternalCompilerError, match="triple 'x86_64-unknown-linux-gnu'"):
        llvm_to_ptx(ir, Target())


def test_long_pointer_datalayout_is_rejected():
    ir = 'target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"\n' + VECTOR_ADD
    with pytest.raises(InternalCompilerError, match="--nvptx-short-ptr"):
        llvm_to_ptx(ir, Target())


@pytest.mark.parametrize("isolate", [True, False])
def test_parse_error_is_internal_error(isolate):
    with pytest.raises(InternalCompilerError, match="does not parse") as info:
        llvm_to_ptx("define ptx_kernel void @k( {", Target(), isolate=isolate)
    assert "error" in str(info.value)


@pytest.mark.parametrize("isolate", [True, False])
def test_verify_error_is_internal_error(isolate):
    # %x does not dominate its use in %b: parses, but fails the verifier.
    bad = ("define ptx_kernel void @k(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\n"
           "a:\n  %x = add i32 1, 2\n  br label %b\nb:\n  %y = add i32 %x, 1\n  ret void\n}\n")
    with pytest.raises(InternalCompilerError, match="fails verification(.|\n)*dominate"):
        llvm_to_ptx(bad, Target(), isolate=isolate)


# ----------------------------------------------------------------------------- trap 1: .extern .func

@pytest.mark.parametrize("isolate", [True, False])
def test_unknown_intrinsic_becomes_extern_and_is_rejected(isolate):
    # A wrong mma name (the real one ends in .f32.f32): LLVM does not know it, verify()
    # passes, and NVPTX emits '.extern .func llvm.nvvm....' (trap 1).
    ir = kernel_calling("declare void @llvm.nvvm.bogus.intrinsic(i32)",
                        "call void @llvm.nvvm.bogus.intrinsic(i32 1)")
    with pytest.raises(InternalCompilerError, match=r"'llvm\.nvvm\.bogus\.intrinsic'"):
        llvm_to_ptx(ir, Target(), isolate=isolate)


def test_external_functions_parser():
    ptx = (".extern .func llvm.nvvm.foo\n(\n\t.param .b32 p\n);\n"
           ".extern .func  (.param .b32 func_retval0) expf\n(\n);\n"
           ".extern .shared .align 16 .b8 dsmem[];\n")
    assert external_functions(ptx) == ["llvm.nvvm.foo", "expf"]


def test_declared_functions():
    assert declared_functions(VECTOR_ADD) == ["llvm.nvvm.read.ptx.sreg.tid.x",
                                              "llvm.nvvm.read.ptx.sreg.ctaid.x",
                                              "llvm.nvvm.read.ptx.sreg.ntid.x"]


# ----------------------------------------------------------------------------- trap 2: abort()

SETMAXNREG = kernel_calling("declare void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32 immarg)",
                            "call void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32 240)")


def test_table_catches_setmaxnreg_on_sm90():
    with pytest.raises(InternalCompilerError, match="needs sm_90a, but the target is sm_90"):
        llvm_to_ptx(SETMAXNREG, Target("sm_90"))


def test_llvm_abort_in_worker_becomes_internal_error(monkeypatch):
    # Without the table, LLVM itself meets setmaxnreg on sm_90 and calls abort():
    # the worker dies, tritonc survives and reports LLVM's message.
    monkeypatch.setattr(target_mod, "INTRINSIC_REQUIREMENTS", ())
    with pytest.raises(InternalCompilerError) as info:
        llvm_to_ptx(SETMAXNREG, Target("sm_90"))
    message = str(info.value)
    assert "LLVM crashed (signal SIGABRT)" in message
    assert "Cannot select: intrinsic %llvm.nvvm.setmaxnreg.inc.sync.aligned.u32" in message
    # The next compilation starts a fresh worker.
    assert ".entry vector_add" in llvm_to_ptx(VECTOR_ADD, Target("sm_90"))
    assert "setmaxnreg.inc.sync.aligned.u32" in llvm_to_ptx(SETMAXNREG, Target("sm_90a"))


# One kernel per row of INTRINSIC_REQUIREMENTS: LLVM must abort just below the row's minimum
# and compile at it, or the table is wrong.
REQUIREMENT_KERNELS = {
    "llvm.nvvm.setmaxnreg.": (SETMAXNREG, "sm_90", "sm_90a", 86),
    "llvm.nvvm.wgmma.": (kernel_calling("declare void @llvm.nvvm.wgmma.fence.sync.aligned()",
                                         "call void @llvm.nvvm.wgmma.fence.sync.aligned()"),
                          "sm_90", "sm_90a", 86),
    "llvm.nvvm.mbarrier.try.wait.parity.relaxed.": (
        kernel_calling("declare i1 @llvm.nvvm.mbarrier.try.wait.parity.relaxed.scope.cta.space.cta(ptr addrspace(3), i32)",
                       "%r = call i1 @llvm.nvvm.mbarrier.try.wait.parity.relaxed.scope.cta.space.cta(ptr addrspace(3) @b, i32 0)",
                       "@b = internal addrspace(3) global i64 undef, align 8"),
        "sm_90", "sm_90", 85),   # fails at PTX 8.5, compiles at 8.6
    "llvm.nvvm.elect.sync": (kernel_calling("declare {i32, i1} @llvm.nvvm.elect.sync(i32)",
                                             "%r = call {i32, i1} @llvm.nvvm.elect.sync(i32 -1)"),
                              "sm_89", "sm_90", 86),
    "llvm.nvvm.griddepcontrol.": (kernel_calling("declare void @llvm.nvvm.griddepcontrol.wait()",
                                                  "call void @llvm.nvvm.griddepcontrol.wait()"),
                                   "sm_89", "sm_90", 86),
    "llvm.nvvm.fence.proxy.async": (kernel_calling("declare void @llvm.nvvm.fence.proxy.async.shared_cta()",
                                                    "call void @llvm.nvvm.fence.proxy.async.shared_cta()"),
                                     "sm_89", "sm_90", 86),
    "llvm.nvvm.cp.async.bulk.": (kernel_calling("declare void @llvm.nvvm.cp.async.bulk.commit.group()",
                                                 "call void @llvm.nvvm.cp.async.bulk.commit.group()"),
                                  "sm_89", "sm_90", 86),
    "llvm.nvvm.stmatrix.": (kernel_calling(
        "declare void @llvm.nvvm.stmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3), i32, i32, i32, i32)",
        "call void @llvm.nvvm.stmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) @s, i32 1, i32 2, i32 3, i32 4)",
        "@s = internal addrspace(3) global [64 x i32] undef, align 16"), "sm_89", "sm_90", 86),
}


def test_every_table_row_has_a_kernel():
    assert {r.prefix for r in INTRINSIC_REQUIREMENTS} == set(REQUIREMENT_KERNELS)


@pytest.mark.parametrize("prefix", sorted(REQUIREMENT_KERNELS))
def test_intrinsic_requirement_row_is_exact(prefix, monkeypatch):
    ir, below, at, ptx = REQUIREMENT_KERNELS[prefix]
    below_target = Target(below, ptx)
    at_target = Target(at, 86)
    # The table refuses below the minimum ...
    with pytest.raises(InternalCompilerError, match="which needs"):
        llvm_to_ptx(ir, below_target)
    # ... where LLVM really aborts ...
    monkeypatch.setattr(target_mod, "INTRINSIC_REQUIREMENTS", ())
    with pytest.raises(InternalCompilerError, match="Cannot select"):
        llvm_to_ptx(ir, below_target)
    monkeypatch.undo()
    # ... and accepts the minimum.
    assert ".entry k" in llvm_to_ptx(ir, at_target)


def test_worker_that_cannot_start_llvm_is_reported(monkeypatch, tmp_path):
    # A worker whose 'llvmlite' import fails exits with a traceback: reported, not hung.
    (tmp_path / "llvmlite").mkdir()
    (tmp_path / "llvmlite" / "__init__.py").write_text("raise ImportError('no LLVM here')\n")
    target_mod.shutdown_worker()
    monkeypatch.setattr(target_mod.sys, "path", [str(tmp_path), *target_mod.sys.path])
    try:
        with pytest.raises(InternalCompilerError, match="worker process exited(.|\n)*no LLVM here"):
            llvm_to_ptx(VECTOR_ADD, Target())
    finally:
        monkeypatch.undo()
        target_mod.shutdown_worker()
    assert ".entry vector_add" in llvm_to_ptx(VECTOR_ADD, Target())


def test_prestarted_worker_is_used():
    target_mod.shutdown_worker()
    target_mod.prestart_worker()
    timings: dict[str, float] = {}
    assert ".entry vector_add" in llvm_to_ptx(VECTOR_ADD, Target(), timings=timings)


def test_worker_runs_below_the_parent_priority():
    """The worker lowers its own priority by ``NICE`` (so that, started early, it does not take
    the front end's core); it still compiles."""
    target_mod.shutdown_worker()
    try:
        assert ".entry vector_add" in llvm_to_ptx(VECTOR_ADD, Target())
        (worker,) = target_mod._workers._all
        parent = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, worker._proc.pid) == min(parent + _llvm_worker.NICE, 19)
    finally:
        target_mod.shutdown_worker()
