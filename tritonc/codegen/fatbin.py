"""Fat binaries: several SASS images (cubins) plus PTX in one file the CUDA driver loads.

A fatbin is what ``nvcc -gencode`` embeds: ``cuModuleLoadData`` (and ``cuda.core``'s
``ObjectCode.from_fatbin``) picks the SASS image built for the device's architecture, or
else JIT-compiles the newest PTX whose target the device implements. tritonc builds it with
NVIDIA's nvFatbin library (``cuda.bindings.nvfatbin``, the library itself from the
``nvidia-nvfatbin`` wheel; CUDA's "nvFatbin" documentation), asking for uncompressed entries
(``-compress=false``) so the PTX inside stays readable.

:func:`parse_fatbin` reads the container back (for tests and tools, no GPU needed). The
layout, as nvFatbin 13.4 writes it and ``cuobjdump`` reads it (all little-endian):

* a 16-byte header: magic ``0xBA55ED50`` (u32), version 1 (u16), header size (u16), size of
  the entries that follow (u64);
* entries, one after the other: kind (u16: 1 PTX, 2 ELF), version (u16), entry header size
  (u32), padded payload size (u32), ..., the SM number at byte 28 (u32: 80, 90, 100),
  flags at byte 40 (u64; bit 20 marks an arch-specific ``sm_XXa`` entry, bit 15 a compressed
  payload); the payload follows the entry header.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from tritonc.diagnostics import CompileError, InternalCompilerError

#: The first four bytes of every fatbin (``0xBA55ED50``, little-endian).
FATBIN_MAGIC = b"\x50\xed\x55\xba"

#: Entry kinds of the fatbin container.
KIND_PTX = 1
KIND_ELF = 2

_FLAG_COMPRESSED = 1 << 15
_FLAG_ARCH_SPECIFIC = 1 << 20


@dataclass(frozen=True)
class FatbinEntry:
    """One image of a fatbin: ``kind`` (``"ptx"`` or ``"elf"``), ``arch`` (``"sm_90a"``),
    ``payload`` (the bytes stored: a cubin, or PTX text ending in NUL) and ``compressed``."""

    kind: str
    arch: str
    payload: bytes
    compressed: bool = False


def _arch_number(arch: str) -> str:
    """nvFatbin's spelling of an arch: ``sm_90a`` -> ``90a``."""
    if not arch.startswith("sm_") or not arch[3:].rstrip("a").isdigit():
        raise ValueError(f"not an SM architecture: {arch!r}")
    return arch[3:]


def build_fatbin(cubins: dict[str, bytes], ptxs: dict[str, str], *, name: str = "tritonc") -> bytes:
    """A fatbin holding each cubin of ``cubins`` (arch -> ELF image) and each PTX of ``ptxs``
    (arch -> PTX text whose ``.target`` is that arch), built with nvFatbin.

    Raises:
        CompileError: nvFatbin cannot be loaded (the ``nvidia-nvfatbin`` wheel is missing).
        InternalCompilerError: nvFatbin rejected an image (its log is in the message).
        ValueError: no images, or an arch that is not ``sm_XX[a]``.
    """
    if not cubins and not ptxs:
        raise ValueError("a fatbin needs at least one image")
    try:
        from cuda.bindings import nvfatbin
    except ImportError as e:  # pragma: no cover - cuda-bindings is a dependency
        raise CompileError(f"cannot build a fatbin: cuda.bindings.nvfatbin is missing ({e})") from None
    options = ["-64", "-compress=false"]
    try:
        handle = nvfatbin.create(options, len(options))
    except Exception as e:  # the bindings load libnvfatbin on first use
        raise CompileError(f"cannot build a fatbin: nvFatbin is not available ({str(e).splitlines()[0]}); "
                           "install the nvidia-nvfatbin wheel") from None
    try:
        for arch, cubin in cubins.items():
            nvfatbin.add_cubin(handle, cubin, len(cubin), _arch_number(arch), f"{name}.{arch}")
        for arch, ptx in ptxs.items():
            data = ptx.encode() + b"\0"
            nvfatbin.add_ptx(handle, data, len(data), _arch_number(arch), f"{name}.{arch}.ptx", "")
        out = bytearray(nvfatbin.size(handle))
        nvfatbin.get(handle, out)
    except nvfatbin.nvFatbinError as e:
        raise InternalCompilerError(f"nvFatbin rejected an image: {e}") from None
    finally:
        nvfatbin.destroy(handle)
    return bytes(out)


def parse_fatbin(data: bytes) -> list[FatbinEntry]:
    """The entries of fatbin ``data``, in file order (see the module docstring's layout).

    Raises:
        ValueError: ``data`` is not a fatbin (bad magic, version or sizes).
    """
    if len(data) < 16 or data[:4] != FATBIN_MAGIC:
        raise ValueError("not a fatbin: bad magic")
    _, version, header_size, size = struct.unpack_from("<IHHQ", data, 0)
    if version != 1 or header_size < 16 or header_size + size > len(data):
        raise ValueError(f"not a fatbin: version {version}, header {header_size} bytes, {size} bytes of entries "
                         f"in {len(data)}")
    entries = []
    offset, end = header_size, header_size + size
    while offset < end:
        if offset + 48 > end:
            raise ValueError(f"truncated fatbin entry at byte {offset}")
        kind, _, entry_header, padded = struct.unpack_from("<HHII", data, offset)
        sm, = struct.unpack_from("<I", data, offset + 28)
        flags, = struct.unpack_from("<Q", data, offset + 40)
        start = offset + entry_header
        if kind not in (KIND_PTX, KIND_ELF) or entry_header < 48 or start + padded > end:
            raise ValueError(f"bad fatbin entry at byte {offset}: kind {kind}, header {entry_header}, "
                             f"payload {padded}")
        payload = data[start:start + padded]
        arch = f"sm_{sm}" + ("a" if flags & _FLAG_ARCH_SPECIFIC else "")
        entries.append(FatbinEntry("ptx" if kind == KIND_PTX else "elf", arch, payload,
                                   bool(flags & _FLAG_COMPRESSED)))
        offset = start + padded
    return entries
