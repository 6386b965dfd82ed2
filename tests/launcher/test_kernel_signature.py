"""tritonc.launcher.signature: validation, printing and JSON round trips."""
from __future__ import annotations

import dataclasses

import pytest

from fixture_kernels import VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.facts import FACTS, bound_fact_name, fact, is_fact
from tritonc.launcher.signature import (SCALAR_TYPES, CompiledKernel, KernelParam, KernelSignature, KernelVariant,
                                        parse_signature_lines)


def test_scalar_type_table():
    assert list(SCALAR_TYPES) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float16", "bfloat16", "float32", "float64"]
    assert {n: t.size for n, t in SCALAR_TYPES.items()} == {
        "bool": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint8": 1, "uint16": 2,
        "uint32": 4, "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
    assert SCALAR_TYPES["float16"].c_type == "uint16_t" and SCALAR_TYPES["bfloat16"].c_type == "uint16_t"
    assert SCALAR_TYPES["int8"].min_value == -128 and SCALAR_TYPES["uint64"].max_value == 2**64 - 1
    assert SCALAR_TYPES["float32"].min_value is None


def test_param_properties():
    x = KernelParam("x", "pointer", "float16", multipleof=8, aligned=16, noalias=True, readonly=True)
    assert x.size == 8 and x.is_pointer and x.address_multiple == 16
    assert x.triton_c() == "half *x __noalias __readonly __aligned(16) __multipleof(8)"
    assert KernelParam("p", "pointer", "int8", multipleof=12, aligned=8).address_multiple == 24
    assert KernelParam("p", "pointer", "int8").address_multiple is None
    n = KernelParam("n", "scalar", "int32", multipleof=16)
    assert n.size == 4 and n.address_multiple is None
    assert n.triton_c() == "int32 n __multipleof(16)"
    assert KernelParam("b", "scalar", "bool").size == 1


@pytest.mark.parametrize("kwargs,match", [
    (dict(name="1x", kind="scalar", dtype="int32"), "not a C identifier"),
    (dict(name="x", kind="tile", dtype="int32"), "kind must be"),
    (dict(name="x", kind="scalar", dtype="half"), "unknown type 'half'"),
    (dict(name="x", kind="scalar", dtype="float32", multipleof=4), "__multipleof applies to integers"),
    (dict(name="x", kind="scalar", dtype="int32", multipleof=0), "positive integer"),
    (dict(name="x", kind="scalar", dtype="int32", aligned=16), "__aligned applies to pointers only"),
    (dict(name="x", kind="pointer", dtype="int32", aligned=12), "power of two"),
    (dict(name="x", kind="scalar", dtype="int32", noalias=True), "apply to pointers only"),
    (dict(name="x", kind="pointer", dtype="int32", readonly=True, writeonly=True), "both"),
])
def test_param_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        KernelParam(**kwargs)


def test_signature_validation_and_round_trip():
    params = (KernelParam("x", "pointer", "bfloat16", aligned=16), KernelParam("n", "scalar", "uint64", multipleof=2))
    sig = KernelSignature("k", params)
    assert sig.triton_c() == "k(bfloat16 *x __aligned(16), uint64 n __multipleof(2))"
    assert KernelSignature.from_dict(sig.to_dict()) == sig
    with pytest.raises(ValueError, match="two parameters are named 'x'"):
        KernelSignature("k", (params[0], params[0]))
    for bad in ("int", "class", "lambda", "k-1", ""):
        with pytest.raises(ValueError):
            KernelSignature(bad, ())


def test_compiled_kernel_metadata_and_signature_line():
    sig = KernelSignature("k", (KernelParam("x", "pointer", "float32"),))
    k = CompiledKernel(sig, 8, 1024, "sm_90a", b"\x7fELF...", defines={"TN": 64, "A": "x y"}, num_stages=3)
    assert k.block_threads == 256 and k.name == "k" and k.params == sig.params
    assert k.defines_string() == "A=x y;TN=64"
    meta = k.metadata()
    assert meta["defines"] == {"A": "x y", "TN": "64"} and meta["num_stages"] == 3
    assert parse_signature_lines(f"// tritonc-kernel: {k.signature_json()}\n# tritonc-kernel: {k.signature_json()}") == [meta, meta]
    assert KernelSignature.from_dict(meta) == sig


# ----------------------------------------------------------------------------- specialisation facts

def test_facts_table_and_tests():
    assert list(FACTS) == ["eq1", "div16", "align16"]
    assert [FACTS["eq1"].holds(v) for v in (1, 0, -1, 17)] == [True, False, False, False]
    assert [FACTS["div16"].holds(v) for v in (0, 16, -32, 8, 1)] == [True, True, True, False, False]
    assert [FACTS["align16"].holds(v) for v in (0x1000, 0x1010, 0x1008)] == [True, True, False]
    n64 = KernelParam("n", "scalar", "int64")
    assert FACTS["eq1"].c_test(n64, "n") == "(n == INT64_C(1))"
    assert FACTS["div16"].c_test(KernelParam("m", "scalar", "int32"), "m") == "(m % 16) == 0"
    assert FACTS["align16"].c_test(KernelParam("p", "pointer", "float32"), "p") == "(p % 16ull) == 0"
    assert FACTS["eq1"].python == "v == 1" and FACTS["div16"].python == "v % 16 == 0"


def test_variant_validation():
    v = KernelVariant("k__spec_s1", (("n", "eq1"), ("x", "align16")))
    assert v.describe() == "n == 1, x % 16 == 0"
    assert v.to_dict() == {"name": "k__spec_s1", "facts": {"n": "eq1", "x": "align16"},
                           "specialization": "n == 1, x % 16 == 0", "shared_bytes": 0}
    with pytest.raises(ValueError, match="unknown fact 'eq2'; expected one of eq1, div16, align16 or le<K>"):
        KernelVariant("k__v", (("n", "eq2"),))
    with pytest.raises(ValueError, match="needs at least one fact"):
        KernelVariant("k__v", ())
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS)
    with pytest.raises(ValueError, match="assumes eq1 of 'x', which needs an integer parameter"):
        dataclasses.replace(k, variants=(KernelVariant("k__v", (("x", "eq1"),)),))
    with pytest.raises(ValueError, match="assumes align16 of 'n', which needs a pointer parameter"):
        dataclasses.replace(k, variants=(KernelVariant("k__v", (("n", "align16"),)),))
    with pytest.raises(ValueError, match="assumes something of 'q', which is not a parameter"):
        dataclasses.replace(k, variants=(KernelVariant("k__v", (("q", "div16"),)),))


