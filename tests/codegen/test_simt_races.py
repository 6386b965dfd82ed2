"""Race detection in the SIMT simulator (``tritonc.simt.races``).

Three levels: the shadow state alone (:class:`RaceShadow`, the wgmma rules); tiny hand-made
LLVM kernels with and without their barrier (RAW, WAR, WAW, cp.async, same-warp exchange); and
planted bugs: a barrier deleted from the lowered LLVM IR of the one-tile softmax
(``tests/data/softmax_one_tile.tri``) and of the pipelined matmul (mma.sync on sm_90, wgmma on sm_90a), which the simulator still computes
right (it runs warps in lock step) but now reports as a race.
"""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import llvmlite.ir as ir
import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt import RaceError, RaceShadow, lower_for_simulation, run_kernel, run_lowered

ROOT = Path(__file__).resolve().parents[2]
BARRIER = "llvm.nvvm.barrier.cta.sync.aligned.all"
I1, I8, I32 = ir.IntType(1), ir.IntType(8), ir.IntType(32)
SPTR, GPTR = ir.PointerType(addrspace=3), ir.PointerType(addrspace=1)


# -- the shadow state alone ------------------------------------------------------------------
def _ops(shadow: RaceShadow, *names: str) -> list[int]:
    return [shadow.op_id(n, lambda n=n: n) for n in names]


def test_shadow_read_after_write_needs_a_barrier_between_warps():
    s = RaceShadow(64, 2)
    st, ld = _ops(s, "st", "ld")
    a = np.arange(8)
    s.write(a, np.zeros(8, np.int64), st)
    s.read(a, np.zeros(8, np.int64), ld)  # the writer itself
    with pytest.raises(RaceError) as e:
        s.read(a + 4, np.ones(8, np.int64), ld)
    assert (e.value.kind, e.value.address, e.value.first, e.value.second) == ("RAW", 4, (0, "st"), (1, "ld"))
    s.barrier()
    s.read(a, np.ones(8, np.int64), ld)


def test_shadow_write_after_read_and_write_after_write():
    s = RaceShadow(64, 4)
    st, ld, st2 = _ops(s, "st", "ld", "st2")
    s.read(np.array([10, 11]), np.array([3, 3]), ld)
    s.read(np.array([10]), np.array([2]), ld)  # two readers: no race
    s.write(np.array([11]), np.array([3]), st)  # the only reader writes: in order
    with pytest.raises(RaceError, match=r"\(WAR\) at byte 0xa .*warp 3 read it in `ld`, then warp 2 writes"):
        s.write(np.array([10]), np.array([2]), st2)
    s = RaceShadow(64, 4)
    st, st2 = _ops(s, "st", "st2")
    s.write(np.array([5]), np.array([0]), st)
    with pytest.raises(RaceError, match=r"\(WAW\) at byte 0x5"):
        s.write(np.array([5]), np.array([1]), st2)
    with pytest.raises(RaceError, match=r"\(WAW\) at byte 0x7 .*warp 2 wrote it in `st`, then warp 3 writes it in `st`"):
        s.write(np.array([6, 7, 7]), np.array([3, 3, 2]), st)  # two warps in one store


def test_shadow_cp_async_lands_at_its_wait():
    s = RaceShadow(64, 2)
    cp, ld = _ops(s, "cp.async", "ld")
    s.read(np.array([0]), np.array([1]), ld)      # epoch 0, before the copy is issued
    s.barrier()
    issued = s.epoch                                 # copy by warp 0 issued in epoch 1
    s.read(np.array([16]), np.array([1]), ld)     # another warp reads the slot in flight
    s.barrier()
    with pytest.raises(RaceError, match=r"\(WAR\) at byte 0x10 .*warp 1 read it in `ld`"):
        s.write(np.arange(16, 32), np.zeros(16, np.int64), cp, since=issued)
    s = RaceShadow(64, 2)
    cp, ld = _ops(s, "cp.async", "ld")
    s.read(np.array([0]), np.array([1]), ld)
    s.barrier()
    s.write(np.arange(16), np.zeros(16, np.int64), cp, since=s.epoch)   # lands at the wait
    with pytest.raises(RaceError, match="RAW"):
        s.read(np.array([3]), np.array([1]), ld)  # no barrier after the wait
    s.barrier()
    s.read(np.array([3]), np.array([1]), ld)


