"""Atomics (old values, duplicate addresses, masks) and program-instance scheduling: a spin
lock under shuffled interleavings, a grid-wide wait on a counter, deadlock detection."""
import numpy as np
import pytest

from interp_helpers import IR_TYPE, kernel, module, run
from tritonc.diagnostics import SourceLoc
from tritonc.interpreter import InterpreterError, run_function


def scalar_atomic(kind: str, init, value, dtype):
    t = IR_TYPE[np.dtype(dtype)]
    text = kernel(f"%x: ptr<{t}>, %v: ptr<{t}>, %o: ptr<{t}>", f"""
    %val = tt.load %v : {t}
    %old = tt.atomic_rmw %x, %val {{kind = "{kind}"}} : {t}
    tt.store %o, %old""")
    x, v, o = np.array([init], dtype), np.array([value], dtype), np.zeros(1, dtype)
    run(text, 1, x, v, o)
    return x[0], o[0]


@pytest.mark.parametrize("kind,dtype,init,value,new", [
    ("add", np.int32, 2**31 - 1, 1, -(2**31)),
    ("fadd", np.float32, 1.5, 2.25, 3.75),
    ("fadd", np.float16, 2048, 1, 2048),
    ("max", np.int32, -5, 3, 3), ("min", np.int32, -5, 3, -5),
    ("umax", np.int32, -5, 3, -5), ("umin", np.int32, -5, 3, 3),
    ("fmax", np.float32, np.nan, 2.0, 2.0), ("fmin", np.float32, 1.0, -2.0, -2.0),
    ("xchg", np.int64, 7, -9, -9), ("xchg", np.float32, 7.5, -9.5, -9.5),
    ("and", np.int32, 0b1100, 0b1010, 0b1000), ("or", np.int32, 0b1100, 0b1010, 0b1110),
    ("xor", np.int32, 0b1100, 0b1010, 0b0110),
])
def test_atomic_rmw_kinds_return_old_value(kind, dtype, init, value, new):
    got_new, got_old = scalar_atomic(kind, init, value, dtype)
    assert got_new == dtype(new) or (np.isnan(new) and np.isnan(got_new))
    assert got_old == dtype(init) or (np.isnan(init) and np.isnan(got_old))


CAS = kernel("%x: ptr<i32>, %cmp: i32, %v: i32, %o: ptr<i32>", """
    %old = tt.atomic_cas %x, %cmp, %v : i32
    tt.store %o, %old""")


def test_atomic_cas_swaps_only_on_match():
    x, o = np.array([5], np.int32), np.zeros(1, np.int32)
    run(CAS, 1, x, 4, 9, o)
    assert (x[0], o[0]) == (5, 5)
    run(CAS, 1, x, 5, 9, o)
    assert (x[0], o[0]) == (9, 5)


TILE_ADD = kernel("%x: ptr<i32>, %o: ptr<i32>, %nbins: i32, %limit: i32", """
    %r = tt.make_range {end = 8, start = 0} : i32[8]
    %nb = tt.splat %nbins : i32[8]
    %bin = arith.remsi %r, %nb : i32[8]
    %px = tt.splat %x : ptr<i32>[8]
    %p = tt.addptr %px, %bin : ptr<i32>[8]
    %one = arith.constant {value = 1} : i32[8]
    %val = arith.addi %r, %one : i32[8]
    %lim = tt.splat %limit : i32[8]
    %m = arith.cmpi %r, %lim {predicate = "slt"} : i1[8]
    %old = tt.atomic_rmw %p, %val, %m {kind = "add"} : i32[8]
    %po = tt.splat %o : ptr<i32>[8]
    %q = tt.addptr %po, %r : ptr<i32>[8]
    tt.store %q, %old, %m""")


