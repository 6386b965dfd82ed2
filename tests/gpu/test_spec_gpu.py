"""The spec rules of tests/spec/*.py that can run on a GPU (``Rule.on_gpu``), run there through the generated
Python launcher (torch tensors) and compared with the numpy interpreter on the same tile IR.

Each rule is compiled for the GPU's architecture, its fresh arguments are copied to the device,
the kernel is launched with the rule's grid, and every array argument (or the rule's
``gpu_outputs``) must match what the interpreter computed from the same inputs: exactly for
integers, and for floats within the rule's ``gpu_rtol``/``gpu_atol`` (default: its interpreter
tolerance, at least a few units in the last place of the type, since the GPU may contract
``a * b + c`` into one FMA). A rule's
``check`` (e.g. "the old values of an atomic counter are a permutation") runs on the GPU
outputs too.

Skipped without an NVIDIA GPU and driver, or without torch. Needs on the GPU machine: numpy,
ml_dtypes, lark, pcpp, llvmlite, cuda-python (cuda.core) and torch.
"""
from __future__ import annotations


import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

SPEC_DIR = Path(__file__).resolve().parents[1] / "spec"
if str(SPEC_DIR) not in sys.path:
    sys.path.insert(0, str(SPEC_DIR))

from spec_helpers import BF16, Rule, assert_close  # noqa: E402

from gpu_helpers import gpu_arch, launcher  # tests/gpu is on sys.path
from tritonc.driver import Compilation  # noqa: E402
from tritonc.interpreter import run_function  # noqa: E402

SPEC_MODULES = ("test_s2_preprocessor", "test_s3_types", "test_s4_declarations", "test_s5_expressions",
                "test_s6_statements", "test_s7_host", "test_s8_reference_examples")


GPU_ARCH = gpu_arch()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_ARCH is None, reason="no NVIDIA GPU and driver")]


def _gpu_rules() -> list:
    rules = []
    for name in SPEC_MODULES:
        spec = importlib.util.spec_from_file_location(f"spec_gpu_{name}", SPEC_DIR / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for rule in module.RULES:
            if rule.on_gpu():
                reason = rule.xfail.get("interp")  # no interpreter reference to compare with
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                rules.append(pytest.param(rule, id=f"{name[5:]}::{rule.id}", marks=marks))
    return rules


RULES = _gpu_rules()

# numpy dtype -> (torch dtype name, numpy dtype of the same width that torch.from_numpy takes)
_SAME_WIDTH = {
    np.dtype(np.uint16): ("uint16", np.int16), np.dtype(np.uint32): ("uint32", np.int32),
    np.dtype(np.uint64): ("uint64", np.int64), np.dtype(BF16): ("bfloat16", np.int16),
}


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def to_device(torch, value):
    if value is None:
        return 0
    if isinstance(value, np.ndarray):
        dtype = np.dtype(value.dtype)
        if dtype in _SAME_WIDTH:
            name, carrier = _SAME_WIDTH[dtype]
            return torch.from_numpy(np.ascontiguousarray(value).view(carrier)).cuda().view(getattr(torch, name))
        return torch.from_numpy(np.ascontiguousarray(value)).cuda()
    if isinstance(value, np.generic):
        return value.item()
    return value


def to_host(torch, tensor, like: np.ndarray) -> np.ndarray:
    dtype = np.dtype(like.dtype)
    if dtype in _SAME_WIDTH:
        _, carrier = _SAME_WIDTH[dtype]
        signed = {np.dtype(np.int16): torch.int16, np.dtype(np.int32): torch.int32,
                  np.dtype(np.int64): torch.int64}[np.dtype(carrier)]
        return tensor.view(signed).cpu().numpy().view(dtype).reshape(like.shape)
    return tensor.cpu().numpy().reshape(like.shape)


# Default GPU tolerance per float type: a few units in the last place (FMA contraction).
_FLOAT_TOL = {np.dtype(np.float16): 4e-3, np.dtype(BF16): 1.6e-2, np.dtype(np.float32): 2e-6,
              np.dtype(np.float64): 1e-13}





@pytest.mark.parametrize("rule", RULES)
def test_spec_rule_on_gpu_matches_interpreter(rule: Rule, torch):
    comp = Compilation(rule.src, rule.compile_options(GPU_ARCH))
    kernel = rule.kernel_name(comp.ttir)

    args = rule.args()
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    reference = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_function(comp.ttir, kernel, rule.grid, reference)

    device_args = [to_device(torch, a) for a in args]
    getattr(launcher(comp), kernel)(*device_args, grid=rule.grid)
    torch.cuda.synchronize()
    outputs = [to_host(torch, d, a) if isinstance(a, np.ndarray) else a for d, a in zip(device_args, args)]

    indices = rule.gpu_outputs if rule.gpu_outputs is not None else [
        i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    for i in indices:
        got = outputs[i]
        if got.dtype.kind in "fc" or got.dtype == BF16:
            default = _FLOAT_TOL[np.dtype(got.dtype)]
            rtol = rule.gpu_rtol if rule.gpu_rtol is not None else max(rule.rtol, default)
            atol = rule.gpu_atol if rule.gpu_atol is not None else max(rule.atol, default)
        else:
            rtol = atol = 0.0
        assert_close(got, reference[i], rtol, atol, f"argument {i}: GPU ({GPU_ARCH}) vs interpreter")
    if rule.check is not None:
        rule.check(outputs, inputs)
