"""What the host must know about a compiled kernel: its parameters, promises and launch shape.

A :class:`KernelSignature` lists a kernel's :class:`KernelParam` s in declaration order; a
:class:`CompiledKernel` adds what compilation decided (``num_warps``, dynamic shared
memory, arch, ``-D`` defines) and the code (cubin, PTX). The launcher generators
(``c_header``, ``python_module``) read nothing else.

Host ABI (spec §7): parameters are passed in declaration order, pointers as 64-bit device
addresses, scalars at their C width (``float16``/``bfloat16`` as 16 bits, ``bool`` as 8 bits).

Promises (spec §4) that a launcher must check (spec §7):

* ``multipleof=n`` on an integer: the value is a multiple of ``n``; on a pointer: the
  *address* (in bytes) is a multiple of ``n``;
* ``aligned=n`` on a pointer: the address is a multiple of ``n`` bytes (a power of two).

``noalias``, ``readonly`` and ``writeonly`` are recorded (and shown in the generated
signature) but cannot be checked from addresses alone.

Specialised variants (``transforms/specialize.py``): a :class:`CompiledKernel` may list
:class:`KernelVariant` s, other kernels of the same cubin with the same parameters that assume
facts of some arguments (``launcher/facts.py``: ``eq1`` an integer equals 1, ``div16`` an
integer is a multiple of 16, ``align16`` an address is a multiple of 16 bytes, ``le<K>`` an
integer is at most K; ``K__spec_s1_d16``, ``K__spec_s1``, ``K__spec16``, ``K__spec16_le``). A
launcher checks the kernel's own promises first, then runs the first variant whose every fact
holds for the actual arguments, else the kernel itself; the user-visible API does not change.

Invalid signatures raise ``ValueError``: they come from tritonc's front end, so an invalid
one is a tritonc bug rather than a user error.
"""
from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field

from tritonc.launcher.facts import FACTS, fact, is_fact
from tritonc.target import ARCHS


