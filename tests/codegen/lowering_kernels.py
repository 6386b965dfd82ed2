"""Hand-written tt-level kernels (IR text) covering every op family of the LLVM lowering.

Shared by ``tests/codegen/test_lowering.py`` (CPU: :data:`LOWERING_PASSES` -> lowering -> PTX ->
ptxas) and ``tests/gpu/test_lowering_gpu.py`` (the same kernels run on a GPU against numpy).
Imports nothing from the frontend. Each :class:`Kernel` has the IR, and for the GPU test a
grid, an argument factory and a check.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class Kernel:
    name: str
    ir: str
    #: (grid, args) from a numpy Generator; args: np arrays (pointer params) or np scalars.
    make: Callable[[np.random.Generator], tuple[tuple[int, ...], list[Any]]] | None = None
    #: check(inputs_before, arrays_after): raises AssertionError on a mismatch.
    check: Callable[[list[Any], list[Any]], None] | None = None
    #: FileCheck-like facts about the PTX: (substring, min count, max count or None).
    ptx_facts: list[tuple[str, int, int | None]] = field(default_factory=list)


KERNELS: dict[str, Kernel] = {}

#: The passes from these tt kernels to lowerable ttg IR: layouts, then the shared-memory plan.
LOWERING_PASSES = ("assign-layouts", "remove-layout-conversions", "allocate-shared", "insert-barriers")


def kernel(name: str, ir: str, make=None, check=None, ptx_facts=()):
    KERNELS[name] = Kernel(name, ir, make, check, list(ptx_facts))


def _module(body: str, num_warps: int = 4) -> str:
    return f"module attributes {{num_warps = {num_warps}}} {{\n{body}\n}}\n"


def poison(shape, dtype):
    """An output buffer full of garbage (NaN for floats), so unwritten elements show."""
    a = np.empty(shape, dtype=dtype)
    if np.issubdtype(a.dtype, np.floating):
        a.fill(np.nan)
    else:
        a.view(np.uint8).fill(0xA5)
    return a


def close(a, b, rtol=1e-5, atol=1e-6, what=""):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               rtol=rtol, atol=atol, err_msg=what)


# --------------------------------------------------------------------------- vector add
kernel("vadd", _module("""
  tt.func @vadd(%X: ptr<f32> {aligned = 16, noalias, readonly}, %Y: ptr<f32> {noalias, readonly}, %Z: ptr<f32> {noalias}, %N: i32) attributes {kernel} {
    %pid = tt.get_program_id {axis = 0} : i32
    %c = arith.constant {value = 1024} : i32
    %base = arith.muli %pid, %c : i32
    %r = tt.make_range {end = 1024, start = 0} : i32[1024]
    %bs = tt.splat %base : i32[1024]
    %i = arith.addi %bs, %r : i32[1024]
    %ns = tt.splat %N : i32[1024]
    %m = arith.cmpi %i, %ns {predicate = "slt"} : i1[1024]
    %px = tt.splat %X : ptr<f32>[1024]
    %pxi = tt.addptr %px, %i : ptr<f32>[1024]
    %x = tt.load %pxi, %m : f32[1024]
    %py = tt.splat %Y : ptr<f32>[1024]
    %pyi = tt.addptr %py, %i : ptr<f32>[1024]
    %y = tt.load %pyi, %m : f32[1024]
    %z = arith.addf %x, %y : f32[1024]
    %pz = tt.splat %Z : ptr<f32>[1024]
    %pzi = tt.addptr %pz, %i : ptr<f32>[1024]
    tt.store %pzi, %z, %m
    tt.return
  }"""),
    make=lambda g: (lambda n: ((-(-n // 1024),), [g.standard_normal(n).astype(np.float32),
                                                  g.standard_normal(n).astype(np.float32),
                                                  poison(n + 5, np.float32), np.int32(n)]))(3 * 1024 + 77),
    check=lambda i, o: (close(o[2][:i[3]], i[0] + i[1]), np.testing.assert_(np.isnan(o[2][i[3]:]).all())),
    ptx_facts=[("ld.global.nc.b32", 8, None), ("@%p", 1, None), ("st.global.b32", 1, None),
               ("bar.sync", 0, 0)])

# --------------------------------------------------------------------------- softmax rows
_SOFTMAX = """
  tt.func @softmax(%X: ptr<f32> {noalias, readonly}, %Y: ptr<f32> {noalias}, %N: i32) attributes {kernel} {
    %pid = tt.get_program_id {axis = 0} : i32
    %rm = tt.make_range {end = 16, start = 0} : i32[16]
    %rn = tt.make_range {end = 64, start = 0} : i32[64]
    %c16 = arith.constant {value = 16} : i32
    %row0 = arith.muli %pid, %c16 : i32
    %row0s = tt.splat %row0 : i32[16]
    %rows = arith.addi %row0s, %rm : i32[16]
    %rows2 = tt.expand_dims %rows {axis = 1} : i32[16,1]
    %ns = tt.splat %N : i32[16,1]
    %roff = arith.muli %rows2, %ns : i32[16,1]
    %roffb = tt.broadcast %roff : i32[16,64]
    %cols = tt.expand_dims %rn {axis = 0} : i32[1,64]
    %colsb = tt.broadcast %cols : i32[16,64]
    %off = arith.addi %roffb, %colsb : i32[16,64]
    %Nb = tt.splat %N : i32[1,64]
    %cm = arith.cmpi %cols, %Nb {predicate = "slt"} : i1[1,64]
    %mask = tt.broadcast %cm : i1[16,64]
    %px = tt.splat %X : ptr<f32>[16,64]
    %pxo = tt.addptr %px, %off : ptr<f32>[16,64]
    %ninf = arith.constant {value = -inf} : f32[16,64]
    %x = tt.load %pxo, %mask, %ninf : f32[16,64]
    %m = tt.reduce %x {axis = 1, combine = "maxnumf"} : f32[16]
    %m2 = tt.expand_dims %m {axis = 1} : f32[16,1]
    %mb = tt.broadcast %m2 : f32[16,64]
    %d = arith.subf %x, %mb : f32[16,64]
    %e = math.exp %d : f32[16,64]
    %s = tt.reduce %e {axis = 1, combine = "addf"} : f32[16]
    %s2 = tt.expand_dims %s {axis = 1} : f32[16,1]
    %sb = tt.broadcast %s2 : f32[16,64]
    %y = arith.divf %e, %sb : f32[16,64]
    %py = tt.splat %Y : ptr<f32>[16,64]
    %pyo = tt.addptr %py, %off : ptr<f32>[16,64]
    tt.store %pyo, %y, %mask
    tt.return
  }"""


def _softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


kernel("softmax_w2", _module(_SOFTMAX.replace("@softmax(", "@softmax_w2("), num_warps=2),
       make=lambda g: ((3,), [(g.standard_normal((48, 50)) * 3).astype(np.float32), poison((48, 50), np.float32),
                              np.int32(50)]),
       check=lambda i, o: close(o[1], _softmax_ref(i[0].astype(np.float64)), rtol=1e-5, atol=1e-6))
kernel("softmax", _module(_SOFTMAX),
       make=lambda g: ((3,), [(g.standard_normal((48, 50)) * 3).astype(np.float32), poison((48, 50), np.float32),
                              np.int32(50)]),
       check=lambda i, o: close(o[1], _softmax_ref(i[0].astype(np.float64)), rtol=1e-5, atol=1e-6),
       ptx_facts=[("shfl.sync.bfly.b32", 8, None), ("ld.global.nc.b32", 1, None), ("ex2.approx", 1, None)])

# --------------------------------------------------------------------------- 2-D helpers
def _tile2d(name, ptr, rm, rn, ld, M, N, shape, ptype="f32", mask_name=None):
    """IR computing pointers ``ptr + rm[:,None]*ld + rn[None,:]`` and mask ``rm<M & rn<N``."""
    a, b = shape
    m = mask_name or f"{name}_mask"
    return f"""
    %{name}_r2 = tt.expand_dims %{rm} {{axis = 1}} : i32[{a},1]
    %{name}_lds = tt.splat %{ld} : i32[{a},1]
    %{name}_ro = arith.muli %{name}_r2, %{name}_lds : i32[{a},1]
    %{name}_rob = tt.broadcast %{name}_ro : i32[{a},{b}]
    %{name}_c2 = tt.expand_dims %{rn} {{axis = 0}} : i32[1,{b}]
    %{name}_cb = tt.broadcast %{name}_c2 : i32[{a},{b}]
    %{name}_off = arith.addi %{name}_rob, %{name}_cb : i32[{a},{b}]
    %{name}_ps = tt.splat %{ptr} : ptr<{ptype}>[{a},{b}]
    %{name}_p = tt.addptr %{name}_ps, %{name}_off : ptr<{ptype}>[{a},{b}]
    %{name}_Ms = tt.splat %{M} : i32[{a},1]
    %{name}_mr = arith.cmpi %{name}_r2, %{name}_Ms {{predicate = "slt"}} : i1[{a},1]
    %{name}_mrb = tt.broadcast %{name}_mr : i1[{a},{b}]
    %{name}_Ns = tt.splat %{N} : i32[1,{b}]
    %{name}_mc = arith.cmpi %{name}_c2, %{name}_Ns {{predicate = "slt"}} : i1[1,{b}]
    %{name}_mcb = tt.broadcast %{name}_mc : i1[{a},{b}]
    %{m} = arith.andi %{name}_mrb, %{name}_mcb : i1[{a},{b}]"""


def _range(name, pid, size):
    return f"""
    %{name}_c = arith.constant {{value = {size}}} : i32
    %{name}_b = arith.muli %{pid}, %{name}_c : i32
    %{name}_bs = tt.splat %{name}_b : i32[{size}]
    %{name}_r = tt.make_range {{end = {size}, start = 0}} : i32[{size}]
    %{name} = arith.addi %{name}_bs, %{name}_r : i32[{size}]"""


# --------------------------------------------------------------------------- transpose
kernel("transpose", _module(f"""
  tt.func @transpose(%X: ptr<f32> {{noalias, readonly}}, %Y: ptr<f32> {{noalias}}, %M: i32, %N: i32) attributes {{kernel}} {{
    %pm = tt.get_program_id {{axis = 0}} : i32
    %pn = tt.get_program_id {{axis = 1}} : i32
    {_range("rm", "pm", 32)}
    {_range("rn", "pn", 32)}
    {_tile2d("x", "X", "rm", "rn", "N", "M", "N", (32, 32))}
    %x = tt.load %x_p, %x_mask : f32[32,32]
    %xt = tt.trans %x {{order = [1, 0]}} : f32[32,32]
    {_tile2d("y", "Y", "rn", "rm", "M", "N", "M", (32, 32))}
    tt.store %y_p, %xt, %y_mask
    tt.return
  }}"""),
    make=lambda g: ((3, 2), [g.standard_normal((70, 45)).astype(np.float32), poison((45, 70), np.float32),
                             np.int32(70), np.int32(45)]),
    check=lambda i, o: close(o[1], i[0].T, rtol=0, atol=0))

# Z = X + X^T: one tile needed in two layouts, so one operand goes through shared memory.
kernel("add_transposed", _module(f"""
  tt.func @add_transposed(%X: ptr<f32> {{noalias, readonly}}, %Z: ptr<f32> {{noalias}}, %N: i32) attributes {{kernel}} {{
    %p0 = arith.constant {{value = 0}} : i32
    {_range("rm", "p0", 32)}
    {_tile2d("x", "X", "rm", "rm", "N", "N", "N", (32, 32))}
    %x = tt.load %x_p, %x_mask : f32[32,32]
    %xt = tt.trans %x {{order = [1, 0]}} : f32[32,32]
    %z = arith.addf %x, %xt : f32[32,32]
    %zp = tt.splat %Z : ptr<f32>[32,32]
    %zpo = tt.addptr %zp, %x_off : ptr<f32>[32,32]
    tt.store %zpo, %z, %x_mask
    tt.return
  }}"""),
    make=lambda g: ((1,), [g.standard_normal((30, 30)).astype(np.float32), poison((30, 30), np.float32), np.int32(30)]),
    check=lambda i, o: close(o[1], i[0] + i[0].T, rtol=0, atol=0),
    ptx_facts=[("bar.sync", 1, None), ("st.shared", 1, None), ("ld.shared", 1, None)])

# --------------------------------------------------------------------------- row / column sums
kernel("row_col_sums", _module(f"""
  tt.func @row_col_sums(%X: ptr<f32> {{noalias, readonly}}, %R: ptr<f32> {{noalias}}, %C: ptr<f32> {{noalias}}, %S: ptr<f32> {{noalias}}, %M: i32, %N: i32) attributes {{kernel}} {{
    %p0 = arith.constant {{value = 0}} : i32
    {_range("rm", "p0", 64)}
    {_range("rn", "p0", 32)}
    {_tile2d("x", "X", "rm", "rn", "N", "M", "N", (64, 32))}
    %zero = arith.constant {{value = 0.0}} : f32[64,32]
    %x = tt.load %x_p, %x_mask, %zero : f32[64,32]
    %rs = tt.reduce %x {{axis = 1, combine = "addf"}} : f32[64]
    %cs = tt.reduce %x {{axis = 0, combine = "addf"}} : f32[32]
    %tot = tt.reduce %rs {{axis = 0, combine = "addf"}} : f32
    %Ms = tt.splat %M : i32[64]
    %rmask = arith.cmpi %rm, %Ms {{predicate = "slt"}} : i1[64]
    %pr = tt.splat %R : ptr<f32>[64]
    %pri = tt.addptr %pr, %rm : ptr<f32>[64]
    tt.store %pri, %rs, %rmask
    %Ns = tt.splat %N : i32[32]
    %cmask = arith.cmpi %rn, %Ns {{predicate = "slt"}} : i1[32]
    %pc = tt.splat %C : ptr<f32>[32]
    %pci = tt.addptr %pc, %rn : ptr<f32>[32]
    tt.store %pci, %cs, %cmask
    tt.store %S, %tot
    tt.return
  }}"""),
    make=lambda g: ((1,), [g.standard_normal((50, 30)).astype(np.float32), poison(50, np.float32), poison(30, np.float32),
                           poison(1, np.float32), np.int32(50), np.int32(30)]),
    check=lambda i, o: (close(o[1], i[0].sum(1), 1e-5, 1e-5), close(o[2], i[0].sum(0), 1e-5, 1e-5),
                        close(o[3][0], i[0].sum(), 1e-5, 1e-4)),
    ptx_facts=[("shfl.sync.bfly", 1, None), ("bar.sync", 2, None)])

# --------------------------------------------------------------------------- matmul (f16 in, f32 acc)
def _matmul_ir(name="matmul", BM=32, BN=32, BK=16, num_warps=4):
    return _module(f"""
  tt.func @{name}(%A: ptr<f16> {{noalias, readonly}}, %B: ptr<f16> {{noalias, readonly}}, %C: ptr<f32> {{noalias}}, %M: i32, %N: i32, %K: i32) attributes {{kernel}} {{
    %pm = tt.get_program_id {{axis = 0}} : i32
    %pn = tt.get_program_id {{axis = 1}} : i32
    %p0 = arith.constant {{value = 0}} : i32
    {_range("rm", "pm", BM)}
    {_range("rn", "pn", BN)}
    {_range("rk", "p0", BK)}
    {_tile2d("a", "A", "rm", "rk", "K", "M", "K", (BM, BK), "f16")}
    {_tile2d("b", "B", "rk", "rn", "N", "K", "N", (BK, BN), "f16")}
    %acc0 = arith.constant {{value = 0.0}} : f32[{BM},{BN}]
    %c16 = arith.constant {{value = {BK}}} : i32
    %c16a = tt.splat %c16 : i32[{BM},{BK}]
    %sb = arith.muli %c16, %N : i32
    %sbb = tt.splat %sb : i32[{BK},{BN}]
    %zh_a = arith.constant {{value = 0.0}} : f16[{BM},{BK}]
    %zh_b = arith.constant {{value = 0.0}} : f16[{BK},{BN}]
    %res:3 = scf.for %p0, %K, %c16, %acc0, %a_p, %b_p {{predicate = "slt"}} : f32[{BM},{BN}], ptr<f16>[{BM},{BK}], ptr<f16>[{BK},{BN}] {{
    ^(%k: i32, %acc: f32[{BM},{BN}], %pa: ptr<f16>[{BM},{BK}], %pb: ptr<f16>[{BK},{BN}]):
      %ks = tt.splat %k : i32[{BK}]
      %kk = arith.addi %ks, %rk : i32[{BK}]
      %kk_a = tt.expand_dims %kk {{axis = 0}} : i32[1,{BK}]
      %Ka = tt.splat %K : i32[1,{BK}]
      %mk_a = arith.cmpi %kk_a, %Ka {{predicate = "slt"}} : i1[1,{BK}]
      %mk_ab = tt.broadcast %mk_a : i1[{BM},{BK}]
      %ma = arith.andi %a_mrb, %mk_ab : i1[{BM},{BK}]
      %a = tt.load %pa, %ma, %zh_a : f16[{BM},{BK}]
      %kk_b = tt.expand_dims %kk {{axis = 1}} : i32[{BK},1]
      %Kb = tt.splat %K : i32[{BK},1]
      %mk_b = arith.cmpi %kk_b, %Kb {{predicate = "slt"}} : i1[{BK},1]
      %mk_bb = tt.broadcast %mk_b : i1[{BK},{BN}]
      %mb = arith.andi %mk_bb, %b_mcb : i1[{BK},{BN}]
      %b = tt.load %pb, %mb, %zh_b : f16[{BK},{BN}]
      %acc2 = tt.dot %a, %b, %acc {{input_precision = "ieee"}} : f32[{BM},{BN}]
      %pa2 = tt.addptr %pa, %c16a : ptr<f16>[{BM},{BK}]
      %pb2 = tt.addptr %pb, %sbb : ptr<f16>[{BK},{BN}]
      scf.yield %acc2, %pa2, %pb2
    }}
    {_tile2d("c", "C", "rm", "rn", "N", "M", "N", (BM, BN))}
    tt.store %c_p, %res#0, %c_mask
    tt.return
  }}""", num_warps)


def _matmul_make(g):
    M, N, K = 70, 45, 40
    a = g.standard_normal((M, K)).astype(np.float16)
    b = g.standard_normal((K, N)).astype(np.float16)
    return (3, 2), [a, b, poison((M, N), np.float32), np.int32(M), np.int32(N), np.int32(K)]


kernel("matmul_64x64x32_w8", _matmul_ir("matmul_64x64x32_w8", 64, 64, 32, 8), make=_matmul_make,
       check=lambda i, o: close(o[2], i[0].astype(np.float32) @ i[1].astype(np.float32), 1e-4, 1e-4))
kernel("matmul_16x64x16_w1", _matmul_ir("matmul_16x64x16_w1", 16, 64, 16, 1),
       make=lambda g: ((lambda grid, args: ((5, 1), args))(*_matmul_make(g))),
       check=lambda i, o: close(o[2], i[0].astype(np.float32) @ i[1].astype(np.float32), 1e-4, 1e-4))
kernel("matmul", _matmul_ir(), make=_matmul_make,
       check=lambda i, o: close(o[2], i[0].astype(np.float32) @ i[1].astype(np.float32), 1e-4, 1e-4),
       ptx_facts=[("fma.rn.f32", 1, None), ("cvt.f32.f16", 1, None), ("bar.sync", 2, None)])

# --------------------------------------------------------------------------- batched integer dot
kernel("dot_i8_batched", _module("""
  tt.func @dot_i8_batched(%A: ptr<i8> {noalias, readonly}, %B: ptr<i8> {noalias, readonly}, %C: ptr<i32> {noalias}) attributes {kernel} {
    %ra = tt.make_range {end = 256, start = 0} : i32[256]
    %pa0 = tt.splat %A : ptr<i8>[256]
    %pa = tt.addptr %pa0, %ra : ptr<i8>[256]
    %a1 = tt.load %pa : i8[256]
    %a = tt.reshape %a1 : i8[16,8,2]
    %pb0 = tt.splat %B : ptr<i8>[256]
    %pb = tt.addptr %pb0, %ra : ptr<i8>[256]
    %b1 = tt.load %pb : i8[256]
    %b = tt.reshape %b1 : i8[8,16,2]
    %acc = arith.constant {value = 7} : i32[16,16,2]
    %c = tt.dot %a, %b, %acc {input_precision = "ieee"} : i32[16,16,2]
    %c1 = tt.reshape %c : i32[512]
    %rc = tt.make_range {end = 512, start = 0} : i32[512]
    %pc0 = tt.splat %C : ptr<i32>[512]
    %pc = tt.addptr %pc0, %rc : ptr<i32>[512]
    tt.store %pc, %c1
    tt.return
  }"""),
    make=lambda g: ((1,), [g.integers(-128, 128, (16, 8, 2)).astype(np.int8), g.integers(-128, 128, (8, 16, 2)).astype(np.int8),
                           poison((16, 16, 2), np.int32)]),
    check=lambda i, o: np.testing.assert_array_equal(
        o[2], np.einsum("mkb,knb->mnb", i[0].astype(np.int32), i[1].astype(np.int32)) + 7))

# --------------------------------------------------------------------------- scf.while, scf.if
kernel("while_if", _module("""
  tt.func @while_if(%X: ptr<f32> {noalias, readonly}, %Y: ptr<f32> {noalias}, %n: i32) attributes {kernel} {
    %pid = tt.get_program_id {axis = 0} : i32
    %r = tt.make_range {end = 128, start = 0} : i32[128]
    %c128 = arith.constant {value = 128} : i32
    %base = arith.muli %pid, %c128 : i32
    %bs = tt.splat %base : i32[128]
    %i = arith.addi %bs, %r : i32[128]
    %px = tt.splat %X : ptr<f32>[128]
    %pxi = tt.addptr %px, %i : ptr<f32>[128]
    %x = tt.load %pxi : f32[128]
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %w:2 = scf.while %c0, %x : i32, f32[128] {
    ^(%j: i32, %acc: f32[128]):
      %go = arith.cmpi %j, %n {predicate = "slt"} : i1
      scf.condition %go, %j, %acc
    } {
    ^(%j2: i32, %acc2: f32[128]):
      %j3 = arith.addi %j2, %c1 : i32
      %jf = arith.sitofp %j3 : f32
      %jfs = tt.splat %jf : f32[128]
      %acc3 = arith.addf %acc2, %jfs : f32[128]
      scf.yield %j3, %acc3
    }
    %c2 = arith.constant {value = 2} : i32
    %odd = arith.remsi %pid, %c2 : i32
    %isodd = arith.cmpi %odd, %c1 {predicate = "eq"} : i1
    %y = scf.if %isodd : f32[128] {
      %two = arith.constant {value = 2.0} : f32[128]
      %t = arith.mulf %w#1, %two : f32[128]
      scf.yield %t
    } {
      %neg = arith.negf %w#1 : f32[128]
      scf.yield %neg
    }
    %py = tt.splat %Y : ptr<f32>[128]
    %pyi = tt.addptr %py, %i : ptr<f32>[128]
    gpu.barrier
    tt.store %pyi, %y
    tt.return
  }"""),
    make=lambda g: ((4,), [g.standard_normal(512).astype(np.float32), poison(512, np.float32), np.int32(5)]),
    check=lambda i, o: close(o[1], np.where((np.arange(512) // 128) % 2 == 1, 2, -1) * (i[0] + 15), 1e-6, 1e-5))

# --------------------------------------------------------------------------- atomics
def _atomics_check(i, o):
    n = int(i[4])
    buckets = np.arange(n) % 8
    # i32 counters: each element incremented its bucket exactly once; the old values of a
    # bucket are a permutation of 0..count-1 (every register, replicas included, got one).
    counts = np.bincount(buckets, minlength=8)
    np.testing.assert_array_equal(o[1], i[1] + counts)
    for j in range(8):
        olds = np.sort(o[2][:n][buckets == j] - i[1][j])
        np.testing.assert_array_equal(olds, np.arange(counts[j]))
    close(o[3], i[3] + np.bincount(buckets, weights=i[0][:n], minlength=8), 1e-5, 1e-4)
    np.testing.assert_(np.isnan(o[2][n:]).all() if o[2].dtype.kind == "f" else True)


kernel("atomics", _module("""
  tt.func @atomics(%X: ptr<f32> {noalias, readonly}, %CNT: ptr<i32>, %OLD: ptr<i32> {noalias}, %FS: ptr<f32>, %N: i32) attributes {kernel} {
    %pid = tt.get_program_id {axis = 0} : i32
    %c64 = arith.constant {value = 64} : i32
    %base = arith.muli %pid, %c64 : i32
    %bs = tt.splat %base : i32[64]
    %r = tt.make_range {end = 64, start = 0} : i32[64]
    %i = arith.addi %bs, %r : i32[64]
    %ns = tt.splat %N : i32[64]
    %m = arith.cmpi %i, %ns {predicate = "slt"} : i1[64]
    %c8 = arith.constant {value = 8} : i32[64]
    %b = arith.remsi %i, %c8 : i32[64]
    %pc = tt.splat %CNT : ptr<i32>[64]
    %pcb = tt.addptr %pc, %b : ptr<i32>[64]
    %one = arith.constant {value = 1} : i32[64]
    %old = tt.atomic_rmw %pcb, %one, %m {kind = "add"} : i32[64]
    %po = tt.splat %OLD : ptr<i32>[64]
    %poi = tt.addptr %po, %i : ptr<i32>[64]
    tt.store %poi, %old, %m
    %px = tt.splat %X : ptr<f32>[64]
    %pxi = tt.addptr %px, %i : ptr<f32>[64]
    %x = tt.load %pxi, %m : f32[64]
    %pf = tt.splat %FS : ptr<f32>[64]
    %pfb = tt.addptr %pf, %b : ptr<f32>[64]
    %fold = tt.atomic_rmw %pfb, %x, %m {kind = "fadd"} : f32[64]
    tt.return
  }"""),
    make=lambda g: ((5,), [g.standard_normal(300).astype(np.float32), np.arange(8, dtype=np.int32) * 1000,
                           poison(310, np.int32), g.standard_normal(8).astype(np.float32), np.int32(300)]),
    check=_atomics_check,
    ptx_facts=[("atom.global.add.u32", 1, None), ("atom.global.add.f32", 1, None)])


def _minmax_check(i, o):
    x, ix = i[0], i[1]
    np.testing.assert_array_equal(o[2][0], max(i[2][0], ix.max()))
    np.testing.assert_array_equal(o[2][1], min(i[2][1], ix.min()))
    np.testing.assert_array_equal(o[3][0], max(i[3][0], x.max()))
    np.testing.assert_array_equal(o[3][1], min(i[3][1], x.min()))
    slot_max = [ix.view(np.uint32)[np.arange(256) % 4 == j].max() for j in range(4)]
    np.testing.assert_array_equal(o[4].view(np.uint32), np.maximum(i[4].view(np.uint32), slot_max))
    # cas: slots equal to 0 get i+1, others keep their value; OLDC receives the old slot values
    expect = np.where(i[5] == 0, np.arange(256, dtype=np.int32) + 1, i[5])
    np.testing.assert_array_equal(o[5], expect)
    np.testing.assert_array_equal(o[6], i[5])


kernel("atomic_minmax_cas", _module("""
  tt.func @atomic_minmax_cas(%X: ptr<f32> {noalias, readonly}, %IX: ptr<i32> {noalias, readonly}, %IM: ptr<i32>, %FM: ptr<f32>, %UM: ptr<i32>, %CS: ptr<i32>, %OLDC: ptr<i32>) attributes {kernel} {
    %r = tt.make_range {end = 256, start = 0} : i32[256]
    %px = tt.splat %X : ptr<f32>[256]
    %pxi = tt.addptr %px, %r : ptr<f32>[256]
    %x = tt.load %pxi : f32[256]
    %pix = tt.splat %IX : ptr<i32>[256]
    %pixi = tt.addptr %pix, %r : ptr<i32>[256]
    %ix = tt.load %pixi : i32[256]
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %pim0 = tt.splat %IM : ptr<i32>[256]
    %o1 = tt.atomic_rmw %pim0, %ix {kind = "max"} : i32[256]
    %im1 = tt.addptr %IM, %c1 : ptr<i32>
    %pim1 = tt.splat %im1 : ptr<i32>[256]
    %o2 = tt.atomic_rmw %pim1, %ix {kind = "min"} : i32[256]
    %pfm0 = tt.splat %FM : ptr<f32>[256]
    %o3 = tt.atomic_rmw %pfm0, %x {kind = "fmax"} : f32[256]
    %fm1 = tt.addptr %FM, %c1 : ptr<f32>
    %pfm1 = tt.splat %fm1 : ptr<f32>[256]
    %o4 = tt.atomic_rmw %pfm1, %x {kind = "fmin"} : f32[256]
    %c4 = arith.constant {value = 4} : i32[256]
    %slot = arith.remui %r, %c4 : i32[256]
    %pum = tt.splat %UM : ptr<i32>[256]
    %pums = tt.addptr %pum, %slot : ptr<i32>[256]
    %o5 = tt.atomic_rmw %pums, %ix {kind = "umax"} : i32[256]
    %pcs = tt.splat %CS : ptr<i32>[256]
    %pcsi = tt.addptr %pcs, %r : ptr<i32>[256]
    %zero = arith.constant {value = 0} : i32[256]
    %ones = arith.constant {value = 1} : i32[256]
    %r1 = arith.addi %r, %ones : i32[256]
    %oc = tt.atomic_cas %pcsi, %zero, %r1 : i32[256]
    %poc = tt.splat %OLDC : ptr<i32>[256]
    %poci = tt.addptr %poc, %r : ptr<i32>[256]
    tt.store %poci, %oc
    tt.return
  }"""),
    make=lambda g: ((1,), [g.standard_normal(256).astype(np.float32), g.integers(-10 ** 6, 10 ** 6, 256).astype(np.int32),
                           np.array([-5, 5], dtype=np.int32), np.array([-0.5, 0.5], dtype=np.float32),
                           np.zeros(4, dtype=np.int32), np.where(np.arange(256) % 3 == 0, 0, 99).astype(np.int32),
                           poison(256, np.int32)]),
    check=_minmax_check,
    ptx_facts=[("atom.relaxed.gpu.global.cas.b32", 1, None)])

kernel("spin_lock", _module("""
  tt.func @spin_lock(%LOCK: ptr<i32>, %COUNT: ptr<i32>, %INSIDE: ptr<i32>, %BAD: ptr<i32>) attributes {kernel} {
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %cm1 = arith.constant {value = -1} : i32
    scf.while {
      %old = tt.atomic_cas %LOCK, %c0, %c1 : i32
      %busy = arith.cmpi %old, %c1 {predicate = "eq"} : i1
      scf.condition %busy
    } {
      scf.yield
    }
    %was = tt.atomic_rmw %INSIDE, %c1 {kind = "add"} : i32
    %v = tt.atomic_rmw %COUNT, %c0 {kind = "add"} : i32
    %v1 = arith.addi %v, %c1 : i32
    %unused = tt.atomic_rmw %COUNT, %v1 {kind = "xchg"} : i32
    %bad = tt.atomic_rmw %BAD, %was {kind = "max"} : i32
    %left = tt.atomic_rmw %INSIDE, %cm1 {kind = "add"} : i32
    %rel = tt.atomic_rmw %LOCK, %c0 {kind = "xchg"} : i32
    tt.return
  }"""),
    make=lambda g: ((64,), [np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)]),
    check=lambda i, o: (np.testing.assert_array_equal(o[1], [64]), np.testing.assert_array_equal(o[0], [0]),
                        np.testing.assert_array_equal(o[3], [0])),
    ptx_facts=[("atom.relaxed.gpu.global.cas.b32", 1, None), ("bar.sync", 2, None)])

# --------------------------------------------------------------------------- casts
_CASTS = [  # (output name, IR element, numpy dtype, op, source value, source numpy)
    ("h", "f16", np.float16, "arith.truncf", "x"),
    ("bf", "bf16", "bfloat16", "arith.truncf", "x"),
    ("d", "f64", np.float64, "arith.extf", "x"),
    ("i8", "i8", np.int8, "arith.fptosi", "x"),
    ("u8", "i8", np.uint8, "arith.fptoui", "ax"),
    ("i16", "i16", np.int16, "arith.fptosi", "x"),
    ("i64", "i64", np.int64, "arith.fptosi", "x"),
    ("u32", "i32", np.uint32, "arith.fptoui", "ax"),
    ("hf", "f32", np.float32, "arith.extf", "h"),
    ("bff", "f32", np.float32, "arith.extf", "bf"),
    ("i8f", "f32", np.float32, "arith.sitofp", "i8"),
    ("u8f", "f32", np.float32, "arith.uitofp", "u8"),
    ("u8i", "i32", np.int32, "arith.extui", "u8"),
    ("i8i", "i32", np.int32, "arith.extsi", "i8"),
    ("u32d", "f64", np.float64, "arith.uitofp", "u32"),
    ("i64t", "i16", np.int16, "arith.trunci", "big"),
    ("bigh", "f16", np.float16, "arith.sitofp", "big32"),
    ("bigbf", "bf16", "bfloat16", "arith.sitofp", "big32"),
    ("dh", "f16", np.float16, "arith.truncf", "dd"),
    ("dbf", "bf16", "bfloat16", "arith.truncf", "dd"),
    ("dxf", "f32", np.float32, "arith.truncf", "dd"),
    ("hd", "f64", np.float64, "arith.extf", "h"),
    ("bfd", "f64", np.float64, "arith.extf", "bf"),
    ("xbits", "i32", np.int32, "arith.bitcast", "x"),
]


def _np_dtype(d):
    if d == "bfloat16":
        import ml_dtypes
        return ml_dtypes.bfloat16
    return d


def _casts_ir():
    types = {"x": "f32", "ax": "f32", "big": "i64", "big32": "i32", "dd": "f64"}
    params = ["%X: ptr<f32> {noalias, readonly}", "%L: ptr<i64> {noalias, readonly}",
              "%W: ptr<i32> {noalias, readonly}", "%D: ptr<f64> {noalias, readonly}"]
    body = ["    %r = tt.make_range {end = 256, start = 0} : i32[256]"]
    for src, ptr, ty in (("x", "X", "f32"), ("big", "L", "i64"), ("big32", "W", "i32"), ("dd", "D", "f64")):
        body.append(f"    %p_{src} = tt.splat %{ptr} : ptr<{ty}>[256]")
        body.append(f"    %pi_{src} = tt.addptr %p_{src}, %r : ptr<{ty}>[256]")
        body.append(f"    %{src} = tt.load %pi_{src} : {ty}[256]")
    body.append("    %ax = math.absf %x : f32[256]")
    for name, el, _, op, src in _CASTS:
        params.append(f"%O_{name}: ptr<{el}> {{noalias}}")
        types[name] = el
        body.append(f"    %{name} = {op} %{src} : {el}[256]")
        body.append(f"    %po_{name} = tt.splat %O_{name} : ptr<{el}>[256]")
        body.append(f"    %poi_{name} = tt.addptr %po_{name}, %r : ptr<{el}>[256]")
        body.append(f"    tt.store %poi_{name}, %{name}")
    body.append("    tt.return")
    return _module(f"  tt.func @casts({', '.join(params)}) attributes {{kernel}} {{\n" + "\n".join(body) + "\n  }")


def _casts_make(g):
    # fptosi/fptoui of values out of the target's range are undefined: stay inside i8.
    x = np.clip(g.standard_normal(256) * 50, -127.9, 127.9).astype(np.float32)
    x[:4] = [0.5, -0.5, 100.75, -127.9]
    big = g.integers(-2 ** 62, 2 ** 62, 256, dtype=np.int64)
    big32 = g.integers(-2 ** 31, 2 ** 31 - 1, 256, dtype=np.int64).astype(np.int32)
    big32[:8] = [65504, 65519, 65520, 2049, 2051, 16777217, 33554435, -33554435]
    dd = g.standard_normal(256) * 1e3
    dd[:4] = [1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -8 + 2.0 ** -40, 1e-30, 70000.0]
    outs = [poison(256, _np_dtype(d)) for _, _, d, _, _ in _CASTS]
    return (1,), [x, big, big32, dd] + outs


def _f64_to_bf16(d):
    """Correctly rounded f64 -> bf16 (ml_dtypes goes through f32 and rounds twice): round to
    f32 *to odd* (toward zero, lowest bit set when inexact), then to nearest-even bf16."""
    import ml_dtypes
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    back = f.astype(np.float64)
    bits = f.view(np.uint32).copy()
    bits[np.abs(back) > np.abs(d)] -= 1
    bits |= (back != d).astype(np.uint32)
    return bits.view(np.float32).astype(ml_dtypes.bfloat16)


def _casts_check(i, o):
    import ml_dtypes
    x, big, big32, dd = i[0], i[1], i[2], i[3]
    ax = np.abs(x)
    vals = {"x": x, "ax": ax, "big": big, "big32": big32, "dd": dd}
    bf16 = ml_dtypes.bfloat16
    for k, (name, el, dt, op, src) in enumerate(_CASTS):
        got = o[4 + k]
        s = vals[src]
        dt = _np_dtype(dt)
        if op == "arith.bitcast":
            want = s.view(dt)
        elif op in ("arith.fptosi", "arith.fptoui"):
            want = np.trunc(s).astype(np.int64).astype(dt)
        elif op == "arith.uitofp":
            want = s.astype(np.uint64).astype(np.float64).astype(dt) if s.dtype.kind != "u" else s.astype(dt)
        elif op == "arith.extui":
            want = s.view(np.uint8 if s.dtype.itemsize == 1 else s.dtype).astype(dt)
        elif op == "arith.trunci":
            want = s.astype(dt)
        elif dt is bf16 and s.dtype in (np.int32, np.float64):
            want = _f64_to_bf16(s.astype(np.float64))   # int32 -> f64 is exact
        else:
            with np.errstate(over="ignore"):
                want = s.astype(dt)
        vals[name] = got
        if dt is bf16:
            np.testing.assert_array_equal(got.view(np.uint16), np.asarray(want, dtype=bf16).view(np.uint16), err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


kernel("casts", _casts_ir(), make=_casts_make, check=_casts_check,
       ptx_facts=[("cvt.rn.f16.f32", 1, None), ("cvt.rn.bf16.f32", 1, None), ("cvt.rzi.s8.f32", 0, None)])

# --------------------------------------------------------------------------- integer ops, signed/unsigned
_INT_OPS = ["arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.shrsi", "arith.shrui", "arith.maxui",
            "arith.minsi", "arith.maxsi", "arith.minui", "arith.muli", "arith.addi", "arith.subi", "arith.xori",
            "arith.shli"]


def _intops_ir(el):
    params = [f"%A: ptr<{el}> {{noalias, readonly}}", f"%B: ptr<{el}> {{noalias, readonly}}",
              f"%S: ptr<{el}> {{noalias, readonly}}"]
    body = ["    %r = tt.make_range {end = 128, start = 0} : i32[128]"]
    for v, p in (("a", "A"), ("b", "B"), ("s", "S")):
        body += [f"    %p{v} = tt.splat %{p} : ptr<{el}>[128]", f"    %p{v}i = tt.addptr %p{v}, %r : ptr<{el}>[128]",
                 f"    %{v} = tt.load %p{v}i : {el}[128]"]
    outs = []
    for k, op in enumerate(_INT_OPS):
        rhs = "s" if op.startswith("arith.sh") else "b"
        body.append(f"    %o{k} = {op} %a, %{rhs} : {el}[128]")
        outs.append(k)
    for k, pred in enumerate(("ult", "slt", "uge", "sle")):
        body.append(f"    %c{k} = arith.cmpi %a, %b {{predicate = \"{pred}\"}} : i1[128]")
        body.append(f"    %o{len(_INT_OPS) + k} = arith.select %c{k}, %a, %b : {el}[128]")
        outs.append(len(_INT_OPS) + k)
    body.append(f"    %o{len(outs)} = math.absi %a : {el}[128]")
    outs.append(len(outs))
    for k in outs:
        params.append(f"%O{k}: ptr<{el}> {{noalias}}")
        body += [f"    %po{k} = tt.splat %O{k} : ptr<{el}>[128]", f"    %po{k}i = tt.addptr %po{k}, %r : ptr<{el}>[128]",
                 f"    tt.store %po{k}i, %o{k}"]
    body.append("    tt.return")
    return _module(f"  tt.func @intops_{el}({', '.join(params)}) attributes {{kernel}} {{\n" + "\n".join(body) + "\n  }")


def _intops_make(dt):
    def make(g):
        info = np.iinfo(dt)
        a = g.integers(info.min, info.max, 128, endpoint=True).astype(dt)
        b = g.integers(info.min, info.max, 128, endpoint=True).astype(dt)
        b[b == 0] = 3
        b[:4] = [-1, 1, -3, 7]
        a[:4] = [info.min, -7, 7, -1]
        s = g.integers(0, info.bits, 128).astype(dt)
        return (1,), [a, b, s] + [poison(128, dt) for _ in range(len(_INT_OPS) + 5)]
    return make


def _intops_check(dt):
    def check(i, o):
        udt = np.dtype(dt).str.replace("i", "u")
        a, b, s = i[0], i[1], i[2]
        ua, ub = a.view(udt), b.view(udt)
        bits = np.iinfo(dt).bits
        with np.errstate(all="ignore"):
            q = np.trunc(a.astype(np.float64) / b.astype(np.float64))
            q = np.where((a == np.iinfo(dt).min) & (b == -1), a.astype(np.float64), q)  # wraps (undefined in C; skip)
            sdiv = q.astype(np.int64).astype(dt)
            srem = (a.astype(np.int64) - sdiv.astype(np.int64) * b.astype(np.int64)).astype(dt)
            wants = [sdiv, (ua // ub).view(dt), srem, (ua % ub).view(dt), a >> s, (ua >> s.view(udt)).view(dt),
                     np.maximum(ua, ub).view(dt), np.minimum(a, b), np.maximum(a, b), np.minimum(ua, ub).view(dt),
                     (a.astype(np.int64) * b.astype(np.int64)).astype(dt), (a.astype(np.int64) + b).astype(dt),
                     (a.astype(np.int64) - b).astype(dt), a ^ b, (a.astype(np.int64) << s.astype(np.int64)).astype(dt),
                     np.where(ua < ub, a, b), np.where(a < b, a, b), np.where(ua >= ub, a, b), np.where(a <= b, a, b),
                     np.abs(a.astype(np.int64)).astype(dt)]
        skip = (a == np.iinfo(dt).min) & (b == -1)
        for k, w in enumerate(wants):
            got = o[3 + k]
            if k in (0, 2):
                got, w = got[~skip], w[~skip]
            np.testing.assert_array_equal(got, w, err_msg=f"{_INT_OPS[k] if k < len(_INT_OPS) else k} {dt}")
    return check


for _dt, _el in ((np.int32, "i32"), (np.int8, "i8"), (np.int64, "i64"), (np.int16, "i16")):
    kernel(f"intops_{_el}", _intops_ir(_el), make=_intops_make(_dt), check=_intops_check(_dt))

# --------------------------------------------------------------------------- math
_MATH = ["math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "math.sin", "math.cos",
         "math.floor", "math.ceil", "math.absf"]


def _math_ir(el):
    params = [f"%X: ptr<{el}> {{noalias, readonly}}", f"%P: ptr<{el}> {{noalias, readonly}}"]
    body = ["    %r = tt.make_range {end = 256, start = 0} : i32[256]",
            f"    %px = tt.splat %X : ptr<{el}>[256]", f"    %pxi = tt.addptr %px, %r : ptr<{el}>[256]",
            f"    %x = tt.load %pxi : {el}[256]",
            f"    %pp = tt.splat %P : ptr<{el}>[256]", f"    %ppi = tt.addptr %pp, %r : ptr<{el}>[256]",
            f"    %pos = tt.load %ppi : {el}[256]"]
    for k, op in enumerate(_MATH):
        src = "pos" if op in ("math.log", "math.log2", "math.sqrt", "math.rsqrt") else "x"
        body.append(f"    %o{k} = {op} %{src} : {el}[256]")
    body.append(f"    %o{len(_MATH)} = math.fma %x, %pos, %x : {el}[256]")
    for k in range(len(_MATH) + 1):
        params.append(f"%O{k}: ptr<{el}> {{noalias}}")
        body += [f"    %po{k} = tt.splat %O{k} : ptr<{el}>[256]", f"    %po{k}i = tt.addptr %po{k}, %r : ptr<{el}>[256]",
                 f"    tt.store %po{k}i, %o{k}"]
    body.append("    tt.return")
    return _module(f"  tt.func @math_{el}({', '.join(params)}) attributes {{kernel}} {{\n" + "\n".join(body) + "\n  }")


def _math_make(dt):
    def make(g):
        x = (g.standard_normal(256) * 20).astype(dt)
        x[:8] = [0.0, -0.0, 88.0, -100.0, 1e-3, 3.0, np.inf, -np.inf] if dt != np.float16 else [0, -0.0, 8, -8, 1e-3, 3, 11, -11]
        pos = np.abs(g.standard_normal(256) * 100).astype(dt)
        pos[:6] = [1.0, 0.0, 1e-30 if dt != np.float16 else 1e-7, 2.0 ** 20 if dt != np.float16 else 1024, np.inf, 1 + 1e-6]
        return (1,), [x, pos] + [poison(256, dt) for _ in range(len(_MATH) + 1)]
    return make


def _math_check(dt):
    def check(i, o):
        x, pos = i[0].astype(np.float64), i[1].astype(np.float64)
        with np.errstate(all="ignore"):
            refs = [np.exp(x), np.exp2(x), np.log(pos), np.log2(pos), np.sqrt(pos), 1 / np.sqrt(pos), np.sin(x), np.cos(x),
                    np.floor(x), np.ceil(x), np.abs(x), x * pos + x]
        tol = {np.float64: 1e-13, np.float32: 4e-6, np.float16: 2e-3}[dt]
        for k, ref in enumerate(refs):
            got = o[2 + k].astype(np.float64)
            name = _MATH[k] if k < len(_MATH) else "math.fma"
            fin = np.isfinite(ref)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=name)
            np.testing.assert_array_equal(got[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)].astype(dt), err_msg=name)
            with np.errstate(over="ignore"):
                r = ref[fin].astype(dt).astype(np.float64)
            atol = {"math.sin": 2e-6, "math.cos": 2e-6}.get(name, 0) if dt == np.float32 else 0
            if dt == np.float64 and name in ("math.sin", "math.cos"):
                atol = 1e-15
            np.testing.assert_allclose(got[fin], r, rtol=tol, atol=atol + 1e-300, err_msg=name)
    return check


for _dt, _el in ((np.float32, "f32"), (np.float64, "f64"), (np.float16, "f16")):
    kernel(f"math_{_el}", _math_ir(_el), make=_math_make(_dt), check=_math_check(_dt))

# --------------------------------------------------------------------------- replicated layouts
kernel("replicated", _module("""
  tt.func @replicated(%X: ptr<f32> {noalias, readonly}, %Y: ptr<f32> {noalias}, %S: ptr<f32> {noalias}, %CNT: ptr<i32>, %OLD: ptr<i32> {noalias}, %N: i32) attributes {kernel} {
    %r = tt.make_range {end = 16, start = 0} : i32[16]
    %ns = tt.splat %N : i32[16]
    %m = arith.cmpi %r, %ns {predicate = "slt"} : i1[16]
    %px = tt.splat %X : ptr<f32>[16]
    %pxi = tt.addptr %px, %r : ptr<f32>[16]
    %one = arith.constant {value = 1.0} : f32[16]
    %x = tt.load %pxi, %m, %one : f32[16]
    %two = arith.constant {value = 2.0} : f32[16]
    %y = arith.mulf %x, %two : f32[16]
    %py = tt.splat %Y : ptr<f32>[16]
    %pyi = tt.addptr %py, %r : ptr<f32>[16]
    tt.store %pyi, %y, %m
    %s = tt.reduce %x {axis = 0, combine = "addf"} : f32
    %mx = tt.reduce %x {axis = 0, combine = "maxnumf"} : f32
    %s2 = arith.addf %s, %mx : f32
    tt.store %S, %s2
    %pc = tt.splat %CNT : ptr<i32>[16]
    %ione = arith.constant {value = 1} : i32[16]
    %old = tt.atomic_rmw %pc, %ione, %m {kind = "add"} : i32[16]
    %po = tt.splat %OLD : ptr<i32>[16]
    %poi = tt.addptr %po, %r : ptr<i32>[16]
    tt.store %poi, %old, %m
    tt.return
  }"""),
    make=lambda g: ((1,), [g.standard_normal(16).astype(np.float32), poison(16, np.float32), poison(1, np.float32),
                           np.zeros(1, np.int32), poison(16, np.int32), np.int32(13)]),
    check=lambda i, o: (close(o[1][:13], i[0][:13] * 2, 0, 0), np.testing.assert_(np.isnan(o[1][13:]).all()),
                        close(o[2][0], np.concatenate([i[0][:13], np.ones(3, np.float32)]).sum()
                              + max(i[0][:13].max(), 1.0), 1e-5, 1e-5),
                        np.testing.assert_array_equal(o[3], [13]),
                        np.testing.assert_array_equal(np.sort(o[4][:13]), np.arange(13))))

# --------------------------------------------------------------------------- scalar params, 3-D grid, reshape
kernel("scalars_grid", _module("""
  tt.func @scalars_grid(%OUT: ptr<f32> {noalias}, %IDS: ptr<i32> {noalias}, %flag: i1, %h: f16, %bf: bf16, %l: i64, %d: f64) attributes {kernel} {
    %px = tt.get_program_id {axis = 0} : i32
    %py = tt.get_program_id {axis = 1} : i32
    %pz = tt.get_program_id {axis = 2} : i32
    %nx = tt.get_num_programs {axis = 0} : i32
    %ny = tt.get_num_programs {axis = 1} : i32
    %t0 = arith.muli %pz, %ny : i32
    %t1 = arith.addi %t0, %py : i32
    %t2 = arith.muli %t1, %nx : i32
    %lin = arith.addi %t2, %px : i32
    %c4 = arith.constant {value = 4} : i32
    %base = arith.muli %lin, %c4 : i32
    %r = tt.make_range {end = 4, start = 0} : i32[4]
    %bs = tt.splat %base : i32[4]
    %idx = arith.addi %bs, %r : i32[4]
    %v0 = tt.splat %lin : i32[4]
    %pi = tt.splat %IDS : ptr<i32>[4]
    %pii = tt.addptr %pi, %idx : ptr<i32>[4]
    tt.store %pii, %v0
    %hf = arith.extf %h : f32
    %bff = arith.extf %bf : f32
    %lf = arith.sitofp %l : f32
    %df = arith.truncf %d : f32
    %s1 = arith.addf %hf, %bff : f32
    %s2 = arith.addf %s1, %lf : f32
    %s3 = arith.addf %s2, %df : f32
    %zero = arith.constant {value = 0.0} : f32
    %s4 = arith.select %flag, %s3, %zero : f32
    %out = tt.addptr %OUT, %lin : ptr<f32>
    tt.store %out, %s4
    %x = tt.reshape %idx : i32[2,2]
    %xs = tt.reduce %x {axis = 1, combine = "addi"} : i32[2]
    %tot = tt.reduce %xs {axis = 0, combine = "addi"} : i32
    %c = arith.constant {value = 24} : i32
    %ofs = arith.addi %lin, %c : i32
    %ofs4 = arith.muli %ofs, %c4 : i32
    %pt = tt.addptr %IDS, %ofs4 : ptr<i32>
    tt.store %pt, %tot
    tt.return
  }"""),
    make=lambda g: ((2, 3, 4), [poison(24, np.float32), poison(24 * 4 + 24 * 4, np.int32), np.uint8(1), np.float16(1.5),
                                np.uint16(0x4040), np.int64(-(2 ** 40)), np.float64(0.25)]),
    check=lambda i, o: (close(o[0], np.full(24, 1.5 + 3.0 - 2.0 ** 40 + 0.25, np.float32), 0, 0),
                        np.testing.assert_array_equal(o[1][:96], np.repeat(np.arange(24), 4)),
                        np.testing.assert_array_equal(o[1][96::4], 4 * np.arange(24) * 4 + 6)))

# --------------------------------------------------------------------------- reductions of every type
_RED = {"i32": ["addi", "muli", "maxsi", "minui", "andi", "ori", "xori"], "i64": ["addi", "maxsi", "minui", "xori"],
        "i8": ["addi", "maxsi", "minui"], "f16": ["maxnumf", "minnumf"], "f32": ["addf", "maxnumf"],
        "f64": ["addf", "minnumf"]}
_NP = {"i32": np.int32, "i64": np.int64, "i8": np.int8, "f16": np.float16, "f32": np.float32, "f64": np.float64}


def _reduce_ir(el):
    params = [f"%X: ptr<{el}> {{noalias, readonly}}"]
    body = ["    %p0 = arith.constant {value = 0} : i32", "    %c64 = arith.constant {value = 64} : i32",
            _range("rm", "p0", 8), _range("rn", "p0", 64), _tile2d("x", "X", "rm", "rn", "c64", "c64", "c64", (8, 64), el),
            f"    %x = tt.load %x_p : {el}[8,64]"]
    k = 0
    for comb in _RED[el]:
        for axis, n, rng in ((0, 64, "rn"), (1, 8, "rm")):
            params.append(f"%O{k}: ptr<{el}> {{noalias}}")
            body += [f"    %r{k} = tt.reduce %x {{axis = {axis}, combine = \"{comb}\"}} : {el}[{n}]",
                     f"    %po{k} = tt.splat %O{k} : ptr<{el}>[{n}]", f"    %poi{k} = tt.addptr %po{k}, %{rng} : ptr<{el}>[{n}]",
                     f"    tt.store %poi{k}, %r{k}"]
            k += 1
    body.append("    tt.return")
    return _module(f"  tt.func @reduce_{el}({', '.join(params)}) attributes {{kernel}} {{\n" + "\n".join(body) + "\n  }")


def _reduce_make(el):
    def make(g):
        dt = _NP[el]
        if dt in (np.float16, np.float32, np.float64):
            x = g.standard_normal((8, 64)).astype(dt)
        else:
            info = np.iinfo(dt)
            x = g.integers(info.min, info.max, (8, 64), endpoint=True).astype(dt)
        outs = [poison(64 if k % 2 == 0 else 8, dt) for k in range(2 * len(_RED[el]))]
        return (1,), [x] + outs
    return make


def _reduce_check(el):
    def check(i, o):
        x = i[0]
        u = x.view(x.dtype.str.replace("i", "u")) if x.dtype.kind == "i" else x
        k = 0
        for comb in _RED[el]:
            for axis in (0, 1):
                with np.errstate(all="ignore"):
                    want = {"addi": lambda: x.sum(axis, dtype=x.dtype), "muli": lambda: x.prod(axis, dtype=x.dtype),
                            "maxsi": lambda: x.max(axis), "minui": lambda: u.min(axis).view(x.dtype),
                            "andi": lambda: np.bitwise_and.reduce(x, axis), "ori": lambda: np.bitwise_or.reduce(x, axis),
                            "xori": lambda: np.bitwise_xor.reduce(x, axis), "maxnumf": lambda: x.max(axis),
                            "minnumf": lambda: x.min(axis),
                            "addf": lambda: x.astype(np.float64).sum(axis)}[comb]()
                if comb == "addf":
                    close(o[1 + k], want, 1e-5, 1e-5, f"{el} {comb} {axis}")
                else:
                    np.testing.assert_array_equal(o[1 + k], want, err_msg=f"{el} {comb} {axis}")
                k += 1
    return check


for _el in _RED:
    kernel(f"reduce_{_el}", _reduce_ir(_el), make=_reduce_make(_el), check=_reduce_check(_el))

# --------------------------------------------------------------------------- masked loads/stores of every type
_LS = ["i8", "i16", "i64", "f16", "bf16", "f64", "i1"]


def _ls_ir():
    params, body = [], ["    %r = tt.make_range {end = 64, start = 0} : i32[64]", "    %n = arith.constant {value = 37} : i32[64]",
                        "    %m = arith.cmpi %r, %n {predicate = \"slt\"} : i1[64]"]
    for el in _LS:
        params += [f"%I_{el}: ptr<{el}> {{noalias, readonly}}", f"%O_{el}: ptr<{el}> {{noalias}}"]
        other = "true" if el == "i1" else ("7" if el.startswith("i") else "-2.5")
        body += [f"    %pi_{el} = tt.splat %I_{el} : ptr<{el}>[64]", f"    %pii_{el} = tt.addptr %pi_{el}, %r : ptr<{el}>[64]",
                 f"    %oth_{el} = arith.constant {{value = {other}}} : {el}[64]",
                 f"    %v_{el} = tt.load %pii_{el}, %m, %oth_{el} : {el}[64]",
                 f"    %po_{el} = tt.splat %O_{el} : ptr<{el}>[64]", f"    %poi_{el} = tt.addptr %po_{el}, %r : ptr<{el}>[64]",
                 f"    tt.store %poi_{el}, %v_{el}"]
    body.append("    tt.return")
    return _module("  tt.func @loads_stores(" + ", ".join(params) + ") attributes {kernel} {\n"
                   + "\n".join(body) + "\n  }")


def _ls_make(g):
    import ml_dtypes
    args = []
    for el in _LS:
        if el == "i1":
            v = (g.integers(0, 2, 64)).astype(np.uint8)
        elif el == "bf16":
            v = g.standard_normal(64).astype(ml_dtypes.bfloat16)
        elif el.startswith("f"):
            v = g.standard_normal(64).astype(_NP.get(el, np.float16))
        else:
            dt = {"i8": np.int8, "i16": np.int16, "i64": np.int64}[el]
            v = g.integers(np.iinfo(dt).min, np.iinfo(dt).max, 64).astype(dt)
        args += [v, poison(64, v.dtype)]
    return (1,), args


def _ls_check(i, o):
    import ml_dtypes
    for k, el in enumerate(_LS):
        src, out = i[2 * k], o[2 * k + 1]
        other = {"i1": 1, "bf16": -2.5, "f16": -2.5, "f64": -2.5}.get(el, 7)
        want = src.copy()
        want[37:] = np.asarray(other).astype(src.dtype)
        if el == "bf16":
            np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16), err_msg=el)
        else:
            np.testing.assert_array_equal(out, want, err_msg=el)


kernel("loads_stores", _ls_ir(), make=_ls_make, check=_ls_check,
       ptx_facts=[("ld.global.nc.u8", 2, None), ("ld.global.nc.b16", 1, None), ("ld.global.nc.b64", 1, None)])

# --------------------------------------------------------------------------- small f32/f64 dots, nested loops
def _dot_ir(el, M, N, K):
    return _module(f"""
  tt.func @dot_{el}(%A: ptr<{el}> {{noalias, readonly}}, %B: ptr<{el}> {{noalias, readonly}}, %C: ptr<{el}> {{noalias}}, %n: i32) attributes {{kernel}} {{
    %p0 = arith.constant {{value = 0}} : i32
    %cM = arith.constant {{value = {M}}} : i32
    %cN = arith.constant {{value = {N}}} : i32
    %cK = arith.constant {{value = {K}}} : i32
    {_range("rm", "p0", M)}
    {_range("rn", "p0", N)}
    {_range("rk", "p0", K)}
    {_tile2d("a", "A", "rm", "rk", "cK", "cM", "cK", (M, K), el)}
    {_tile2d("b", "B", "rk", "rn", "cN", "cK", "cN", (K, N), el)}
    {_tile2d("c", "C", "rm", "rn", "cN", "cM", "cN", (M, N), el)}
    %a = tt.load %a_p : {el}[{M},{K}]
    %b = tt.load %b_p : {el}[{K},{N}]
    %c0 = tt.load %c_p : {el}[{M},{N}]
    %c1 = arith.constant {{value = 1}} : i32
    %res = scf.for %p0, %n, %c1, %c0 {{predicate = "slt"}} : {el}[{M},{N}] {{
    ^(%i: i32, %acc: {el}[{M},{N}]):
      %inner = scf.for %p0, %i, %c1, %acc {{predicate = "slt"}} : {el}[{M},{N}] {{
      ^(%j: i32, %acc2: {el}[{M},{N}]):
        %d = tt.dot %a, %b, %acc2 {{input_precision = "ieee"}} : {el}[{M},{N}]
        scf.yield %d
      }}
      scf.yield %inner
    }}
    tt.store %c_p, %res
    tt.return
  }}""")


def _dot_make(dt, M, N, K):
    return lambda g: ((1,), [g.integers(-4, 5, (M, K)).astype(dt), g.integers(-4, 5, (K, N)).astype(dt),
                             g.integers(-4, 5, (M, N)).astype(dt), np.int32(4)])


def _dot_check(i, o):
    a, b, c = (x.astype(np.float64) for x in i[:3])
    np.testing.assert_array_equal(o[2], (c + 6 * (a @ b)).astype(i[2].dtype))  # 0+1+2+3 inner trips


kernel("dot_f32", _dot_ir("f32", 16, 16, 16), make=_dot_make(np.float32, 16, 16, 16), check=_dot_check)
kernel("dot_f64", _dot_ir("f64", 64, 8, 8), make=_dot_make(np.float64, 64, 8, 8), check=_dot_check)

# --------------------------------------------------------------------------- more atomics: xchg, f16/f64 adds, replicated cas
kernel("atomics_more", _module("""
  tt.func @atomics_more(%XS: ptr<i32> {noalias}, %OX: ptr<i32> {noalias}, %H: ptr<f16>, %D: ptr<f64>, %CS: ptr<i32>, %OC: ptr<i32> {noalias}) attributes {kernel} {
    %r = tt.make_range {end = 32, start = 0} : i32[32]
    %px = tt.splat %XS : ptr<i32>[32]
    %pxi = tt.addptr %px, %r : ptr<i32>[32]
    %c100 = arith.constant {value = 100} : i32[32]
    %v = arith.addi %r, %c100 : i32[32]
    %old = tt.atomic_rmw %pxi, %v {kind = "xchg"} : i32[32]
    %po = tt.splat %OX : ptr<i32>[32]
    %poi = tt.addptr %po, %r : ptr<i32>[32]
    tt.store %poi, %old
    %c4 = arith.constant {value = 4} : i32[32]
    %slot = arith.remui %r, %c4 : i32[32]
    %ph = tt.splat %H : ptr<f16>[32]
    %phs = tt.addptr %ph, %slot : ptr<f16>[32]
    %hv = arith.constant {value = 0.5} : f16[32]
    %oh = tt.atomic_rmw %phs, %hv {kind = "fadd"} : f16[32]
    %pd = tt.splat %D : ptr<f64>[32]
    %pds = tt.addptr %pd, %slot : ptr<f64>[32]
    %rf = arith.sitofp %r : f64[32]
    %od = tt.atomic_rmw %pds, %rf {kind = "fadd"} : f64[32]
    %pc = tt.splat %CS : ptr<i32>[32]
    %pcs = tt.addptr %pc, %slot : ptr<i32>[32]
    %zero = arith.constant {value = 0} : i32[32]
    %one = arith.constant {value = 1} : i32[32]
    %r1 = arith.addi %r, %one : i32[32]
    %oc = tt.atomic_cas %pcs, %zero, %r1 : i32[32]
    %poc = tt.splat %OC : ptr<i32>[32]
    %poci = tt.addptr %poc, %r : ptr<i32>[32]
    tt.store %poci, %oc
    tt.return
  }"""),
    make=lambda g: ((1,), [g.integers(0, 99, 32).astype(np.int32), poison(32, np.int32), np.zeros(4, np.float16),
                           np.zeros(4, np.float64), np.zeros(4, np.int32), poison(32, np.int32)]),
    check=lambda i, o: (np.testing.assert_array_equal(o[1], i[0]), np.testing.assert_array_equal(o[0], np.arange(32) + 100),
                        np.testing.assert_array_equal(o[2], np.full(4, 4.0, np.float16)),
                        np.testing.assert_array_equal(o[3], [sum(range(j, 32, 4)) for j in range(4)]),
                        [np.testing.assert_(o[4][j] in (o[5][j::4] * 0 + np.arange(j, 32, 4) + 1))
                         for j in range(4)],
                        [np.testing.assert_array_equal(np.sort(o[5][j::4])[1:], np.sort(o[5][j::4])[1:] * 0 + o[4][j])
                         for j in range(4)],
                        [np.testing.assert_(np.sort(o[5][j::4])[0] == 0) for j in range(4)]))

# --------------------------------------------------------------------------- > 48 KiB of shared memory
kernel("big_add_transposed", _module(f"""
  tt.func @big_add_transposed(%X: ptr<f32> {{noalias, readonly}}, %Z: ptr<f32> {{noalias}}, %N: i32) attributes {{kernel}} {{
    %p0 = arith.constant {{value = 0}} : i32
    {_range("rm", "p0", 128)}
    {_tile2d("x", "X", "rm", "rm", "N", "N", "N", (128, 128))}
    %x = tt.load %x_p, %x_mask : f32[128,128]
    %xt = tt.trans %x {{order = [1, 0]}} : f32[128,128]
    %z = arith.addf %x, %xt : f32[128,128]
    %zp = tt.splat %Z : ptr<f32>[128,128]
    %zpo = tt.addptr %zp, %x_off : ptr<f32>[128,128]
    tt.store %zpo, %z, %x_mask
    tt.return
  }}""", num_warps=8),
    make=lambda g: ((1,), [g.standard_normal((120, 120)).astype(np.float32), poison((120, 120), np.float32), np.int32(120)]),
    check=lambda i, o: close(o[1], i[0] + i[0].T, rtol=0, atol=0))
