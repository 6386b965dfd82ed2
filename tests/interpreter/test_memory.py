"""Loads and stores: masks, other, poison, bounds and alignment errors, byte reinterpretation,
duplicate addresses, aliasing, argument binding."""
import numpy as np
import pytest

from interp_helpers import kernel, module, run
from tritonc.diagnostics import SourceLoc
from tritonc.interpreter import InterpreterError, run_function

# y[pid*8 + r] = load(x + pid*8 + r, mask = pid*8 + r < n, other = -1)   (n = the bound)
MASKED_COPY = kernel("%x: ptr<f32>, %y: ptr<f32>, %n: i32", """
    %pid = tt.get_program_id {axis = 0} : i32
    %c8 = arith.constant {value = 8} : i32
    %base = arith.muli %pid, %c8 : i32
    %r = tt.make_range {end = 8, start = 0} : i32[8]
    %bs = tt.splat %base : i32[8]
    %off = arith.addi %bs, %r : i32[8]
    %ns = tt.splat %n : i32[8]
    %m = arith.cmpi %off, %ns {predicate = "slt"} : i1[8]
    %px = tt.splat %x : ptr<f32>[8]
    %pxo = tt.addptr %px, %off : ptr<f32>[8]
    %other = arith.constant {value = -1.0} : f32[8]
    %v = tt.load %pxo, %m, %other : f32[8]
    %py = tt.splat %y : ptr<f32>[8]
    %pyo = tt.addptr %py, %off : ptr<f32>[8]
    tt.store %pyo, %v""")


def test_masked_load_with_other():
    x = np.arange(20, dtype=np.float32)
    y = np.zeros(24, np.float32)
    run(MASKED_COPY, 3, x, y, 20)
    assert y[:20].tolist() == x.tolist() and y[20:].tolist() == [-1.0] * 4


def test_masked_load_without_other_is_poison_and_masked_store_skips():
    text = kernel("%x: ptr<f32>, %i: ptr<i32>, %y: ptr<f32>, %j: ptr<i32>", """
    %r = tt.make_range {end = 4, start = 0} : i32[4]
    %two = arith.constant {value = 2} : i32[4]
    %m = arith.cmpi %r, %two {predicate = "slt"} : i1[4]
    %px = tt.splat %x : ptr<f32>[4]
    %pxo = tt.addptr %px, %r : ptr<f32>[4]
    %v = tt.load %pxo, %m : f32[4]
    %pi = tt.splat %i : ptr<i32>[4]
    %pio = tt.addptr %pi, %r : ptr<i32>[4]
    %w = tt.load %pio, %m : i32[4]
    %py = tt.splat %y : ptr<f32>[4]
    %pyo = tt.addptr %py, %r : ptr<f32>[4]
    tt.store %pyo, %v
    %pj = tt.splat %j : ptr<i32>[4]
    %pjo = tt.addptr %pj, %r : ptr<i32>[4]
    %t = arith.constant {value = true} : i1[4]
    %inv = arith.xori %m, %t : i1[4]
    tt.store %pjo, %w, %inv""")
    x = np.array([1, 2, 3, 4], np.float32)
    i = np.array([5, 6, 7, 8], np.int32)
    y = np.zeros(4, np.float32)
    j = np.full(4, 9, np.int32)
    run(text, 1, x, i, y, j)
    assert y[:2].tolist() == [1, 2] and np.isnan(y[2:]).all()
    assert j.tolist() == [9, 9, 0x5A5A5A5A, 0x5A5A5A5A]


def with_loc(text: str, opname: str, loc: SourceLoc):
    m = module(text)
    for op in m.functions[0].walk():
        if op.name == opname:
            op.loc = loc
    return m


