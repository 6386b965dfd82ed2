"""The kernels of one compilation compiled at once (``Compilation._ptx_and_kernels``): each
kernel lowered into an LLVM module of its own (``lower_kernels``), the modules compiled by
several LLVM workers (``PTXJobs``), their PTX joined (``join_ptx``) into the text one LLVM
module of all kernels gives; and ptxas's ``-split-compile`` (``assemble_ptx(threads=N)``)."""
from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from tritonc.codegen.cubin import assemble_ptx, text_sections
from tritonc.codegen.llvm import lower_kernels, lower_module
from tritonc.codegen.target import PTXJobs, join_ptx, llvm_to_ptx
from tritonc.diagnostics import InternalCompilerError
from tritonc.driver import Compilation
from tritonc.target import Target
from tritonc.tools.examples import by_name
from tritonc.tools.golden import golden_options

DATA = Path(__file__).parent / "data"
VECTOR_ADD = (DATA / "vector_add.ll").read_text()


def compilation(example: str, jobs: int) -> Compilation:
    options = dataclasses.replace(golden_options(by_name(example)), arch="sm_90a", specialize=True)
    return Compilation(by_name(example).path, options, jobs=jobs)


# reduce: a kernel that uses no shared memory (its PTX declares none) between two that do;
# layernorm_bwd: six kernels
@pytest.mark.parametrize("example", ["reduce", "layernorm_bwd"])
def test_kernels_compiled_apart_give_the_whole_modules_ptx(example):
    comp = compilation(example, jobs=2)
    whole = lower_module(comp.ttgir, comp.target, comp.options.codegen)
    assert comp.ptx == llvm_to_ptx(whole.llvm_ir, comp.target)
    assert comp.kernel_infos == whole.kernels
    assert compilation(example, jobs=1).ptx == comp.ptx


def test_lower_kernels_gives_one_module_per_kernel_in_order():
    comp = compilation("reduce", jobs=1)
    parts = list(lower_kernels(comp.ttgir, comp.target, comp.options.codegen))
    names = [f.name for f in comp.ttgir.functions if f.kind == "kernel"]
    assert [list(p.kernels) for p in parts] == [[n] for n in names]
    for part in parts:
        assert part.llvm_ir.count("define ptx_kernel") == 1


def vector_add_ptx(name: str = "vector_add") -> str:
    return llvm_to_ptx(VECTOR_ADD.replace("@vector_add(", f"@{name}("), Target("sm_90"))


def test_join_ptx_numbers_labels_by_function():
    first, second = vector_add_ptx("a"), vector_add_ptx("b")
    assert "$L__BB0_" in second
    joined = join_ptx([first, second])
    assert joined.startswith(first)
    assert joined.count(".version") == 1 and joined.count(".entry") == 2
    assert "$L__BB1_" in joined[len(first):] and "$L__BB0_" not in joined[len(first):]


def test_join_ptx_refuses_what_it_cannot_join():
    one = vector_add_ptx("a")
    with pytest.raises(InternalCompilerError, match="part 1 has 2 functions"):
        join_ptx([one, join_ptx([vector_add_ptx("b"), vector_add_ptx("c")])])
    with pytest.raises(InternalCompilerError, match="part 1's header differs"):
        join_ptx([one, vector_add_ptx("b").replace(".target sm_90", ".target sm_80")])
    with pytest.raises(InternalCompilerError, match="no PTX"):
        join_ptx([])


@pytest.mark.parametrize("jobs", [1, 2])
def test_ptx_jobs_compile_and_report_errors(jobs):
    with PTXJobs(Target("sm_90"), jobs) as ptx_jobs:
        good = [ptx_jobs.submit(VECTOR_ADD.replace("@vector_add(", f"@k{i}(")) for i in range(3)]
        bad = ptx_jobs.submit("define ptx_kernel void @broken( {")
        for i, future in enumerate(good):
            ptx, timings = future.result()
            assert f".entry k{i}(" in ptx and "emit" in timings
        with pytest.raises(InternalCompilerError, match="does not parse"):
            bad.result()
    with pytest.raises(ValueError):
        PTXJobs(Target(), 0)


@pytest.mark.parametrize("use_ptxas", [False, pytest.param(True, marks=pytest.mark.skipif(
    shutil.which("ptxas") is None, reason="no ptxas on PATH"))])
def test_split_compile_gives_the_same_kernels(use_ptxas):
    ptx = join_ptx([vector_add_ptx("a"), vector_add_ptx("b")])
    one = assemble_ptx(ptx, Target("sm_90"), use_ptxas=use_ptxas)
    two = assemble_ptx(ptx, Target("sm_90"), use_ptxas=use_ptxas, threads=2)
    assert set(two.resources) == {"a", "b"}
    assert two.resources == one.resources
    # the same machine code per kernel (the sections' order and the notes, which record the
    # assembler's options, differ)
    assert text_sections(two.cubin) == text_sections(one.cubin)
    assert set(text_sections(one.cubin)) == {".text.a", ".text.b"}
    with pytest.raises(ValueError):
        assemble_ptx(ptx, Target("sm_90"), threads=0)


def test_split_compile_falls_back_where_kernels_share_a_subroutine():
    # softmax's rcp.rn.f32 has a slow path that ptxas adds as a subroutine; assembled on two
    # threads, its kernel would take 4 more registers: it is assembled on one
    comp = compilation("softmax", jobs=2)
    one = assemble_ptx(comp.ptx, comp.target)
    two = assemble_ptx(comp.ptx, comp.target, threads=2)
    assert len(text_sections(one.cubin)) > 2
    assert two.resources == one.resources
    assert text_sections(two.cubin) == text_sections(one.cubin)
