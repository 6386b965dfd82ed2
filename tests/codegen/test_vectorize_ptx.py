"""PTX of the memory-bound kernels: vectorised and read-only global accesses, parameter
alignment, the softmax kernel's barriers and math (sm_90, CPU only).

Loads and stores become 16-byte ``ld.global[.nc].v4.b32`` / ``st.global.v4.b32`` when axis
info proves alignment: promised with ``__aligned(16)`` / ``__multipleof(16)``, or assumed by
the launcher's ``__spec16`` variant (``transforms/specialize.py``); without either they stay
one element per thread (``transforms/coalesce.py``, ``codegen/llvm/memory.py``).
"""
from __future__ import annotations

import re

import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.tools.examples import by_name

VADD = """
__global__ void vadd(float *Z __noalias __aligned(16), float *X __noalias __readonly __aligned(16),
                     float *Y __noalias __readonly __aligned(16), int N __multipleof(16)) {
  int offs[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  bool in[1024] = offs < N;
  float x[1024] = in ? *(X + offs) : 0;
  float y[1024] = in ? *(Y + offs) : 0;
  *?(in)(Z + offs) = x + y;
}
"""

SOFTMAX = """
__global__ void softmax(float *Y __noalias __writeonly __aligned(16), float *X __noalias __readonly __aligned(16),
                        int stride_y __multipleof(16), int stride_x __multipleof(16), int N __multipleof(16)) {
  int m = get_program_id(0);
  int n[1024] = 0 ... 1024;
  bool check[1024] = n < N;
  float x[1024] = check ? *(X + m * stride_x + n) : -F32_INFINITY;
  float e[1024] = exp(x - x[max]);
  *?(check)(Y + m * stride_y + n) = e / e[+];
}
"""

SCALE_IN_PLACE = """
__global__ void scale(float *Z __noalias __aligned(16)) {
  int offs[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  *(Z + offs) = *(Z + offs) * 2.0f;
}
"""

V4_LOAD = re.compile(r"ld\.global(\.nc)?\.v4\.[bf]32")
V4_STORE = re.compile(r"st\.global\.v4\.[bf]32")
SCALAR_LOAD = re.compile(r"ld\.global(\.nc)?\.[bf]32")
BARRIER = re.compile(r"\b(?:bar|barrier)\.sync\b")


def ptx_of(source: str, **options) -> str:
    return Compilation(source, CompileOptions(arch="sm_90", **options)).ptx


def kernels(ptx: str) -> dict[str, str]:
    """The PTX text of each ``.entry`` by kernel name."""
    parts = re.split(r"\.visible \.entry ", ptx)[1:]
    return {p.split("(", 1)[0]: p for p in parts}


def test_vector_add_with_promises_is_16_bytes_per_access():
    ptx = ptx_of(VADD)
    # 1024 floats over 128 threads: two 4-float accesses per thread per tile
    assert len(re.findall(r"ld\.global\.nc\.v4\.b32", ptx)) == 4
    assert len(V4_STORE.findall(ptx)) == 2
    assert not SCALAR_LOAD.search(ptx) and "st.global.b32" not in ptx
    assert ptx.count(".ptr .global .align 16") == 3


def test_vector_add_example_spec16_variant_only_is_vectorised():
    example = by_name("vector_add")
    ptx = ptx_of(example.path, defines=dict(example.defines), specialize=True)
    k = kernels(ptx)
    assert set(k) == {"vector_add", "vector_add__spec16"}
    generic, spec = k["vector_add"], k["vector_add__spec16"]
    assert len(V4_LOAD.findall(spec)) == 4 and len(V4_STORE.findall(spec)) == 2
    # the generic kernel knows only 4-byte alignment: one element per access (and per thread
    # per warp access, so each warp instruction still reads 128 contiguous bytes)
    assert not V4_LOAD.search(generic) and not V4_STORE.search(generic)
    assert ".ptr .global .align 4 vector_add_param_0" in generic
    assert ".ptr .global .align 16 vector_add__spec16_param_0" in spec