def test_tile_atomic_with_duplicate_addresses_accumulates_in_row_major_order():
    x, o = np.array([100, 200], np.int32), np.zeros(8, np.int32)
    run(TILE_ADD, 1, x, o, 2, 8)
    assert x.tolist() == [100 + 1 + 3 + 5 + 7, 200 + 2 + 4 + 6 + 8]
    assert o.tolist() == [100, 200, 101, 202, 104, 206, 109, 212]  # each lane sees the earlier lanes
    x, o = np.array([0], np.int32), np.full(8, -1, np.int32)
    run(TILE_ADD, 1, x, o, 1, 5)  # masked-off lanes 5..7 neither add nor report
    assert x[0] == 15 and o.tolist() == [0, 1, 3, 6, 10, -1, -1, -1]


def test_tile_atomics_across_programs_give_a_histogram_in_any_order():
    for seed in (None, 0, 1, 2):
        x, o = np.zeros(4, np.int32), np.zeros(8, np.int32)
        run(TILE_ADD, 16, x, o, 4, 8, order_seed=seed)
        assert x.tolist() == [16 * 6, 16 * 8, 16 * 10, 16 * 12]


def test_tile_fadd_f16_rounds_per_lane():
    text = kernel("%x: ptr<f16>", """
    %z = arith.constant {value = 0} : i32[4]
    %px = tt.splat %x : ptr<f16>[4]
    %p = tt.addptr %px, %z : ptr<f16>[4]
    %v = arith.constant {value = 1.0} : f16[4]
    %old = tt.atomic_rmw %p, %v {kind = "fadd"} : f16[4]""")
    x = np.array([2048], np.float16)
    run(text, 1, x)
    assert x[0] == 2048  # 2048 + 1 rounds back to 2048 four times; an exact sum would give 2052


def test_atomic_out_of_bounds_names_op():
    m = module(CAS)
    for op in m.functions[0].walk():
        if op.name == "tt.atomic_cas":
            op.loc = SourceLoc("lock.tri", 3, 9)
    with pytest.raises(InterpreterError, match=r"tt.atomic_cas at lock.tri:3:9 in program \(0\): out-of-bounds 4-byte write"):
        run_function(m, "k", 1, [np.zeros(0, np.int32), 0, 1, np.zeros(1, np.int32)])


def spin_lock_kernel(with_lock: bool) -> str:
    acquire = """
    scf.while {
      %old = tt.atomic_cas %lock, %zero, %one : i32
      %busy = arith.cmpi %old, %one {predicate = "eq"} : i1
      scf.condition %busy
    } {
      scf.yield
    }""" if with_lock else ""
    release = '    %rel = tt.atomic_rmw %lock, %zero {kind = "xchg"} : i32' if with_lock else ""
    return kernel("%lock: ptr<i32>, %out: ptr<f32>, %x: ptr<f32>, %cnt: ptr<i32>", f"""
    %pid = tt.get_program_id {{axis = 0}} : i32
    %px = tt.addptr %x, %pid : ptr<f32>
    %part = tt.load %px : f32
    %zero = arith.constant {{value = 0}} : i32
    %one = arith.constant {{value = 1}} : i32{acquire}
    %c1 = tt.atomic_rmw %cnt, %one {{kind = "add"}} : i32
    %o = tt.load %out : f32
    %c2 = tt.atomic_rmw %cnt, %one {{kind = "add"}} : i32
    %n = arith.addf %o, %part : f32
    gpu.barrier
    tt.store %out, %n
{release}""")


def test_spin_lock_split_k_in_shuffled_interleavings():
    x = np.arange(1, 17, dtype=np.float32)
    for seed in (None, 0, 1, 2, 3, 4):
        lock, out, cnt = np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(1, np.int32)
        report = run(spin_lock_kernel(True), 16, lock, out, x, cnt, order_seed=seed)
        assert out[0] == x.sum() and lock[0] == 0 and cnt[0] == 32
        if seed is not None:
            assert report.switches > 16  # instances really interleaved inside the critical section


def test_without_the_lock_interleavings_lose_updates():
    x = np.arange(1, 17, dtype=np.float32)
    results = []
    for seed in range(4):
        out = np.zeros(1, np.float32)
        run(spin_lock_kernel(False), 16, np.zeros(1, np.int32), out, x, np.zeros(1, np.int32), order_seed=seed)
        results.append(out[0])
    assert any(r < x.sum() for r in results)


