"""Axis info (tritonc/analysis/axis_info.py): the lattice, single transfer functions, the
consumer helpers, and a property test that every fact holds of the values a random program
computes (a small numpy evaluator stands in for the GPU)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.analysis.axis_info_lattice import MAX_DIVISIBILITY, AxisInfo, divisibility_at, pow2_divisor
from tritonc.ir.core import Function, Value
from tritonc.ir.parser import parse_module


def parse(text: str):
    module = parse_module("module {\n" + text + "\n}\n")
    return module, AxisInfoAnalysis(module)


def values_by_name(f: Function) -> dict[str, Value]:
    named = {a.name: a for a in f.args}
    for op in f.walk():
        named.update({r.name: r for r in op.results if r.name})
        for region in op.regions:
            named.update({a.name: a for a in region.block.args if a.name})
    return named


# ----------------------------------------------------------------------------- lattice

def test_pow2_divisor():
    assert [pow2_divisor(n) for n in (1, 2, 3, 12, 96, -8, 1 << 40)] == [1, 2, 1, 4, 32, 8, MAX_DIVISIBILITY]
    assert pow2_divisor(0) == MAX_DIVISIBILITY


def test_join_is_gcd_and_forgets_differing_constants():
    a = AxisInfo((64, 1), (16, 8), (1, 32), None, True)
    b = AxisInfo((32, 1), (64, 2), (1, 16), None, False)
    assert a.join(b) == AxisInfo((32, 1), (16, 2), (1, 16), None, False)
    c8, c24 = AxisInfo.constant(8, (4,)), AxisInfo.constant(24, (4,))
    assert c8.join(c8) == c8
    assert c8.join(c24) == AxisInfo((1,), (8,), (4,), None, True)
    for x in (a, b, c8):  # a lattice: idempotent, commutative
        assert x.join(x) == x
        assert x.join(a) == a.join(x)


def test_element_divisibility_and_divisibility_at_shorter_runs():
    r = AxisInfo((64,), (64,), (1,))  # 64k, 64k+1, ...: only the run starts are divisible
    assert r.element_divisibility() == 1
    assert r.element_divisibility(step=4) == 4  # as addresses of 4-byte elements
    rows = AxisInfo((1, 32), (8, 16), (1, 1))  # every element divisible by 8 along dimension 0
    assert rows.element_divisibility() == 8
    assert divisibility_at(r, 0, 64, 1) == 64  # same run starts
    assert divisibility_at(r, 0, 128, 1) == 64  # coarser runs start at old run starts
    assert divisibility_at(r, 0, 4, 1) == 4  # 64k + 4j
    assert divisibility_at(r, 0, 4, 2) == 8  # addresses of 2-byte elements
    assert divisibility_at(r, 0, 1, 1) == 1


def test_str_is_the_print_format():
    assert str(AxisInfo((128,), (16,), (1,))) == "contiguity=[128] divisibility=[16] constancy=[1]"
    assert str(AxisInfo.constant(-32, (1,))) == "contiguity=[1] divisibility=[32] constancy=[1] constant_value=-32"


# ----------------------------------------------------------------------------- seeds and consumers

KERNELS = """
  tt.func @k(%a: ptr<f16> {aligned = 16}, %b: ptr<f32>, %c: ptr<f32> {multipleof = 8}, %d: ptr<i8> {aligned = 4, multipleof = 12},
             %n: i32 {multipleof = 48}, %m: i32) attributes {kernel} {
    %r = tt.make_range {end = 128, start = 0} : i32[128]
    %pa0 = tt.splat %a : ptr<f16>[128]
    %pa = tt.addptr %pa0, %r : ptr<f16>[128]
    %pb0 = tt.splat %b : ptr<f32>[128]
    %pb = tt.addptr %pb0, %r : ptr<f32>[128]
    %sn = tt.splat %n : i32[128]
    %mask = arith.cmpi %r, %sn {predicate = "slt"} : i1[128]
    %sm = tt.splat %m : i32[128]
    %bad = arith.cmpi %r, %sm {predicate = "slt"} : i1[128]
    %r2 = tt.make_range {end = 16, start = 0} : i32[16]
    %e = tt.expand_dims %r2 {axis = 0} : i32[1,16]
    %t = tt.broadcast %e : i32[8,16]
    %p2a = tt.splat %a : ptr<f16>[8,16]
    %p2 = tt.addptr %p2a, %t : ptr<f16>[8,16]
    %p2t = tt.trans %p2 {order = [1, 0]} : ptr<f16>[16,8]
    tt.return
  }
