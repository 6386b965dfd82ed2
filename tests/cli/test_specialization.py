"""Launch-time specialisation end to end: the ``specialize`` pass through the driver and the
CLI into the cubin and the launcher descriptions, and what axis info proves on the examples'
``__spec16`` variants (what the vectorising lowering will build on)."""
from __future__ import annotations

import pytest

from cli_helpers import EXAMPLES_DIR, tritonc
from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.driver import Compilation
from tritonc.ir.types import PointerType
from tritonc.launcher.signature import KernelVariant, parse_signature_lines
from tritonc.options import CompileOptions

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"
BLOCK = {"BLOCK": "1024"}


@pytest.fixture(scope="module")
def vector_add() -> Compilation:
    return Compilation(VECTOR_ADD, CompileOptions(defines=BLOCK))  # specialize=None: the API default


def memory_ops(f):
    return [op for op in f.walk() if op.name in ("tt.load", "tt.store")]


def test_by_default_ir_stays_generic_and_the_cubin_gets_the_variant(vector_add):
    assert [f.name for f in vector_add.ttir.functions] == ["vector_add"]
    assert ".entry vector_add__spec16" not in vector_add.ptx
    launch = vector_add.launch_compilation
    assert [f.name for f in launch.ttir.functions] == ["vector_add", "vector_add__spec16"]
    assert launch._frontend is vector_add._frontend  # one frontend run, cloned per chain
    (kernel,) = vector_add.kernels
    assert kernel.variants == (KernelVariant("vector_add__spec16", (("Z", "align16"), ("X", "align16"), ("Y", "align16"), ("N", "div16")), 0),)
    assert ".entry vector_add__spec16" in kernel.ptx and b"vector_add__spec16" in vector_add.cubin
    assert kernel.cubin == vector_add.cubin
    assert "tritonc_fn = 1u; /* vector_add__spec16 */" in vector_add.header
    assert "('vector_add__spec16', 0, ((0, 'align16'), (1, 'align16'), (2, 'align16'), (3, 'div16'),))" in vector_add.python_module


def test_no_specialize_and_specialize_everywhere():
    off = Compilation(VECTOR_ADD, CompileOptions(defines=BLOCK, specialize=False))
    assert off.launch_compilation is off and [f.name for f in off.ttir.functions] == ["vector_add"]
    on = Compilation(VECTOR_ADD, CompileOptions(defines=BLOCK, specialize=True))
    assert on.launch_compilation is on
    assert [f.name for f in on.ttgir.functions] == ["vector_add", "vector_add__spec16"]
    assert on.ttgir.functions[1].attrs["variant_of"] == "vector_add"  # survives print/parse into ttg


@pytest.mark.parametrize("example", ["vector_add", "softmax"])
def test_spec16_variant_carries_the_assumptions_and_axis_info_sees_them(example):
    comp = Compilation(EXAMPLES_DIR / f"{example}.tri", CompileOptions(defines=BLOCK, specialize=True))
    # softmax also has softmax__spec16_le (its N <= BLOCK branch decided): test_bound_variant
    generic, spec = (next(f for f in comp.ttir.functions if f.name == n) for n in (example, f"{example}__spec16"))
    assert spec.attrs["variant_of"] == example
    read = {v for op in generic.walk() for v in op.operands}
    for arg, garg, attrs, plain in zip(spec.args, generic.args, spec.arg_attrs, generic.arg_attrs):
        key = "aligned" if isinstance(arg.type, PointerType) else "multipleof"
        # a parameter the kernel does not read (softmax's M: its __grid only) promises nothing
        assert attrs == ({**plain, key: 16} if garg in read else plain), arg.name
    for module in (comp.ttir, comp.ttgir):  # the facts hold before and after layouts
        axis = AxisInfoAnalysis(module)
        generic, spec = (next(f for f in module.functions if f.name == n) for n in (example, f"{example}__spec16"))
        for op in memory_ops(spec):
            ptr = op.get("ptr")
            info = axis.info(ptr)
            assert info.divisibility[-1] == 16 and info.contiguity[-1] >= 4, f"{op.name}: {info}"
            assert axis.info(op.get("mask")).constancy[-1] == 16
            assert axis.max_vector_elems(ptr, mask=op.get("mask")) == 4  # 4 floats: one 16-byte access
        for op in memory_ops(generic):
            assert axis.max_vector_elems(op.get("ptr"), mask=op.get("mask")) == 1


