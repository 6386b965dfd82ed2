"""Memory effects of ops: what an op does to memory, declared with the op (``ir/ops.py``,
``ir/ttg_ops.py``) and queried by passes, after MLIR's ``MemoryEffectOpInterface``.

Two levels:

* :class:`MemoryEffect`, static, per op name: the kinds of access (``read``, ``write``,
  ``allocate``) an op makes to a resource (``global`` or ``shared`` memory). An op with no
  effects declares ``()``; an op whose effects are not modelled (a call, a barrier, an
  asynchronous wait) declares ``None`` and passes assume the worst; ops with regions
  (``scf.*``) have the effects of their bodies (MLIR's ``RecursiveMemoryEffects``),
  :data:`RECURSIVE`.
* :class:`SharedEffect`, per op instance: what the op does to explicit shared-memory buffers
  (the values of type ``!ttg.memdesc``), in program order. ``liveness`` builds the buffers and
  their live ranges from them; ``allocate-shared`` and ``insert-barriers`` build on liveness.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import Value

#: Resources an effect is on.
GLOBAL = "global"
SHARED = "shared"
#: Kinds of effect (MLIR's ``MemoryEffects::Read`` / ``Write`` / ``Allocate``).
READ = "read"
WRITE = "write"
ALLOCATE = "allocate"


@dataclass(frozen=True)
class MemoryEffect:
    """One kind of access an op makes: ``kind`` (:data:`READ`, :data:`WRITE`, :data:`ALLOCATE`)
    on ``resource`` (:data:`GLOBAL` or :data:`SHARED` memory)."""

    kind: str
    resource: str

    def __post_init__(self) -> None:
        if self.kind not in (READ, WRITE, ALLOCATE) or self.resource not in (GLOBAL, SHARED):
            raise ValueError(f"unknown memory effect {self.kind} on {self.resource}")


#: The effects of an op with regions: those of the ops inside them.
RECURSIVE = "recursive"

READ_GLOBAL = MemoryEffect(READ, GLOBAL)
WRITE_GLOBAL = MemoryEffect(WRITE, GLOBAL)
READ_SHARED = MemoryEffect(READ, SHARED)
WRITE_SHARED = MemoryEffect(WRITE, SHARED)
ALLOCATE_SHARED = MemoryEffect(ALLOCATE, SHARED)

#: Shared buffers are aligned to this many bytes (a swizzle period of 8 rows of 16 bytes).
BUFFER_ALIGNMENT = 128

#: Buffers ``wgmma`` reads are aligned to the 128-byte swizzle's period, 8 rows of 128 bytes:
#: the hardware swizzles address bits, so the pattern must start on such a boundary (PTX ISA
#: 9.7.15.5.1, the matrix descriptor's base offset).
WGMMA_ALIGNMENT = 1024


@dataclass(frozen=True)
class SharedEffect:
    """One thing an op does to an explicit shared-memory buffer, in program order.

    ``kind``:

    * ``"alloc"``: ``value`` (a result) names a new buffer of ``size`` bytes aligned to
      ``alignment`` (128 for a swizzled buffer); ``allocate-shared`` gives the op ``smem_offset``;
    * ``"view"``: ``value`` (a result) names part or all of the buffers ``source`` names;
    * ``"read"`` / ``"write"``: the op's threads read / write the buffers ``value`` names;
    * ``"async_write"``: an asynchronous copy into them (``cp.async``), complete in the issuing
      thread only after an ``"async_wait"`` (``value`` None) that covers it; ``no_war``: the
      producer guarantees that no thread reads its bytes between the last barrier and it (a
      pipeline slot other than the ones being read), so it needs no barrier against reads;
    * ``"async_wait"``: wait until at most ``num`` groups of this thread's copies are in flight
      (``num = 0``: every copy is complete).
    """

    kind: str
    value: Value | None = None
    source: Value | None = None
    size: int = 0
    alignment: int = 16
    num: int = 0
    no_war: bool = False
