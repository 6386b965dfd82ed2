"""Declared launch grids (``__grid``, ``--grid``): the frontend's lowering and its errors, the
reference evaluator, the C launcher (compiled with cc, run against the fake driver) and the
Python launcher (fake cuda.core), and the metadata that records every meta-parameter."""
from __future__ import annotations

import dataclasses
import inspect
import shutil

import pytest

from fixture_kernels import SCALAR_ARGS_PARAMS, VECTOR_ADD_PARAMS, make_kernel
from test_c_header import build_and_run, calls, syntax_check
from test_python_module import CAI, FakeCore, load_module
from tritonc.diagnostics import CompileError
from tritonc.driver import Compilation
from tritonc.launcher.c_header import find_cuda_include, generate_c_header
from tritonc.launcher.grid import evaluate_grid, grid_text
from tritonc.launcher.python_module import generate_python_module
from tritonc.launcher.signature import parse_signature_lines
from tritonc.options import CompileOptions

KERNEL = """const tunable int TM = {{64, 128}};
{grid}
__global__ void k(float *X, int M, int N) {{
  int i[TM] = get_program_id(0) * TM + 0 ... TM;
  *?(i < M)(X + i) = 1.0f;
}}
"""


def grid_of(grid_decl: str, **options) -> tuple:
    return Compilation(KERNEL.format(grid=grid_decl), CompileOptions(**options)).grids.get("k")


# ----------------------------------------------------------------------------- frontend

def test_declared_grid_is_lowered_with_tunable_values():
    grid = grid_of("__grid(cdiv(M, TM), N / 2 + 1)", defines={"TM": "128"})
    assert grid == (("cdiv", ("arg", "M"), ("int", 128)), ("+", ("/", ("arg", "N"), ("int", 2)), ("int", 1)))
    # a tunable chosen, not fixed: its value is the one compiled
    comp = Compilation(KERNEL.format(grid="__grid(cdiv(M, TM))"), CompileOptions())
    assert comp.grids["k"] == (("cdiv", ("arg", "M"), ("int", comp.tunables["TM"])),)


def test_no_grid_declared():
    assert grid_of("") is None


def test_command_line_grid_replaces_the_declared_one():
    grid = grid_of("__grid(1)", grid="max(M, N), 2, 3")
    assert grid == (("max", ("arg", "M"), ("arg", "N")), ("int", 2), ("int", 3))
    # --grid sees the command line's macros and the file's
    assert grid_of("", grid="cdiv(M, BLK)", defines={"BLK": "32"}) == (("cdiv", ("arg", "M"), ("int", 32)),)


@pytest.mark.parametrize("decl, message", [
    ("__grid(cdiv(M, X))", "grid expressions use integer parameters; 'X' of kernel 'k' is a pointer"),
    ("__grid(Q)", "'Q' in the grid is neither a parameter of kernel 'k' nor a tunable"),
    ("__grid(foo(M, 2))", "'foo' cannot be called in a grid (only cdiv, min, max)"),
    ("__grid(cdiv(M))", "'cdiv' in a grid takes 2 arguments, got 1"),
    ("__grid(M * 1.5)", "this floating-point literal is not one of them"),
    ("__grid(1, 2, 3, 4)", "__grid has at most 3 dimensions, got 4"),
    ("__grid(1) __grid(2)", "a function has at most one __grid"),
])
def test_bad_grids_are_located_errors(decl, message):
    with pytest.raises(CompileError) as e:
        grid_of(decl)
    assert message in e.value.diagnostic.message
    assert e.value.diagnostic.loc is not None and e.value.diagnostic.loc.line == 2


def test_grid_on_a_device_function_is_an_error():
    src = ("__grid(4) __device__ int f(int x) { return x; }\n"
           "__global__ void k(int *X) { *X = f(1); }\n")
    with pytest.raises(CompileError, match="__grid on 'f', which is not a kernel"):
        Compilation(src, CompileOptions()).grids


def test_bad_command_line_grid_is_located_in_the_option():
    with pytest.raises(CompileError) as e:
        grid_of("", grid="cdiv(M, X)")
    assert e.value.diagnostic.loc.file == "<--grid>"


# ----------------------------------------------------------------------------- evaluation

EXPR_GRID = (
    ("cdiv", ("arg", "c"), ("int", 64)),
    ("?:", ("&&", (">", ("arg", "d"), ("int", 0)), ("!=", ("arg", "a"), ("int", 3))),
     ("min", ("%", ("neg", ("arg", "c")), ("int", 7)), ("int", 5)), ("max", ("<<", ("arg", "g"), ("int", 2)), ("arg", "h"))),
    ("+", ("/", ("-", ("int", 0), ("arg", "c")), ("int", -3)), ("|", ("inv", ("int", -8)), (">>", ("arg", "d"), ("int", 1)))),
)