GRID_BARRIER = kernel("%x: ptr<i32>, %y: ptr<i32>, %cnt: ptr<i32>", """
    %pid = tt.get_program_id {axis = 0} : i32
    %n = tt.get_num_programs {axis = 0} : i32
    %one = arith.constant {value = 1} : i32
    %v = arith.addi %pid, %one : i32
    %px = tt.addptr %x, %pid : ptr<i32>
    tt.store %px, %v
    %c = tt.atomic_rmw %cnt, %one {kind = "add"} : i32
    scf.while {
      %seen = tt.load %cnt : i32
      %wait = arith.cmpi %seen, %n {predicate = "slt"} : i1
      scf.condition %wait
    } {
      scf.yield
    }
    %nb = arith.addi %pid, %one : i32
    %nxt = arith.remsi %nb, %n : i32
    %pn = tt.addptr %x, %nxt : ptr<i32>
    %w = tt.load %pn : i32
    %py = tt.addptr %y, %pid : ptr<i32>
    tt.store %py, %w""")


@pytest.mark.parametrize("seed", [None, 5])
def test_programs_waiting_on_a_counter_of_all_others(seed):
    x, y, cnt = np.zeros(8, np.int32), np.zeros(8, np.int32), np.zeros(1, np.int32)
    run(GRID_BARRIER, 8, x, y, cnt, order_seed=seed)
    assert y.tolist() == [(p + 1) % 8 + 1 for p in range(8)] and cnt[0] == 8


@pytest.mark.parametrize("seed", [None, 7])
def test_lock_never_released_is_a_deadlock(seed):
    text = spin_lock_kernel(True).replace('%rel = tt.atomic_rmw %lock, %zero {kind = "xchg"} : i32', "")
    args = [np.zeros(1, np.int32), np.zeros(1, np.float32), np.ones(4, np.float32), np.zeros(1, np.int32)]
    with pytest.raises(InterpreterError, match=r"deadlock: every live program instance is spinning .*program \(\d\) spins in scf.while"):
        run(text, 4, *args, order_seed=seed)
    assert args[0][0] == 1 and args[1][0] == 1.0  # exactly one program got through


@pytest.mark.parametrize("kind,dtype", [("add", np.int8), ("umax", np.int32), ("min", np.int32), ("xchg", np.int32),
                                        ("fadd", np.float16), ("fmax", np.float32), ("xor", np.int64)])
def test_many_lanes_on_few_elements_equal_lane_by_lane_application(kind, dtype):
    """A tile with many lanes per address takes the per-element path; compare with one lane at a time."""
    from tritonc.interpreter.memory import Memory
    from tritonc.interpreter.numerics import np_dtype
    from tritonc.ir.parser import parse_type

    t = parse_type(IR_TYPE[np.dtype(dtype)])
    r = np.random.default_rng(0)
    vals = (r.standard_normal(256) * 50).astype(np_dtype(t))
    slots = r.integers(0, 3, 256)
    results = []
    for lane_by_lane in (True, False):
        mem, cells = Memory(), np.array([1, 2, 3], dtype)
        addr = (mem.add(cells, "c") + slots * cells.itemsize).astype(np.int64)
        if lane_by_lane:
            old = np.concatenate([mem.atomic(kind, addr[i:i + 1], vals[i:i + 1], None, t) for i in range(256)])
        else:
            old = mem.atomic(kind, addr, vals, None, t)
        results.append((cells.tobytes(), old.tobytes()))
    assert results[0] == results[1]


def test_tile_summed_into_one_scalar_is_fast():
    text = kernel("%x: ptr<f32>, %s: ptr<f32>", """
    %r = tt.make_range {end = 16384, start = 0} : i32[16384]
    %px = tt.splat %x : ptr<f32>[16384]
    %p = tt.addptr %px, %r : ptr<f32>[16384]
    %v = tt.load %p : f32[16384]
    %ps = tt.splat %s : ptr<f32>[16384]
    %old = tt.atomic_rmw %ps, %v {kind = "fadd"} : f32[16384]""")
    x = np.ones(16384, np.float32)
    s = np.zeros(1, np.float32)
    run(text, 4, x, s)
    assert s[0] == 4 * 16384
