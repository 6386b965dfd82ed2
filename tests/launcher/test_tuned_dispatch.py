"""Tuned dispatch (``tritonc --tuning table.json``): the rule (tritonc/tuning/dispatch.py), the C
header's choice (compiled with cc, run against the fake driver) and the Python module's (fake
cuda.core), which must agree with the rule for every key value."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from test_c_header import build_and_run, calls, syntax_check
from test_python_module import CAI, FakeCore, load_module
from tritonc.diagnostics import CompileError
from tritonc.launcher.c_header import find_cuda_include
from tritonc.options import CompileOptions
from tritonc.tuning.dispatch import TunedDispatch, pow2_coordinate, range_coordinate
from tritonc.tuning.table import KernelTable, Table, plan, source_sha256
from tritonc.variants import VariantBuild

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = (ROOT / "examples" / "vector_add.tri").read_text()
needs_cc = pytest.mark.skipif(find_cuda_include() is None or shutil.which("cc") is None,
                              reason="needs cc and cuda.h (nvidia-cuda-runtime wheel)")

CONFIGS = [{"BLOCK": 512, "num_warps": 4, "num_stages": 3}, {"BLOCK": 1024, "num_warps": 8, "num_stages": 3},
           {"BLOCK": 1024, "num_warps": 4, "num_stages": 3}]


def vector_add_table(buckets=None) -> Table:
    kt = KernelTable(["N"], buckets or {"N": "pow2"}, CONFIGS)
    kt.add({"N": 1000}, [5.0, 6.0, 7.0])          # bucket 1024: variant 0
    kt.add({"N": 1 << 20}, [50.0, 40.0, 45.0])    # bucket 2^20: variant 1
    kt.add({"N": 1 << 24}, [500.0, None, 400.0])  # bucket 2^24: variant 2 (1 failed)
    return Table("vector_add.tri", source_sha256(VECTOR_ADD), "sm_90", {"vector_add": kt})


@pytest.fixture(scope="module")
def tuned_build():
    p = plan(vector_add_table(), "t.json", VECTOR_ADD, ["vector_add"], "sm_90")
    assert p.configs == CONFIGS
    return VariantBuild(VECTOR_ADD, "t.tri", CompileOptions(arch="sm_90"), None, None, 2,
                        configs=p.configs, tuning=p.dispatch).build(require_all=True), p.dispatch["vector_add"]


def test_coordinates():
    assert [pow2_coordinate(v) for v in (-5, 0, 1, 2, 3, 4, 5, 4096, 4097)] == [0, 0, 0, 1, 2, 2, 3, 12, 13]
    assert pow2_coordinate(2**63 - 1) == 63
    assert [range_coordinate(v, (1024, 8192)) for v in (0, 1023, 1024, 8191, 8192, 10**9)] == [0, 0, 1, 1, 2, 2]


def test_nearest_bucket_and_tie_rule():
    td = TunedDispatch(("M", "K"), (None, (1024, 8192)), (((12, 2), 3), ((10, 0), 1), ((12, 0), 2)))
    assert td.entries == (((10, 0), 1), ((12, 0), 2), ((12, 2), 3))  # sorted by coordinates
    assert td.choose((4096, 100), 9) == 2          # exact bucket
    assert td.choose((3000, 9000), 9) == 3          # 3000 -> 4096: exact
    assert td.choose((2048, 100), 9) == 1           # distance 1 to (10,0) and to (12,0): the earlier
    assert td.choose((1 << 20, 2000), 9) == 2       # (12,0) and (12,2) both at 8+1: the earlier, (12,0)
    assert TunedDispatch(("M",), (None,), ()).choose((5,), 7) == 7   # no entry: the default


def test_tie_takes_the_smaller_bucket():
    td = TunedDispatch(("N",), (None,), (((14,), 1), ((10,), 0)))
    assert td.choose((4096,), 5) == 0               # 2^12 is 2 from both: the smaller bucket


def test_bad_dispatch_data():
    with pytest.raises(ValueError, match="strictly ascending"):
        TunedDispatch(("K",), ((8, 8),), ())
    with pytest.raises(ValueError, match="1 key names but 2 bucketing rules"):
        TunedDispatch(("K",), (None, None), ())


def test_build_embeds_only_the_tables_variants(tuned_build):
    b, td = tuned_build
    assert [k.name for k in b.kernels] == ["vector_add__v0", "vector_add__v1", "vector_add__v2"]
    assert [(k.tunables["BLOCK"], k.num_warps) for k in b.kernels] == [(512, 4), (1024, 8), (1024, 4)]
    assert b.dispatchers[0].tuning == td


@needs_cc
def test_c_dispatcher_launches_the_tuned_variant(tmp_path, tuned_build):
    b, td = tuned_build
    header = b.emit("header")
    syntax_check(tmp_path, header)
    sizes = "fake_num_params = 4; " + " ".join(f"fake_param_sizes[{i}] = {s};" for i, s in enumerate([8, 8, 8, 4]))
    probes = [0, 1, 2, 1000, 1024, 1025, 5000, 40000, 1 << 19, (1 << 20) - 3, 1 << 20, 3 << 20, 1 << 22,
              1 << 23, 1 << 24, (1 << 24) + 1, 2**31 - 1, -7] + random.Random(1).sample(range(1, 2**31 - 1), 40)
    body = "\n".join(f'    printf("PICK {n} %u\\n", vector_add_tuned_variant({n}LL));' for n in probes)
    lines = build_and_run(tmp_path, header, f"""
    {sizes}
    fake_current_context = fake_context(1);
{body}
    CHECK(vector_add(NULL, 0x1000, 0x2000, 0x3000, 1000));
    CHECK(vector_add(NULL, 0x1000, 0x2000, 0x3000, 1048576));
    CHECK(vector_add(NULL, 0x1000, 0x2000, 0x3000, 30000001));
    CHECK(vector_add_by_id(NULL, 0x1000, 0x2000, 0x3000, 1000, 2));
    CHECK(vector_add_default_variant());
    """)
    picks = {int(line.split()[1]): int(line.split()[2]) for line in lines if line.startswith("PICK")}
    assert picks == {n: td.choose((n,), b.dispatchers[0].default) for n in probes}
    assert picks[1000] == 0 and picks[1 << 20] == 1 and picks[(1 << 24) + 1] == 2
    launches = [(line.split(" name=")[1].split(" ")[0], line.split(" grid=")[1].split(" ")[0])
                for line in calls(lines, "cuLaunchKernel")]
    assert launches == [("vector_add__v0", "2,1,1"), ("vector_add__v1__spec16", "1024,1,1"),  # the specialisation check runs within
                        ("vector_add__v2", "29297,1,1"), ("vector_add__v2", "1,1,1")]


def test_python_dispatcher_launches_the_tuned_variant(tmp_path, tuned_build):
    b, td = tuned_build
    module = load_module(tmp_path, b.emit("py"))
    core = FakeCore({f"vector_add__v{i}{s}": [8, 8, 8, 4] for i in range(3) for s in ("", "__spec16")})
    module._module._core = core
    assert module.vector_add.tuning_key == ("N",)
    rng = random.Random(2)
    for n in [0, 1, 1000, 1025, 1 << 20, 3 << 20, 1 << 23, 2**31 - 1] + rng.sample(range(1, 2**31 - 1), 200):
        assert module.vector_add.tuned_variant(n) == td.choose((n,), b.dispatchers[0].default), n
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 1000)
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 1 << 20)
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 30000001)
    module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 1000, variant=2)
    launches = [(e[5], e[2]) for e in core.log if e[0] == "launch"]
    assert launches == [("vector_add__v0", (2, 1, 1)), ("vector_add__v1__spec16", (1024, 1, 1)),
                        ("vector_add__v2", (29297, 1, 1)), ("vector_add__v2", (1, 1, 1))]
    with pytest.raises(TypeError, match="parameter 'N' is int32"):  # a bad key falls to the launch's checks
        module.vector_add(CAI(0x1000), CAI(0x2000), CAI(0x3000), 1.5)


def test_ranges_buckets_in_c_and_python(tmp_path):
    table = vector_add_table({"N": [4096, 1 << 22]})
    p = plan(table, "t.json", VECTOR_ADD, ["vector_add"], "sm_90")
    b = VariantBuild(VECTOR_ADD, "t.tri", CompileOptions(arch="sm_90"), None, None, 2,
                     configs=p.configs, tuning=p.dispatch).build(require_all=True)
    td = p.dispatch["vector_add"]
    assert td.rules == ((4096, 1 << 22),)
    # 1000 -> range 0; 2^20 -> range 1; 2^24 -> range 2
    assert [td.choose((n,), 0) for n in (5, 4095, 4096, (1 << 22) - 1, 1 << 22)] == [0, 0, 1, 1, 2]
    module = load_module(tmp_path, b.emit("py"))
    assert [module.vector_add.tuned_variant(n) for n in (5, 4095, 4096, (1 << 22) - 1, 1 << 22)] == [0, 0, 1, 1, 2]
    if find_cuda_include() is not None and shutil.which("cc") is not None:
        body = "\n".join(f'    printf("PICK %u\\n", vector_add_tuned_variant({n}LL));'
                         for n in (5, 4095, 4096, (1 << 22) - 1, 1 << 22))
        lines = build_and_run(tmp_path, b.emit("header"), body)
        assert [int(line.split()[1]) for line in lines if line.startswith("PICK")] == [0, 0, 1, 1, 2]


def test_a_key_that_is_not_an_integer_parameter():
    kt = KernelTable(["X"], {"X": "pow2"}, CONFIGS[:1])
    kt.add({"X": 8}, [1.0])
    p = plan(Table("v.tri", source_sha256(VECTOR_ADD), "sm_90", {"vector_add": kt}), "t.json", VECTOR_ADD,
             ["vector_add"], "sm_90")
    with pytest.raises(CompileError, match="key 'X' of kernel 'vector_add' is a float32 pointer"):
        VariantBuild(VECTOR_ADD, "t.tri", CompileOptions(arch="sm_90"), None, None, 1,
                     configs=p.configs, tuning=p.dispatch).build(require_all=True)
