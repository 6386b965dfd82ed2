"""Spec section 8: the two reference examples, verbatim, must compile and run correctly
(four levels, as every rule; the GPU test runs them too)."""
from pathlib import Path

import numpy as np

from spec_helpers import Rule, fixed, randn, spec_tests, zeros

SPEC_SECTION_8 = Path(__file__).resolve().parents[1] / "data" / "spec_section8"
#: The two reference kernels of spec section 8, verbatim (shared with the other test folders).
SOFTMAX = (SPEC_SECTION_8 / "softmax.tri").read_text()
MATMUL = (SPEC_SECTION_8 / "matmul.tri").read_text()


X = randn(3, 700)
A, B = randn(100, 104, dtype=np.float16), randn(90, 72, dtype=np.float16)  # K = 90 inside lda = 104 (a multiple of 8)


def _softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


RULES = [
    Rule("softmax", SOFTMAX, defines={"BLOCK": 1024}, grid=3, args=fixed(zeros(3, 700), X, 700, 700, 700),
         expect=lambda a: {0: _softmax(a[1])}, rtol=1e-5, atol=1e-7,
         ir="CHECK: %x = tt.load {{%[0-9]+}}, %check, {{%[0-9]+}} : f32[1024]\nCHECK: combine = \"maxnumf\"\n"
            "CHECK: math.exp\nCHECK: combine = \"addf\"\nCHECK: tt.store {{.*}}, %check",
         gpu_rtol=1e-5, gpu_atol=1e-7),
    # the tile the checks below expect: without it the cost model picks the target's tile
    Rule("matmul", MATMUL, tunables={"TM": 64, "TN": 64, "TK": 32}, grid=(2, 2), args=fixed(A, B, zeros(100, 72, dtype=np.float16), 100, 72, 90, 104, 72, 72),
         expect=lambda a: {2: (a[0][:, :90].astype(np.float64) @ a[1].astype(np.float64)).astype(np.float16)},
         rtol=2e-3, atol=2e-3, types={"acc": "float[64, 64]", "pa": "half*[64, 32]"},
         ir="CHECK: scf.for\nCHECK: %a = tt.load %pa{{[_0-9]*}}, {{%[0-9]+}}, {{%[0-9]+}} : f16[64,32]\nCHECK: tt.dot\n"
            "CHECK: tt.store {{.*}}, %checkc",
         ttir="CHECK: %acc{{[_0-9]*}} = tt.dot {{.*}}, %acc", gpu_rtol=5e-3, gpu_atol=5e-3),
]

test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
