"""Global addresses formed at their use in loops (``memory.access_addresses``): a loop-carried
scalar base plus i32 offset tiles become one ``mad.wide.s32`` per offset at each access, exact
where the i32 sum of the offsets would overflow, and the matmul main loop's ``cp.async`` copies
keep no 64-bit pointer per copy across trips."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tritonc.simt import lower_for_simulation, run_kernel
from tritonc.driver import TT_PIPELINE, TTG_PIPELINE, Compilation, run_pipeline
from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module
from tritonc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "benchmarks" / "kernels" / "matmul.tri"

# The loop reads X + t1 + t2 + u with t1 = c + 8 * rm (i32), t2 = c + rk (i32), u = -2c (i64),
# c = 2^31 - 32: t1 + t2 overflows i32, the address X + 8 * rm + rk does not. After
# canonicalize-pointers the loop carries X + u and applies t1 and t2 in the body; the load
# forms base + sext(t1) * 4 + sext(t2) * 4 with two mad.wide.s32. Y: the sum of the blocks
# read; Z: the block the returned tile points at (rebuilt after the loop, getelementptr).
OVERFLOW = (ROOT / "tests" / "data" / "i32_offset_overflow.ttir").read_text()


def _args(n):
    c = 2**31 - 32
    X = np.arange(32 * (n + 1), dtype=np.float32)
    return [X, np.full(32, np.nan, np.float32), np.full(32, np.nan, np.float32), c, -2 * c, n]


def test_overflowing_offsets_are_exact_in_the_lowering():
    module = run_pipeline(parse_module(OVERFLOW), TT_PIPELINE)
    run_pipeline(module, TTG_PIPELINE, num_warps=1, num_stages=1, arch="sm_90")
    kernels, _ = lower_for_simulation(module)
    ir_text = str(kernels["k"][0])
    # the loop's load: two mad.wide.s32 from the carried base, 4-byte elements
    assert ir_text.count('"mad.wide.s32 $0, $1, 4, $2;"') == 2, ir_text
    for n in (0, 1, 3):
        args = _args(n)
        run_kernel(module, "k", (1,), args)
        ref = _args(n)
        run_function(parse_module(OVERFLOW), "k", 1, ref)
        np.testing.assert_array_equal(args[1], ref[1])
        np.testing.assert_array_equal(args[2], ref[2])
        X = args[0]
        np.testing.assert_array_equal(args[1], X[:32 * n].reshape(n, 32).sum(axis=0) if n else np.zeros(32))


def _main_loop(ptx: str, kernel: str) -> list[str]:
    """The instructions of ``kernel``'s longest loop (label to backward branch)."""
    body = ptx.split(f".entry {kernel}(")[1].split(".entry")[0].splitlines()
    labels, best = {}, []
    for i, line in enumerate(body):
        m = re.match(r"\s*(\$L__\w+):", line)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"bra(?:\.uni)?\s+(\$L__\w+);", line)
        if m and m.group(1) in labels and i - labels[m.group(1)] > len(best):
            best = body[labels[m.group(1)]:i + 1]
    return [x.strip() for x in best if x.strip() and not x.strip().startswith(("//", "$"))]


@pytest.mark.parametrize("tile, num_warps, num_stages", [((128, 256, 64), 8, 3), ((64, 64, 32), 4, 3)])
def test_copy_sources_are_formed_at_each_cp_async(tile, num_warps, num_stages):
    TM, TN, TK = tile
    opts = CompileOptions(defines={"TM": str(TM), "TN": str(TN), "TK": str(TK)}, num_warps=num_warps,
                          num_stages=num_stages, arch="sm_90", specialize=True)
    ptx = Compilation(KERNEL, opts).ptx
    for kernel in ("matmul", "matmul__spec16"):
        loop = _main_loop(ptx, kernel)
        wide = {}
        for ins in loop:
            m = re.match(r"mad\.wide\.s32 (%rd\d+), %r\d+, 2, %rd\d+;", ins)
            if m:
                wide[m.group(1)] = ins
        copies = [re.search(r"\], \[(%rd\d+)\]", ins) for ins in loop if ins.startswith(("cp.async", "@%p"))
                  and "cp.async.cg.shared.global" in ins]
        threads = 32 * num_warps
        assert len(copies) == (TM * TK + TK * TN) // (8 * threads)
        # every source is a mad.wide.s32 of the loop, with no immediate offset folded in
        assert all(c is not None and c.group(1) in wide for c in copies), loop
        # the only 64-bit adds left are the two carried bases' increments
        assert sum(ins.startswith("add.s64") for ins in loop) == 2, loop


def test_128x256x64_is_k_sliced_where_it_fits():
    """``slice_registers`` (recalibrated for one i32 offset per copy): the ``__spec16`` variant
    (uniform masks) of 128x256x64 on 8 warps, 3 stages is K-sliced and does not spill; the
    variant for any size (limit masks, which spills when sliced) is not sliced."""
    from tritonc.codegen.cubin import assemble_ptx
    from tritonc.codegen.target import Target
    from tritonc.ir.printer import print_module

    opts = CompileOptions(defines={"TM": "128", "TN": "256", "TK": "64"}, num_warps=8, num_stages=3, arch="sm_90",
                          specialize=True)
    comp = Compilation(KERNEL, opts)
    text = print_module(comp.ttgir)
    spec = text[text.index("tt.func @matmul__spec16("):]
    plain = text[text.index("tt.func @matmul("):text.index("tt.func @matmul__spec16(")]
    assert "ttg.memdesc_subslice" in spec and "ttg.memdesc_subslice" not in plain
    res = assemble_ptx(comp.ptx, Target("sm_90")).resources
    for name in ("matmul", "matmul__spec16"):
        assert not res[name].spills and res[name].stack_bytes == 0, res[name]
