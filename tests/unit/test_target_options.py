"""tritonc.target (Target facts) and tritonc.options (CodegenOptions, -f flags, the artefact
identity that a compile cache keys on)."""
from __future__ import annotations

import dataclasses

import pytest

from tritonc.diagnostics import CompileError
from tritonc.options import (CodegenOptions, CompileOptions, artifact_identity, codegen_flags_help,
                             parse_codegen_flags)
from tritonc.target import ARCHS, DEFAULT_ARCH, DOT_INSTRUCTIONS, WARP_SIZE, Target

# ----------------------------------------------------------------------------- Target


def test_default_arch_is_the_one_default():
    assert Target().arch == DEFAULT_ARCH == CompileOptions().arch == "sm_90a"
    assert CompileOptions().target == Target()


@pytest.mark.parametrize("arch, dots", [
    ("sm_80", ("fma", "mma.sync")), ("sm_86", ("fma", "mma.sync")), ("sm_89", ("fma", "mma.sync")),
    ("sm_90", ("fma", "mma.sync")), ("sm_90a", ("fma", "mma.sync", "wgmma"))])
def test_dot_instructions_per_arch(arch, dots):
    t = Target(arch)
    assert t.dot_instructions == dots
    for name in DOT_INSTRUCTIONS:
        assert t.has_dot_instruction(name) == (name in dots)


def test_unknown_dot_instruction_is_an_error():
    with pytest.raises(ValueError, match="unknown dot instruction 'mma'"):
        Target().has_dot_instruction("mma")


@pytest.mark.parametrize("arch, per_sm, per_cta", [
    ("sm_80", 164, 163), ("sm_86", 100, 99), ("sm_89", 100, 99), ("sm_90", 228, 227), ("sm_90a", 228, 227)])
def test_shared_memory_limits(arch, per_sm, per_cta):
    t = Target(arch)
    assert t.shared_bytes_per_sm == per_sm * 1024
    assert t.max_shared_bytes_per_cta == per_cta * 1024
    assert t.shared_bytes_per_sm - t.max_shared_bytes_per_cta == t.reserved_shared_per_cta


@pytest.mark.parametrize("arch", ARCHS)
def test_register_and_warp_facts(arch):
    t = Target(arch)
    assert t.warp_size == WARP_SIZE == 32
    assert t.registers_per_sm == 65536 and t.max_registers_per_thread == 255 and t.register_granule == 8


def test_target_identity_names_arch_and_ptx():
    assert Target("sm_80", 80).identity() == {"arch": "sm_80", "ptx_version": 80}
    assert Target("sm_90").identity() != Target("sm_90a").identity()


# ----------------------------------------------------------------------------- -f flags


def test_every_codegen_option_is_a_documented_flag():
    text = codegen_flags_help()
    for f in dataclasses.fields(CodegenOptions):
        assert f.name.replace("_", "-") in text
        assert f.metadata["doc"]


@pytest.mark.parametrize("flags, changes", [
    (["no-occupancy-hint"], {"occupancy_hint": False}),
    (["no-read-only-cache", "read-only-cache"], {}),
    (["load-cache-op=cg"], {"load_cache_op": "cg"}),
    (["load-eviction=L1::no_allocate"], {"load_eviction": "L1::no_allocate"}),
    (["load-prefetch=L2::128B"], {"load_prefetch": "L2::128B"}),
    (["no-exp-ftz"], {"exp_ftz": False}),
    (["no-wide-addresses"], {"wide_addresses": False}),
    (["f32-division=rn"], {"f32_division": "rn"}),
    (["exp-uncorrected", "exp-ftz"], {"exp_uncorrected": True}),
    (["fragment-prefetch"], {"fragment_prefetch": True}),
    (["slice-prefetch"], {"slice_prefetch": "on"}),
    (["no-slice-prefetch"], {"slice_prefetch": "off"}),
    (["no-slice-prefetch", "slice-prefetch=auto"], {}),
    (["no-wgmma-in-flight", "no-wgmma-copies-after-dot"], {"wgmma_in_flight": False, "wgmma_copies_after_dot": False}),
    (["wgmma-second-barrier=off"], {"wgmma_second_barrier": "off"}),
])
def test_parse_codegen_flags(flags, changes):
    options = parse_codegen_flags(flags)
    assert options == dataclasses.replace(CodegenOptions(), **changes)
    assert parse_codegen_flags([f[2:] for f in options.flags()]) == options  # flags() round-trips


