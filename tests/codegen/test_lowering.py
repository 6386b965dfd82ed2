"""CPU tests of the ttg -> LLVM lowering: every test kernel (``lowering_kernels.py``, IR in
``tests/lowering/``) goes through its ``LOWERING_PASSES`` (layouts, then the shared-memory
plan) -> LLVM IR -> PTX (llvmlite NVPTX, sm_80 and sm_90) -> cubin (nvJitLink, and ``ptxas``
when it is on PATH); the kernel descriptions and shared-memory sizes; and the layout math
checked against brute force. What the PTX and LLVM IR must contain is checked by the
FileCheck files in ``tests/lowering/``."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from tritonc.codegen.cubin import ptx_to_cubin
from tritonc.codegen.llvm import lower_module
from tritonc.ir.distribution import distribution
from tritonc.codegen.target import Target, llvm_to_ptx
from tritonc.ir.layouts import BlockedLayout, SliceLayout
from tritonc.ir.parser import parse_module
from tritonc.ir.verifier import verify_module
from tritonc.passes import PassManager, get_pass
from tritonc.ir.layout_algebra import default_blocked_layout

import lowering_kernels as K  # tests/codegen is on sys.path (pytest rootdir-less import)

ARCHS = ("sm_80", "sm_90")


def prepare(name: str):
    """Test kernel ``name`` as lowerable ttg IR (:data:`lowering_kernels.LOWERING_PASSES`)."""
    module = parse_module(K.KERNELS[name].ir)
    PassManager([get_pass(n) for n in K.LOWERING_PASSES]).run(module)
    verify_module(module)
    return module


def lower(name: str, arch: str):
    return lower_module(prepare(name), Target(arch))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", sorted(K.KERNELS))
def test_kernel_assembles(name, arch, tmp_path):
    lowered = lower(name, arch)
    ir_text = lowered.llvm_ir
    assert re.search(rf'define ptx_kernel void @"?{name}"?\(', ir_text)
    threads = 32 * lowered.kernels[name].num_warps
    assert f'"nvvm.maxntid"="{threads}"' in ir_text and "reqntid" not in ir_text
    ptx = llvm_to_ptx(ir_text, Target(arch))
    assert ".extern .func" not in ptx
    assert f".target {arch}" in ptx
    cubin = ptx_to_cubin(ptx, Target(arch))
    assert cubin[:4] == b"\x7fELF"
    if shutil.which("ptxas"):
        path = tmp_path / f"{name}.ptx"
        path.write_text(ptx)
        proc = subprocess.run(["ptxas", f"-arch={arch}", str(path), "-o", str(tmp_path / "k.cubin")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def test_kernel_info_describes_parameters():
    lowered = lower("scalars_grid", "sm_90")
    info = lowered.kernels["scalars_grid"]
    assert info.num_warps == 4 and info.num_threads == 128
    assert [p.llvm_type for p in info.params] == ["ptr addrspace(1)", "ptr addrspace(1)", "i8", "half", "bfloat",
                                                  "i64", "double"]
    assert [p.name for p in info.params][:3] == ["OUT", "IDS", "flag"]


def test_shared_memory_is_reported_and_declared_once():
    lowered = lower("matmul", "sm_90")
    # the FMA dot's scratch: a [32, 16] half staged transposed, rows of 32 + 8 (16 bytes of
    # padding), then b [16, 32]
    assert lowered.kernels["matmul"].shared_bytes == 16 * (32 + 8) * 2 + 16 * 32 * 2
    assert lowered.llvm_ir.count("@\"global_smem\" = external addrspace(3) global [0 x i8], align 16") == 1
    assert lower("vadd", "sm_90").kernels["vadd"].shared_bytes == 0


def test_reduction_uses_shuffles_then_shared_memory():
    module = prepare("row_col_sums")
    ptx = llvm_to_ptx(lower_module(module, Target("sm_90")).llvm_ir, Target("sm_90"))
    assert "shfl.sync.bfly.b32" in ptx
    # The column sums and the total cross warps through shared memory: store, bar.sync, load.
    # This straight-line kernel's scratch users all sit at offset 0, so insert-barriers puts one
    # bar.sync between consecutive users (write after read): 2 per user, less 1.
    users = [op for op in module.walk() if "smem_offset" in op.attrs]
    assert [op.attrs["axis"] for op in users if op.name == "tt.reduce"] == [0, 0]
    assert ptx.count("bar.sync") == 2 * len(users) - 1


# --------------------------------------------------------------------------- layout math
LAYOUTS = [
    ((1024,), BlockedLayout((4,), (32,), (4,), (0,))),
    ((16,), BlockedLayout((1,), (32,), (4,), (0,))),           # replicated 8x
    ((2,), BlockedLayout((4,), (32,), (4,), (0,))),            # more registers than elements
    ((64, 32), BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0))),
    ((8, 8), BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0))),   # wraps in both dims
    ((32, 64), BlockedLayout((4, 1), (16, 2), (1, 4), (0, 1))),
    ((16, 8, 2), BlockedLayout((1, 1, 2), (4, 8, 1), (2, 2, 1), (2, 1, 0))),
    ((64,), SliceLayout(1, BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0)))),
    ((32,), SliceLayout(0, BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0)))),
    ((16,), SliceLayout(0, SliceLayout(2, BlockedLayout((1, 1, 2), (4, 8, 1), (2, 2, 1), (2, 1, 0))))),
]


@pytest.mark.parametrize("shape,layout", LAYOUTS, ids=[str(i) for i in range(len(LAYOUTS))])
def test_every_element_has_exactly_one_canonical_copy(shape, layout):
    d = distribution(layout, shape)
    lin = d.linear_ids()
    canon = d.canonical()
    numel = int(np.prod(shape))
    assert np.bincount(lin[canon], minlength=numel).tolist() == [1] * numel
    assert lin.min() >= 0 and lin.max() < numel
    # register r of every thread holds the same coordinates modulo the thread's base
    assert lin.shape == (d.num_threads, d.num_regs)


@pytest.mark.parametrize("shape", [(1024,), (16,), (64, 64), (16, 64), (1, 64), (128, 1), (32, 16, 2), (8,)])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_default_layout_covers_threads(shape, num_warps):
    lay = default_blocked_layout(shape, num_warps)
    assert int(np.prod(lay.threads_per_warp)) == 32
    assert int(np.prod(lay.warps_per_cta)) == num_warps
    assert lay.order == tuple(range(len(shape) - 1, -1, -1))
    assert lay.size_per_thread[-1] <= 4
    d = distribution(lay, shape)
    canon = d.canonical()
    assert np.bincount(d.linear_ids()[canon], minlength=int(np.prod(shape))).max() == 1