def test_shadow_wgmma_reads_until_its_wait():
    s = RaceShadow(256, 8)
    st, mma, cp = _ops(s, "st", "wgmma", "cp")
    a = np.arange(0, 64)
    s.write(a, np.full(64, 1), st)
    with pytest.raises(RaceError, match=r"warp 1 wrote .* then the warp group of warps 0-3 reads"):
        s.issue(a, 0, mma)  # a write by a warp of the group, same epoch: async proxy, a race
    s.barrier()
    s.issue(a, 0, mma)
    with pytest.raises(RaceError, match=r"\(WAR\) .*the warp group of warps 0-3 read it in `wgmma \(in flight"):
        s.write(np.array([5]), np.array([0]), st)   # even the issuing warp, while in flight
    s.check_in_flight(np.array([100]), np.array([4]), cp)
    with pytest.raises(RaceError, match="in flight"):
        s.check_in_flight(np.array([63]), np.array([4]), cp)
    s.retire(a, 0, mma)
    with pytest.raises(RaceError, match=r"\(WAR\) .* then warp 4 writes"):
        s.write(np.array([5]), np.array([4]), st)   # after the wait, before a barrier
    with pytest.raises(RaceError, match=r"\(WAR\) .* then warp 2 writes"):
        s.write(np.array([5]), np.array([2]), st)   # another warp of the group may not be waiting yet
    s.barrier()
    s.write(np.array([5]), np.array([4]), st)


# -- tiny hand-made kernels --------------------------------------------------------------------
def _kernel(build, num_warps: int, shared: int = 4096):
    """A kernel ``k(ptr addrspace(1) out, ptr addrspace(1) src)`` whose body ``build(b, tid,
    smem, out, src)`` makes; returns what :func:`run_lowered` takes."""
    mod = ir.Module(name="races")
    smem = ir.GlobalVariable(mod, ir.ArrayType(I8, 0), "global_smem", addrspace=3)
    smem.type = SPTR
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [GPTR, GPTR]), "k")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    tid = b.call(ir.Function(mod, ir.FunctionType(I32, []), "llvm.nvvm.read.ptx.sreg.tid.x"), [])
    build(b, mod, tid, smem, *fn.args)
    b.ret_void()
    return (fn, SimpleNamespace(shared_bytes=shared), num_warps), smem


def _call(b, mod, name, args, ret=ir.VoidType()):
    fn = mod.globals.get(name) or ir.Function(mod, ir.FunctionType(ret, [a.type for a in args]), name)
    return b.call(fn, args)


def _exchange(partner, barrier: bool):
    """Each thread stores its id at ``4 * tid`` and reads the word of thread ``partner(tid)``."""
    def build(b, mod, tid, smem, out, src):
        b.store(tid, b.gep(smem, [b.mul(tid, ir.Constant(I32, 4))], source_etype=I8))
        if barrier:
            _call(b, mod, BARRIER, [ir.Constant(I32, 0)])
        other = partner(b, tid)
        v = b.load(b.gep(smem, [b.mul(other, ir.Constant(I32, 4))], source_etype=I8), typ=I32)
        b.store(v, b.gep(out, [tid], source_etype=I32))
    return build


def _xor(k):
    return lambda b, tid: b.xor(tid, ir.Constant(I32, k))