@dataclass(frozen=True)
class ScalarType:
    """A Triton-C scalar type as the host sees it.

    ``c_type`` is the launcher's C parameter type (``float16``/``bfloat16`` travel as their
    bits in ``uint16_t``); ``numpy`` is the numpy dtype name used to check arrays
    (``None`` for ``bfloat16``, which numpy lacks); ``triton_c`` is the spelling in Triton-C.
    """

    name: str
    bits: int
    kind: str           # "bool" | "int" | "uint" | "float"
    c_type: str
    numpy: str | None
    triton_c: str

    @property
    def size(self) -> int:
        """Bytes the value occupies in the kernel's parameter buffer."""
        return max(self.bits // 8, 1)

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def min_value(self) -> int | None:
        if self.kind == "int":
            return -(1 << (self.bits - 1))
        if self.kind == "uint":
            return 0
        return None

    @property
    def max_value(self) -> int | None:
        if self.kind == "int":
            return (1 << (self.bits - 1)) - 1
        if self.kind == "uint":
            return (1 << self.bits) - 1
        return None


SCALAR_TYPES: dict[str, ScalarType] = {t.name: t for t in (
    ScalarType("bool", 8, "bool", "bool", "bool", "bool"),
    ScalarType("int8", 8, "int", "int8_t", "int8", "int8"),
    ScalarType("int16", 16, "int", "int16_t", "int16", "int16"),
    ScalarType("int32", 32, "int", "int32_t", "int32", "int32"),
    ScalarType("int64", 64, "int", "int64_t", "int64", "int64"),
    ScalarType("uint8", 8, "uint", "uint8_t", "uint8", "uint8"),
    ScalarType("uint16", 16, "uint", "uint16_t", "uint16", "uint16"),
    ScalarType("uint32", 32, "uint", "uint32_t", "uint32", "uint32"),
    ScalarType("uint64", 64, "uint", "uint64_t", "uint64", "uint64"),
    ScalarType("float16", 16, "float", "uint16_t", "float16", "half"),
    ScalarType("bfloat16", 16, "float", "uint16_t", None, "bfloat16"),
    ScalarType("float32", 32, "float", "float", "float32", "float"),
    ScalarType("float64", 64, "float", "double", "float64", "double"),
)}

POINTER_SIZE = 8
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: C and C++ keywords and the standard macro-like names a generated header must not use as
#: a kernel name (parameter names that collide are renamed instead, see ``c_header``).
C_RESERVED = frozenset("""
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Bool _Complex _Imaginary bool true false
alignas alignof and and_eq asm bitand bitor catch char8_t char16_t char32_t class compl
concept consteval constexpr constinit const_cast co_await co_return co_yield decltype delete
dynamic_cast explicit export friend mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public reinterpret_cast requires static_assert
static_cast template this thread_local throw try typeid typename using virtual wchar_t xor
xor_eq NULL main
""".split())


def distinct_param_names(params, reserved, renamed) -> list[str]:
    """The launchers' names of kernel parameters ``params`` (:class:`KernelParam` s): each
    Triton-C name passed through ``renamed`` (a prefix for names the launcher reserves), then
    given trailing ``_`` until it is neither in ``reserved`` nor taken by an earlier parameter
    nor, once changed, another parameter's own name. Shared by the C header and the Python
    module, whose ``reserved`` sets and prefix rules differ."""
    taken: set[str] = set()
    original = {p.name for p in params}
    names = []
    for p in params:
        name = renamed(p.name)
        while name in reserved or name in taken or (name != p.name and name in original):
            name += "_"
        taken.add(name)
        names.append(name)
    return names


def is_power_of_two(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


@dataclass(frozen=True)
class KernelParam:
    """One kernel parameter.

    Args:
        name: the Triton-C parameter name (a C identifier).
        kind: ``"pointer"`` (a global-memory pointer, passed as a 64-bit address) or
            ``"scalar"`` (passed at its C width).
        dtype: a :data:`SCALAR_TYPES` name; for pointers, the pointee type.
        multipleof: promise ``__multipleof(n)`` (integers: the value; pointers: the address).
        aligned: promise ``__aligned(n)``, pointers only, ``n`` a power of two (bytes).
        noalias, readonly, writeonly: pointer attributes ``__noalias``/``restrict``,
            ``__readonly``, ``__writeonly``.

    Raises:
        ValueError: bad name, kind or dtype, or an attribute that does not fit the kind.
    """

    name: str
    kind: str
    dtype: str
    multipleof: int | None = None
    aligned: int | None = None
    noalias: bool = False
    readonly: bool = False
    writeonly: bool = False

    def __post_init__(self) -> None:
        where = f"parameter '{self.name}'"
        if not isinstance(self.name, str) or not _IDENT_RE.match(self.name):
            raise ValueError(f"{where}: the name is not a C identifier")
        if self.kind not in ("pointer", "scalar"):
            raise ValueError(f"{where}: kind must be 'pointer' or 'scalar', got {self.kind!r}")
        if self.dtype not in SCALAR_TYPES:
            raise ValueError(f"{where}: unknown type {self.dtype!r}; expected one of "
                             f"{', '.join(SCALAR_TYPES)}")
        if self.multipleof is not None:
            if type(self.multipleof) is not int or self.multipleof < 1:
                raise ValueError(f"{where}: __multipleof needs a positive integer, got {self.multipleof!r}")
            if self.kind == "scalar" and not self.scalar_type.is_integer:
                raise ValueError(f"{where}: __multipleof applies to integers and pointers, "
                                 f"not {self.dtype}")
        if self.aligned is not None:
            if self.kind != "pointer":
                raise ValueError(f"{where}: __aligned applies to pointers only")
            if type(self.aligned) is not int or not is_power_of_two(self.aligned):
                raise ValueError(f"{where}: __aligned needs a power of two, got {self.aligned!r}")
        if self.kind == "scalar" and (self.noalias or self.readonly or self.writeonly):
            raise ValueError(f"{where}: __noalias/__readonly/__writeonly apply to pointers only")
        if self.readonly and self.writeonly:
            raise ValueError(f"{where}: cannot be both __readonly and __writeonly")

    @property
    def is_pointer(self) -> bool:
        return self.kind == "pointer"

    @property
    def scalar_type(self) -> ScalarType:
        """The scalar type (the pointee type for pointers)."""
        return SCALAR_TYPES[self.dtype]

    @property
    def size(self) -> int:
        """Bytes in the kernel's parameter buffer: 8 for pointers, else the scalar's width."""
        return POINTER_SIZE if self.is_pointer else self.scalar_type.size

    @property
    def address_multiple(self) -> int | None:
        """For pointers, the combined promise: the address must be a multiple of this many
        bytes (lcm of ``multipleof`` and ``aligned``), or ``None`` when nothing is promised."""
        if not self.is_pointer:
            return None
        from math import lcm

        values = [v for v in (self.multipleof, self.aligned) if v is not None]
        return lcm(*values) if values else None

    def attributes(self) -> list[str]:
        """The Triton-C attributes, in a fixed order (``__noalias``, ``__readonly``, ...)."""
        out = []
        if self.noalias:
            out.append("__noalias")
        if self.readonly:
            out.append("__readonly")
        if self.writeonly:
            out.append("__writeonly")
        if self.aligned is not None:
            out.append(f"__aligned({self.aligned})")
        if self.multipleof is not None:
            out.append(f"__multipleof({self.multipleof})")
        return out

    def triton_c(self) -> str:
        """The declaration as Triton-C would write it: ``float *x __noalias __aligned(16)``."""
        base = self.scalar_type.triton_c
        decl = f"{base} *{self.name}" if self.is_pointer else f"{base} {self.name}"
        return " ".join([decl, *self.attributes()])

    def to_dict(self) -> dict:
        out: dict = {"name": self.name, "kind": self.kind, "dtype": self.dtype}
        for key in ("multipleof", "aligned"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        for key in ("noalias", "readonly", "writeonly"):
            if getattr(self, key):
                out[key] = True
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "KernelParam":
        return cls(**data)


@dataclass(frozen=True)
class KernelSignature:
    """A kernel's name (a C identifier) and its parameters in declaration order.

    Raises:
        ValueError: the name is not a C identifier or is a C/C++ keyword, or two parameters
        share a name.
    """

    name: str
    params: tuple[KernelParam, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", tuple(self.params))
        if not isinstance(self.name, str) or not _IDENT_RE.match(self.name):
            raise ValueError(f"kernel name {self.name!r} is not a C identifier")
        if self.name in C_RESERVED or keyword.iskeyword(self.name):
            raise ValueError(f"kernel name '{self.name}' is a C, C++ or Python keyword")
        seen: set[str] = set()
        for p in self.params:
            if not isinstance(p, KernelParam):
                raise ValueError(f"kernel '{self.name}': parameters must be KernelParam, got {p!r}")
            if p.name in seen:
                raise ValueError(f"kernel '{self.name}': two parameters are named '{p.name}'")
            seen.add(p.name)

    def triton_c(self) -> str:
        """``name(float *x __noalias, int32 n __multipleof(16))``."""
        return f"{self.name}({', '.join(p.triton_c() for p in self.params)})"

    def to_dict(self) -> dict:
        return {"name": self.name, "params": [p.to_dict() for p in self.params]}

    @classmethod
    def from_dict(cls, data: dict) -> "KernelSignature":
        return cls(data["name"], tuple(KernelParam.from_dict(p) for p in data["params"]))


@dataclass(frozen=True)
class KernelVariant:
    """A specialised copy of a kernel in the same cubin, launched when its facts hold.

    Args:
        name: the variant's symbol in the cubin (``K__spec16``, ``K__spec_s1_d16``); not a
            host-visible name.
        facts: ``(parameter name, fact name)`` pairs, fact names from :data:`FACTS` or bounds
            ``le<K>`` (:func:`fact`; a parameter may have two: ``div16`` and ``le1024``): the
            variant assumes that parameter's argument has that fact.
        shared_bytes: the variant's dynamic shared memory per block.

    Raises:
        ValueError: bad symbol, no facts, or an unknown fact.
    """

    name: str
    facts: tuple[tuple[str, str], ...]
    shared_bytes: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "facts", tuple((str(p), str(f)) for p, f in self.facts))
        if not isinstance(self.name, str) or not _IDENT_RE.match(self.name):
            raise ValueError(f"variant name {self.name!r} is not a C identifier")
        if not self.facts:
            raise ValueError(f"variant '{self.name}': needs at least one fact")
        unknown = [f for _, f in self.facts if not is_fact(f)]
        if unknown:
            raise ValueError(f"variant '{self.name}': unknown fact {unknown[0]!r}; expected one of "
                             f"{', '.join(FACTS)} or le<K>")
        if type(self.shared_bytes) is not int or self.shared_bytes < 0:
            raise ValueError(f"variant '{self.name}': shared_bytes must be >= 0, got {self.shared_bytes!r}")

    def describe(self) -> str:
        """``X % 16 == 0, s == 1``: the launch condition, for comments and docs."""
        return ", ".join(fact(f).describe(p) for p, f in self.facts)

    def to_dict(self) -> dict:
        by_param: dict[str, list[str]] = {}
        for p, f in self.facts:
            by_param.setdefault(p, []).append(f)
        # one fact: its name; several of one parameter (div16 and le1024): the list of them
        facts = {p: fs[0] if len(fs) == 1 else fs for p, fs in by_param.items()}
        return {"name": self.name, "facts": facts, "specialization": self.describe(),
                "shared_bytes": self.shared_bytes}


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel ready for a launcher: signature, launch shape, target and code.

    Args:
        signature: name and parameters.
        num_warps: threads per block / 32 (the launch block is ``num_warps * 32`` threads
            along x).
        shared_bytes: dynamic shared memory per block, in bytes, passed at every launch
            (launchers raise the per-function limit when it is above 48 KiB).
        arch: the cubin's architecture, one of ``tritonc.target.ARCHS``.
        cubin: the ELF cubin holding this kernel (several kernels may share one cubin).
        ptx: the PTX the cubin was assembled from (informational).
        defines: the ``-D`` macros and tunable values it was compiled with.
        num_stages: the software-pipelining depth, if it applies.
        variants: specialised copies in the same cubin, most specialised first; a launch runs
            the first whose assumptions hold (see :class:`KernelVariant`).
        grid: the declared launch grid (``__grid`` or ``--grid``), one nested tuple per
            dimension (``tritonc.frontend.grid``), or ``None``: the caller gives the grid.
        tunables: the value of every ``const tunable`` the kernel was compiled with (chosen,
            fixed or default).
        fatbin: a fatbin holding ``cubin`` and the images of the other architectures
            (``tritonc.multiarch``); the launchers embed and load it instead of ``cubin``.
            Empty: none.

    Raises:
        ValueError: out-of-range launch shape, unknown arch, a cubin without the ELF magic, or
            a variant assuming something of a parameter the kernel does not have.
    """

    signature: KernelSignature
    num_warps: int
    shared_bytes: int
    arch: str
    cubin: bytes
    ptx: str = ""
    defines: dict[str, str] = field(default_factory=dict)
    num_stages: int | None = None
    variants: tuple[KernelVariant, ...] = ()
    grid: tuple | None = None
    tunables: dict[str, int] = field(default_factory=dict)
    fatbin: bytes = b""

    def __post_init__(self) -> None:
        if not isinstance(self.signature, KernelSignature):
            raise ValueError("signature must be a KernelSignature")
        if type(self.num_warps) is not int or not 1 <= self.num_warps <= 32:
            raise ValueError(f"kernel '{self.name}': num_warps must be 1..32, got {self.num_warps!r}")
        if type(self.shared_bytes) is not int or self.shared_bytes < 0:
            raise ValueError(f"kernel '{self.name}': shared_bytes must be >= 0, got {self.shared_bytes!r}")
        if self.arch not in ARCHS:
            raise ValueError(f"kernel '{self.name}': unknown arch {self.arch!r}")
        if not isinstance(self.cubin, (bytes, bytearray)) or not bytes(self.cubin).startswith(b"\x7fELF"):
            raise ValueError(f"kernel '{self.name}': cubin is not an ELF image")
        object.__setattr__(self, "cubin", bytes(self.cubin))
        if self.fatbin and not bytes(self.fatbin).startswith(b"\x50\xed\x55\xba"):
            raise ValueError(f"kernel '{self.name}': fatbin does not start with the fatbin magic")
        object.__setattr__(self, "fatbin", bytes(self.fatbin))
        object.__setattr__(self, "defines", {str(k): str(v) for k, v in self.defines.items()})
        object.__setattr__(self, "variants", tuple(self.variants))
        object.__setattr__(self, "tunables", {str(k): int(v) for k, v in self.tunables.items()})
        if self.grid is not None:
            if not (isinstance(self.grid, tuple) and 1 <= len(self.grid) <= 3):
                raise ValueError(f"kernel '{self.name}': grid must be a tuple of 1 to 3 expressions")
            args = {p.name for p in self.params if not p.is_pointer}
            missing = sorted(_grid_args(self.grid) - args)
            if missing:
                raise ValueError(f"kernel '{self.name}': the grid uses '{missing[0]}', which is not a scalar parameter")
        names = {p.name for p in self.params}
        for v in self.variants:
            if not isinstance(v, KernelVariant):
                raise ValueError(f"kernel '{self.name}': variants must be KernelVariant, got {v!r}")
            unknown = [p for p, _ in v.facts if p not in names]
            if unknown:
                raise ValueError(f"kernel '{self.name}': variant '{v.name}' assumes something of "
                                 f"'{unknown[0]}', which is not a parameter")
            by_name = {p.name: p for p in self.params}
            for p, f in v.facts:
                want = fact(f).kind
                if by_name[p].kind != want or (want == "scalar" and not by_name[p].scalar_type.is_integer):
                    needs = "an integer" if want == "scalar" else "a pointer"
                    raise ValueError(f"kernel '{self.name}': variant '{v.name}' assumes {f} of '{p}', "
                                     f"which needs {needs} parameter")
            if v.name == self.name:
                raise ValueError(f"kernel '{self.name}': a variant cannot have the kernel's own name")

    @property
    def name(self) -> str:
        return self.signature.name

    @property
    def params(self) -> tuple[KernelParam, ...]:
        return self.signature.params

    @property
    def image(self) -> bytes:
        """What the launchers embed and load: :attr:`fatbin` when there is one, else :attr:`cubin`."""
        return self.fatbin or self.cubin

    @property
    def block_threads(self) -> int:
        return self.num_warps * 32

    def defines_string(self) -> str:
        """``-D`` defines as ``NAME=VALUE`` joined by ``;``, sorted by name (deterministic)."""
        return ";".join(f"{k}={v}" for k, v in sorted(self.defines.items()))

    def metadata(self) -> dict:
        """Everything but the code, as plain JSON-able data (the generated files embed it)."""
        out = {"name": self.name, "arch": self.arch, "num_warps": self.num_warps,
               "block_threads": self.block_threads, "shared_bytes": self.shared_bytes,
               "params": [p.to_dict() for p in self.params],
               "defines": dict(sorted(self.defines.items()))}
        if self.num_stages is not None:
            out["num_stages"] = self.num_stages
        if self.variants:
            out["variants"] = [v.to_dict() for v in self.variants]
        if self.tunables or self.num_stages is not None:
            out["meta"] = self.meta()
        if self.grid is not None:
            from .grid import grid_text

            out["grid"] = grid_text(self.grid)
        return out

    def meta(self) -> dict[str, int]:
        """The meta-parameters of this compiled kernel, as Triton's ``grid=lambda meta: ...``
        sees them: every tunable's value, ``num_warps`` and ``num_stages``."""
        out = dict(self.tunables)
        out["num_warps"] = self.num_warps
        if self.num_stages is not None:
            out["num_stages"] = self.num_stages
        return out

    def signature_json(self) -> str:
        """One-line JSON of :meth:`metadata` (the generated files' machine-readable line)."""
        return json.dumps(self.metadata(), separators=(",", ":"), sort_keys=False)


def _grid_args(e) -> set[str]:
    """Parameter names a grid expression (nested tuples) uses."""
    if isinstance(e, tuple) and e and e[0] == "arg":
        return {e[1]}
    out: set[str] = set()
    for x in e[1:] if isinstance(e, tuple) and e and isinstance(e[0], str) else e:
        if isinstance(x, tuple):
            out |= _grid_args(x)
    return out


@dataclass(frozen=True)
class Dispatcher:
    """A public kernel name whose launches pick one of several compiled variants (the
    launchers' ``<name>(...)``, ``<name>_by_id(..., variant)`` and variant queries; Triton's
    ``link.py`` dispatcher).

    Args:
        name: the public name (``matmul``).
        variants: the variants' kernel names in the same launcher module (``matmul__v0``, ...),
            in index order.
        default: the index launched when no variant is named.
        tuning: a :class:`~tritonc.tuning.dispatch.TunedDispatch` (``--tuning``): the default
            entry point launches the variant it picks from the key arguments instead of
            ``default`` (which it falls back to when the table has no entry).

    Raises:
        ValueError: no variants, or ``default`` out of range.
    """

    name: str
    variants: tuple[str, ...]
    default: int = 0
    tuning: object | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", tuple(self.variants))
        if not self.variants:
            raise ValueError(f"dispatcher '{self.name}' has no variants")
        if not 0 <= self.default < len(self.variants):
            raise ValueError(f"dispatcher '{self.name}': default {self.default} is not a variant index")


SIGNATURE_TAG = "tritonc-kernel:"


def parse_signature_lines(text: str) -> list[dict]:
    """Read back the ``tritonc-kernel: {json}`` lines of a generated header or Python module.

    Returns one :meth:`CompiledKernel.metadata` dict per kernel, in file order; use
    ``KernelSignature.from_dict(d)`` for the signature.
    """
    out = []
    for line in text.splitlines():
        stripped = line.lstrip("/# ").strip()
        if stripped.startswith(SIGNATURE_TAG):
            out.append(json.loads(stripped[len(SIGNATURE_TAG):]))
    return out
