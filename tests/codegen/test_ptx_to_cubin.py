"""tritonc.codegen.cubin: PTX -> cubin through nvJitLink and ptxas, resource usage, errors."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tritonc.codegen.cubin import (ELF_MAGIC, ResourceUsage, assemble_ptx, parse_resource_usage,
                                   ptx_to_cubin)
from tritonc.codegen.target import Target, llvm_to_ptx
from tritonc.diagnostics import CompileError, InternalCompilerError

DATA = Path(__file__).parent / "data"
HAVE_PTXAS = shutil.which("ptxas") is not None
needs_ptxas = pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not on PATH")


def vector_add_ptx(arch: str) -> str:
    return llvm_to_ptx((DATA / "vector_add.ll").read_text(), Target(arch))


@pytest.mark.parametrize("use_ptxas", [False, pytest.param(True, marks=needs_ptxas)])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_90a"])
def test_vector_add_cubin(arch, use_ptxas):
    target = Target(arch)
    result = assemble_ptx(vector_add_ptx(arch), target, use_ptxas=use_ptxas)
    assert result.cubin[:4] == ELF_MAGIC
    assert b"vector_add" in result.cubin
    assert result.tool == ("ptxas" if use_ptxas else "nvjitlink")
    usage = result.resources["vector_add"]
    assert 4 <= usage.registers <= 64
    assert usage.shared_bytes == 0 and usage.stack_bytes == 0 and not usage.spills
    assert f"for '{arch}'" in result.info_log
    assert ptx_to_cubin(vector_add_ptx(arch), target, use_ptxas=use_ptxas)[:4] == ELF_MAGIC


def test_elf_machine_is_cuda():
    cubin = ptx_to_cubin(vector_add_ptx("sm_90"), Target("sm_90"))
    assert cubin[4] == 2  # ELFCLASS64
    assert int.from_bytes(cubin[18:20], "little") == 190  # EM_CUDA


@pytest.mark.parametrize("use_ptxas", [False, pytest.param(True, marks=needs_ptxas)])
def test_static_shared_memory_and_barriers_are_reported(use_ptxas):
    ptx = llvm_to_ptx((DATA / "static_shared.ll").read_text(), Target("sm_90"))
    usage = assemble_ptx(ptx, Target("sm_90"), use_ptxas=use_ptxas).resources["basics"]
    assert usage.shared_bytes == 4096  # [1024 x float]
    assert usage.barriers == 1


BAD_PTX_MODIFIER = "add.bogus.f32"


def broken_ptx() -> str:
    ptx = vector_add_ptx("sm_90")
    assert "add.rn.f32" in ptx
    return ptx.replace("add.rn.f32", BAD_PTX_MODIFIER)


def test_nvjitlink_error_names_the_ptx():
    with pytest.raises(InternalCompilerError) as info:
        assemble_ptx(broken_ptx(), Target("sm_90"), ptx_name="vector_add.ptx")
    message = str(info.value)
    assert "nvJitLink rejected the PTX for sm_90" in message
    assert "Unknown modifier '.bogus'" in message
    assert "ptxas vector_add.ptx, line" in message


@needs_ptxas
def test_ptxas_error_names_the_ptx():
    with pytest.raises(InternalCompilerError) as info:
        assemble_ptx(broken_ptx(), Target("sm_90"), use_ptxas=True, ptx_name="vector_add.ptx")
    message = str(info.value)
    assert "ptxas rejected the PTX for sm_90" in message
    assert "Unknown modifier '.bogus'" in message
    assert "vector_add.ptx, line" in message


@pytest.mark.parametrize("use_ptxas", [False, pytest.param(True, marks=needs_ptxas)])
def test_arch_specific_ptx_needs_the_arch_specific_target(use_ptxas):
    ptx = vector_add_ptx("sm_90a")
    with pytest.raises(InternalCompilerError, match="'sm_90a' cannot be compiled for architecture 'sm_90'"):
        assemble_ptx(ptx, Target("sm_90"), use_ptxas=use_ptxas)


def test_missing_ptxas_is_a_user_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CompileError, match="no 'ptxas' is on PATH"):
        assemble_ptx(vector_add_ptx("sm_90"), Target("sm_90"), use_ptxas=True)


def test_extra_options_reach_ptxas():
    # -maxrregcount=24 (about ptxas's floor) caps the register count ptxas reports.
    ptx = llvm_to_ptx((DATA / "scalar_args.ll").read_text(), Target("sm_90"))
    for use_ptxas in (False, True) if HAVE_PTXAS else (False,):
        free = assemble_ptx(ptx, Target("sm_90"), use_ptxas=use_ptxas).resources["scalar_args"]
        capped = assemble_ptx(ptx, Target("sm_90"), use_ptxas=use_ptxas,
                              extra_options=("-maxrregcount=24",)).resources["scalar_args"]
        assert free.registers > 24
        assert capped.registers <= 24


def test_opt_level_is_checked():
    with pytest.raises(ValueError):
        assemble_ptx(vector_add_ptx("sm_90"), Target("sm_90"), opt_level=5)


# ----------------------------------------------------------------------------- log parsing

PTXAS_CLI_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'matmul' for 'sm_90'
ptxas info    : Function properties for matmul
    48 bytes stack frame, 44 bytes spill stores, 40 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 65536 bytes smem, 408 bytes cmem[0]
ptxas info    : Compiling entry function 'copy' for 'sm_90'
ptxas info    : Function properties for copy
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers
ptxas info    : Compile time = 1.0 ms
"""

NVJITLINK_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'basics' for 'sm_90'
ptxas info    : Function properties for basics
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 22 registers, used 1 barriers, 4096 bytes smem
ptxas info    : Compile time = 28.961 ms
info    : 0 bytes gmem
info    : Function properties for 'basics':
info    : used 22 registers, used 1 barriers, 0 stack, 5120 bytes smem, 556 bytes cmem[0], 0 bytes lmem
"""


def test_parse_ptxas_cli_log():
    usage = parse_resource_usage(PTXAS_CLI_LOG)
    assert usage["matmul"] == ResourceUsage("matmul", registers=255, barriers=1, shared_bytes=65536,
                                            const_bytes=408, stack_bytes=48, spill_store_bytes=44,
                                            spill_load_bytes=40)
    assert usage["matmul"].spills
    assert usage["copy"] == ResourceUsage("copy", registers=10)


def test_parse_nvjitlink_log_ignores_linker_summary():
    usage = parse_resource_usage(NVJITLINK_LOG)
    assert usage == {"basics": ResourceUsage("basics", registers=22, barriers=1, shared_bytes=4096)}
