"""The generator's rules against undefined behaviour (tritonc/fuzz/gen.py): intervals of
integer operations, conversions that could be undefined or inexact, and that drawn programs
compile without a diagnostic and run in the interpreter."""
from __future__ import annotations

from hypothesis import HealthCheck, given, seed, settings

from tritonc.fuzz import ctypes as C
from tritonc.fuzz.execute import compile_program, run_reference
from tritonc.fuzz.expressions import Ex, _binary_int, convert
from tritonc.fuzz.gen import programs


def test_usual_arithmetic_conversions():
    assert C.common(C.I8, C.U8) == C.I32
    assert C.common(C.I32, C.U32) == C.U32
    assert C.common(C.I64, C.U32) == C.I64
    assert C.common(C.I64, C.U64) == C.U64
    assert C.common(C.F16, C.BF16) == C.F32
    assert C.common(C.F16, C.I32) == C.F16
    assert C.common(C.F16, C.F64) == C.F64


def test_signed_overflow_is_never_generated():
    big = Ex("x", C.I32, (4,), -(2 ** 30), 2 ** 30)
    assert _binary_int("*", big, big) is None
    assert _binary_int("+", big, Ex("y", C.I32, (), 0, 2 ** 30)) is None
    small = _binary_int("+", big, Ex("y", C.I32, (), -5, 5))
    assert (small.lo, small.hi) == (-(2 ** 30) - 5, 2 ** 30 + 5)
    wrap = _binary_int("*", Ex("x", C.U32, (), 0, 2 ** 31), Ex("y", C.U32, (), 0, 4))  # unsigned wraps
    assert (wrap.lo, wrap.hi) == (0, C.U32.max)


def test_conversions_that_could_be_undefined_or_inexact_are_refused():
    inexact = Ex("f", C.F32, (), -3.0, 3.0, err=1e-6)
    assert convert(inexact, C.I32) is None  # truncation of an inexact value may differ
    assert convert(Ex("f", C.F32, (), -3.0, 3.0), C.I32).hi == 3
    assert convert(Ex("f", C.F32, (), 0.0, 1e10), C.I32) is None  # out of range
    assert convert(Ex("f", C.F32, (), 0.0, 1e6), C.F16) is None  # overflows half
    assert convert(Ex("i", C.I32, (), 0, 100), C.F16).err == 0.0  # exactly representable
    assert convert(Ex("i", C.I32, (), 0, 5000), C.F16).err > 0


@seed(5)
@settings(max_examples=25, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_programs_compile_and_run_in_the_interpreter(program):
    compile_program(program)  # raises Rejected on a diagnostic
    run_reference(program, program.arguments())  # bounds-checked: no out-of-range access


def test_unit_strides_become_parameters_in_spec16_mode():
    """In ``spec16`` mode a stride of 1 may still be a run-time ``int`` (the ``eq1`` fact's
    variants get differential coverage); other values that are not multiples of 16 may not."""
    from tritonc.fuzz.builder import Builder

    class Draw:
        def __call__(self, strategy):
            return False  # never a literal

    b = Builder(Draw(), (1,))
    b.spec16 = True
    assert b.int_value(1, "s") == "s1" and b.features == ["param:unit-stride"]
    assert b.int_value(3, "s") == "3" and b.int_value(1, "n") == "1"
    assert b.int_value(32, "s") == "s2"
    assert [(p.name, p.value) for p in b.params] == [("s1", 1), ("s2", 32)]


@seed(16)
@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(programs(fragments=("row_loop",), archs=("sm_90",)))
def test_row_loop_fragment_agrees_in_the_simulator(program):
    """The loop over rows (``frag_row_loop``): its X is ``__noalias __readonly``, so its loads
    may go ahead of the trip's stores; the simulator (cp.async rings where the options
    pipeline it) agrees with the interpreter."""
    from tritonc.fuzz.runner import check_program

    assert "__noalias __readonly" in program.source
    check_program(program, "sim")


def test_row_loop_fragment_is_pipelined():
    """At 3 stages on sm_90 with 16-byte rows, the row loads go through rings."""
    from hypothesis import find
    from tritonc.ir.printer import print_module

    program = find(programs(fragments=("row_loop",), archs=("sm_90",)),
                   lambda p: p.options["num_stages"] >= 2 and "float *X" in p.source,
                   settings=settings(database=None, max_examples=200))
    assert "async_copy_global_to_local" in print_module(compile_program(program).ttgir)