def test_exchange_between_warps_needs_its_barrier():
    kernel, smem = _kernel(_exchange(_xor(32), barrier=True), num_warps=2)
    out = np.full(64, -1, np.int32)
    run_lowered(kernel, smem, (1,), [out, np.zeros(4, np.int32)])
    np.testing.assert_array_equal(out, np.arange(64) ^ 32)
    kernel, smem = _kernel(_exchange(_xor(32), barrier=False), num_warps=2)
    with pytest.raises(RaceError) as e:
        run_lowered(kernel, smem, (1,), [out, np.zeros(4, np.int32)])
    assert e.value.kind == "RAW" and e.value.address == 0x80  # warp 0's thread 0 reads thread 32's word
    assert e.value.first[0] == 1 and e.value.first[1].startswith("store i32")
    assert e.value.second[0] == 0 and "load i32, ptr addrspace(3)" in e.value.second[1]
    assert isinstance(e.value, AssertionError)
    out[:] = -1  # lock step computes it right all the same; races=False turns the check off
    run_lowered(kernel, smem, (1,), [out, np.zeros(4, np.int32)], races=False)
    np.testing.assert_array_equal(out, np.arange(64) ^ 32)


def test_exchange_within_a_warp_needs_no_barrier():
    kernel, smem = _kernel(_exchange(_xor(1), barrier=False), num_warps=4)
    out = np.full(128, -1, np.int32)
    run_lowered(kernel, smem, (2,), [out, np.zeros(4, np.int32)])
    np.testing.assert_array_equal(out, np.arange(128) ^ 1)


def test_overwrite_of_a_word_another_warp_read():
    def build(b, mod, tid, smem, out, src):
        mine = b.gep(smem, [b.mul(tid, ir.Constant(I32, 4))], source_etype=I8)
        b.store(tid, mine)
        _call(b, mod, BARRIER, [ir.Constant(I32, 0)])
        other = b.gep(smem, [b.mul(b.xor(tid, ir.Constant(I32, 32)), ir.Constant(I32, 4))], source_etype=I8)
        b.store(b.load(other, typ=I32), b.gep(out, [tid], source_etype=I32))
        b.store(ir.Constant(I32, 7), mine)  # WAR: warp 1 may not have read it yet
    kernel, smem = _kernel(build, num_warps=2)
    with pytest.raises(RaceError, match=r"\(WAR\) at byte 0x0 in barrier epoch 1: warp 1 read it in `%.* = load i32"):
        run_lowered(kernel, smem, (1,), [np.zeros(64, np.int32), np.zeros(4, np.int32)])


def test_two_warps_storing_one_word():
    def build(b, mod, tid, smem, out, src):
        b.store(tid, b.gep(smem, [b.mul(b.and_(tid, ir.Constant(I32, 7)), ir.Constant(I32, 4))], source_etype=I8))
    kernel, smem = _kernel(build, num_warps=2)
    with pytest.raises(RaceError, match="WAW"):
        run_lowered(kernel, smem, (1,), [np.zeros(4, np.int32), np.zeros(4, np.int32)])
    kernel, smem = _kernel(build, num_warps=1)  # lanes 0, 8, 16, 24 of one warp: no race
    run_lowered(kernel, smem, (1,), [np.zeros(4, np.int32), np.zeros(4, np.int32)])


def _copy_then_read(wait_before_barrier: bool, read_in_flight: bool = False):
    """cp.async of 16 bytes per thread into ``16 * tid``; another warp's thread reads them."""
    def build(b, mod, tid, smem, out, src):
        dst = b.gep(smem, [b.mul(tid, ir.Constant(I32, 16))], source_etype=I8)
        other = b.gep(smem, [b.mul(b.xor(tid, ir.Constant(I32, 32)), ir.Constant(I32, 16))], source_etype=I8)
        _call(b, mod, "llvm.nvvm.cp.async.cg.shared.global.16.s",
              [dst, b.gep(src, [b.mul(tid, ir.Constant(I32, 4))], source_etype=I32), ir.Constant(I32, 16)])
        _call(b, mod, "llvm.nvvm.cp.async.commit.group", [])
        if read_in_flight:
            b.load(other, typ=I32)
        if wait_before_barrier:
            _call(b, mod, "llvm.nvvm.cp.async.wait.group", [ir.Constant(I32, 0)])
        _call(b, mod, BARRIER, [ir.Constant(I32, 0)])
        if not wait_before_barrier:
            _call(b, mod, "llvm.nvvm.cp.async.wait.group", [ir.Constant(I32, 0)])
        b.store(b.load(other, typ=I32), b.gep(out, [tid], source_etype=I32))
    return _kernel(build, num_warps=2)


