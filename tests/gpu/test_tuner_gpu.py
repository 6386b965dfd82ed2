"""tritonc-tune on a GPU (skipped without one): measure vector_add's variants at two sizes, check
the table, build the dispatching launcher from it and run it on device memory allocated with the
driver API (no torch); the same through an --inputs file."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpu_helpers import gpu_arch  # tests/gpu is on sys.path

ARCH = gpu_arch()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(ARCH is None, reason="needs an NVIDIA GPU and driver")]

ROOT = Path(__file__).resolve().parents[2]
VECTOR_ADD = ROOT / "examples" / "vector_add.tri"
SIZES = """key = ["N"]
[[sizes]]
N = 1000
[[sizes]]
N = 4194304
[args]
Z = { shape = ["N"], init = "zeros" }
X = { shape = ["N"] }
Y = { shape = ["N"] }
"""


def arch() -> str:
    return "sm_90a" if ARCH == "sm_90" else ARCH


def run(*cmd, cwd):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def test_tune_then_dispatch(tmp_path):
    (tmp_path / "s.toml").write_text(SIZES)
    run(sys.executable, "-m", "tritonc.tools.tune", VECTOR_ADD, "--sizes", "s.toml", "-o", "t.json", "--tune", "BLOCK=256,1024",
        "--num-warps", "4,8", "--arch", arch(), "--reps", "10", "--no-cache", cwd=tmp_path)
    table = json.loads((tmp_path / "t.json").read_text())["kernels"]["vector_add"]
    assert [v["meta"]["BLOCK"] for v in table["variants"]] == [256, 256, 1024, 1024]
    assert set(table["entries"]) == {"N=1024", "N=4194304"}
    for e in table["entries"].values():
        assert all(t is not None and 0 < t < 10000 for t in e["us"]), e
        assert e["variant"] == min(range(4), key=lambda i: e["us"][i])
    run(sys.executable, "-m", "tritonc", VECTOR_ADD, "--tuning", "t.json", "--emit=py", "-o", "va.py", "--arch", arch(),
        "--tune", "BLOCK=256,1024", "--num-warps", "4,8", cwd=tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        import va
    finally:
        sys.path.pop(0)
    from tritonc.tools.tune_timing import Gpu

    gpu = Gpu()
    n = 4194304 + 3
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    px, py, pz = gpu.upload(x), gpu.upload(y), gpu.upload(np.zeros(n, np.float32))
    va.vector_add(pz, px, py, n)
    z = np.empty(n, np.float32)
    gpu.download(z, pz)
    np.testing.assert_array_equal(z, x + y)
    assert va.vector_add.tuned_variant(n) == va.vector_add.tuned_variant(4194304)
    gpu.free_all()


def test_inputs_file(tmp_path):
    (tmp_path / "s.toml").write_text('key = ["N"]\n[[sizes]]\nN = 5000\n')
    (tmp_path / "inputs.py").write_text(
        "import numpy as np\n"
        "def make_inputs(size):\n"
        "    n = size['N']\n"
        "    return [np.zeros(n, np.float32), np.ones(n, np.float32), np.arange(n, dtype=np.float32), n]\n")
    run(sys.executable, "-m", "tritonc.tools.tune", VECTOR_ADD, "--sizes", "s.toml", "--inputs", "inputs.py", "-o", "t.json",
        "--tune", "BLOCK=512,1024", "--arch", arch(), "--reps", "5", "--no-cache", cwd=tmp_path)
    (entry,) = json.loads((tmp_path / "t.json").read_text())["kernels"]["vector_add"]["entries"].values()
    assert entry["sizes"] == [{"N": 5000}] and all(t is not None for t in entry["us"])
