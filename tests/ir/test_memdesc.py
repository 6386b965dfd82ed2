"""Shared-memory buffer types (``!ttg.memdesc``) and the ttg buffer ops: text round trip and verifier."""
import pytest

from tritonc.ir.layouts import SharedLayout
from tritonc.ir.ops import VerifyError
from tritonc.ir.parser import IRParseError, parse_module, parse_type
from tritonc.ir.printer import print_module
from tritonc.ir.types import F16, MemDescType, element_type, shape_of
from tritonc.ir.verifier import verify_module

MODULE = """\
#blocked0 = #ttg.blocked<size_per_thread=[1,8], threads_per_warp=[8,4], warps_per_cta=[4,1], order=[1,0]>
#shared0 = #ttg.shared<vec=8, per_phase=2, max_phase=4, order=[2,1,0]>
#shared1 = #ttg.shared<vec=8, per_phase=2, max_phase=4, order=[1,0]>
#shared2 = #ttg.shared<vec=8, per_phase=2, max_phase=4, order=[0,1]>
#mma0 = #ttg.mma<version=2, warps_per_cta=[2,2], instr_shape=[16,8]>
#dot_op0 = #ttg.dot_op<op_idx=1, parent=#mma0, k_width=2>
module attributes {num_warps = 4} {
  tt.func @k(%p: ptr<f16>[64,32] #blocked0, %m: i1[64,32] #blocked0, %x: f16[64,32] #blocked0, %i: i32) attributes {kernel} {
    %ring = ttg.local_alloc : !ttg.memdesc<f16[3,64,32] #shared0>
    %slot = ttg.memdesc_subview %ring, %i : !ttg.memdesc<f16[64,32] #shared1>
    ttg.async_copy_global_to_local %p, %slot, %m {mask_kind = "prefix", vec = 8}
    ttg.async_commit_group
    ttg.async_wait %ring {num = 1}
    gpu.barrier
    %t = ttg.memdesc_trans %slot {order = [1, 0]} : !ttg.memdesc<f16[32,64] #shared2>
    %b = ttg.local_load %t : f16[32,64] #dot_op0
    %buf = ttg.local_alloc %x : !ttg.memdesc<f16[64,32] #shared1>
    ttg.local_store %x, %buf
    %y = ttg.local_load %buf : f16[64,32] #blocked0
    tt.return
  }
}
"""


def test_memdesc_round_trip():
    m = parse_module(MODULE)
    verify_module(m)
    text = print_module(m)
    assert "!ttg.memdesc<f16[3,64,32] #shared0>" in text
    assert print_module(parse_module(text)) == text


def test_memdesc_type_text_and_helpers():
    t = parse_type("!ttg.memdesc<f16[2,16,16] #ttg.shared<vec=8, per_phase=4, max_phase=2, order=[2,1,0]>>")
    assert isinstance(t, MemDescType) and t.shape == (2, 16, 16)
    assert t.layout == SharedLayout(8, 4, 2, (2, 1, 0))
    assert t.bytes == 2 * 16 * 16 * 2 and t.numel == 512
    assert element_type(t) == F16 and shape_of(t) == (2, 16, 16)
    assert str(t) == "!ttg.memdesc<f16[2,16,16] #ttg.shared<vec=8, per_phase=4, max_phase=2, order=[2,1,0]>>"
    assert str(parse_type("!ttg.memdesc<f32[8]>")) == "!ttg.memdesc<f32[8]>"


@pytest.mark.parametrize("bad, message", [
    ("%s2 = ttg.memdesc_subview %ring, %i : !ttg.memdesc<f16[32,32] #shared1>", "a slot of"),
    ("%b2 = ttg.local_load %ring : f16[64,32] #blocked0", "does not match the buffer"),
    ("ttg.async_copy_global_to_local %p, %ring", "copy through"),
    ("ttg.async_wait %ring {num = -1}", "non-negative"),
    ("%t2 = ttg.memdesc_trans %ring {order = [1, 0]} : !ttg.memdesc<f16[64,3,32] #shared0>", "not a permutation"),
])
def test_verifier_rejects(bad, message):
    text = MODULE.replace("    ttg.async_commit_group\n", f"    ttg.async_commit_group\n    {bad}\n")
    m = parse_module(text)
    with pytest.raises(VerifyError, match=message):
        verify_module(m)


def test_memdesc_parse_error():
    with pytest.raises(IRParseError):
        parse_type("!ttg.memdesc<ptr<f16>[4]>")