def test_cp_async_is_visible_to_other_warps_after_wait_then_barrier():
    src = np.arange(256, dtype=np.int32)
    out = np.full(64, -1, np.int32)
    run_lowered(*_copy_then_read(wait_before_barrier=True), (1,), [out, src])
    np.testing.assert_array_equal(out, 4 * (np.arange(64) ^ 32))
    # a barrier before the wait does not make the copy visible (the wait completes this thread's copies)
    with pytest.raises(RaceError, match=r"\(RAW\) .*cp\.async\.cg\.shared\.global\.16.*landed at .*wait\.group"):
        run_lowered(*_copy_then_read(wait_before_barrier=False), (1,), [out, src])
    # a read of the destination while the copy is in flight races with it, whenever it lands
    with pytest.raises(RaceError, match=r"\(WAR\) at byte 0x0 in barrier epoch 0: warp 1 read it"):
        run_lowered(*_copy_then_read(wait_before_barrier=True, read_in_flight=True), (1,), [out, src])


def _stmatrix_then_read(trans: bool, barrier: bool):
    """Each warp stores four 8x8 b16 matrices with ``stmatrix.x4`` into its 512 bytes (lane
    ``l`` gives row ``l % 8`` of matrix ``l // 8``; register ``i`` of every lane is ``1000 * i +
    2 * lane`` and ``+ 1`` in its two halves); then every thread copies 16 bytes of shared
    memory (thread ``t``: bytes ``16 t``, another warp's half for ``t < 32``) to ``out``."""
    def build(b, mod, tid, smem, out, src):
        lane = b.and_(tid, ir.Constant(I32, 31))
        row = b.add(b.mul(b.lshr(tid, ir.Constant(I32, 5)), ir.Constant(I32, 512)), b.mul(lane, ir.Constant(I32, 16)))
        regs = [b.or_(b.add(b.mul(lane, ir.Constant(I32, 2)), ir.Constant(I32, 1000 * i)),
                      b.shl(b.add(b.mul(lane, ir.Constant(I32, 2)), ir.Constant(I32, 1000 * i + 1)),
                            ir.Constant(I32, 16))) for i in range(4)]
        name = f"llvm.nvvm.stmatrix.sync.aligned.m8n8.x4{'.trans' if trans else ''}.b16"
        _call(b, mod, name, [b.gep(smem, [row], source_etype=I8)] + regs)
        if barrier:
            _call(b, mod, BARRIER, [ir.Constant(I32, 0)])
        at = b.mul(b.xor(tid, ir.Constant(I32, 32)), ir.Constant(I32, 16))
        v = b.load(b.gep(smem, [at], source_etype=I8), typ=ir.VectorType(I32, 4))
        b.store(v, b.gep(out, [b.mul(tid, ir.Constant(I32, 4))], source_etype=I32))
    return _kernel(build, num_warps=2)


@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_writes_per_lane_warp(trans):
    out = np.zeros(256, np.int32)
    run_lowered(*_stmatrix_then_read(trans, barrier=True), (1,), [out, np.zeros(4, np.int32)])
    got = out.view(np.uint16).reshape(2, 4, 8, 8)  # [thread's source warp half, matrix, row, col]
    got = np.concatenate([got[1], got[0]]).reshape(2, 4, 8, 8)  # thread t read warp (t ^ 32)'s bytes
    lane = 4 * np.arange(8)[:, None] + np.arange(8)[None, :] // 2    # lane holding fragment (g, c)
    frag = np.stack([2 * lane + (np.arange(8)[None, :] % 2) + 1000 * i for i in range(4)])
    want = frag.transpose(0, 2, 1) if trans else frag
    for w in range(2):
        np.testing.assert_array_equal(got[w], want)
    with pytest.raises(RaceError, match=r"\(RAW\) at byte 0x200 .*warp 1 wrote it in `call void "
                                        r"@\"llvm\.nvvm\.stmatrix.*then warp 0 reads"):
        run_lowered(*_stmatrix_then_read(trans, barrier=False), (1,), [out, np.zeros(4, np.int32)])