def test_bound_facts():
    """``le<K>``: the integer is at most K (signed), the fact of a branch decided at launch."""
    le = fact("le1024")
    assert le.kind == "scalar" and le.at_most == 1024 and bound_fact_name(1024) == "le1024"
    assert [le.holds(v) for v in (-5, 0, 1024, 1025, 2**40)] == [True, True, True, False, False]
    assert fact("le-3").holds(-3) and not fact("le-3").holds(-2)
    assert le.python == "v <= 1024" and le.describe("N") == "N <= 1024"
    assert le.c_test(KernelParam("N", "scalar", "int32"), "N") == "(N <= 1024)"
    assert le.c_test(KernelParam("N", "scalar", "int64"), "N") == "(N <= INT64_C(1024))"
    assert le.c_test(KernelParam("N", "scalar", "uint32"), "N") == "(N <= 1024u)"
    assert fact("le-1").c_test(KernelParam("N", "scalar", "uint64"), "N") == "0"  # no unsigned value
    assert fact("div16") is FACTS["div16"] and is_fact("le7") and not is_fact("le") and not is_fact("lt7")
    with pytest.raises(KeyError):
        fact("ge16")
    # two facts of one parameter: the metadata lists both
    v = KernelVariant("k__spec16_le", (("x", "align16"), ("n", "div16"), ("n", "le1024")))
    assert v.describe() == "x % 16 == 0, n % 16 == 0, n <= 1024"
    assert v.to_dict()["facts"] == {"x": "align16", "n": ["div16", "le1024"]}
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS)
    with pytest.raises(ValueError, match="assumes le16 of 'x', which needs an integer parameter"):
        dataclasses.replace(k, variants=(KernelVariant("k__v", (("x", "le16"),)),))
