"""examples/attention.tri: flash attention forward (FA-2), non-causal and causal, head dims 64
and 128, half and bfloat16, in the interpreter against a float64 numpy softmax(Q K^T s) V, at
ragged sequence lengths (rows and keys past S masked)."""
import ml_dtypes
import numpy as np
import pytest

from example_helpers import assert_close, cdiv, poisoned, run

NP = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def reference(q, k, v, scale, causal):
    s = np.einsum("bmd,bnd->bmn", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        S = q.shape[1]
        s = np.where(np.arange(S)[None, :] <= np.arange(S)[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)


@pytest.mark.parametrize("type_name, d, causal, S", [("half", 64, False, 100), ("half", 64, True, 77),
                                                     ("bfloat16", 128, False, 45), ("bfloat16", 128, True, 90),
                                                     ("half", 128, True, 16)])
def test_attention(type_name, d, causal, S):
    BM, BN, BH = 32, 16, 2
    rng = np.random.default_rng(S + d)
    q, k, v = (rng.standard_normal((BH, S, d)).astype(NP[type_name]) for _ in range(3))
    out = poisoned((BH, S, d), NP[type_name])
    scale = np.float32(1 / np.sqrt(d))
    defines = {"TYPE": type_name, "D": str(d), "CAUSAL": str(int(causal)), "BM": str(BM), "BN": str(BN)}
    run("attention", "attention", (cdiv(S, BM), BH), q, k, v, out, scale, S, BH, defines=defines)
    tol = 1e-2 if type_name == "half" else 3e-2
    assert_close(out, reference(q, k, v, scale, causal), rtol=tol, atol=tol)


def test_causal_rows_ignore_later_keys():
    """Row i of a causal attention depends on keys and values 0..i only."""
    S, d = 40, 64
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((1, S, d)).astype(np.float16) for _ in range(3))
    defines = {"CAUSAL": "1", "BM": "16", "BN": "16"}
    a = poisoned((1, S, d), np.float16)
    run("attention", "attention", (cdiv(S, 16), 1), q, k, v, a, np.float32(0.125), S, 1, defines=defines)
    k2, v2 = k.copy(), v.copy()
    k2[:, 20:] = 7
    v2[:, 20:] = -3
    b = poisoned((1, S, d), np.float16)
    run("attention", "attention", (cdiv(S, 16), 1), q, k2, v2, b, np.float32(0.125), S, 1, defines=defines)
    assert (a[:, :20] == b[:, :20]).all() and not (a[:, 20:] == b[:, 20:]).all()