def test_an_array_passed_twice_is_one_buffer():
    """(Not a race: an in-place kernel, out = src, through the simulator's argument binding.)"""
    def build(b, mod, tid, smem, out, src):
        v = b.load(b.gep(src, [tid], source_etype=I32), typ=I32)
        b.store(b.add(v, ir.Constant(I32, 1)), b.gep(out, [tid], source_etype=I32))
    kernel, smem = _kernel(build, num_warps=1)
    x = np.arange(32, dtype=np.int32)
    run_lowered(kernel, smem, (1,), [x, x])
    np.testing.assert_array_equal(x, np.arange(32) + 1)
    y = np.arange(32, dtype=np.int32)
    out = np.zeros(32, np.int32)
    run_lowered(kernel, smem, (1,), [out, y])
    np.testing.assert_array_equal(out, np.arange(32) + 1)
    np.testing.assert_array_equal(y, np.arange(32))


def test_barrier_in_divergent_code_is_refused():
    def build(b, mod, tid, smem, out, src):
        with b.if_then(b.icmp_unsigned("<", tid, ir.Constant(I32, 32))):
            _call(b, mod, BARRIER, [ir.Constant(I32, 0)])
    kernel, smem = _kernel(build, num_warps=2)
    with pytest.raises(RuntimeError, match="reached by 32 of the CTA's 64 threads"):
        run_lowered(kernel, smem, (1,), [np.zeros(4, np.int32), np.zeros(4, np.int32)])


# -- planted bugs: a barrier deleted from the lowering ---------------------------------------
def _barriers(fn: ir.Function) -> list[tuple[ir.Block, ir.Instruction]]:
    return [(blk, i) for blk in fn.blocks for i in blk.instructions
            if isinstance(i, ir.CallInstr) and getattr(i.callee, "name", "") == BARRIER]


def _without_barrier(module, name: str, arch: str, index: int):
    """``module``'s kernel lowered for the simulator with its ``index``-th ``bar.sync`` (in
    block order) deleted; returns (kernel, smem, the deleted barrier's block name)."""
    kernels, smem = lower_for_simulation(module, arch)
    block, inst = _barriers(kernels[name][0])[index]
    block.instructions.remove(inst)
    return kernels[name], smem, block.name


def _softmax(num_warps: int):
    opts = CompileOptions(num_warps=num_warps, arch="sm_90", defines={"BLOCK": "1024"})
    # the one-tile softmax (examples/softmax.tri before its loop for long rows): two reductions
    return Compilation(ROOT / "tests" / "data" / "softmax_one_tile.tri", opts).ttgir


def _softmax_args(M=3, N=1000):
    X = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return [np.full((M, N), np.nan, np.float32), X, N, N, N], e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("num_warps", [4, 8])
def test_softmax_without_a_reduction_barrier(num_warps):
    """Softmax's two cross-warp reductions (max, then +) each store partials, ``bar.sync``, and
    read them; ``insert-barriers`` adds one between them (the second reuses the scratch). Each
    of the three is needed, and each deleted one is reported; the lock-step result stays right."""
    module = _softmax(num_warps)
    args, ref = _softmax_args()
    run_kernel(module, "softmax", (3,), args)
    np.testing.assert_allclose(args[0], ref, rtol=1e-5, atol=1e-7)
    assert len(_barriers(lower_for_simulation(module)[0]["softmax"][0])) == 3
    expect = ["RAW", "WAR", "RAW"]  # partials read unsynchronised; overwritten while read; again
    for index in range(3):
        kernel, smem, _ = _without_barrier(module, "softmax", "sm_90", index)
        args, _ = _softmax_args()
        with pytest.raises(RaceError) as e:
            run_lowered(kernel, smem, (3,), args)
        assert e.value.kind == expect[index], e.value
        assert e.value.first[0] != e.value.second[0]
        ops = e.value.first[1] + e.value.second[1]
        assert "store float" in ops and "load float, ptr addrspace(3)" in ops
        args, _ = _softmax_args()
        run_lowered(kernel, smem, (3,), args, races=False)
        np.testing.assert_allclose(args[0], ref, rtol=1e-5, atol=1e-7)


