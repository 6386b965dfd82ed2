"""Per-kernel warps: ``--kernel-warps NAME=N`` (``CompileOptions.kernel_warps``) gives the named
kernels of a file their own warp count, carried by the ttg IR (the kernels' ``num_warps``
attributes), the PTX (``.maxntid``), the launchers' metadata and block sizes, and the SIMT
simulator; the other kernels take ``--num-warps N`` or the automatic choice, one count per
file (the tile rule per kernel measured worse: ``Compilation.kernel_num_warps``)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tritonc.diagnostics import CompileError
from tritonc.driver import Compilation
from tritonc.launcher.build import compiled_kernels
from tritonc.options import CompileOptions
from tritonc.simt.simulator import run_kernel
from tritonc.tools.examples import by_name
from tritonc.tuning import cost_model as cm
from tritonc.tuning import memory_model as mm
from tritonc.tuning import workload as wl

# a 1024-float tile (4 warps by the tile rule) and a 8192-float one (16 warps), with a reduction
# each so that the layouts' warps matter (cross-warp partials in shared memory)
SOURCE = """
__global__ void small(float *Z __noalias, float *X __noalias __readonly, int n) {
  int r[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  float x[1024] = r < n ? *(X + r) : 0;
  *?(r < n)(Z + r) = x - x[+];
}
__global__ void big(float *Z __noalias, float *X __noalias __readonly, int n) {
  int r[8192] = get_program_id(0) * 8192 + 0 ... 8192;
  float x[8192] = r < n ? *(X + r) : 0;
  *?(r < n)(Z + r) = x * 2 + x[max];
}
"""


def _comp(**kw) -> Compilation:
    return Compilation(SOURCE, CompileOptions(arch="sm_90", **kw), path="two.tri")


def test_automatic_choice_is_one_count_per_file():
    comp = _comp()
    assert comp.kernel_num_warps == {"small": 16, "big": 16} and comp.num_warps == 16
    assert all("num_warps" not in f.attrs for f in comp.ttgir.functions)


def test_each_named_kernel_takes_its_own_warps():
    comp = _comp(kernel_warps={"small": 4})
    assert comp.kernel_num_warps == {"small": 4, "big": 16}
    assert comp.num_warps == 16  # the module's attribute: the most
    funcs = {f.name: f for f in comp.ttgir.functions}
    assert comp.ttgir.attrs["num_warps"] == 16
    assert funcs["small"].attrs["num_warps"] == 4 and funcs["big"].attrs["num_warps"] == 16
    entries = dict(re.findall(r"\.entry (\w+)\(.*?\.maxntid (\d+)", comp.ptx, re.S))
    assert entries == {"small": "128", "big": "512"}


def test_num_warps_option_sets_the_others():
    comp = _comp(num_warps=8)
    assert comp.kernel_num_warps == {"small": 8, "big": 8} and comp.num_warps == 8
    assert all("num_warps" not in f.attrs for f in comp.ttgir.functions)  # the module's attribute only
    assert set(re.findall(r"\.maxntid (\d+)", comp.ptx)) == {"256"}
    comp = _comp(num_warps=8, kernel_warps={"big": 16})
    assert comp.kernel_num_warps == {"small": 8, "big": 16} and comp.num_warps == 16


def test_unknown_kernel_is_an_error():
    with pytest.raises(CompileError, match="--kernel-warps names no kernel of this file: nope"):
        _comp(kernel_warps={"nope": 4}).ptx


def test_launchers_carry_each_kernels_warps():
    comp = _comp(specialize=True, kernel_warps={"small": 4})
    by_name_ = {k.name: k for k in compiled_kernels(comp)}
    assert (by_name_["small"].num_warps, by_name_["small"].block_threads) == (4, 128)
    assert (by_name_["big"].num_warps, by_name_["big"].block_threads) == (16, 512)
    assert by_name_["small"].meta()["num_warps"] == 4 and by_name_["big"].meta()["num_warps"] == 16
    py = comp.python_module
    assert "_small_spec = _KernelSpec('small', num_warps=4," in py
    assert "_big_spec = _KernelSpec('big', num_warps=16," in py
    header = comp.header
    assert re.search(r'"name":"small","arch":"sm_90","num_warps":4,"block_threads":128', header)
    assert re.search(r'"name":"big","arch":"sm_90","num_warps":16,"block_threads":512', header)


def test_kernels_run_right_at_their_own_warps():
    """Both kernels in the SIMT simulator (lowered at their own warps): the reductions' partials
    cross 4 and 16 warps."""
    comp = _comp(kernel_warps={"small": 4})
    rng = np.random.default_rng(7)
    n = 5000
    x = rng.standard_normal(n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    run_kernel(comp.ttgir, "small", (5,), [z, x, np.int32(n)])
    want = np.concatenate([x[i:i + 1024] - x[i:i + 1024].astype(np.float64).sum() for i in range(0, n, 1024)])
    np.testing.assert_allclose(z, want, rtol=1e-5, atol=1e-4)
    z = np.full(n, np.nan, np.float32)
    run_kernel(comp.ttgir, "big", (2,), [z, x, np.int32(n)])
    want = np.concatenate([x[i:i + 8192] * 2 + x[i:i + 8192].max() for i in range(0, n, 8192)])
    np.testing.assert_allclose(z, want, rtol=1e-6)


def test_rmsnorm_kernels_with_their_own_warps():
    """examples/rmsnorm.tri (two kernels, one set of tunables): the file's count (8, from the
    4096-element rows' fp32 sums carried by its loops) for both kernels, unless --kernel-warps
    names one; -v then lists each kernel's."""
    comp = Compilation(by_name("rmsnorm").path, CompileOptions(arch="sm_90a"))
    warps = {k: v for k, v in comp.kernel_num_warps.items() if "__" not in k}
    assert warps == {"rmsnorm_fwd": 8, "rmsnorm_bwd": 8}
    comp = Compilation(by_name("rmsnorm").path,
                       CompileOptions(arch="sm_90a", specialize=True, kernel_warps={"rmsnorm_bwd": 16}))
    assert comp.kernel_num_warps == {"rmsnorm_fwd": 8, "rmsnorm_fwd__spec16": 8, "rmsnorm_bwd": 16,
                                     "rmsnorm_bwd__spec16_le": 16, "rmsnorm_bwd__spec16": 16}
    assert "warps per kernel: rmsnorm_fwd 8, rmsnorm_bwd 16" in comp.choice.explain()


def test_cli_option(tmp_path):
    from click.testing import CliRunner

    from tritonc.cli import tritonc

    out = tmp_path / "rms.py"
    res = CliRunner().invoke(tritonc, [str(by_name("rmsnorm").path), "--kernel-warps", "rmsnorm_fwd=16",
                                       "--emit=py", "-o", str(out), "-v"])
    assert res.exit_code == 0, res.output
    assert "num_warps=16 num_stages=3 (warps per kernel: rmsnorm_fwd 16, rmsnorm_bwd 8)" in res.output
    # the default build dispatches on N (a variant per row-length bucket): each variant's fwd at 16
    assert re.search(r'"name":"rmsnorm_fwd__v0","arch":"sm_90a","num_warps":16', out.read_text())
    bad = CliRunner().invoke(tritonc, [str(by_name("rmsnorm").path), "--kernel-warps", "rmsnorm_fwd=3"])
    assert bad.exit_code != 0 and "power of two" in bad.output


def test_memory_model_counts_each_kernels_threads():
    """A profile's own warps set its threads, registers and CTAs per SM."""
    gpu = wl.GPU_MODELS["sm_90a"]
    one = mm.MemoryProfile("a", (8192,), 1024, num_warps=4)
    other = mm.MemoryProfile("b", (8192,), 2048, num_warps=8)
    est = mm.estimate_memory([one, other], cm.Config((), 8, 3), gpu)
    assert est.kernel_warps == (("a", 4), ("b", 8))
    alone = mm.estimate_memory([one], cm.Config((), 8, 3), gpu)
    assert alone.ctas_per_sm == mm.estimate_memory([mm.MemoryProfile("a", (8192,), 1024)], cm.Config((), 4, 3),
                                                   gpu).ctas_per_sm
