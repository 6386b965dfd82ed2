"""tritonc-tune (tritonc/tools/tune.py, tune_inputs.py, tune_timing.py) without a GPU: the
sizes file, expressions, argument construction, the output check, and the measuring loop
against a fake GPU (numpy memory) and a fake launcher module, down to the table it writes.
The GPU run is tests/gpu/test_tuner_gpu.py."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tritonc.launcher.signature import KernelParam
from tritonc.tools.tune import measure, resolve_key, table_for
from tritonc.tools.tune_inputs import (PointerArg, TuneError, check_inputs, evaluate, host_arguments, outputs_match,
                                       parse_sizes)
from tritonc.tuning.table import parse_table

ROOT = Path(__file__).resolve().parents[2]
TUNE_BIN = Path(sys.executable).parent / "tritonc-tune"

MATMUL_PARAMS = [KernelParam("A", "pointer", "float16", readonly=True), KernelParam("B", "pointer", "float16", readonly=True),
                 KernelParam("C", "pointer", "float16"), KernelParam("M", "scalar", "int32"),
                 KernelParam("N", "scalar", "int32"), KernelParam("K", "scalar", "int32"),
                 KernelParam("lda", "scalar", "int32"), KernelParam("ldb", "scalar", "int32"),
                 KernelParam("ldc", "scalar", "int32")]

MATMUL_SIZES = """
key = ["M", "N", "K"]
[buckets]
K = [1024, 8192]
[[sizes]]
M = 64
N = 32
K = 48
[args]
A = { shape = ["M", "K"], strides = ["lda", 1] }
B = { shape = ["K", "N"], dtype = "float16" }
C = { shape = ["M", "N"], init = "zeros" }
lda = "K + 8"
ldb = "N"
ldc = "N"
"""


# ----------------------------------------------------------------------------- expressions

@pytest.mark.parametrize("expr, value", [(7, 7), (2.5, 2.5), ("M", 64), ("M * N + 1", 2049), ("(M - 4) // 3", 20),
                                         ("M % 7", 1), ("-M", -64), ("cdiv(M, 48)", 2), ("min(M, N)", 32),
                                         ("max(M, 100)", 100)])
def test_evaluate(expr, value):
    assert evaluate(expr, {"M": 64, "N": 32}, "here") == value


@pytest.mark.parametrize("expr, match", [
    ("M ** 2", "only numbers"), ("__import__('os')", "only numbers"), ("M.real", "only numbers"),
    ("Q + 1", "'Q', which is not a size"), ("M // 0", "divides by zero"), ("cdiv(M, 0)", "divides by zero"),
    ("M +", "not an expression"), (True, "expected a number"), ([1], "expected a number or an expression string"),
    ("'M'", "only numbers")])
def test_evaluate_rejects(expr, match):
    with pytest.raises(TuneError, match=match):
        evaluate(expr, {"M": 64}, "here")


# ----------------------------------------------------------------------------- the sizes file

def test_parse_sizes():
    spec = parse_sizes(MATMUL_SIZES, "s.toml")
    assert spec.key == ["M", "N", "K"] and spec.buckets == {"K": [1024, 8192]}
    assert spec.sizes == [{"M": 64, "N": 32, "K": 48}]
    assert spec.args["A"] == PointerArg(["M", "K"], None, ["lda", 1], "random")
    assert spec.args["lda"] == "K + 8"


def test_toml_syntax_error_has_its_place():
    with pytest.raises(TuneError) as e:
        parse_sizes("[[sizes]]\nM = = 3\n", "s.toml")
    assert e.value.loc is not None and (e.value.loc.file, e.value.loc.line) == ("s.toml", 2)


@pytest.mark.parametrize("text, match", [
    ("", "at least one \\[\\[sizes\\]\\]"),
    ("[[sizes]]\nM = 1.5\n", "M = 1.5 is not an integer"),
    ("bogus = 1\n[[sizes]]\nM = 1\n", "unknown field 'bogus'"),
    ("key = 'M'\n[[sizes]]\nM = 1\n", "'key' must be a list"),
    ("[[sizes]]\nM = 1\n[buckets]\nM = [8, 4]\n", "strictly ascending"),
    ("[[sizes]]\nM = 1\n[args.A]\nshape = []\n", "'shape' must list"),
    ("[[sizes]]\nM = 1\n[args.A]\nshape = ['M']\nstrides = [1, 1]\n", "one stride per extent"),
    ("[[sizes]]\nM = 1\n[args.A]\nshape = ['M']\ninit = 'nan'\n", "init must be"),
    ("[[sizes]]\nM = 1\n[args.A]\nshape = ['M']\ncolour = 1\n", "unknown field 'colour'"),
    ("grid = []\n[[sizes]]\nM = 1\n", "1 to 3 expressions"),
])
def test_bad_sizes_files(text, match):
    with pytest.raises(TuneError, match=match):
        parse_sizes(text, "s.toml")


def test_host_arguments_follow_shapes_and_strides():
    spec = parse_sizes(MATMUL_SIZES, "s.toml")
    args = host_arguments(MATMUL_PARAMS, spec, spec.sizes[0], np.random.default_rng(0))
    a, b, c, m, n, k, lda, ldb, ldc = args
    assert (m, n, k, lda, ldb, ldc) == (64, 32, 48, 56, 32, 32)
    assert a.dtype == np.float16 and a.size == 1 + 63 * 56 + 47   # strided rows
    assert b.size == 48 * 32 and c.size == 64 * 32 and not c.any()
    assert np.abs(a.astype(np.float32)).max() <= 1.0


@pytest.mark.parametrize("edit, match", [
    (lambda s: s.args.pop("lda"), "no value for scalar parameter 'lda'"),
    (lambda s: s.args.pop("A"), "pointer parameter 'A' needs \\[args.A\\]"),
    (lambda s: s.args.__setitem__("B", PointerArg(["K"], "float32")), "has dtype float32, but 'B' points to float16"),
    (lambda s: s.args.__setitem__("M", PointerArg(["K"])), "'M' is a int32 scalar"),
    (lambda s: s.args.__setitem__("ldc", "N / 2"), "only numbers"),
    (lambda s: s.args.__setitem__("ldc", 2.5), "integer parameter, but its value is 2.5"),
    (lambda s: s.args.__setitem__("C", PointerArg(["M - 100", "N"])), "non-negative integer extents"),
])
def test_host_argument_errors(edit, match):
    spec = parse_sizes(MATMUL_SIZES, "s.toml")
    edit(spec)
    with pytest.raises(TuneError, match=match):
        host_arguments(MATMUL_PARAMS, spec, spec.sizes[0], np.random.default_rng(0))


def test_check_inputs():
    params = MATMUL_PARAMS[2:4]
    out = check_inputs(params, [np.zeros((2, 3), np.float16), np.int32(5)], "in.py", {"M": 2})
    assert out[0].shape == (6,) and out[1] == 5 and type(out[1]) is int
    for values, match in [([1], "a list of 2 arguments, got 1"), ("x", "got str"),
                          ([np.zeros(2, np.float32), 1], "numpy array of float16, got a float32 array"),
                          ([np.zeros(2, np.float16), "7"], "'M' needs a number")]:
        with pytest.raises(TuneError, match=match):
            check_inputs(params, values, "in.py", {"M": 2})


def test_resolve_key():
    spec = parse_sizes(MATMUL_SIZES, "s.toml")
    assert resolve_key(spec, MATMUL_PARAMS, [], "mm") == ["M", "N", "K"]
    assert resolve_key(spec, MATMUL_PARAMS, ["M", "N", "K"], "mm") == ["M", "N", "K"]
    with pytest.raises(TuneError, match="marks \\['M'\\] __retune"):
        resolve_key(spec, MATMUL_PARAMS, ["M"], "mm")
    spec.key = None
    with pytest.raises(TuneError, match="no __retune parameter"):
        resolve_key(spec, MATMUL_PARAMS, [], "mm")
    spec.key = ["A"]
    spec.buckets = {}
    with pytest.raises(TuneError, match="'A' is not an integer scalar parameter"):
        resolve_key(spec, MATMUL_PARAMS, [], "mm")


def test_outputs_match_tolerances():
    ref = np.array([100.0, -3.0, 0.5], np.float16)
    assert outputs_match(ref, ref + np.float16(0.5), "float16")[0]          # within 1% of max |ref|
    ok, why = outputs_match(ref, ref + np.float16(4), "float16")
    assert not ok and "3 of 3 elements differ" in why
    assert outputs_match(np.array([1, 2], np.int32), np.array([1, 2], np.int32), "int32")[0]
    assert not outputs_match(np.array([1, 2], np.int32), np.array([1, 3], np.int32), "int32")[0]
    nan = np.array([np.nan, 1.0], np.float32)
    assert outputs_match(nan, nan.copy(), "float32")[0]


# ----------------------------------------------------------------------------- measuring

class FakeGpu:
    """Device memory as numpy byte arrays; 'time' runs launch+restore and returns a set time."""

    def __init__(self, times):
        self.mem, self.next, self.times, self.stream = {}, 0x1000, times, 7
        self.timed = []

    def upload(self, a):
        ptr, self.next = self.next, self.next + 0x100000
        self.mem[ptr] = bytearray(a.tobytes())
        return ptr

    def copy(self, dst, src, nbytes):
        self.mem[dst][:nbytes] = self.mem[src][:nbytes]

    def download(self, a, ptr):
        a.view(np.uint8)[:] = np.frombuffer(bytes(self.mem[ptr][:a.nbytes]), np.uint8)

    def sync(self):
        pass

    def free_all(self):
        pass

    def time(self, launch, restore, warmup, reps):
        for _ in range(warmup + reps):
            restore()
            launch(self.stream)
        self.timed.append(launch)
        return self.times.pop(0)


def fake_accumulating_module(gpu, wrong_variant):
    """A launcher of Z += X (n floats): the variant ``wrong_variant`` adds 1 too many."""

    class Module:
        pass

    def acc(Z, X, N, *, grid=None, stream=None, variant=None):
        z = np.frombuffer(gpu.mem[Z], np.float32, N)
        x = np.frombuffer(gpu.mem[X], np.float32, N)
        out = z + x + (1.0 if variant == wrong_variant else 0.0)
        gpu.mem[Z][:4 * N] = out.astype(np.float32).tobytes()
        acc.calls.append((variant, grid, stream))

    acc.calls = []
    acc.variants = [{"B": 1, "num_warps": 4, "num_stages": 3}, {"B": 2, "num_warps": 4, "num_stages": 3},
                    {"B": 4, "num_warps": 8, "num_stages": 3}]
    m = Module()
    m.acc = acc
    return m


def test_measure_restores_outputs_checks_them_and_builds_the_table():
    params = [KernelParam("Z", "pointer", "float32"), KernelParam("X", "pointer", "float32", readonly=True),
              KernelParam("N", "scalar", "int32")]
    spec = parse_sizes("key = ['N']\n[[sizes]]\nN = 100\n[[sizes]]\nN = 3000\n[args]\n"
                       "Z = { shape = ['N'] }\nX = { shape = ['N'] }\n", "s.toml")
    gpu = FakeGpu([9.0, 3.0, 5.0, 2.0])
    module = fake_accumulating_module(gpu, wrong_variant=1)
    ticks = []
    rng = np.random.default_rng(0)
    ms = measure(module, "acc", params, module.acc.variants, spec.sizes,
                 lambda size: host_arguments(params, spec, size, rng), ["cdiv(N, B)"], gpu, warmup=2, reps=3,
                 progress=lambda: ticks.append(1))
    assert len(ticks) == 6
    # variant 1 computes a wrong Z: it is left out with the reason; 0 and 2 are timed
    assert [m.us for m in ms] == [[9.0, None, 3.0], [5.0, None, 2.0]]
    assert all("'Z' differs from variant 0's" in m.errors[1] for m in ms)
    # restoring Z before each run keeps the accumulation from compounding: the reference check
    # of variant 2 passed after variant 0 ran 1 + 5 times
    assert (2, (25,), 7) in module.acc.calls and (0, (100,), 7) in module.acc.calls
    for m in ms:
        m.key = {"N": m.size["N"]}
    table = table_for("acc", ["N"], {}, module.acc.variants, ms, "text", "dir/acc.tri", "sm_90a")
    data = json.loads(table.dumps())
    assert data["source"] == "acc.tri" and data["kernels"]["acc"]["key"] == ["N"]
    entries = data["kernels"]["acc"]["entries"]
    assert entries["N=128"]["variant"] == 2 and entries["N=128"]["us"] == [9.0, None, 3.0]
    assert entries["N=4096"]["meta"] == {"B": 4, "num_warps": 8, "num_stages": 3}
    assert parse_table(table.dumps(), "t.json").kernels["acc"].entries.keys() == entries.keys()


def test_sizes_in_one_bucket_are_summed():
    from tritonc.tuning.table import KernelTable

    kt = KernelTable(["N"], {"N": "pow2"}, [{"num_warps": 4, "num_stages": 3}] * 2)
    kt.add({"N": 3000}, [5.0, 4.0])
    kt.add({"N": 4000}, [5.0, 7.0])
    (entry,) = kt.entries.values()
    assert entry["us"] == [10.0, 11.0] and entry["variant"] == 0 and len(entry["sizes"]) == 2


# ----------------------------------------------------------------------------- the command

def run_tune(*args, cwd):
    return subprocess.run([str(TUNE_BIN), *map(str, args)], capture_output=True, text=True, cwd=cwd)


VA_SIZES = "key = ['N']\n[[sizes]]\nN = 1000\n[args]\nZ = { shape = ['N'] }\nX = { shape = ['N'] }\nY = { shape = ['N'] }\n"


def test_cli_without_a_gpu_reports_it_and_writes_nothing(tmp_path):
    (tmp_path / "s.toml").write_text(VA_SIZES)
    r = run_tune(ROOT / "examples" / "vector_add.tri", "--sizes", "s.toml", "-o", "t.json", "--tune",
                 "BLOCK=512,1024", "-j", "1", cwd=tmp_path)
    if r.returncode == 0:
        pytest.skip("a GPU is here: tests/gpu/test_tuner_gpu.py covers the run")
    assert r.returncode == 1, r.stderr
    assert "tritonc-tune: error: no usable CUDA GPU here" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("sizes, extra, status, match", [
    ("[[sizes]]\nN = \n", [], 1, "s.toml:2:5: error: not a sizes file"),
    ("[[sizes]]\nN = 5\n", [], 1, "kernel 'vector_add' has no __retune parameter"),
    (VA_SIZES.replace("Y = { shape = ['N'] }\n", ""), [], 1, "pointer parameter 'Y' needs"),
    (VA_SIZES, ["--kernel", "nope"], 1, "no kernel named 'nope'"),
    (VA_SIZES, ["--reps", "0"], 2, "--reps"),
    (VA_SIZES, ["--num-warps", "4,3"], 2, "3 is not a power of two from 1 to 32"),
    (VA_SIZES, ["--num-stages", "0"], 2, "0 is not a positive number of stages"),
    (VA_SIZES, ["-j", "0"], 2, "0 is not a positive number of processes"),
    (VA_SIZES, ["--tune", "NOPE=1,2"], 2, "'NOPE' is neither a const tunable"),
    (VA_SIZES, ["--inputs", "missing.py"], 1, "missing.py: cannot read the --inputs file"),
    (VA_SIZES, ["--arch", "sm_10"], 2, "'sm_10' is not one of"),
])
def test_cli_errors(tmp_path, sizes, extra, status, match):
    (tmp_path / "s.toml").write_text(sizes)
    r = run_tune(ROOT / "examples" / "vector_add.tri", "--sizes", "s.toml", "-o", "t.json", *extra, cwd=tmp_path)
    assert r.returncode == status, r.stderr
    assert match in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "t.json").exists()


def test_inputs_file_errors(tmp_path):
    (tmp_path / "s.toml").write_text(VA_SIZES)
    (tmp_path / "bad.py").write_text("def make_inputs(size):\n    return [1, 2]\n")
    r = run_tune(ROOT / "examples" / "vector_add.tri", "--sizes", "s.toml", "--inputs", "bad.py", cwd=tmp_path)
    assert r.returncode == 1 and "must return a list of 4 arguments, got 2" in r.stderr
    (tmp_path / "none.py").write_text("x = 1\n")
    r = run_tune(ROOT / "examples" / "vector_add.tri", "--sizes", "s.toml", "--inputs", "none.py", cwd=tmp_path)
    assert r.returncode == 1 and "defines no function make_inputs(size)" in r.stderr


def test_a_refused_launch_leaves_the_variant_out_and_a_lost_context_stops():
    params = [KernelParam("Z", "pointer", "float32"), KernelParam("X", "pointer", "float32", readonly=True),
              KernelParam("N", "scalar", "int32")]
    spec = parse_sizes("key = ['N']\n[[sizes]]\nN = 10\n[args]\nZ = { shape = ['N'] }\nX = { shape = ['N'] }\n",
                       "s.toml")
    rng = np.random.default_rng(0)

    def run(error):
        gpu = FakeGpu([1.0, 2.0, 3.0])
        module = fake_accumulating_module(gpu, wrong_variant=None)
        plain = module.acc

        def acc(*args, variant=None, **kw):
            if variant == 0:
                raise RuntimeError(error)
            return plain(*args, variant=variant, **kw)

        acc.variants = plain.variants
        module.acc = acc
        return measure(module, "acc", params, plain.variants, spec.sizes,
                       lambda size: host_arguments(params, spec, size, rng), ["N"], gpu, 0, 1)

    (m,) = run("CUDA_ERROR_OUT_OF_RESOURCES: too many resources requested for launch")
    assert m.us == [None, 1.0, 2.0] and "OUT_OF_RESOURCES" in m.errors[0]
    with pytest.raises(TuneError, match="broke the CUDA context: CUDA_ERROR_ILLEGAL_ADDRESS"):
        run("CUDA_ERROR_ILLEGAL_ADDRESS")


def test_kernel_facts_reads_retune_and_the_declared_grid():
    from tritonc.options import CompileOptions
    from tritonc.tools.tune import kernel_facts

    text = (ROOT / "examples" / "vector_add.tri").read_text()
    name, params, retune, grid = kernel_facts(text.replace("int N)", "int N __retune)"), "v.tri", CompileOptions(), None)
    assert (name, [p.name for p in params], retune, grid) == ("vector_add", ["Z", "X", "Y", "N"], ["N"], True)
    assert kernel_facts(text, "v.tri", CompileOptions(), None)[2] == []
    two = text + text.replace("vector_add(", "vector_add2(").replace("__grid(cdiv(N, BLOCK))", "")
    with pytest.raises(TuneError, match="several kernels \\(vector_add, vector_add2\\)"):
        kernel_facts(two, "v.tri", CompileOptions(), None)
    assert kernel_facts(two, "v.tri", CompileOptions(), "vector_add2")[3] is False


def test_cli_kernel_without_a_grid_needs_one_in_the_sizes_file(tmp_path):
    text = (ROOT / "examples" / "vector_add.tri").read_text().replace("__grid(cdiv(N, BLOCK))", "")
    (tmp_path / "k.tri").write_text(text)
    (tmp_path / "s.toml").write_text(VA_SIZES)
    r = run_tune("k.tri", "--sizes", "s.toml", "-o", "t.json", cwd=tmp_path)
    assert r.returncode == 1 and "kernel 'vector_add' declares no __grid; give grid = " in r.stderr
    assert not (tmp_path / "t.json").exists()