@pytest.mark.parametrize("flag, message", [
    ("bogus", "unknown code-generation flag '-fbogus'"),
    ("no-bogus", "unknown code-generation flag '-fno-bogus'"),
    ("wide-addresses=1", "-fwide-addresses takes no value"),
    ("no-slice-prefetch=on", "-fno-slice-prefetch takes no value"),
    ("slice-prefetch=maybe", "expected one of on, off, auto"),
    ("f32-division", "use -ff32-division=VALUE"),
    ("no-f32-division", "use -ff32-division=VALUE"),
    ("f32-division=approx", "expected one of full, rn"),
    ("load-cache-op=.cg", "expected one of"),
    ("load-prefetch=L2::512B", "expected one of '', L2::64B, L2::128B, L2::256B"),
])
def test_bad_codegen_flags(flag, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_codegen_flags([flag])


def test_codegen_options_check_their_values():
    with pytest.raises(ValueError, match="must be one of"):
        CodegenOptions(slice_prefetch="yes")
    with pytest.raises(ValueError, match="must be a bool"):
        CodegenOptions(exp_ftz="on")


# ----------------------------------------------------------------------------- identity


def _changed(value):
    """A value of the same kind as ``value`` but different from it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, dict):
        return {**value, "X": ["1"] if not value else "2"}
    if isinstance(value, list):
        return value + ["inc"]
    if isinstance(value, frozenset):
        return value | {"double-promotion"}
    raise AssertionError(f"no changed value for {value!r}")


def test_identity_changes_with_every_compile_option():
    base = CompileOptions()
    key = artifact_identity(base)
    assert artifact_identity(CompileOptions()) == key  # deterministic
    changes = {"tune": {"TM": [64]}, "kernel": "k", "num_warps": 8, "arch": "sm_80", "specialize": True,
               "codegen": CodegenOptions(wide_addresses=False), "num_stages": 4, "hint": {"M": 128},
               "grid": "cdiv(M, 64)", "kernel_suffix": "__v1",
               "symbol_prefix": "mm_", "cpp_namespace": "ns"}
    for f in dataclasses.fields(CompileOptions):
        if f.name == "error_limit":  # -ferror-limit changes no output (tests/cli/test_error_limit.py)
            continue
        value = changes[f.name] if f.name in changes else _changed(getattr(base, f.name))
        other = dataclasses.replace(base, **{f.name: value})
        assert artifact_identity(other) != key, f.name


def test_identity_changes_with_every_codegen_option():
    key = artifact_identity(CompileOptions())
    for f in dataclasses.fields(CodegenOptions):
        choices = [c for c in f.metadata["choices"] if c != f.default]
        value = choices[0] if choices else not f.default
        other = CompileOptions(codegen=CodegenOptions(**{f.name: value}))
        assert artifact_identity(other) != key, f.name


def test_identity_changes_with_the_target():
    options = CompileOptions(arch="sm_90")
    assert artifact_identity(options) != artifact_identity(options, Target("sm_90", 88))
    assert artifact_identity(options) == artifact_identity(options, Target("sm_90"))


def test_identity_of_an_unknown_arch_is_an_error():
    with pytest.raises(CompileError, match="unsupported GPU architecture 'sm_75'"):
        artifact_identity(CompileOptions(arch="sm_75"))


# ----------------------------------------------------------------------------- read_source


def test_read_source_tells_paths_from_text(tmp_path):
    from tritonc.frontend_stage import read_source

    kernel = tmp_path / "k"  # a file without the .tri suffix, no newline or '(' in its name
    kernel.write_text("void k() {}\n")
    assert read_source(str(kernel)) == ("void k() {}\n", str(kernel))
    one_line = "void k(int *p) { *p = 1; }"  # one line of source text
    assert read_source(one_line) == (one_line, "<source>")
    assert read_source("void k()\n{}\n") == ("void k()\n{}\n", "<source>")
    odd = tmp_path / "f(1).tri"  # a path with a '(' in it
    odd.write_text("void f() {}\n")
    assert read_source(str(odd))[1] == str(odd)
    with pytest.raises(CompileError, match="cannot read 'missing.tri'"):
        read_source("missing.tri")