def test_out_of_bounds_load_names_op_location_program_and_element():
    m = with_loc(MASKED_COPY, "tt.load", SourceLoc("copy.tri", 12, 7))
    x = np.arange(20, dtype=np.float32)
    y = np.zeros(24, np.float32)
    with pytest.raises(InterpreterError) as e:
        run_function(m, "k", (3,), [x, y, 24])
    msg = str(e.value)
    assert "tt.load at copy.tri:12:7" in msg
    assert "program (2)" in msg and "element [4]" in msg
    assert "out-of-bounds 4-byte read" in msg and "byte offset 80" in msg and "%x" in msg
    assert "4 of 8 active lanes" in msg
    # the masked-off lanes of a correct bound never fault
    run_function(m, "k", (3,), [x, y, 20])


def test_out_of_bounds_store_and_negative_offset():
    text = kernel("%y: ptr<i16>, %o: i32", """
    %r = tt.make_range {end = 4, start = 0} : i32[4]
    %os = tt.splat %o : i32[4]
    %off = arith.addi %r, %os : i32[4]
    %py = tt.splat %y : ptr<i16>[4]
    %p = tt.addptr %py, %off : ptr<i16>[4]
    %v = arith.constant {value = 7} : i16[4]
    tt.store %p, %v""")
    y = np.zeros((2, 2), np.int16)
    with pytest.raises(InterpreterError, match=r"tt.store in @k .*program \(0\).*element \[0\]: out-of-bounds 2-byte write of byte offset -2"):
        run(text, 1, y, -1)
    with pytest.raises(InterpreterError, match=r"element \[3\]: out-of-bounds .* byte offset 8 .*int16\[2,2\], 8 bytes"):
        run(text, 1, y, 1)
    assert (y == 0).all()  # a faulting store writes nothing
    run(text, 1, y, 0)
    assert (y == 7).all()


def test_misaligned_and_null_pointer_access():
    text = kernel("%x: ptr<i8>, %y: ptr<i32>", """
    %one = arith.constant {value = 1} : i32
    %p = tt.addptr %x, %one : ptr<i8>
    %a = tt.ptr_to_int %p : i64
    %q = tt.int_to_ptr %a : ptr<i32>
    %v = tt.load %q : i32
    tt.store %y, %v""")
    with pytest.raises(InterpreterError, match="misaligned 4-byte read of byte offset 1"):
        run(text, 1, np.zeros(8, np.int8), np.zeros(1, np.int32))
    with pytest.raises(InterpreterError, match="the null pointer|no argument buffer"):
        run(text, 1, None, np.zeros(1, np.int32))


def test_pointee_type_reinterprets_bytes():
    # an f32 array read through ptr<i32>; an int32 array written as f16 pairs
    text = kernel("%x: ptr<i32>, %y: ptr<f16>", """
    %v = tt.load %x : i32
    %h = arith.bitcast %v : f32
    %hh = arith.truncf %h : f16
    tt.store %y, %hh""")
    x = np.array([1.5, 0], np.float32)
    y = np.zeros(2, np.int32)
    run(text, 1, x, y)
    assert y.view(np.float16)[0] == 1.5 and y.view(np.float16)[1] == 0


def test_duplicate_store_addresses_last_lane_wins():
    text = kernel("%y: ptr<i32>", """
    %r = tt.make_range {end = 8, start = 0} : i32[8]
    %two = arith.constant {value = 2} : i32[8]
    %slot = arith.remsi %r, %two : i32[8]
    %py = tt.splat %y : ptr<i32>[8]
    %p = tt.addptr %py, %slot : ptr<i32>[8]
    tt.store %p, %r""")
    y = np.zeros(2, np.int32)
    run(text, 1, y)
    assert y.tolist() == [6, 7]


