"""The tensor-core matmul in PTX: FileCheck facts for sm_80 and sm_90 (``mma.sync``,
``ldmatrix``, ``cp.async``), the instruction per operand type, and ptxas resource usage of the
benchmark configurations (no spills)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tritonc.codegen.cubin import assemble_ptx
from tritonc.driver import Compilation
from tritonc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "matmul.tri"
KERNEL = ROOT / "benchmarks" / "kernels" / "matmul.tri"
_FILECHECK = Path(sys.executable).parent / "filecheck"
FILECHECK = [str(_FILECHECK)] if _FILECHECK.exists() else [sys.executable, "-m", "filecheck"]


def ptx_of(path, arch, tile=(64, 64, 32), num_warps=4, num_stages=3, defines=None, allow_tf32=False):
    TM, TN, TK = tile
    opts = CompileOptions(defines=dict(defines or {}), tune={"TM": [TM], "TN": [TN], "TK": [TK]},
                          num_warps=num_warps, num_stages=num_stages, arch=arch, allow_tf32=allow_tf32)
    return Compilation(path, opts).ptx


def filecheck(text: str, checks: str, tmp_path) -> None:
    check_file = tmp_path / "checks.txt"
    check_file.write_text(checks)
    proc = subprocess.run(FILECHECK + [str(check_file)], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout


# The 64x64x32 matmul on 4 warps (2 x 2 warps of 32 x 32), 3 stages, K sliced in two steps of
# 16: the prologue fills the three slots (cp.async, 16 bytes, one group each), waits for slot 0
# and loads its first K slice with ldmatrix.x4 (A) and ldmatrix.x4.trans (B is K x N
# row-major); each trip loads slice 1, issues the 8 mma of slice 0, waits for the next slot,
# synchronises once, refills the slot just read, loads the next slot's slice 0 and issues
# the 8 mma of slice 1 (16 mma per trip).
MATMUL_CHECKS = """
CHECK: .extern .shared .align 16 .b8 global_smem[];
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
CHECK: cp.async.commit_group;
CHECK: cp.async.commit_group;
CHECK: cp.async.commit_group;
CHECK: cp.async.wait_group 2;
CHECK-NEXT: bar.sync 0;
CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{.*}}}, [{{.*}}];
CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{.*}}}, [{{.*}}];
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
CHECK: cp.async.wait_group 1;
CHECK-NEXT: bar.sync 0;
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
CHECK: cp.async.commit_group;
CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
CHECK: cp.async.wait_group 0;
CHECK: st.global
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_matmul_ptx_uses_tensor_cores(arch, tmp_path):
    ptx = ptx_of(EXAMPLE, arch)
    filecheck(ptx, MATMUL_CHECKS, tmp_path)
    assert ptx.count("mma.sync.aligned.m16n8k16") == 16
    assert ".extern .func" not in ptx
    assert "ld.shared.f32" not in ptx and "fma.rn.f32" not in ptx  # no FMA dot left


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("defines, allow_tf32, instruction", [
    ({"TYPE": "bfloat16"}, False, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    ({"TYPE": "float"}, True, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    ({"TYPE": "char", "ACC": "int", "OUT": "int"}, False, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"),
])
def test_instruction_per_operand_type(arch, defines, allow_tf32, instruction):
    ptx = ptx_of(KERNEL, arch, tile=(64, 64, 64), defines=defines, allow_tf32=allow_tf32)
    assert instruction in ptx
    if allow_tf32:
        assert "cvt.rna.tf32.f32" in ptx


def test_f32_without_tf32_keeps_fma():
    ptx = ptx_of(KERNEL, "sm_90", defines={"TYPE": "float"})
    assert "mma.sync" not in ptx and "fma.rn.f32" in ptx


@pytest.mark.parametrize("defines, trans", [
    ({"A_COL": "1"}, ["x4.trans"]),                  # A M-contiguous: A read transposed too
    ({"B_COL": "1"}, []),                            # B K-contiguous: no transposition at all
])
def test_column_major_operands_choose_ldmatrix_trans(defines, trans):
    ptx = ptx_of(KERNEL, "sm_90", defines=defines)
    assert "mma.sync.aligned.m16n8k16" in ptx and "cp.async.cg.shared.global" in ptx
    n_trans = ptx.count("ldmatrix.sync.aligned.m8n8.x4.trans")
    assert (n_trans > 0) == bool(trans)


def test_one_stage_is_not_pipelined():
    ptx = ptx_of(EXAMPLE, "sm_90", num_stages=1)
    assert "cp.async" not in ptx and "ldmatrix" in ptx and "mma.sync" in ptx


@pytest.mark.parametrize("tile, num_warps, num_stages", [((128, 256, 32), 8, 4), ((128, 256, 64), 8, 3),
                                                         ((128, 128, 64), 8, 4), ((128, 128, 32), 4, 4)])
def test_benchmark_configurations_do_not_spill(tile, num_warps, num_stages):
    ptx = ptx_of(KERNEL, "sm_90", tile=tile, num_warps=num_warps, num_stages=num_stages)
    from tritonc.codegen.target import Target
    res = assemble_ptx(ptx, Target("sm_90")).resources["matmul"]
    assert not res.spills and res.stack_bytes == 0, res
    assert res.registers <= 255
