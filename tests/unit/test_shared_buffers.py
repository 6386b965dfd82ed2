"""Explicit shared-memory buffers through ``liveness``, ``allocation``, ``allocate-shared`` and
``insert-barriers``, with stand-in ops (``test.*``) that declare their effects the way buffer ops
do (``OpDef.shared_effects``, ``ir/ttg_ops.py``). Buffer handles are ``i64`` values here;
the analyses look only at the declared effects, not at types.
"""
from __future__ import annotations

import pytest

from tritonc.analysis.allocation import SharedAllocation
from tritonc.analysis.liveness import SharedLiveness
from tritonc.diagnostics import InternalCompilerError
from tritonc.ir import ops as ir_ops
from tritonc.ir.effects import SharedEffect
from tritonc.ir.ops import OpDef
from tritonc.ir.parser import parse_module
from tritonc.ir.printer import print_module
from tritonc.passes import AnalysisManager, PassManager, get_pass

EFFECTS = {
    # %b = test.alloc {size, align?}: a new buffer
    "test.alloc": lambda op: [SharedEffect("alloc", op.result, size=op.attrs["size"],
                                           alignment=op.attrs.get("align", 16))],
    "test.load": lambda op: [SharedEffect("read", op.operands[0])],
    "test.store": lambda op: [SharedEffect("write", op.operands[1])],
    "test.view": lambda op: [SharedEffect("view", op.result, op.operands[0])],
    "test.copy": lambda op: [SharedEffect("async_write", op.operands[0])],
    "test.wait": lambda op: [SharedEffect("async_wait", num=op.attrs["num"])],
    "test.use": lambda op: [],  # keeps its buffer alive
}
OPDEFS = [OpDef("test.alloc", attrs=("size",), pure=False, effects=None, shared_effects=EFFECTS["test.alloc"]),
          OpDef("test.load", operands=("src",), pure=False, effects=None, shared_effects=EFFECTS["test.load"]),
          OpDef("test.store", operands=("value", "dst"), num_results=0, pure=False, effects=None,
                shared_effects=EFFECTS["test.store"]),
          OpDef("test.view", operands=("src", "index"), pure=False, effects=None, shared_effects=EFFECTS["test.view"]),
          OpDef("test.copy", operands=("dst",), num_results=0, pure=False, effects=None,
                shared_effects=EFFECTS["test.copy"]),
          OpDef("test.wait", attrs=("num",), num_results=0, pure=False, effects=None,
                shared_effects=EFFECTS["test.wait"]),
          OpDef("test.use", operands=("src",), num_results=0, pure=False, effects=None,
                shared_effects=EFFECTS["test.use"])]


@pytest.fixture(autouse=True)
def buffer_ops():
    for opdef in OPDEFS:
        ir_ops.register_op(opdef)
    yield
    for opdef in OPDEFS:
        del ir_ops._REGISTRY[opdef.name]


HEADER = """#blocked0 = #ttg.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>
module attributes {num_warps = 4} {
  tt.func @f(%v: f32[512] #blocked0, %x: f32[512] #blocked0, %n: i32, %c: i1, %out: ptr<f32>) attributes {device} {
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
"""
FOOTER = """    tt.return
  }
}
"""


def run(body: str, passes=("allocate-shared", "insert-barriers")):
    module = parse_module(HEADER + body + FOOTER)
    PassManager([get_pass(p) for p in passes]).run(module)
    return module


def lines(module) -> list[str]:
    """The body's ops as text, without attributes and types (``%a = test.load %buf``)."""
    out = []
    for line in print_module(module).splitlines()[5:-3]:
        text = line.strip().split(" {")[0].split(" : ")[0]
        if not text.startswith(("%c0 =", "%c1 =")):
            out.append(text)
    return out


def offsets(module) -> dict[str, int]:
    return {op.results[0].name: op.attrs["smem_offset"] for op in module.walk() if "smem_offset" in op.attrs}


def test_raw_then_war_on_one_buffer():
    # store; load (read after write: barrier); store again (write after read: barrier); load.
    m = run("""
    %a = test.alloc {size = 2048} : i64
    test.store %v, %a
    %r = test.load %a : f32[512] #blocked0
    test.store %x, %a
    %s = test.load %a : f32[512] #blocked0
""")
    assert lines(m) == ["%a = test.alloc", "test.store %v, %a", "gpu.barrier", "%r = test.load %a",
                        "gpu.barrier", "test.store %x, %a", "gpu.barrier", "%s = test.load %a"]


def test_two_independent_buffers_need_no_barrier_between_them():
    # a and b are live together, so they get disjoint bytes: storing b after reading a is no
    # hazard (only the two reads after writes need barriers).
    m = run("""
    %a = test.alloc {size = 2048} : i64
    %b = test.alloc {size = 2048} : i64
    test.store %v, %a
    %r = test.load %a : f32[512] #blocked0
    test.store %x, %b
    %s = test.load %b : f32[512] #blocked0
    test.use %a
""")
    assert offsets(m) == {"a": 0, "b": 2048}
    assert m.functions[0].attrs["shared_bytes"] == 4096
    assert lines(m) == ["%a = test.alloc", "%b = test.alloc", "test.store %v, %a", "gpu.barrier",
                        "%r = test.load %a", "test.store %x, %b", "gpu.barrier", "%s = test.load %b",
                        "test.use %a"]


def test_dead_buffer_bytes_are_reused_by_scratch():
    # a dies at its load; the reduction's scratch reuses its bytes, so it waits for the load.
    m = run("""
    %a = test.alloc {size = 2048} : i64
    test.store %v, %a
    %r = test.load %a : f32[512] #blocked0
    %s = tt.reduce %r {axis = 0, combine = "addf"} : f32
    tt.store %out, %s
""")
    assert offsets(m) == {"a": 0, "s": 0}
    assert lines(m)[-3:] == ["gpu.barrier", "%s = tt.reduce %r", "tt.store %out, %s"]