def test_evaluate_grid_is_c_arithmetic():
    args = {"c": -100, "d": 6, "a": 1, "g": 3, "h": 20}
    # cdiv(-100, 64) = (-100 + 63) / 64 = 0 (truncation); -(-100) % 7 = 2; 100 / -3 = -33; ~-8 | 3 = 7
    assert evaluate_grid(EXPR_GRID, args) == (0, 2, -26)
    with pytest.raises(ValueError, match="divides by zero"):
        evaluate_grid((("/", ("int", 1), ("arg", "c")),), {"c": 0})
    with pytest.raises(ValueError, match="shifts by 64"):
        evaluate_grid((("<<", ("int", 1), ("int", 64)),), {})
    assert grid_text(EXPR_GRID[:1]) == "cdiv(c, 64)"


# ----------------------------------------------------------------------------- C launcher

needs_cc = pytest.mark.skipif(find_cuda_include() is None or shutil.which("cc") is None,
                              reason="needs cc and cuda.h (nvidia-cuda-runtime wheel)")
VECTOR_ADD_SIZES = "fake_num_params = 4; fake_param_sizes[0] = 8; fake_param_sizes[1] = 8; " \
                   "fake_param_sizes[2] = 8; fake_param_sizes[3] = 4;"
SCALAR_SIZES = "fake_num_params = 14; " + " ".join(
    f"fake_param_sizes[{i}] = {s};" for i, s in enumerate([8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1]))


@needs_cc
def test_c_launcher_computes_the_declared_grid(tmp_path, vector_add_kernel):
    k = dataclasses.replace(vector_add_kernel, grid=(("cdiv", ("arg", "n"), ("int", 128)), ("int", 2)))
    header = generate_c_header(k)
    assert "vector_add_with_grid(CUstream stream, unsigned int grid_x" in " ".join(header.split())
    lines = build_and_run(tmp_path, header, f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(7);
    CHECK(vector_add((CUstream)5, 0x1000, 0x2008, 0x3004, 1024));
    CHECK(vector_add((CUstream)5, 0x1000, 0x2008, 0x3004, 1028));
    CHECK(vector_add((CUstream)5, 0x1000, 0x2008, 0x3004, 0));
    CHECK(vector_add_with_grid((CUstream)5, 3, 1, 1, 0x1000, 0x2008, 0x3004, 1024));
    """)
    grids = [line.split(" grid=")[1].split(" ")[0] for line in calls(lines, "cuLaunchKernel")]
    assert grids == ["8,2,1", "9,2,1", "3,1,1"]  # n = 0: an empty grid launches nothing
    assert all(line.endswith(" 0") for line in lines if line.startswith("RESULT"))


@needs_cc
def test_c_grid_expressions_match_the_evaluator(tmp_path, scalar_args_kernel):
    k = dataclasses.replace(scalar_args_kernel, grid=EXPR_GRID)
    cases = [dict(a=1, c=1000, d=6, g=3, h=20), dict(a=3, c=-100, d=6, g=3, h=20),
             dict(a=1, c=-100, d=-1, g=7, h=2), dict(a=0, c=129, d=0, g=1, h=0)]
    body = [SCALAR_SIZES, "fake_current_context = fake_context(1);"]
    for c in cases:
        body.append(f"CHECK(scalar_args(NULL, 0x1000, {c['a']}, 0, {c['c']}, {c['d']}, 0, 0, {c['g']}u, "
                    f"{c['h']}u, 0, 0, 0.0f, 0.0, false));")
        body.append('printf("ERR %s\\n", scalar_args_last_error() ? scalar_args_last_error() : "none");')
    lines = build_and_run(tmp_path, generate_c_header(k), "\n    ".join(body))
    launched = iter(line.split(" grid=")[1].split(" ")[0] for line in calls(lines, "cuLaunchKernel"))
    errors = iter(line for line in lines if line.startswith("ERR "))
    for c in cases:
        want = evaluate_grid(EXPR_GRID, c)
        err = next(errors)
        if any(d < 0 for d in want):
            assert "outside 0..limit" in err
        elif 0 in want:
            assert err == "ERR none"
        else:
            assert next(launched) == ",".join(map(str, want)) and err == "ERR none"


@needs_cc
def test_header_with_grids_compiles_as_c99_and_cxx_pedantic(tmp_path, scalar_args_kernel):
    syntax_check(tmp_path, generate_c_header(dataclasses.replace(scalar_args_kernel, grid=EXPR_GRID)))


@needs_cc
def test_c_grid_division_by_zero_is_refused(tmp_path, vector_add_kernel):
    k = dataclasses.replace(vector_add_kernel, grid=(("/", ("int", 64), ("arg", "n")),))
    lines = build_and_run(tmp_path, generate_c_header(k), f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(7);
    CHECK(vector_add(NULL, 0x1000, 0x2008, 0x3004, 0) == CUDA_ERROR_INVALID_VALUE);
    printf("MESSAGE %s\\n", vector_add_last_error());
    """)
    assert "RESULT vector_add(NULL, 0x1000, 0x2008, 0x3004, 0) == CUDA_ERROR_INVALID_VALUE 1" in lines
    assert "MESSAGE vector_add: the declared grid divides by zero or shifts out of range" in lines
    assert not calls(lines, "cuLaunchKernel")