def test_softmax_with_promises_vectorised_and_three_barriers():
    ptx = ptx_of(SOFTMAX)
    assert len(re.findall(r"ld\.global\.nc\.v4\.b32", ptx)) == 2
    assert len(V4_STORE.findall(ptx)) == 2
    # two cross-warp reductions (4 warps): each stores its partials, waits, reads them back
    # (one barrier each), and the second waits once more before overwriting the first's
    # partials (insert-barriers; tests/codegen/test_barrier_counts.py has the same count for
    # the example without promises)
    assert len(BARRIER.findall(ptx)) == 3
    # exp: ex2.approx of x*log2(e) rounded down, corrected by one fma per element
    assert ptx.count("ex2.approx.ftz.f32") == 8 and ptx.count("mul.rm.f32") == 8
    # e / e[+]: the sum's reciprocal once (of the sum scaled into the normal range), two
    # multiplies per element (by the scale, by the reciprocal), no branch and no div.full
    assert ptx.count("rcp.rn.f32") == 1 and "div.full.f32" not in ptx and "div.rn.f32" not in ptx
    assert ptx.count("mul.rn.f32") == 2 * 8 + 1


def test_softmax_example_spec16_variant_is_vectorised():
    example = by_name("softmax")
    k = kernels(ptx_of(example.path, defines=dict(example.defines), specialize=True))
    # 8 floats per thread: two 16-byte accesses per tile, in the one-tile path (a load, a
    # store) and in the loop's two passes (a load each, a store in the second)
    assert len(V4_LOAD.findall(k["softmax__spec16"])) == 6 and len(V4_STORE.findall(k["softmax__spec16"])) == 4
    assert not V4_LOAD.search(k["softmax"])


def test_layernorm_half_loads_are_eight_halves_wide():
    example = by_name("layernorm")
    spec = kernels(ptx_of(example.path, defines=dict(example.defines), specialize=True))["layernorm__spec16"]
    # 1024 halves per chunk over 128 threads: one 16-byte access per thread (the row that fits
    # one tile: x, w, b; longer rows: x twice, the one-pass Welford statistics, then the
    # normalising pass, w, b); one store of y in each branch
    assert len(re.findall(r"ld\.global\.nc\.v4\.b32", spec)) >= 7
    assert len(V4_STORE.findall(spec)) == 2


@pytest.mark.parametrize("source, nc", [(VADD, True), (SCALE_IN_PLACE, False)], ids=["readonly", "read-write"])
def test_read_only_cache_only_for_noalias_readonly(source, nc):
    ptx = ptx_of(source)
    assert V4_LOAD.search(ptx)
    assert ("ld.global.nc" in ptx) == nc


def test_element_stores_address_runs_from_one_pointer():
    # The generic matmul (C's alignment unknown) stores C element by element; each run of
    # consecutive elements (up to memory.STORE_RUN_MAX) is addressed from the pointer of its
    # first element, at constant byte offsets (memory.py, tt.store), not one pointer computed
    # per element from the tile's offsets.
    from tritonc.codegen.llvm.memory import STORE_RUN_MAX

    ex = by_name("matmul")
    comp = Compilation(ex.path, CompileOptions(defines=dict(ex.defines), tune=dict(ex.tune), num_warps=ex.num_warps,
                                               num_stages=ex.num_stages, arch="sm_90a", specialize=False))
    ir_text = comp.llir
    stores = re.findall(r'st\.global\.b16 \[ \$0 \+ 0 \], \$1;", "l,h,b"\(ptr addrspace\(1\) (%"?[\w.]+"?)', ir_text)
    assert stores
    defs = dict(re.findall(r'^\s*(%"?[\w.]+"?) = getelementptr i8, ptr addrspace\(1\) %"?[\w.]+"?, i64 (\d+)$',
                           ir_text, re.MULTILINE))
    offsets = [int(defs[p]) if p in defs else 0 for p in stores]
    assert offsets[:STORE_RUN_MAX] == [2 * j for j in range(STORE_RUN_MAX)]
    assert sum(o == 0 for o in offsets) == len(stores) // STORE_RUN_MAX
