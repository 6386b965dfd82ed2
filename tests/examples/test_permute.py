"""examples/permute.tri: 3-D permutation with x[^2, ^0, ^1] and a strided 3-D copy, on strided
views (slices of larger arrays), at ragged sizes; exact results, untouched gaps."""
import numpy as np
import pytest

from example_helpers import cdiv, poisoned, ragged_sizes, run

T0, T1, T2 = 4, 8, 8
DEFINES = {"T0": str(T0), "T1": str(T1), "T2": str(T2)}
rng = np.random.default_rng(7)


def strides(a: np.ndarray):
    return [s // a.itemsize for s in a.strides]


def grid(D0, D1, D2):
    return cdiv(D0, T0), cdiv(D1, T1), cdiv(D2, T2)


SIZES = ragged_sizes(70, 3, [(1, 12), (1, 20), (1, 20)], [T0, T1, T2])


@pytest.mark.parametrize("D0,D1,D2", SIZES)
def test_permute_201_of_a_view(D0, D1, D2):
    base = rng.standard_normal((D0 + 2, D1 + 1, D2 + 3)).astype(np.float32)
    X = base[:D0, :D1, :D2]  # a view starting at the buffer start, strides of the base
    Y = poisoned((D2, D0, D1), np.float32)
    run("permute", "permute_201", grid(D0, D1, D2), Y, base, D0, D1, D2, *strides(base), *strides(Y),
        defines=DEFINES)
    assert np.array_equal(Y, X.transpose(2, 0, 1))


@pytest.mark.parametrize("D0,D1,D2", SIZES)
def test_copy3d_strided_to_strided(D0, D1, D2):
    X = rng.standard_normal((D0, D1, D2)).astype(np.float32)
    base = poisoned((D0, D1, 2 * D2), np.float32)  # destination: every other element
    run("permute", "copy3d", grid(D0, D1, D2), base, X, D0, D1, D2, *strides(X), D1 * 2 * D2, 2 * D2, 2,
        defines=DEFINES)
    assert np.array_equal(base[:, :, ::2], X)
    assert np.isnan(base[:, :, 1::2]).all(), "wrote into the gaps"


def test_permute_201_half_transposed_input():
    """The input is itself a transposed view (innermost stride not 1)."""
    base = rng.standard_normal((9, 6, 5)).astype(np.float16)  # X = base.transpose(2, 1, 0): [5, 6, 9]
    X = base.transpose(2, 1, 0)
    Y = poisoned((9, 5, 6), np.float16)
    run("permute", "permute_201", grid(*X.shape), Y, base, *X.shape, *strides(X), *strides(Y),
        defines=dict(DEFINES, TYPE="half"))
    assert np.array_equal(Y, X.transpose(2, 0, 1))