# ----------------------------------------------------------------------------- Python launcher

def grid_module(tmp_path, kernel):
    module = load_module(tmp_path, generate_python_module(kernel))
    core = FakeCore({kernel.name: [8, 8, 8, 4]})
    module._module._core = core
    return module, core


def launched_grids(core):
    return [e[2] for e in core.log if e[0] == "launch"]


def test_python_launcher_computes_declared_lambda_and_explicit_grids(tmp_path, vector_add_kernel):
    k = dataclasses.replace(vector_add_kernel, grid=(("cdiv", ("arg", "n"), ("int", 128)),),
                            tunables={"BLOCK": 128}, num_stages=3)
    module, core = grid_module(tmp_path, k)
    assert str(inspect.signature(module.vector_add)) == "(x, y, z, n, *, grid=None, stream=None)"
    assert module.vector_add.meta == {"BLOCK": 128, "num_warps": 4, "num_stages": 3}
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 1028)
    seen = []
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 1024,
                      grid=lambda meta: (seen.append(meta) or 1024 // meta["BLOCK"], meta["num_warps"]))
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 1024, grid=(2, 3))
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 0)  # empty declared grid: nothing
    assert launched_grids(core) == [(9, 1, 1), (8, 4, 1), (2, 3, 1)]
    assert seen == [{"BLOCK": 128, "num_warps": 4, "num_stages": 3}]


def test_python_launcher_without_a_declared_grid_needs_one(tmp_path, vector_add_kernel):
    module, core = grid_module(tmp_path, vector_add_kernel)
    with pytest.raises(TypeError, match="needs grid=: the kernel declares no __grid"):
        module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 1024)
    module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 1024, grid=lambda meta: (meta["num_warps"],))
    assert launched_grids(core) == [(4, 1, 1)]


def test_python_grid_errors(tmp_path, vector_add_kernel):
    k = dataclasses.replace(vector_add_kernel, grid=(("/", ("int", 64), ("arg", "n")), ("-", ("int", 0), ("int", 1))))
    module, core = grid_module(tmp_path, k)
    with pytest.raises(ValueError, match=r"vector_add\(\): the grid divides by zero"):
        module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 0)
    with pytest.raises(ValueError, match="grid dimension 1 is -1"):
        module.vector_add(CAI(0x1000), 0x2008, CAI(0x3004), 4)
    assert launched_grids(core) == []


def test_python_grid_expressions_match_the_evaluator(tmp_path, scalar_args_kernel):
    k = dataclasses.replace(scalar_args_kernel, grid=EXPR_GRID)
    module = load_module(tmp_path, generate_python_module(k))
    for c in [dict(a=1, c=1000, d=6, g=3, h=20), dict(a=3, c=-100, d=6, g=3, h=20), dict(a=1, c=-100, d=-1, g=7, h=2)]:
        got = module._scalar_args_grid(0, c["a"], 0, c["c"], c["d"], 0, 0, c["g"], c["h"], 0, 0, 0.0, 0.0, False)
        assert got == evaluate_grid(EXPR_GRID, c)


# ----------------------------------------------------------------------------- metadata

def test_metadata_records_every_meta_parameter(tmp_path):
    comp = Compilation(KERNEL.format(grid="__grid(cdiv(M, TM))"), CompileOptions(num_warps=8))
    k = comp.kernels[0]
    meta = k.metadata()
    tm = comp.tunables["TM"]
    assert meta["meta"] == {"TM": tm, "num_warps": 8, "num_stages": 3}
    assert meta["defines"] == {"TM": str(tm)}
    assert meta["grid"] == f"cdiv(M, {tm})"
    assert meta["variants"][0]["name"] == "k__spec16"  # the specialisation
    assert parse_signature_lines(comp.python_module)[0]["meta"] == meta["meta"]
    assert parse_signature_lines(comp.header)[0]["grid"] == meta["grid"]


def test_compiled_kernel_checks_the_grid(vector_add_kernel):
    with pytest.raises(ValueError, match="the grid uses 'x', which is not a scalar parameter"):
        dataclasses.replace(vector_add_kernel, grid=(("arg", "x"),))
    with pytest.raises(ValueError, match="grid must be a tuple of 1 to 3"):
        dataclasses.replace(vector_add_kernel, grid=(("int", 1),) * 4)


def test_make_kernel_fixture_is_still_gridless():
    assert make_kernel("vector_add", VECTOR_ADD_PARAMS).grid is None
    assert make_kernel("scalar_args", SCALAR_ARGS_PARAMS, num_warps=1).metadata().get("grid") is None