"""


def test_parameters_are_seeded_from_promises():
    module, axis = parse(KERNELS)
    v = values_by_name(module.functions[0])
    assert axis.info(v["a"]).divisibility == (16,)
    assert axis.info(v["b"]).divisibility == (4,)  # element size (spec section 3)
    assert axis.info(v["c"]).divisibility == (8,)
    assert axis.info(v["d"]).divisibility == (4,)  # lcm(4, 12) = 12 -> 4
    assert axis.info(v["n"]).divisibility == (16,)
    assert axis.info(v["m"]).divisibility == (1,)


def test_max_vector_elems():
    module, axis = parse(KERNELS)
    v = values_by_name(module.functions[0])
    assert axis.max_vector_elems(v["pa"]) == 8  # 8 halves = 16 bytes, aligned
    assert axis.max_vector_elems(v["pb"]) == 1  # only 4-byte aligned
    assert axis.max_vector_elems(v["pa"], mask=v["mask"]) == 8  # mask constant on runs of 16
    assert axis.max_vector_elems(v["pa"], mask=v["bad"]) == 1
    assert axis.max_vector_elems(v["pa"], elem_bytes=4) == 4  # as 32-bit words: 16 bytes = 4
    assert axis.max_vector_elems(v["p2"]) == 8 and axis.order(v["p2"]) == [1, 0]
    assert axis.max_vector_elems(v["p2t"]) == 8 and axis.order(v["p2t"]) == [0, 1]
    assert axis.max_vector_elems(v["a"]) == 1  # a scalar pointer
    with pytest.raises(ValueError, match="pointer"):
        axis.max_vector_elems(v["r"])


def test_unknown_values_get_the_pessimistic_fact_of_their_type():
    module, axis = parse("""
  tt.func @f(%p: ptr<f64>[4], %x: f32) attributes {kernel} {
    tt.return
  }""")
    v = values_by_name(module.functions[0])
    assert axis.info(v["p"]) == AxisInfo((1,), (8,), (1,))
    assert axis.info(v["x"]) == AxisInfo((1,), (1,), (1,))


def test_analysis_through_the_manager_and_annotate():
    from tritonc.analysis import analysis_class, print_with_analysis
    from tritonc.passes import AnalysisManager

    module, _ = parse(KERNELS)
    am = AnalysisManager(module)
    assert am.get(AxisInfoAnalysis) is am.get(AxisInfoAnalysis)
    assert analysis_class("axis-info") is AxisInfoAnalysis
    with pytest.raises(ValueError, match="unknown analysis .nope. .known: .*axis-info"):
        analysis_class("nope")
    text = print_with_analysis(module, "axis-info")
    assert "%pa = tt.addptr %pa0, %r : ptr<f16>[128]  // contiguity=[128] divisibility=[16] constancy=[1]" in text
    assert "tt.return  //" not in text


# ----------------------------------------------------------------------------- soundness

# A random straight-line program over i32 tiles of 16 elements (and [16,4] / [4,16] tiles made
# by expand_dims + broadcast) and a f16 pointer tile, evaluated with numpy on random parameters
# that keep their promises; every fact of every value must hold of what it computes.

N = 16
BINARY = ("addi", "subi", "muli", "maxsi", "minsi", "andi", "ori", "xori")
BY_CONSTANT = ("divsi", "divui", "remsi", "remui", "shrsi", "shrui", "shli", "andi", "muli", "addi")
PREDICATES = ("slt", "sle", "sgt", "sge", "eq", "ne", "ult", "ule", "ugt", "uge")
MULTIPLES = (None, 2, 4, 8, 16, 24, 64)


def _u32(x):
    return np.asarray(x, dtype=np.int64) & 0xFFFFFFFF


def _s32(x):
    x = np.asarray(x, dtype=np.int64) & 0xFFFFFFFF
    return np.where(x >= 1 << 31, x - (1 << 32), x)


def _trunc_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _apply(name, a, b):
    if name == "addi":
        return a + b
    if name == "subi":
        return a - b
    if name == "muli":
        return a * b
    if name == "maxsi":
        return np.maximum(a, b)
    if name == "minsi":
        return np.minimum(a, b)
    if name == "andi":
        return a & b
    if name == "ori":
        return a | b
    if name == "xori":
        return a ^ b
    if name == "divsi":
        return _trunc_div(a, b)
    if name == "remsi":
        return a - b * _trunc_div(a, b)
    if name == "divui":
        return _s32(_u32(a) // _u32(b))
    if name == "remui":
        return _s32(_u32(a) % _u32(b))
    if name == "shrsi":
        return a >> b
    if name == "shrui":
        return _s32(_u32(a) >> b)
    if name == "shli":
        return a << b
    raise AssertionError(name)


def _compare(pred, a, b):
    if pred.startswith("u"):
        a, b = _u32(a), _u32(b)
        pred = "s" + pred[1:]
    return {"slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b, "eq": a == b, "ne": a != b}[pred].astype(np.int64)


@st.composite
def programs(draw):
    """``(ir text, evaluate(params) -> {name: array}, steps {name: bytes per element})``."""
    multiples = [draw(st.sampled_from(MULTIPLES)) for _ in range(2)]
    align = draw(st.sampled_from((2, 4, 8, 16, 32)))
    lines: list[str] = []
    evals: list = []  # functions env -> (name, value)
    kinds: dict[str, str] = {}  # name -> "t" (i32[16]), "b" (i1[16]), "r" ([16,4]), "c" ([4,16]), "p" (ptr tile)
    steps: dict[str, int] = {}

    def add(name, kind, text, fn):
        lines.append(f"    %{name} = {text}")
        evals.append((name, fn))
        kinds[name] = kind

    def pick(kind):  # often the latest value, so that ops chain
        names = [n for n, k in kinds.items() if k == kind]
        if not names:
            return None
        return names[-1] if draw(st.booleans()) else draw(st.sampled_from(names))

    start = draw(st.integers(0, 40))
    add("r0", "t", f"tt.make_range {{end = {start + N}, start = {start}}} : i32[{N}]",
        lambda env, s=start: np.arange(s, s + N))
    for i, m in enumerate(multiples):
        add(f"s{i}", "t", f"tt.splat %n{i} : i32[{N}]", lambda env, i=i: np.full(N, env[f"n{i}"]))
    count = draw(st.integers(1, 12))
    for j in range(count):
        name = f"v{j}"
        choice = draw(st.sampled_from(("range", "const", "binary", "by_constant", "add", "offsets", "compare",
                                       "select", "rows", "cols", "binary2d", "ptr")))
        if choice == "range":
            s = draw(st.integers(0, 70))
            add(name, "t", f"tt.make_range {{end = {s + N}, start = {s}}} : i32[{N}]",
                lambda env, s=s: np.arange(s, s + N))
        elif choice == "const":
            c = draw(st.integers(-40, 80))
            add(name, "t", f"arith.constant {{value = {c}}} : i32[{N}]", lambda env, c=c: np.full(N, c))
        elif choice in ("binary", "add"):
            op = "addi" if choice == "add" else draw(st.sampled_from(BINARY))
            a, b = pick("t"), pick("t")
            add(name, "t", f"arith.{op} %{a}, %{b} : i32[{N}]",
                lambda env, op=op, a=a, b=b: _apply(op, env[a], env[b]))
        elif choice == "offsets":  # base + range, the shape of most index math
            base = draw(st.sampled_from([n for n in kinds if n.startswith("s")]))
            r = draw(st.sampled_from([n for n in kinds if n == "r0" or n.startswith("v")] or ["r0"]))
            r = r if kinds.get(r) == "t" else "r0"
            add(name, "t", f"arith.addi %{base}, %{r} : i32[{N}]", lambda env, a=base, b=r: env[a] + env[b])
        elif choice == "by_constant":
            op = draw(st.sampled_from(BY_CONSTANT))
            shift = op in ("shrsi", "shrui", "shli")
            c = draw(st.integers(0, 5)) if shift else draw(st.sampled_from((1, 2, 3, 4, 6, 7, 8, 16, -8, -16)))
            if op in ("divsi", "divui", "remsi", "remui") and c <= 0:
                c = 4
            a = pick("t")
            cname = f"k{j}"
            add(cname, "t", f"arith.constant {{value = {c}}} : i32[{N}]", lambda env, c=c: np.full(N, c))
            add(name, "t", f"arith.{op} %{a}, %{cname} : i32[{N}]",
                lambda env, op=op, a=a, cname=cname: _apply(op, env[a], env[cname]))
        elif choice == "compare":
            pred = draw(st.sampled_from(PREDICATES))
            a, b = pick("t"), pick("t")
            add(name, "b", f'arith.cmpi %{a}, %{b} {{predicate = "{pred}"}} : i1[{N}]',
                lambda env, pred=pred, a=a, b=b: _compare(pred, env[a], env[b]))
        elif choice == "select":
            c = pick("b")
            if c is None:
                continue
            a, b = pick("t"), pick("t")
            add(name, "t", f"arith.select %{c}, %{a}, %{b} : i32[{N}]",
                lambda env, c=c, a=a, b=b: np.where(env[c] != 0, env[a], env[b]))
        elif choice in ("rows", "cols"):
            a = pick("t")
            axis, shape, kind = (1, "16,1", "r") if choice == "rows" else (0, "1,16", "c")
            wide = "16,4" if choice == "rows" else "4,16"
            add(name + "e", "e" + kind, f"tt.expand_dims %{a} {{axis = {axis}}} : i32[{shape}]",
                lambda env, a=a, axis=axis: np.expand_dims(env[a], axis))
            add(name, kind, f"tt.broadcast %{name}e : i32[{wide}]",
                lambda env, n=name, wide=wide: np.broadcast_to(env[n + "e"], tuple(map(int, wide.split(",")))).copy())
        elif choice == "binary2d":
            kind = draw(st.sampled_from(("r", "c")))
            a, b = pick(kind), pick(kind)
            if a is None:
                continue
            op = draw(st.sampled_from(("addi", "subi", "muli", "andi")))
            shape = "16,4" if kind == "r" else "4,16"
            add(name, kind, f"arith.{op} %{a}, %{b} : i32[{shape}]",
                lambda env, op=op, a=a, b=b: _apply(op, env[a], env[b]))
        elif choice == "ptr":
            a = pick("t")
            add(name + "p", "sp", f"tt.splat %p : ptr<f16>[{N}]", lambda env: np.full(N, env["p"]))
            add(name, "p", f"tt.addptr %{name}p, %{a} : ptr<f16>[{N}]",
                lambda env, n=name, a=a: env[n + "p"] + 2 * env[a])
            steps[name] = steps[name + "p"] = 2
    params = [f"%n{i}: i32" + (f" {{multipleof = {m}}}" if m else "") for i, m in enumerate(multiples)]
    params.append(f"%p: ptr<f16> {{aligned = {align}}}")
    text = f"  tt.func @prog({', '.join(params)}) attributes {{kernel}} {{\n" + "\n".join(lines) + "\n    tt.return\n  }"

    def evaluate(values):
        env = dict(values)
        for n, fn in evals:
            env[n] = np.asarray(fn(env), dtype=np.int64)
        return env

    def draw_params(data):
        out = {}
        for i, m in enumerate(multiples):
            out[f"n{i}"] = (m or 1) * data.draw(st.integers(-60, 60))
        out["p"] = align * data.draw(st.integers(1 << 20, (1 << 20) + 64))
        return out

    return text, evaluate, draw_params, steps


def fact_holds(info: AxisInfo, value: np.ndarray, step: int, batched: bool = False) -> str | None:
    """Why ``info`` is false of ``value`` (None if it holds). ``batched``: the first axis of
    ``value`` stacks the values of several executions."""
    value = np.asarray(value, dtype=np.int64)
    if not batched:
        value = value[None]
    if value.ndim == 1:
        value = value[:, None]  # a scalar is one element
    if info.constant_value is not None and not (value == info.constant_value).all():
        return "constant_value"
    if info.nonnegative and (value < 0).any():
        return "nonnegative"
    for d in range(value.ndim - 1):
        a = np.moveaxis(value, d + 1, -1)
        n = a.shape[-1]
        c, p, k = info.contiguity[d], info.divisibility[d], info.constancy[d]
        for s in range(0, n, c):
            run = a[..., s:s + c]
            if not (run == run[..., :1] + step * np.arange(run.shape[-1])).all():
                return f"contiguity[{d}]={c}"
        if (a[..., ::c] % p != 0).any():
            return f"divisibility[{d}]={p}"
        for s in range(0, n, k):
            run = a[..., s:s + k]
            if not (run == run[..., :1]).all():
                return f"constancy[{d}]={k}"
    return None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.data())
def test_facts_hold_of_computed_values(program, data):
    text, evaluate, draw_params, steps = program
    module, axis = parse(text)
    named = values_by_name(module.functions[0])
    for _ in range(4):
        env = evaluate(draw_params(data))
        if any(np.abs(v).max() >= 1 << 31 for k, v in env.items() if k not in ("p",) and k not in steps):
            assume(False)  # i32 overflow: the analysis, like Triton's, assumes index math does not wrap
        for name, value in env.items():
            if name in named and name not in ("p",):
                why = fact_holds(axis.info(named[name]), value, steps.get(name, 1))
                assert why is None, f"%{name}: {axis.info(named[name])} is false ({why}) of {value.tolist()}\n{text}"


# Exhaustive checks of the rules for index math: x = n + range(start, start + 16) with n a
# multiple of m (negative ones included), combined with a constant or with N = multiple of m2.

def _offsets_program(m: int, start: int, body: str, extra_params: str = "") -> str:
    return f"""
  tt.func @f(%n: i32 {{multipleof = {m}}}{extra_params}) attributes {{kernel}} {{
    %r = tt.make_range {{end = {start + N}, start = {start}}} : i32[{N}]
    %sn = tt.splat %n : i32[{N}]
    %x = arith.addi %sn, %r : i32[{N}]
{body}
    tt.return
  }}"""


@pytest.mark.parametrize("m", [1, 4, 16])
@pytest.mark.parametrize("start", [0, 8, 5])
@pytest.mark.parametrize("op", ["divsi", "divui", "remsi", "remui", "shrsi", "shrui", "andi", "muli", "shli"])
def test_offsets_by_constant_exhaustively(op, start, m):
    constants = [0, 1, 2, 3] if op.startswith("sh") else [2, 4, 8, 3, 6, 7, -8] if op == "andi" else [1, 2, 4, 8, 3, 12]
    x = np.arange(start, start + N)[None, :] + np.arange(-96, 97, m)[:, None]  # one row per n
    body = "\n".join(f"    %k{i} = arith.constant {{value = {c}}} : i32[{N}]\n"
                     f"    %y{i} = arith.{op} %x, %k{i} : i32[{N}]" for i, c in enumerate(constants))
    module, axis = parse(_offsets_program(m, start, body))
    v = values_by_name(module.functions[0])
    assert fact_holds(axis.info(v["x"]), x, 1, batched=True) is None
    for i, c in enumerate(constants):
        y = _apply(op, x, np.full_like(x, c))
        why = fact_holds(axis.info(v[f"y{i}"]), y, 1, batched=True)
        assert why is None, f"{op} by {c}: {axis.info(v[f'y{i}'])} is false ({why})"


@pytest.mark.parametrize("m2", [1, 4, 16])
@pytest.mark.parametrize("m", [1, 16])
def test_compare_offsets_with_bound_exhaustively(m, m2):
    body = "\n".join(f"    %a{i} = arith.cmpi %x, %sN {{predicate = \"{p}\"}} : i1[{N}]\n"
                     f"    %b{i} = arith.cmpi %sN, %x {{predicate = \"{p}\"}} : i1[{N}]" for i, p in enumerate(PREDICATES))
    module, axis = parse(_offsets_program(m, 0, f"    %sN = tt.splat %N : i32[{N}]\n" + body,
                                          f", %N: i32 {{multipleof = {m2}}}"))
    v = values_by_name(module.functions[0])
    ns, bounds = np.meshgrid(np.arange(-64, 65, m), np.arange(-80, 81, m2))
    x = np.arange(N)[None, :] + ns.reshape(-1, 1)
    bound = np.broadcast_to(bounds.reshape(-1, 1), x.shape)
    for i, pred in enumerate(PREDICATES):
        for name, value in ((f"a{i}", _compare(pred, x, bound)), (f"b{i}", _compare(pred, bound, x))):
            why = fact_holds(axis.info(v[name]), value, 1, batched=True)
            assert why is None, f"{pred} (%{name}): {axis.info(v[name])} is false ({why})"


@pytest.mark.parametrize("m", [1, 2, 8])
def test_row_major_pointer_tile_exhaustively(m):
    """A + (pid * 4 + rm)[:, None] * lda + rk[None, :] for f16, A 16-byte aligned, lda a multiple of m."""
    module, axis = parse(f"""
  tt.func @f(%A: ptr<f16> {{aligned = 16}}, %lda: i32 {{multipleof = {m}}}, %pid: i32) attributes {{kernel}} {{
    %c4 = arith.constant {{value = 4}} : i32
    %b = arith.muli %pid, %c4 : i32
    %sb = tt.splat %b : i32[4]
    %r4 = tt.make_range {{end = 4, start = 0}} : i32[4]
    %rm = arith.addi %sb, %r4 : i32[4]
    %rk = tt.make_range {{end = 8, start = 0}} : i32[8]
    %rm2 = tt.expand_dims %rm {{axis = 1}} : i32[4,1]
    %ld = tt.splat %lda : i32[4,1]
    %rows = arith.muli %rm2, %ld : i32[4,1]
    %a0 = tt.splat %A : ptr<f16>[4,1]
    %a1 = tt.addptr %a0, %rows : ptr<f16>[4,1]
    %a2 = tt.broadcast %a1 : ptr<f16>[4,8]
    %rk2 = tt.expand_dims %rk {{axis = 0}} : i32[1,8]
    %rk3 = tt.broadcast %rk2 : i32[4,8]
    %pa = tt.addptr %a2, %rk3 : ptr<f16>[4,8]
    tt.return
  }}""")
    v = values_by_name(module.functions[0])
    runs = []
    for lda in range(-5 * m, 6 * m, m):
        for pid in range(-3, 4):
            for base in (1 << 20, (1 << 20) + 16, (1 << 20) + 48):
                rm = pid * 4 + np.arange(4)
                runs.append(base + 2 * (rm[:, None] * lda + np.arange(8)[None, :]))
    info = axis.info(v["pa"])
    assert fact_holds(info, np.stack(runs), 2, batched=True) is None
    assert info.contiguity[1] == 8 and info.divisibility[1] == min(16, 2 * m)
    assert axis.max_vector_elems(v["pa"]) == min(8, m)


def test_select_with_a_scalar_condition_keeps_runs():
    module, axis = parse("""
  tt.func @f(%c: i1, %n: i32 {multipleof = 16}) attributes {kernel} {
    %r = tt.make_range {end = 64, start = 0} : i32[64]
    %sn = tt.splat %n : i32[64]
    %x = arith.addi %sn, %r : i32[64]
    %s = arith.select %c, %r, %x : i32[64]
    tt.return
  }""")
    v = values_by_name(module.functions[0])
    assert axis.info(v["s"]) == AxisInfo((64,), (16,), (1,))


@pytest.mark.parametrize("g", [2, 8, 16])
@pytest.mark.parametrize("start", [0, 8, 5])
@pytest.mark.parametrize("op", ["divsi", "divui", "remsi", "remui"])
def test_offsets_by_a_uniform_multiple_exhaustively(op, start, g):
    """Dividing ``pid * 64 + [start, start + N)`` (non-negative, contiguous) by a scalar that is
    only known to be a multiple of ``g``: the facts hold for every such divisor, negative ones
    included (``divsi``/``remsi`` truncate), and for ``start`` a multiple of ``g`` they are the
    runs of ``g`` the rule promises (``analysis/axis_info_rules._uniform_divisor``)."""
    body = (f"    %pid = tt.get_program_id {{axis = 0}} : i32\n"
            f"    %c64 = arith.constant {{value = 64}} : i32\n"
            f"    %base = arith.muli %pid, %c64 : i32\n"
            f"    %sb = tt.splat %base : i32[{N}]\n"
            f"    %xr = arith.addi %sb, %r : i32[{N}]\n"
            f"    %sd = tt.splat %d : i32[{N}]\n"
            f"    %y = arith.{op} %xr, %sd : i32[{N}]")
    module, axis = parse(_offsets_program(1, start, body, f", %d: i32 {{multipleof = {g}}}"))
    v = values_by_name(module.functions[0])
    info = axis.info(v["y"])
    if start % g == 0 and N % g == 0:
        run = info.constancy[0] if op.startswith("div") else info.contiguity[0]
        assert run == g, f"{op}: {info}"
    xs = np.arange(start, start + N)[None, :] + 64 * np.arange(0, 40)[:, None]
    for d in [g * k for k in (1, 2, 3, 5, 49, -1, -3)]:
        y = _apply(op, xs, np.full_like(xs, d))
        why = fact_holds(info, y, 1, batched=True)
        assert why is None, f"{op} by {d}: {info} is false ({why})"
