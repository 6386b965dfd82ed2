"""Variants (tritonc/variants.py): every combination of --tune / --num-warps / --num-stages lists
compiled, pruned with reasons, linked into one cubin, and dispatched by the C header (compiled
with cc, run against the fake driver) and the Python module (fake cuda.core)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from test_c_header import build_and_run, calls, syntax_check
from test_python_module import CAI, FakeCore, load_module
from tritonc.diagnostics import CompileError
from tritonc.launcher.c_header import find_cuda_include
from tritonc.launcher.signature import Dispatcher, parse_signature_lines
from tritonc.options import CompileOptions
from tritonc.variants import VariantBuild, has_variants, variant_specs

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = (ROOT / "examples" / "vector_add.tri").read_text()
MATMUL = (ROOT / "examples" / "matmul.tri").read_text()
needs_cc = pytest.mark.skipif(find_cuda_include() is None or shutil.which("cc") is None,
                              reason="needs cc and cuda.h (nvidia-cuda-runtime wheel)")


def build(text, warps=None, stages=None, jobs=2, **options):
    return VariantBuild(text, "t.tri", CompileOptions(**options), warps, stages, jobs).build()


@pytest.fixture(scope="module")
def vector_add_variants():
    # BLOCK is a macro of the file: a --tune list of it makes variants too
    return build(VECTOR_ADD, warps=[4, 8], tune={"BLOCK": [512, 1024]}, arch="sm_90")


def test_specs_enumerate_every_combination_in_order():
    specs = variant_specs(CompileOptions(tune={"A": [1, 2], "B": [3]}), [4, 8], None)
    assert [s.describe() for s in specs] == ["A=1 num_warps=4", "A=1 num_warps=8", "A=2 num_warps=4",
                                             "A=2 num_warps=8"]
    assert [s.suffix for s in specs] == ["__v0", "__v1", "__v2", "__v3"]
    assert specs[1].options(CompileOptions(tune={"A": [1, 2], "B": [3]})).tune == {"A": [1], "B": [3]}
    assert has_variants(CompileOptions(), None, [3, 4]) and not has_variants(CompileOptions(tune={"A": [1]}), [4], [3])


def test_variants_share_one_cubin_with_a_dispatcher(vector_add_variants):
    b = vector_add_variants
    assert [k.name for k in b.kernels] == [f"vector_add__v{i}" for i in range(4)]
    assert {k.cubin for k in b.kernels} == {b.cubin}
    assert [(k.tunables["BLOCK"], k.num_warps) for k in b.kernels] == [(512, 4), (512, 8), (1024, 4), (1024, 8)]
    assert b.dispatchers == [Dispatcher("vector_add", tuple(k.name for k in b.kernels), 0)]
    assert "v3 BLOCK=1024 num_warps=8: BLOCK=1024 num_warps=8 num_stages=3" in b.explain()
    assert parse_signature_lines(b.emit("py"))[2]["meta"] == {"BLOCK": 1024, "num_warps": 4, "num_stages": 3}


@needs_cc
def test_c_dispatcher(tmp_path, vector_add_variants):
    header = vector_add_variants.emit("header")
    syntax_check(tmp_path, header)
    sizes = "fake_num_params = 4; " + " ".join(f"fake_param_sizes[{i}] = {s};" for i, s in enumerate([8, 8, 8, 4]))
    lines = build_and_run(tmp_path, header, f"""
    {sizes}
    fake_current_context = fake_context(1);
    CHECK(vector_add_num_variants());
    CHECK(vector_add_default_variant());
    printf("META %s\\n", vector_add_variant_meta(3));
    CHECK(vector_add_variant_meta(4) == NULL);
    CHECK(vector_add_variant_metadata(1)->num_warps);
    CHECK(vector_add(NULL, 0x1000, 0x2000, 0x3000, 5000));
    CHECK(vector_add_by_id(NULL, 0x1000, 0x2000, 0x3000, 5000, 3));
    CHECK(vector_add_by_id(NULL, 0x1000, 0x2000, 0x3000, 5000, 4) == CUDA_ERROR_INVALID_VALUE);
    """)
    assert "RESULT vector_add_num_variants() 4" in lines and "RESULT vector_add_default_variant() 0" in lines
    assert "META BLOCK=1024 num_warps=8 num_stages=3" in lines
    assert "RESULT vector_add_variant_meta(4) == NULL 1" in lines
    assert "RESULT vector_add_variant_metadata(1)->num_warps 8" in lines
    launches = calls(lines, "cuLaunchKernel")
    # the default (BLOCK=512, 4 warps) and variant 3 (BLOCK=1024, 8 warps), each on its own grid
    assert [(line.split(" name=")[1].split(" ")[0], line.split(" grid=")[1].split(" ")[0],
             line.split(" block=")[1].split(" ")[0]) for line in launches] == [
        ("vector_add__v0", "10,1,1", "128,1,1"), ("vector_add__v3", "5,1,1", "256,1,1")]
    assert "RESULT vector_add_by_id(NULL, 0x1000, 0x2000, 0x3000, 5000, 4) == CUDA_ERROR_INVALID_VALUE 1" in lines


def test_python_dispatcher(tmp_path, vector_add_variants):
    module = load_module(tmp_path, vector_add_variants.emit("py"))
    core = FakeCore({f"vector_add__v{i}": [8, 8, 8, 4] for i in range(4)})
    module._module._core = core
    assert module.vector_add.variants == [{"BLOCK": b, "num_warps": w, "num_stages": 3}
                                          for b in (512, 1024) for w in (4, 8)]
    assert module.vector_add.default_variant == 0 and module.vector_add.meta["BLOCK"] == 512
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 5000)
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 5000, variant=3)
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 5000, variant=2, grid=lambda m: 5000 // m["BLOCK"])
    launches = [(e[5], e[2], e[3]) for e in core.log if e[0] == "launch"]
    assert launches == [("vector_add__v0", (10, 1, 1), (128, 1, 1)), ("vector_add__v3", (5, 1, 1), (256, 1, 1)),
                        ("vector_add__v2", (4, 1, 1), (128, 1, 1))]
    with pytest.raises(ValueError, match=r"variant must be an int from 0 to 3, got 4"):
        module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 5000, variant=4)


def test_pruning_reasons_and_the_default_variant():
    # sm_90a, 128x256x64: 4 warps spill (nvJitLink's report), 5 stages need 240 KiB of shared memory
    b = build(MATMUL, warps=[4, 8], stages=[4, 5], arch="sm_90a",
              defines={"TM": "128", "TN": "256", "TK": "64"})
    pruned = {r.spec.describe(): r.pruned for r in b.results}
    assert pruned["num_warps=8 num_stages=4"] is None
    assert "spills registers" in pruned["num_warps=4 num_stages=4"]
    assert "240 KiB of shared memory, over the 227 KiB per CTA of sm_90a" in pruned["num_warps=8 num_stages=5"]
    assert [k.name for k in b.kernels] == ["matmul__v2"]
    assert "v3 num_warps=8 num_stages=5: pruned, 240 KiB" in b.explain()


def test_wgmma_pruning_and_frontend_rejections():
    b = build(MATMUL, warps=[4, 8], arch="sm_90a", tune={"TK": [48, 32]}, defines={"TM": "64", "TN": "64"},
              num_stages=3)
    pruned = {r.spec.describe(): r.pruned for r in b.results}
    assert "frontend rejects it" in pruned["TK=48 num_warps=4 num_stages=3"]
    assert "64x64x32 @ cannot run on wgmma with 8 warps" in pruned["TK=32 num_warps=8 num_stages=3"]
    assert pruned["TK=32 num_warps=4 num_stages=3"] is None


def test_every_variant_pruned_is_an_error():
    with pytest.raises(CompileError, match="every variant was pruned"):
        build(MATMUL, warps=[8], stages=[5, 6], arch="sm_90a", defines={"TM": "128", "TN": "256", "TK": "64"})


def test_ir_outputs_show_the_default_variant(vector_add_variants):
    ttir = vector_add_variants.emit("ttir")
    assert "i32[512]" in ttir and "tt.func @vector_add(" in ttir