def test_aliasing_arguments_share_memory_and_read_only_is_refused():
    text = kernel("%x: ptr<f64>, %y: ptr<f64>", """
    %v = tt.load %x : f64
    %two = arith.constant {value = 2.0} : f64
    %w = arith.mulf %v, %two : f64
    tt.store %y, %w
    %u = tt.load %x : f64
    %one = arith.constant {value = 1} : i32
    %y1 = tt.addptr %y, %one : ptr<f64>
    tt.store %y1, %u""")
    buf = np.array([3.0, 0.0])
    run(text, 1, buf, buf)
    assert buf.tolist() == [6.0, 6.0]
    view_a, view_b = buf[:1], buf  # overlapping views of one array see each other's writes
    run(text, 1, view_a, view_b)
    assert buf.tolist() == [12.0, 12.0]
    ro = np.array([1.0, 2.0])
    ro.flags.writeable = False
    with pytest.raises(InterpreterError, match="read-only"):
        run(text, 1, np.array([1.0]), ro)


def test_argument_binding_errors_and_conversion():
    text = kernel("%x: ptr<i32>, %a: i32 {unsigned}, %b: i8, %f: f16", """
    %zero = arith.constant {value = 0} : i32
    %one = arith.constant {value = 1} : i32
    %two = arith.constant {value = 2} : i32
    tt.store %x, %a
    %bb = arith.extsi %b : i32
    %p1 = tt.addptr %x, %one : ptr<i32>
    tt.store %p1, %bb
    %ff = arith.extf %f : f32
    %fi = arith.bitcast %ff : i32
    %p2 = tt.addptr %x, %two : ptr<i32>
    tt.store %p2, %fi""")
    x = np.zeros(3, np.int32)
    run(text, 1, x, 2**32 - 1, 200, 0.1)
    assert x[0] == -1 and x[1] == 200 - 256 and x.view(np.float32)[2] == np.float32(np.float16(0.1))
    with pytest.raises(InterpreterError, match="takes 4 arguments, got 3"):
        run(text, 1, x, 1, 2)
    with pytest.raises(InterpreterError, match=r"argument 0 \(%x: ptr<i32>\) of @k expects a numpy array"):
        run(text, 1, [1, 2, 3], 1, 2, 3.0)
    with pytest.raises(InterpreterError, match="expects an integer"):
        run(text, 1, x, 1.5, 2, 3.0)
    with pytest.raises(InterpreterError, match="contiguous"):
        run(text, 1, np.zeros(6, np.int32)[::2], 1, 2, 3.0)
    with pytest.raises(InterpreterError, match="grid"):
        run(text, (1, 1, 1, 1), x, 1, 2, 3.0)
    with pytest.raises(InterpreterError, match="no kernel named 'nope'"):
        run(text, 1, x, 1, 2, 3.0, name="nope")


def test_get_program_id_and_num_programs_3d():
    text = kernel("%y: ptr<i32>", """
    %p0 = tt.get_program_id {axis = 0} : i32
    %p1 = tt.get_program_id {axis = 1} : i32
    %p2 = tt.get_program_id {axis = 2} : i32
    %n1 = tt.get_num_programs {axis = 1} : i32
    %n2 = tt.get_num_programs {axis = 2} : i32
    %a = arith.muli %p0, %n1 : i32
    %b = arith.addi %a, %p1 : i32
    %c = arith.muli %b, %n2 : i32
    %lin = arith.addi %c, %p2 : i32
    %q = tt.addptr %y, %lin : ptr<i32>
    %h = arith.constant {value = 100} : i32
    %v = arith.muli %p0, %h : i32
    %t = arith.constant {value = 10} : i32
    %w = arith.muli %p1, %t : i32
    %vw = arith.addi %v, %w : i32
    %val = arith.addi %vw, %p2 : i32
    tt.store %q, %val""")
    y = np.zeros((2, 3, 4), np.int32)
    report = run(text, (2, 3, 4), y)
    i, j, k = np.indices(y.shape)
    assert (y == 100 * i + 10 * j + k).all()
    assert report.start_order[:3] == [(0, 0, 0), (0, 0, 1), (0, 0, 2)]
    shuffled = run(text, (2, 3, 4), np.zeros_like(y), order_seed=3).start_order
    assert sorted(shuffled) == report.start_order and shuffled != report.start_order