sys.path.insert(0, str(Path(__file__).parent))
from test_mma_sim import KERNEL, compile_matmul  # noqa: E402  (tests/codegen is on sys.path)

MATMUL_CASES = [
    # (arch, path, the op that reads the unsynchronised bytes after the loop barrier goes)
    ("sm_90", KERNEL, "ldmatrix"),
    ("sm_90", ROOT / "examples" / "matmul.tri", "ldmatrix"),
    ("sm_90a", KERNEL, "wgmma.mma_async"),
    ("sm_90a", ROOT / "examples" / "matmul.tri", "wgmma.mma_async"),
]


def _matmul_args(M=70, N=64, K=100, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, 104)).astype(np.float16)
    B = rng.standard_normal((K, 64)).astype(np.float16)
    C = np.full((M, 64), np.nan, np.float16)
    return [A, B, C, M, N, K, 104, 64, 64]


@pytest.mark.parametrize("arch, path, reader", MATMUL_CASES,
                         ids=[f"{c[0]}-{c[1].parent.name}" for c in MATMUL_CASES])
def test_pipelined_matmul_without_its_loop_barrier(arch, path, reader):
    """4 warps, 3 stages: the main loop waits for the next stage's copies (``cp.async.wait_group
    1``) and then needs ``bar.sync`` before any warp reads them (``ldmatrix`` / ``wgmma``) or
    overwrites the slot the others just read. Every barrier of the kernel is needed: each one
    deleted is reported, the loop's first one as a read of copied bytes before the barrier."""
    module = compile_matmul({}, (64, 64, 32), 4, 3, path=path, arch=arch)
    args = _matmul_args()
    run_kernel(module, "matmul", (2,), args, arch=arch)
    ref = args[0][:, :100].astype(np.float64) @ args[1][:, :64].astype(np.float64)
    np.testing.assert_allclose(args[2].astype(np.float64), ref, rtol=2e-2, atol=5e-2)
    barriers = _barriers(lower_for_simulation(module, arch)[0]["matmul"][0])
    loop = [i for i, (blk, _) in enumerate(barriers) if blk.name == "for.body"]
    assert loop, "no barrier in the main loop"
    for index in range(len(barriers)):
        kernel, smem, block = _without_barrier(module, "matmul", arch, index)
        with pytest.raises(RaceError) as e:
            run_lowered(kernel, smem, (2,), _matmul_args())
        if index == loop[0]:
            assert e.value.kind == "RAW", e.value
            assert "cp.async" in e.value.first[1] and "landed at" in e.value.first[1], e.value
            assert reader in e.value.second[1], e.value


def test_fma_dot_staging_without_its_barriers():
    """``examples/bmm.tri`` in f32 (FMA dot: operands staged through shared memory, write;
    barrier; read, and a barrier before the next trip overwrites them), 4 warps, three K trips:
    each barrier deleted is reported."""
    opts = CompileOptions(num_warps=4, arch="sm_90", defines={"TM": "16", "TN": "16", "TK": "8", "TB": "2",
                                                              "TYPE": "float"})
    module = Compilation(ROOT / "examples" / "bmm.tri", opts).ttgir
    rng = np.random.default_rng(1)
    A = rng.standard_normal((2, 16, 20)).astype(np.float32)
    B = rng.standard_normal((2, 20, 16)).astype(np.float32)

    def args():
        C = np.full((2, 16, 16), np.nan, np.float32)
        return [A, B, C, 16, 16, 20, 2, 320, 20, 320, 16, 256, 16]
    a = args()
    run_kernel(module, "bmm", (1, 1, 1), a)
    np.testing.assert_allclose(a[2], A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)
    barriers = _barriers(lower_for_simulation(module)[0]["bmm"][0])
    assert len(barriers) >= 2
    kinds = []
    for index in range(len(barriers)):
        kernel, smem, _ = _without_barrier(module, "bmm", "sm_90", index)
        with pytest.raises(RaceError) as e:
            run_lowered(kernel, smem, (1, 1, 1), args())
        kinds.append(e.value.kind)
    assert "RAW" in kinds and "WAR" in kinds, kinds
