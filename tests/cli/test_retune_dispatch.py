"""The cost model's launch-time choice over ``__retune`` arguments (docs/tuning.md, "Re-tuning at
launch"): with no GPU and no tuning table, a memory-bound kernel whose best tunables depend on
an argument gets one variant per choice, and its launchers dispatch on the argument's
power-of-two bucket as for a ``--tuning`` table. examples/softmax.tri marks its row length N
``__retune``: a row that fits one BLOCK-wide tile is read once, a longer one twice."""
import random
import re
import sys
from pathlib import Path

import pytest

from cli_helpers import ELF_MAGIC, EXAMPLES_DIR, tritonc
from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.variants import retune_build

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "launcher"))
from test_python_module import load_module  # noqa: E402

SOFTMAX = EXAMPLES_DIR / "softmax.tri"
BLOCKS = (512, 1024, 2048, 4096, 8192, 16384)


def expected_block(n: int) -> int:
    """The smallest candidate whose tile holds the row; past the largest, the two-pass path's
    BLOCKs all move the same bytes and the source's first candidate (1024) wins."""
    return next((b for b in BLOCKS if b >= n), 1024)


@pytest.fixture(scope="module")
def softmax():
    return Compilation(SOFTMAX, CompileOptions(specialize=True), jobs=2)


def test_plan_chooses_a_tile_that_holds_the_row(softmax):
    plan = softmax.retune_plan
    assert plan is not None
    td = plan.dispatch["softmax"]
    assert td.key == ("N",) and td.rules == (None,)
    blocks = [c["BLOCK"] for c in plan.configs]
    assert blocks[0] == softmax.tunables["BLOCK"] == 4096   # the default: the large problem's choice
    assert sorted(blocks) == sorted(BLOCKS)
    for n in [1, 100, 512, 513, 1000, 1024, 3000, 4096, 5000, 16384, 16385, 1 << 20]:
        assert blocks[td.choose((n,), 0)] == expected_block(n), n


def test_python_module_dispatches_on_n(softmax, tmp_path):
    module = load_module(tmp_path, retune_build(softmax).emit("py"))
    assert module.softmax.tuning_key == ("N",)
    td = softmax.retune_plan.dispatch["softmax"]
    rng = random.Random(5)
    for n in [1, 600, 4096, 9000, 16384, 70000] + rng.sample(range(1, 1 << 22), 50):
        assert module.softmax.tuned_variant(n) == td.choose((n,), 0), n


def test_cli_default_build_links_every_variant(tmp_path):
    out = tmp_path / "softmax.cubin"
    run = tritonc(SOFTMAX, "--no-cache", "-o", out, "--emit=cubin,header", "-v")
    assert run.status == 0, run.stderr
    assert out.read_bytes()[:4] == ELF_MAGIC
    assert "kernel 'softmax' chooses at launch by its __retune argument(s) N" in run.stderr
    assert "N <= 2^9: BLOCK=512; N in (2^9, 2^10]: BLOCK=1024" in run.stderr
    assert "N > 2^14: BLOCK=1024" in run.stderr
    header = (tmp_path / "softmax.h").read_text()
    assert "softmax_tuned_variant(long long N)" in header
    for i in range(len(BLOCKS)):
        assert f"softmax__v{i}" in header


@pytest.mark.parametrize("extra", [["-D", "BLOCK=1024"], ["--ptxas"], ["--emit=ptx"]])
def test_no_plan_when_fixed_or_not_linked(extra, tmp_path):
    run = tritonc(SOFTMAX, "--no-cache", "-o", tmp_path / "s.out", *extra)
    assert run.status == 0, run.stderr
    if "--emit=ptx" in extra:
        assert "softmax__v" not in (tmp_path / "s.out").read_text()
    options = CompileOptions(defines={"BLOCK": "1024"}) if extra[0] == "-D" else \
        CompileOptions(use_ptxas=True) if extra == ["--ptxas"] else None
    if options is not None:
        assert Compilation(SOFTMAX, options).retune_plan is None


def test_no_plan_without_retune_arguments():
    text = SOFTMAX.read_text().replace("int N __retune", "int N")
    assert Compilation(text, CompileOptions(), path="s.tri").retune_plan is None


def test_kernel_warps_reach_every_variant(tmp_path):
    """--kernel-warps names the source's kernels; each variant's copies (``__v<i>``) take them."""
    out = tmp_path / "rms.h"
    run = tritonc(EXAMPLES_DIR / "rmsnorm.tri", "--no-cache", "-o", out, "--emit=header",
                  "--kernel-warps", "rmsnorm_bwd=8", "-Wno-spill")
    assert run.status == 0 and run.stderr == "", run.stderr
    header = out.read_text()
    assert "rmsnorm_bwd_tuned_variant(long long N)" in header
    bwd = re.findall(r'"name":"rmsnorm_bwd__v\d+","arch":"sm_90a","num_warps":(\d+)', header)
    fwd = re.findall(r'"name":"rmsnorm_fwd__v\d+","arch":"sm_90a","num_warps":(\d+)', header)
    assert len(bwd) >= 4 and set(bwd) == {"8"}, bwd
    assert "4" in set(fwd), fwd


