"""``tritonc FILE.tri --tuning table.json``: a good table builds dispatching launchers (and is part
of the cache key); a table that does not fit the build is a diagnostic, exit status 1, and no
output is written."""
from __future__ import annotations

import json

import pytest

from cli_helpers import EXAMPLES_DIR, tritonc
from tritonc.tuning.table import KernelTable, Table, source_sha256

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"
CONFIGS = [{"BLOCK": 512, "num_warps": 4, "num_stages": 3}, {"BLOCK": 1024, "num_warps": 8, "num_stages": 3}]


def table(**changes) -> dict:
    kt = KernelTable(["N"], {"N": "pow2"}, CONFIGS)
    kt.add({"N": 1000}, [5.0, 6.0])
    kt.add({"N": 1 << 20}, [50.0, 40.0])
    data = Table("vector_add.tri", source_sha256(VECTOR_ADD.read_text()), "sm_90a", {"vector_add": kt}).to_json()
    data = json.loads(json.dumps(data))  # a deep copy: the tests edit it
    data.update(changes)
    return data


def write(tmp_path, data) -> str:
    path = tmp_path / "t.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_good_table_builds_dispatchers(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path / "cache"))
    t = write(tmp_path, table())
    out = tmp_path / "va"
    r = tritonc(VECTOR_ADD, "--tuning", t, "--emit=header,py", "-o", out, "-j", "1", "-v")
    assert r.status == 0, r.stderr
    assert "2 variant(s), 2 kept" in r.stderr
    py = (tmp_path / "va.py").read_text()
    assert "_vector_add_tuning = ((3,), (None,), (((10,), 0), ((20,), 1)))" in py
    assert "vector_add_tuned_variant(long long N)" in (tmp_path / "va.h").read_text()
    # another table is another cache entry: a changed table must not reuse the first build
    data = table()
    data["kernels"]["vector_add"]["entries"]["N=1048576"]["variant"] = 0
    write(tmp_path, data)
    r = tritonc(VECTOR_ADD, "--tuning", t, "--emit=py", "-o", tmp_path / "vb.py", "-j", "1")
    assert r.status == 0, r.stderr
    assert "_vector_add_tuning = ((3,), (None,), (((10,), 0), ((20,), 0)))" in (tmp_path / "vb.py").read_text()


def test_a_table_without_picks_embeds_every_surviving_variant(tmp_path):
    data = table()
    data["kernels"]["vector_add"]["entries"] = {}
    r = tritonc(VECTOR_ADD, "--tuning", write(tmp_path, data), "--tune", "BLOCK=256,512,1024", "--emit=py",
                "-o", tmp_path / "va.py", "-j", "1", "--no-cache")
    assert r.status == 0, r.stderr
    py = (tmp_path / "va.py").read_text()
    assert "_vector_add_tuning = ((3,), (None,), ())" in py and "vector_add__v2" in py


def _bad_variant(data):
    data["kernels"]["vector_add"]["variants"][1]["meta"]["BLOCK"] = 2048
    return data


def _other_kernel(data):
    data["kernels"]["softmax"] = data["kernels"].pop("vector_add")
    return data


def _bad_key(data):
    data["kernels"]["vector_add"]["key"] = ["X"]
    data["kernels"]["vector_add"]["buckets"] = {"X": "pow2"}
    return data


def _no_warps(data):
    del data["kernels"]["vector_add"]["variants"][0]["meta"]["num_warps"]
    return data


def _chosen_out_of_range(data):
    data["kernels"]["vector_add"]["entries"]["N=1024"]["variant"] = 7
    return data


def _unknown_name(data):
    data["kernels"]["vector_add"]["variants"][0]["meta"]["TILE"] = 4
    return data


@pytest.mark.parametrize("make, extra, match", [
    (lambda: '{"format": "tritonc-tuning-table",\n "version": 1,,\n}', [], "t.json:2:15: error: not a tuning table"),
    (lambda: table(format="other"), [], "not a tuning table"),
    (lambda: table(version=2), [], "table version 2; this tritonc reads version 1"),
    (lambda: table(source_sha256="0" * 64), [], "measured for another version of its source"),
    (lambda: table(arch="sm_80"), [], "the table was measured for sm_80, this build is for sm_90a"),
    (lambda: _other_kernel(table()), [], "the table is for kernel 'softmax', which the source does not define"),
    (lambda: _bad_variant(table()), ["--tune", "BLOCK=512,1024"],
     "variant BLOCK=2048 num_warps=8 num_stages=3 is not in this build's variant space: BLOCK=2048 is not one of 512, 1024"),
    (lambda: table(), ["--num-warps", "4,2"], "num_warps=8 is not one of 4, 2"),
    (lambda: _unknown_name(table()), [], "'TILE' is neither a const tunable of the source nor a --tune name"),
    (lambda: _bad_key(table()), [], "the tuning table's key 'X' of kernel 'vector_add' is a float32 pointer"),
    (lambda: _no_warps(table()), [], "variant 0 needs num_warps and num_stages"),
    (lambda: _chosen_out_of_range(table()), [], "variant 7 is not one of the table's 2 variants"),
])
def test_tables_that_do_not_fit(tmp_path, make, extra, match):
    t = write(tmp_path, make())
    out = tmp_path / "va"
    r = tritonc(VECTOR_ADD, "--tuning", t, "--emit=header,py", "-o", out, "-j", "1", "--no-cache", *extra)
    assert r.status == 1, r.stderr
    assert match in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "va.h").exists() and not (tmp_path / "va.py").exists()


def test_missing_table(tmp_path):
    r = tritonc(VECTOR_ADD, "--tuning", tmp_path / "none.json", "--emit=py", "-o", tmp_path / "va.py")
    assert r.status == 1 and "none.json: cannot read the tuning table" in r.stderr
    assert not (tmp_path / "va.py").exists()
