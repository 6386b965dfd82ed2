"""Types of the tile IR: scalars, global-memory pointers and tiles.

Text forms (the IR printer and parser use ``str(type)`` and :func:`parse_type`):

* scalars: ``i1 i8 i16 i32 i64 f16 bf16 f32 f64``. Integers are *signless*, as in LLVM and
  MLIR: signedness lives in the operations (``arith.divsi`` vs ``arith.divui``) and, for
  kernel parameters, in the ``unsigned`` parameter attribute;
* pointers to global memory: ``ptr<f16>``;
* tiles: ``f32[64,64]``, a tile of pointers ``ptr<f16>[64,32]``. After ``assign-layouts`` a
  tile type also carries its layout (``f32[64,64] #blocked0`` in text, see ``layouts.py``).
  A 0-d value is just the scalar type; tiles have rank >= 1 and power-of-two dimensions;
* shared-memory buffers (ttg level only, ``ttg_ops.py``): ``!ttg.memdesc<f16[3,64,32] #shared0>``,
  a descriptor of a buffer of ``shape`` elements in shared memory laid out by a
  ``SharedLayout`` (swizzle and dimension order). It is not a tile: no thread owns its
  elements; ``ttg.local_load`` reads it into a tile, ``ttg.local_store`` /
  ``ttg.async_copy_global_to_local`` write it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .layouts import Layout


class Type:
    """Base class of every IR type."""


@dataclass(frozen=True)
class ScalarType(Type):
    """An integer (signless, ``bits`` wide) or floating-point scalar."""

    name: str

    @property
    def is_int(self) -> bool:
        return self.name.startswith("i")

    @property
    def is_float(self) -> bool:
        return not self.is_int

    @property
    def bits(self) -> int:
        return {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
                "f16": 16, "bf16": 16, "f32": 32, "f64": 64}[self.name]

    @property
    def bytes(self) -> int:
        """Storage size in bytes (``i1`` is stored as one byte)."""
        return max(self.bits // 8, 1)

    def __str__(self) -> str:
        return self.name


I1, I8, I16, I32, I64 = (ScalarType(n) for n in ("i1", "i8", "i16", "i32", "i64"))
F16, BF16, F32, F64 = (ScalarType(n) for n in ("f16", "bf16", "f32", "f64"))
SCALARS = {t.name: t for t in (I1, I8, I16, I32, I64, F16, BF16, F32, F64)}


@dataclass(frozen=True)
class PointerType(Type):
    """A pointer to global memory (LLVM address space 1) whose elements are ``pointee``."""

    pointee: ScalarType

    @property
    def bytes(self) -> int:
        return 8

    def __str__(self) -> str:
        return f"ptr<{self.pointee}>"


ElementType = ScalarType | PointerType


@dataclass(frozen=True)
class TileType(Type):
    """A tile: an ``element``-typed array of constant ``shape`` (every dimension a power of two).

    ``layout`` is ``None`` at the tt level and set by ``assign-layouts`` (ttg level).
    """

    element: ElementType
    shape: tuple[int, ...]
    layout: "Layout | None" = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def with_element(self, element: ElementType) -> "TileType":
        return replace(self, element=element)

    def with_shape(self, shape: tuple[int, ...]) -> "TileType":
        return TileType(self.element, tuple(shape), None)

    def with_layout(self, layout: "Layout | None") -> "TileType":
        return replace(self, layout=layout)

    def __str__(self) -> str:
        text = f"{self.element}[{','.join(map(str, self.shape))}]"
        return text if self.layout is None else f"{text} {self.layout}"


@dataclass(frozen=True)
class MemDescType(Type):
    """A shared-memory buffer of ``element``s (see the module docstring); ``layout`` is a
    ``SharedLayout`` (``None`` only in hand-written IR before layouts are chosen).

    ``alloc_shape`` (``None``: ``shape``) is the shape of the buffer this one is a sub-slice of
    (``ttg.memdesc_subslice``): its layout (row length, swizzle) is that of the whole; text
    ``!ttg.memdesc<f16[128,16] #shared0, alloc [128,64]>``.
    """

    element: ScalarType
    shape: tuple[int, ...]
    layout: "Layout | None" = None
    alloc_shape: tuple[int, ...] | None = None

    @property
    def full_shape(self) -> tuple[int, ...]:
        """The shape whose layout addresses this buffer (``alloc_shape`` or ``shape``)."""
        return self.alloc_shape if self.alloc_shape is not None else self.shape

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def bytes(self) -> int:
        """Size of the buffer in bytes."""
        return self.numel * self.element.bytes

    def __str__(self) -> str:
        text = f"{self.element}[{','.join(map(str, self.shape))}]"
        if self.layout is not None:
            text += f" {self.layout}"
        if self.alloc_shape is not None:
            text += f", alloc [{','.join(map(str, self.alloc_shape))}]"
        return f"!ttg.memdesc<{text}>"


def element_type(t: Type) -> ElementType:
    """The element type of a tile or buffer, or the type itself for a scalar or pointer."""
    return t.element if isinstance(t, (TileType, MemDescType)) else t  # type: ignore[return-value]


def shape_of(t: Type) -> tuple[int, ...]:
    """The shape of a tile or buffer; ``()`` for a scalar or pointer."""
    return t.shape if isinstance(t, (TileType, MemDescType)) else ()


def layout_of(t: Type) -> "Layout | None":
    return t.layout if isinstance(t, TileType) else None


def with_element(t: Type, element: ElementType) -> Type:
    """``t`` with its element type replaced (a tile keeps its shape and layout)."""
    return t.with_element(element) if isinstance(t, TileType) else element


def tile_or_scalar(element: ElementType, shape: tuple[int, ...], layout: "Layout | None" = None) -> Type:
    """A tile of ``shape`` or, for ``shape == ()``, the element type itself."""
    return TileType(element, tuple(shape), layout) if shape else element


def is_power_of_two(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0