def test_buffer_used_in_a_loop_is_live_across_it():
    # a is written before the loop and read in every trip: live across the whole body, so the
    # reduction's scratch in the body gets other bytes and needs no barrier against a's reads.
    m = run("""
    %a = test.alloc {size = 2048} : i64
    test.store %v, %a
    %t = scf.for %c0, %n, %c1, %x {predicate = "slt"} : f32[512] #blocked0 {
    ^(%i: i32, %acc: f32[512] #blocked0):
      %r = test.load %a : f32[512] #blocked0
      %s = tt.reduce %r {axis = 0, combine = "addf"} : f32
      %ss = tt.splat %s : f32[512] #blocked0
      %acc2 = arith.addf %acc, %ss : f32[512] #blocked0
      scf.yield %acc2
    }
""")
    liveness = AnalysisManager(m).get(SharedLiveness)
    f = m.functions[0]
    buf_a, scratch = liveness.buffers(f)
    assert buf_a.interferes(scratch)
    assert offsets(m) == {"a": 0, "s": 2048}
    # One barrier per trip, before the load: the join at the loop head holds the store before
    # the loop (read after write) and the previous trip's reduction reads; after that barrier
    # the reduction's write conflicts with nothing (a's reads are other bytes).
    body = lines(m)
    assert body[body.index("^(%i: i32, %acc: f32[512] #blocked0):") + 1:][:3] == [
        "gpu.barrier", "%r = test.load %a", "%s = tt.reduce %r"]
    assert body.count("gpu.barrier") == 1


def test_aliases_through_views_loops_and_ifs_keep_the_buffer_live():
    # The view of a, carried through the loop and chosen by an if, is read after the loop: a
    # stays live, and a buffer b allocated after it cannot take its bytes.
    m = run("""
    %a = test.alloc {size = 1024} : i64
    %va = test.view %a, %c0 : i64
    %l = scf.for %c0, %n, %c1, %va {predicate = "slt"} : i64 {
    ^(%i: i32, %cur: i64):
      scf.yield %cur
    }
    %b = test.alloc {size = 1024} : i64
    test.store %v, %b
    %pick = scf.if %c : i64 {
      scf.yield %l
    } {
      scf.yield %l
    }
    %r = test.load %pick : f32[512] #blocked0
""", passes=("allocate-shared",))
    allocation = AnalysisManager(m).get(SharedAllocation)
    a_op, b_op = [op for op in m.walk() if op.name == "test.alloc"]
    load = next(op for op in m.walk() if op.name == "test.load")
    assert allocation.liveness.names(load.operands[0]) == {allocation.buffer(a_op)}
    assert offsets(m) == {"a": 0, "b": 1024}
    assert allocation.buffer(a_op).interferes(allocation.buffer(b_op))


def test_swizzled_buffers_are_aligned_to_128():
    m = run("""
    %a = test.alloc {size = 40} : i64
    %b = test.alloc {align = 128, size = 256} : i64
    test.use %a
    test.use %b
""", passes=("allocate-shared",))
    assert offsets(m) == {"b": 0, "a": 256}
    m = run("""
    %a = test.alloc {size = 400} : i64
    %b = test.alloc {align = 128, size = 256} : i64
    test.use %a
    test.use %b
""", passes=("allocate-shared",))
    assert offsets(m) == {"a": 0, "b": 512}


def test_async_copy_needs_a_barrier_after_its_wait():
    # A barrier between the copy and its wait does not make the data visible: the read after the
    # wait still needs one.
    m = run("""
    %a = test.alloc {size = 2048} : i64
    test.copy %a
    gpu.barrier
    test.wait {num = 0}
    %r = test.load %a : f32[512] #blocked0
""")
    assert lines(m)[1:] == ["test.copy %a", "gpu.barrier", "test.wait", "gpu.barrier", "%r = test.load %a"]


def test_pipelined_loop_needs_one_barrier_per_trip():
    # The steady state of a 3-stage pipeline over a ring: wait (one group may stay in flight),
    # start the next copy, read the current slot. One barrier per trip, right after the wait: it
    # orders the previous trip's reads before the copy (write after read) and the waited copies
    # before this trip's read (read after write).
    m = run("""
    %ring = test.alloc {size = 6144} : i64
    test.copy %ring
    test.copy %ring
    %t = scf.for %c0, %n, %c1, %x {predicate = "slt"} : f32[512] #blocked0 {
    ^(%i: i32, %acc: f32[512] #blocked0):
      test.wait {num = 1}
      %slot = test.view %ring, %i : i64
      test.copy %ring
      %r = test.load %slot : f32[512] #blocked0
      %acc2 = arith.addf %acc, %r : f32[512] #blocked0
      scf.yield %acc2
    }
""")
    body = lines(m)
    start = body.index("^(%i: i32, %acc: f32[512] #blocked0):") + 1
    assert body[start:start + 6] == ["test.wait", "%slot = test.view %ring, %i", "gpu.barrier", "test.copy %ring",
                                     "%r = test.load %slot", "%acc2 = arith.addf %acc, %r"]
    assert body.count("gpu.barrier") == 1


def test_an_op_using_a_buffer_must_declare_its_effects():
    with pytest.raises(InternalCompilerError, match="declares no shared_effects"):
        run("""
    %a = test.alloc {size = 64} : i64
    %s = arith.addi %a, %a : i64
""")
