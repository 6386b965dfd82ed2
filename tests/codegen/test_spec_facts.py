"""Per-parameter specialisation (``transforms/specialize.py``): the ``eq1`` fact on stride-like
integers, through PTX and the SIMT simulator.

* PTX: with the innermost strides known to be 1 (``__spec_s1_d16``), the strided 3-D copy and
  the 3-D permutation (``examples/permute.tri``) load and store 16 bytes per access
  (``ld.global.nc.v4.b32`` / ``st.global.v4.b32``); the generic kernel stays one element per
  access, and no all-``div16`` variant is built (its facts would widen no access). conv2d's ``stride_w`` (issue 15) is found stride-like.
* Simulator against the interpreter: the variant a launcher would pick for the arguments
  (:func:`tritonc.fuzz.execute.launched_kernel`, reading ``launcher.facts``) runs in
  the simulator and matches the interpreter on the generic kernel, for each of the variants.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.fuzz.execute import launched_kernel
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel
from tritonc.tools.examples import by_name

LOADS = re.compile(r"ld\.global(?:\.nc)?(?:\.v\d)?\.[bf]\d+")
STORES = re.compile(r"st\.global(?:\.v\d)?\.[bf]\d+")


def kernels(ptx: str) -> dict[str, str]:
    parts = re.split(r"\.visible \.entry ", ptx)[1:]
    return {p.split("(", 1)[0]: p for p in parts}


def permute(kernel: str, **options) -> Compilation:
    example = by_name("permute")
    defines = {**example.defines, "T0": "8"}
    return Compilation(example.path, CompileOptions(arch="sm_90", kernel=kernel, defines=defines, specialize=True,
                                                    **options))


@pytest.mark.parametrize("kernel", ["copy3d", "permute_201"])
def test_unit_innermost_strides_vectorise_the_3d_copies(kernel):
    comp = permute(kernel, num_warps=8)  # two 16-byte accesses a thread (the counts below)
    ptx = kernels(comp.ptx)
    # no all-div16 variant: without a unit stride no access is contiguous, so its facts would
    # widen nothing (specialize's pruning; it was one element per access, as the generic kernel)
    assert list(ptx) == [kernel, f"{kernel}__spec_s1_d16", f"{kernel}__spec_s1"]
    spec = ptx[f"{kernel}__spec_s1_d16"]
    assert Counter(LOADS.findall(spec)) == {"ld.global.nc.v4.b32": 2}
    assert Counter(STORES.findall(spec)) == {"st.global.v4.b32": 2}
    assert Counter(LOADS.findall(ptx[kernel])) == {"ld.global.nc.b32": 8}
    (k,) = comp.kernels
    assert [v.name for v in k.variants] == [f"{kernel}__spec_s1_d16", f"{kernel}__spec_s1"]
    s1 = dict(k.variants[1].facts)
    assert s1 == {"sx2": "eq1", "sy2": "eq1"}
    assert k.metadata()["variants"][1]["specialization"] == "sx2 == 1, sy2 == 1"
    d16 = dict(k.variants[0].facts)
    assert d16["sx2"] == d16["sy2"] == "eq1" and d16["sx0"] == d16["D2"] == "div16" and d16["X"] == "align16"


CONV_ROW = """
__global__ void conv_row(half *X __readonly, half *Y, int stride_w, int pad_w, int Q) {
  int rq[128] = 0 ... 128;
  int rw[128] = rq * stride_w - pad_w;
  bool ok[128] = rq < Q && rw >= 0;
  *?(rq < Q)(Y + rq) = ok ? *(X + rw) : 0;
}
"""


def test_a_convolution_stride_is_stride_like():
    """A convolution's horizontal stride multiplies the index of the innermost address term: it
    gets the eq1 fact (issue 15 item 4). (examples/conv2d.tri now reads its reduction axis
    through an offset table, so there the innermost term is the table's and stride_w is not.)"""
    comp = Compilation(CONV_ROW, CompileOptions(arch="sm_90", specialize=True))
    names = [f.name for f in comp.ttir.functions]
    assert "conv_row__spec_s1" in names
    s1 = comp.ttir.functions[names.index("conv_row__spec_s1")]
    assert {a.name for a, attrs in zip(s1.args, s1.arg_attrs) if attrs.get("equal_to") == 1} == {"stride_w"}
    assert not s1.args[[a.name for a in s1.args].index("stride_w")].uses  # replaced by the constant 1
    conv = Compilation(by_name("conv2d").path, CompileOptions(arch="sm_90", defines=by_name("conv2d").defines,
                                                             specialize=True))
    assert [f.name for f in conv.ttir.functions] == ["conv2d", "conv2d__spec16", "conv2d_splitk",
                                                      "conv2d_splitk__spec16", "nhwc_to_nchw",
                                                      "nhwc_to_nchw__spec16"]


def copy3d_args(shape, strides_x, strides_y, rng):
    size_x = 1 + sum((n - 1) * s for n, s in zip(shape, strides_x))
    size_y = 1 + sum((n - 1) * s for n, s in zip(shape, strides_y))
    x = rng.standard_normal(size_x).astype(np.float32)
    y = np.full(size_y, -7.0, np.float32)
    return [y, x, *[np.int32(n) for n in shape], *[np.int32(s) for s in strides_x], *[np.int32(s) for s in strides_y]]


@pytest.mark.parametrize("shape,strides_x,strides_y,expected", [
    ((16, 16, 32), (512, 32, 1), (512, 32, 1), "copy3d__spec_s1_d16"),  # contiguous, sizes % 16 == 0
    ((3, 5, 20), (120, 24, 1), (100, 20, 1), "copy3d__spec_s1"),        # unit strides, odd sizes
    ((2, 16, 16), (1024, 64, 2), (512, 32, 1), "copy3d"),                            # sx2 == 2
    ((16, 16, 16), (4096, 256, 16), (8192, 512, 32), "copy3d"),  # everything % 16: no variant for it
])
def test_simulator_runs_the_variant_the_facts_pick_and_matches_the_interpreter(shape, strides_x, strides_y, expected):
    comp = permute("copy3d", num_warps=4)
    rng = np.random.default_rng(0)
    args = copy3d_args(shape, strides_x, strides_y, rng)
    assert launched_kernel(comp.ttgir, "copy3d", args) == expected
    grid = (-(-shape[0] // 8), -(-shape[1] // 16), -(-shape[2] // 16))
    sim = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_kernel(comp.ttgir, expected, grid, sim, arch="sm_90")
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_function(comp.frontend_module, "copy3d", grid, ref)
    np.testing.assert_array_equal(sim[0], ref[0])
    # and the copy is right: y[i, j, k] == x[i, j, k] through both strides
    idx = np.indices(shape).reshape(3, -1)
    np.testing.assert_array_equal(ref[0][np.dot(strides_y, idx)], ref[1][np.dot(strides_x, idx)])


def test_transpose_unit_stride_is_literal_so_only_the_spec16_variant_exists_and_vectorises():
    example = by_name("transpose")
    comp = Compilation(example.path, CompileOptions(arch="sm_90", defines=example.defines, specialize=True))
    ptx = kernels(comp.ptx)
    assert list(ptx) == ["transpose", "transpose__spec16"]  # In + rm * stride_in + rn: no stride-like int
    assert Counter(LOADS.findall(ptx["transpose__spec16"])) == {"ld.global.nc.v4.b32": 2}
    assert Counter(STORES.findall(ptx["transpose__spec16"])) == {"st.global.v4.b32": 2}