def test_resource_usage_reports_every_variant_in_the_cubin(tmp_path):
    run = tritonc(SOFTMAX, "--no-cache", "-o", tmp_path / "s.cubin", "--resource-usage")
    assert run.status == 0, run.stderr
    for i in range(len(BLOCKS)):
        assert f"kernel 'softmax__v{i}' (variant v{i}: BLOCK=" in run.stderr
        assert f"kernel 'softmax__v{i}__spec16' (variant v{i}: BLOCK=" in run.stderr
    assert "kernel 'softmax' for" not in run.stderr


def test_a_plan_whose_variant_cannot_be_built_falls_back_with_a_warning(monkeypatch):
    """A plan that cannot be built at all is dropped: -Wspill says so, and the one default
    variant serves every size (what the CLI then writes)."""
    from tritonc.diagnostics import CompileError
    from tritonc.variants import VariantBuild

    def refuse(self, require_all=False):
        raise CompileError("the tuning table's variant BLOCK=16384 cannot be built: it spills")

    monkeypatch.setattr(VariantBuild, "build", refuse)
    comp = Compilation(SOFTMAX, CompileOptions(specialize=True), jobs=1)
    assert comp.retune_plan is not None
    assert retune_build(comp) is None
    (warning,) = comp.diag.warnings
    assert "no launch-time choice over the __retune arguments" in warning.message and "spills" in warning.message


def test_a_spilling_variant_is_left_out_and_its_buckets_take_the_nearest_other():
    """examples/rmsnorm.tri's one-pass backward at BLOCK=16384 (16 warps) spills: the plan keeps
    its other variants with no warning (-v names the one left out, below), and rows of
    2^13..2^14 take the BLOCK=8192 variant (its tiled path), the nearest bucket."""
    comp = Compilation(EXAMPLES_DIR / "rmsnorm.tri", CompileOptions(specialize=True, kernel="rmsnorm_bwd"), jobs=2)
    plan = comp.retune_plan
    assert plan is not None and any(c["BLOCK"] == 16384 for c in plan.configs)
    build = retune_build(comp)
    assert build is not None
    assert comp.diag.warnings == []
    (pruned,) = [r for r in build.results if r.pruned]
    assert pruned.tunables["BLOCK"] == 16384 and "spills" in pruned.pruned
    blocks = [r.tunables["BLOCK"] for r in build.survivors]
    assert 16384 not in blocks and len(blocks) == len(plan.configs) - 1
    (d,) = [d for d in build.dispatchers if d.name == "rmsnorm_bwd"]
    assert all(0 <= v < len(blocks) for _, v in d.tuning.entries)
    for n, want in ((4096, 4096), (12000, 8192), (16384, 8192), (700, 1024)):
        assert blocks[d.tuning.choose((n,), build.default)] == want, n


def test_verbose_names_the_variant_left_out(tmp_path):
    run = tritonc(EXAMPLES_DIR / "rmsnorm.tri", "--kernel", "rmsnorm_bwd", "-o", tmp_path / "r.cubin", "-v")
    assert run.status == 0, run.stderr
    assert "warning" not in run.stderr
    assert re.search(r"left out of the launch-time choice: BLOCK=16384 G=\d+: 'rmsnorm_bwd__v\d+' spills registers",
                     run.stderr), run.stderr


def test_a_spilling_specialised_copy_is_not_launched_and_its_variant_stays():
    """A specialised copy that spills while its kernel does not leaves the launchers' choice
    (its facts then run the next copy); the variant itself is not pruned for it."""
    from types import SimpleNamespace

    from tritonc.launcher.signature import KernelParam, KernelSignature, KernelVariant
    from tritonc.variants import VariantResult, VariantSpec, _drop_spilling_copies, _spills

    sig = KernelSignature("k__v0", (KernelParam("x", "pointer", "float32"), KernelParam("n", "scalar", "int32")))
    le = KernelVariant("k__v0__spec16_le", (("x", "align16"), ("n", "div16"), ("n", "le1024")))
    spec16 = KernelVariant("k__v0__spec16", (("x", "align16"), ("n", "div16")))
    r = VariantResult(VariantSpec(0, (), None, None), kernels=[{"signature": sig, "variants": (le, spec16)}])
    usage = {"k__v0": SimpleNamespace(spills=False, spill_store_bytes=0),
             "k__v0__spec16": SimpleNamespace(spills=False, spill_store_bytes=0),
             "k__v0__spec16_le": SimpleNamespace(spills=True, spill_store_bytes=120)}
    notes = _drop_spilling_copies(r, usage)
    assert r.kernels[0]["variants"] == (spec16,) and _spills(r, usage) is None
    assert notes == ["'k__v0__spec16_le' spills registers (120 bytes spill stores in nvJitLink's report) "
                     "where 'k__v0' does not: not launched"]
    # a kernel that spills itself: its copies stay, and the variant is pruned for the kernel
    r2 = VariantResult(VariantSpec(1, (), None, None), kernels=[{"signature": sig, "variants": (le,)}])
    usage["k__v0"] = SimpleNamespace(spills=True, spill_store_bytes=8, registers=255, spill_load_bytes=8)
    assert _drop_spilling_copies(r2, usage) == [] and r2.kernels[0]["variants"] == (le,)
    assert "'k__v0' spills registers" in _spills(r2, usage)
