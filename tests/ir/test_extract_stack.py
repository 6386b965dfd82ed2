"""``tt.extract`` and ``tt.stack`` (from ``unbatch-dots``): verifier, interpreter semantics, and
when their lowering is a register renumbering."""
import numpy as np
import pytest

from tritonc.ir.distribution import redistribution, register_map, stack_register_map
from tritonc.ir.layouts import BlockedLayout, SliceLayout
from tritonc.ir.ops import VerifyError
from tritonc.ir.parser import parse_module
from tritonc.ir.types import F32, TileType
from tritonc.ir.verifier import verify_module
from tritonc.transforms.unbatch_dots import batch_in_thread

MODULE = """\
module attributes {num_warps = 4} {
  tt.func @f(%x: f32[4,8,2], %y: f32[4,8], %z: f32[4,8]) attributes {device} {
    BODY
    tt.return
  }
}
"""


def _verify(body: str) -> None:
    verify_module(parse_module(MODULE.replace("BODY", body)))


def test_verifier_accepts():
    _verify("%e = tt.extract %x {axis = 2, index = 1} : f32[4,8]\n"
            "    %s = tt.stack %y, %z {axis = 2} : f32[4,8,2]\n"
            "    %t = tt.stack %y, %z, %y {axis = 0} : f32[3,4,8]")


@pytest.mark.parametrize("bad, message", [
    ("%e = tt.extract %x {axis = 2, index = 2} : f32[4,8]", "out of range"),
    ("%e = tt.extract %x {axis = 3, index = 0} : f32[4,8]", "needs a tile"),
    ("%e = tt.extract %x {axis = 1, index = 0} : f32[4,8]", "cannot give"),
    ("%s = tt.stack %y, %x {axis = 2} : f32[4,8,2]", "one shape"),
    ("%s = tt.stack %y, %z {axis = 3} : f32[4,8,2,1]", "out of range"),
    ("%s = tt.stack %y, %z {axis = 1} : f32[4,8,2]", "cannot give"),
])
def test_verifier_rejects(bad, message):
    with pytest.raises(VerifyError, match=message):
        _verify(bad)


def test_interpreter_semantics():
    import tritonc.interpreter.evaluator as ev
    x = np.arange(24).reshape(2, 3, 4)

    class Op:
        attrs = {"axis": 2, "index": 3}
    rules = next(v for k, v in vars(ev).items() if isinstance(v, dict) and "tt.extract" in v)
    np.testing.assert_array_equal(rules["tt.extract"](None, Op, [x]), x[:, :, 3])
    Op.attrs = {"axis": 1}
    np.testing.assert_array_equal(rules["tt.stack"](None, Op, [x[0], x[1]]), np.stack([x[0], x[1]], axis=1))


def test_batch_in_thread_makes_extract_and_stack_free():
    shape = (64, 32, 4)
    parent = BlockedLayout((1, 1, 1), (1, 32, 1), (2, 1, 2), (1, 2, 0))
    lay = batch_in_thread(parent, shape, 2)
    assert lay.size_per_thread[2] == 4 and lay.threads_per_warp[2] == 1 and lay.warps_per_cta[2] == 1
    assert np.prod(lay.threads_per_warp) == 32 and np.prod(lay.warps_per_cta) == 4
    full = TileType(F32, shape, lay)
    part = TileType(F32, shape[:2], SliceLayout(2, lay))

    class Extract:
        name = "tt.extract"
        attrs = {"axis": 2, "index": 3}
        operands = [type("V", (), {"type": full})()]
        result = type("V", (), {"type": part})()
    src, dst, select = redistribution(Extract)
    assert register_map(src, dst, select) is not None
    mapping = stack_register_map(part, full, 2)
    assert mapping is not None and {k for k, _ in mapping} == {0, 1, 2, 3}
    # In the parent layout the warps split the batch: neither is a renumbering.
    full0, part0 = TileType(F32, shape, parent), TileType(F32, shape[:2], SliceLayout(2, parent))
    assert stack_register_map(part0, full0, 2) is None