def test_matmul_variant_assumes_the_sizes_and_strides():
    comp = Compilation(EXAMPLES_DIR / "matmul.tri", CompileOptions(specialize=True))
    generic, spec = comp.ttir.functions
    promised = {a.name: attrs.get("multipleof") or attrs.get("aligned") for a, attrs in zip(spec.args, spec.arg_attrs)}
    # only the facts that widen an access: M masks whole rows of A and C (no fact), and the
    # leading dimensions' promised 8 halves are already 16 bytes
    assert promised == {"A": 16, "B": 16, "C": 16, "M": None, "N": 16, "K": 16, "lda": 8, "ldb": 8, "ldc": 8}
    axis = AxisInfoAnalysis(comp.ttir)
    # f16 tiles: 8 halves per 16-byte access once K (the loop's bound) and N are multiples of 16.
    assert [axis.max_vector_elems(op.get("ptr"), mask=op.get("mask")) for op in memory_ops(spec)] == [8, 8, 8]
    assert [axis.max_vector_elems(op.get("ptr"), mask=op.get("mask")) for op in memory_ops(generic)] == [1, 1, 1]


def test_cli_specializes_when_it_writes_a_cubin_or_launcher(tmp_path):
    run = tritonc(VECTOR_ADD, "--emit=ttir", "-o", "-")
    assert run.status == 0 and "__spec16" not in run.stdout
    run = tritonc(VECTOR_ADD, "--emit=ttir,header", "-o", tmp_path / "va")
    assert run.status == 0, run.output
    assert "tt.func @vector_add__spec16(" in (tmp_path / "va.ttir").read_text()
    header = (tmp_path / "va.h").read_text()
    assert parse_signature_lines(header)[0]["variants"][0]["name"] == "vector_add__spec16"
    run = tritonc(VECTOR_ADD, "--no-specialize", "--emit=ttir,header", "-o", tmp_path / "plain")
    assert run.status == 0, run.output
    assert "__spec16" not in (tmp_path / "plain.ttir").read_text() + (tmp_path / "plain.h").read_text()
    run = tritonc(VECTOR_ADD, "--specialize", "--emit=ttir", "-o", "-")
    assert run.status == 0 and "tt.func @vector_add__spec16(" in run.stdout


def test_cli_print_analysis(tmp_path):
    run = tritonc(VECTOR_ADD, "--specialize", "--print-analysis=axis-info", "--emit=ttir", "-o", "-")
    assert run.status == 0, run.output
    assert run.stderr.startswith("// -----// Analysis axis-info //----- //")
    assert "tt.addptr %9, %offs : ptr<f32>[1024]  // contiguity=[1024] divisibility=[16] constancy=[1]" in run.stderr
    assert "//" not in run.stdout.replace("// ", "")  # stdout is the plain IR
    run = tritonc(VECTOR_ADD, "--print-analysis=bogus", "--emit=ttir", "-o", "-")
    assert run.status == 2 and "unknown analysis 'bogus'" in run.stderr


def test_bound_variant_decides_softmax_one_tile_branch():
    """softmax's ``if (N <= BLOCK)``: ``softmax__spec16_le`` assumes N <= 1024 as well, keeps
    only the one-tile branch (no loop: fewer registers, measured 47 -> 32 on sm_90a, so more CTAs
    per SM), is launched first while the bound holds, and refuses a larger N in the interpreter."""
    import numpy as np

    from tritonc.interpreter import InterpreterError, run_function

    comp = Compilation(EXAMPLES_DIR / "softmax.tri", CompileOptions(defines=BLOCK, num_warps=4, specialize=True))
    names = [f.name for f in comp.ttir.functions]
    assert names == ["softmax", "softmax__spec16_le", "softmax__spec16"]
    le = comp.ttir.functions[1]
    n = next(i for i, a in enumerate(le.args) if a.name == "N")
    assert le.arg_attrs[n]["at_most"] == 1024 and le.arg_attrs[n]["multipleof"] == 16
    assert not any(op.name == "scf.for" for op in le.walk())
    assert any(op.name == "scf.for" for op in comp.ttir.functions[2].walk())
    (kernel,) = comp.kernels
    assert [(v.name, v.describe()) for v in kernel.variants][0] == (
        "softmax__spec16_le", "Y % 16 == 0, X % 16 == 0, stride_y % 16 == 0, stride_x % 16 == 0, N % 16 == 0, N <= 1024")
    regs = {k: u.registers for k, u in comp.resources.items()}
    assert regs["softmax__spec16_le"] < regs["softmax__spec16"], regs
    # the interpreter runs the variant where its facts hold, and refuses it where they don't
    x = np.random.default_rng(0).standard_normal((2, 1024)).astype(np.float32)
    y = np.zeros_like(x)
    run_function(comp.ttir, "softmax__spec16_le", 2, [y, x, 1024, 1024, 1024, 2])
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5)
    wide = np.zeros((1, 2048), np.float32)
    with pytest.raises(InterpreterError, match="is above 1024, the bound this specialised variant assumes"):
        run_function(comp.ttir, "softmax__spec16_le", 1, [wide, wide, 2048, 2048, 2048, 1])
