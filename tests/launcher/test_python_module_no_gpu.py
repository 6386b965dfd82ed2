"""A generated Python module without a usable CUDA (issue 18 item 6): importing works; a launch
fails with the module's CUDAUnavailableError and one line of cause, not the driver loader's
traceback. Runs as real subprocesses, as a user's script would."""
from __future__ import annotations

import ctypes.util
import subprocess
import sys

import pytest

from fixture_kernels import VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.python_module import generate_python_module

SCRIPT = """
import sys
{setup}
import va
try:
    va.vector_add(0x1000, 0x2008, 0x3004, 1024, grid=4)
except va.CUDAUnavailableError as e:
    assert isinstance(e, RuntimeError)
    print("CAUGHT", e)
va.vector_add(0x1000, 0x2008, 0x3004, 1024, grid=4)
"""


def run_script(tmp_path, setup: str) -> subprocess.CompletedProcess:
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})
    (tmp_path / "va.py").write_text(generate_python_module(k))
    (tmp_path / "main.py").write_text(SCRIPT.format(setup=setup))
    return subprocess.run([sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True)


def check_one_line(proc: subprocess.CompletedProcess, cause: str) -> None:
    assert proc.returncode == 1
    caught = [line for line in proc.stdout.splitlines() if line.startswith("CAUGHT")]
    assert len(caught) == 1 and caught[0].endswith(")")
    assert caught[0].startswith(f"CAUGHT vector_add(): no usable CUDA driver or GPU here ({cause}")
    err = proc.stderr.strip().splitlines()
    assert err[-1].startswith("va.CUDAUnavailableError: vector_add(): no usable CUDA driver or GPU here (")
    assert "During handling" not in proc.stderr and "direct cause" not in proc.stderr
    assert sum(line.startswith("va.CUDAUnavailableError") for line in err) == 1
    assert len(err) <= 8, proc.stderr  # the launch's own frames only


def test_without_cuda_python_is_an_import_error(tmp_path):
    # cuda.core not importable (a machine without cuda-python): the module's requirement
    proc = run_script(tmp_path, "sys.modules['cuda.core'] = None")
    assert proc.returncode == 1 and "CAUGHT" not in proc.stdout
    assert proc.stderr.strip().splitlines()[-1].startswith("ModuleNotFoundError: ")
    assert "During handling" not in proc.stderr and "CUDAUnavailableError:" not in proc.stderr


@pytest.mark.skipif(ctypes.util.find_library("cuda") is not None, reason="this machine has a CUDA driver")
def test_without_a_driver(tmp_path):
    proc = run_script(tmp_path, "")
    check_one_line(proc, "")
    assert "DynamicLibNotFoundError" in proc.stderr.splitlines()[-1] or "CUDAError" in proc.stderr.splitlines()[-1]


def test_import_needs_no_cuda(tmp_path):
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})
    (tmp_path / "va.py").write_text(generate_python_module(k))
    code = "import sys; sys.modules['cuda'] = None; import va; print(va.vector_add.__name__, va.CUDAUnavailableError.__mro__[1].__name__)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.split() == ["vector_add", "RuntimeError"], proc.stderr


def test_kernel_cannot_be_named_like_the_exception():
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS)
    bad = type(k)(k.signature.__class__("CUDAUnavailableError", k.signature.params), k.num_warps, k.shared_bytes,
                  k.arch, k.cubin, k.ptx, {})
    with pytest.raises(ValueError, match="reserved"):
        generate_python_module(bad)
