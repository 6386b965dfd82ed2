"""PTX -> cubin, through nvJitLink in this process or through ``ptxas`` from PATH.

nvJitLink (``cuda.bindings.nvjitlink``, from the ``nvidia-nvjitlink`` wheel) assembles PTX
without a GPU or driver; its options are ``-arch=sm_XX``, ``-O3`` and ptxas options passed
one per flag as ``-Xptxas=<opt>`` (cli-launcher-anchors.md §5a). ``ptxas`` (``--ptxas`` in
the CLI) runs as ``ptxas -arch=sm_XX -O3 -v in.ptx -o out.cubin`` in a temporary folder.

Both are asked for ptxas's verbose report (``-v``), which is cheap, and
:func:`parse_resource_usage` reads per-kernel registers, barriers, static shared memory,
stack and spills from it (format: cli-launcher-anchors.md §3 and §5b).

Errors are ``InternalCompilerError`` (tritonc generated the PTX, so bad PTX is a tritonc
bug) carrying the tool's log; nvJitLink's nameless ``ptxas application ptx input, line N``
is rewritten to name the PTX (``ptx_name``). A missing ``ptxas`` is the user's
environment, so ``CompileError``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

from tritonc.codegen.target import Target
from tritonc.diagnostics import CompileError, InternalCompilerError

ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True)
class ResourceUsage:
    """What ptxas reported for one kernel (``-v``); byte counts are per thread block except
    ``stack_bytes`` and spills, which are per thread."""

    kernel: str
    registers: int = 0
    barriers: int = 0
    shared_bytes: int = 0          # static shared memory only (dynamic is given at launch)
    const_bytes: int = 0           # cmem[0], when ptxas prints it
    stack_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0

    @property
    def spills(self) -> bool:
        return bool(self.spill_store_bytes or self.spill_load_bytes)


@dataclass(frozen=True)
class AssembledPTX:
    """The result of :func:`assemble_ptx`: the cubin, the tool's info log, the per-kernel
    resource usage parsed from it, the tool's warnings and which tool ran."""

    cubin: bytes
    info_log: str
    resources: dict[str, ResourceUsage] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    tool: str = "nvjitlink"


_ENTRY_RE = re.compile(r"Compiling entry function '([^']+)'")
_PROPS_RE = re.compile(r"Function properties for '?([^'\s:]+)'?")
_STACK_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers")
_BARRIERS_RE = re.compile(r"used (\d+) barriers")
_SMEM_RE = re.compile(r"(\d+) bytes smem")
_CMEM_RE = re.compile(r"(\d+) bytes cmem\[0\]")


def parse_resource_usage(log: str) -> dict[str, ResourceUsage]:
    """Per-kernel resource usage from a ptxas ``-v`` report (ptxas or nvJitLink ``-Xptxas=-v``).

    Only ptxas's own lines (``ptxas info : Used N registers, ...`` and the ``bytes stack
    frame`` line) are read; nvJitLink's ``-verbose`` linker summary is ignored because its
    smem figure also counts the 1 KiB the system reserves (cli-launcher-anchors.md §5b).
    """
    usage: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in log.splitlines():
        m = _ENTRY_RE.search(line)
        if m:
            current = m.group(1)
            usage.setdefault(current, {})
            continue
        if not line.lstrip().startswith("ptxas") and "bytes stack frame" not in line:
            continue
        m = _PROPS_RE.search(line)
        if m and "ptxas" in line:
            current = m.group(1)
            usage.setdefault(current, {})
            continue
        if current is None:
            continue
        m = _STACK_RE.search(line)
        if m:
            usage[current].update(stack_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)),
                                  spill_load_bytes=int(m.group(3)))
            continue
        m = _USED_RE.search(line)
        if m:
            fields = usage[current]
            fields["registers"] = int(m.group(1))
            for regex, key in ((_BARRIERS_RE, "barriers"), (_SMEM_RE, "shared_bytes"),
                               (_CMEM_RE, "const_bytes")):
                m2 = regex.search(line)
                if m2:
                    fields[key] = int(m2.group(1))
    return {name: ResourceUsage(kernel=name, **fields) for name, fields in usage.items()}


def _warnings(log: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in log.splitlines() if re.search(r"\bwarning\b", line))


def _name_ptx_in_log(log: str, ptx_name: str) -> str:
    return log.replace("ptxas application ptx input", f"ptxas {ptx_name}")


def assemble_ptx(ptx: str, target: Target, *, use_ptxas: bool = False, opt_level: int = 3,
                 ptx_name: str = "kernel.ptx", extra_options: tuple[str, ...] = (),
                 threads: int = 1) -> AssembledPTX:
    """Assemble ``ptx`` into a cubin for ``target.arch`` and report resource usage.

    Args:
        ptx: PTX text whose ``.target`` is ``target.arch`` (or older).
        target: the GPU target; ``sm_90a`` assembles arch-specific instructions.
        use_ptxas: run ``ptxas`` from PATH instead of nvJitLink.
        opt_level: ptxas optimisation level, 0..3.
        ptx_name: the name used for the PTX in error messages.
        extra_options: more ptxas options (e.g. ``-maxrregcount=128``, ``-lineinfo``).
        threads: with several kernels in ``ptx``, compile up to this many at once (ptxas
            ``-split-compile``, which splits the work by function). The code must be what one
            thread makes: it is when the cubin holds the kernels' code alone, but a subroutine
            that ptxas adds and the kernels share (the slow path of ``rcp.rn.f32``) can change
            their registers, so such a cubin is assembled again on one thread. 1: one thread.

    Returns:
        :class:`AssembledPTX`; its ``cubin`` starts with the ELF magic.

    Raises:
        InternalCompilerError: the assembler rejected the PTX (the message holds its log).
        CompileError: ``use_ptxas`` and no ``ptxas`` on PATH.
    """
    if not 0 <= opt_level <= 3:
        raise ValueError(f"opt_level must be 0..3, got {opt_level}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    kernels = _PTX_KERNEL_RE.findall(ptx)
    if threads > 1 and len(kernels) > 1:
        split = (f"-split-compile={min(threads, len(kernels))}",) + tuple(extra_options)
        result = _assemble(ptx, target, use_ptxas, opt_level, ptx_name, split)
        if set(text_sections(result.cubin)) == {f".text.{k}" for k in kernels}:
            return result
    return _assemble(ptx, target, use_ptxas, opt_level, ptx_name, tuple(extra_options))


_PTX_KERNEL_RE = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)", re.MULTILINE)


def _assemble(ptx: str, target: Target, use_ptxas: bool, opt_level: int, ptx_name: str,
              extra_options: tuple[str, ...]) -> AssembledPTX:
    if use_ptxas:
        result = _assemble_with_ptxas(ptx, target, opt_level, ptx_name, extra_options)
    else:
        result = _assemble_with_nvjitlink(ptx, target, opt_level, ptx_name, extra_options)
    if not result.cubin.startswith(ELF_MAGIC):
        raise InternalCompilerError(f"{result.tool} returned something that is not a cubin "
                                    f"({len(result.cubin)} bytes)")
    return result


def text_sections(cubin: bytes) -> dict[str, bytes]:
    """The code sections (``.text.<function>``) of a cubin, by name: ELF64, little-endian
    (the System V ABI's ELF header: ``e_shoff`` at byte 0x28, ``e_shentsize``, ``e_shnum``,
    ``e_shstrndx`` at 0x3a, 0x3c, 0x3e; a section header's ``sh_name`` at 0, ``sh_offset`` at
    0x18, ``sh_size`` at 0x20).

    Raises:
        ValueError: ``cubin`` is not such an ELF file.
    """
    if not cubin.startswith(ELF_MAGIC) or cubin[4] != 2 or cubin[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")

    def number(data: bytes, offset: int, size: int) -> int:
        return int.from_bytes(data[offset:offset + size], "little")

    shoff = number(cubin, 0x28, 8)
    entsize, count, strndx = number(cubin, 0x3a, 2), number(cubin, 0x3c, 2), number(cubin, 0x3e, 2)
    headers = [cubin[shoff + i * entsize: shoff + (i + 1) * entsize] for i in range(count)]
    if strndx >= count or any(len(h) < 0x28 for h in headers):
        raise ValueError("truncated ELF section header table")
    names_at = number(headers[strndx], 0x18, 8)
    out = {}
    for h in headers:
        start = names_at + number(h, 0, 4)
        name = cubin[start:cubin.find(b"\0", start)].decode("utf-8", errors="replace")
        if name.startswith(".text."):
            offset = number(h, 0x18, 8)
            out[name] = cubin[offset:offset + number(h, 0x20, 8)]
    return out


def ptx_to_cubin(ptx: str, target: Target, use_ptxas: bool = False) -> bytes:
    """Assemble ``ptx`` for ``target`` at ``-O3`` and return the cubin bytes (see :func:`assemble_ptx`)."""
    return assemble_ptx(ptx, target, use_ptxas=use_ptxas).cubin


def load_nvjitlink(target: Target) -> None:
    """Import nvJitLink and load its library now (~40 ms the first time in a process, 0
    after), so that a later :func:`assemble_ptx` does not wait for it: for a caller with
    idle time before it has the PTX (waiting for the LLVM workers). Changes no result;
    without nvJitLink it does nothing (:func:`assemble_ptx` reports that)."""
    try:
        from cuda.bindings import nvjitlink
    except ImportError:
        return
    handle = nvjitlink.create(1, [f"-arch={target.arch}"])
    nvjitlink.destroy(handle)


def _assemble_with_nvjitlink(ptx: str, target: Target, opt_level: int, ptx_name: str,
                             extra_options: tuple[str, ...]) -> AssembledPTX:
    try:
        from cuda.bindings import nvjitlink
    except ImportError as e:  # pragma: no cover - the wheel is a hard dependency
        raise CompileError(f"nvJitLink is not available ({e}); install nvidia-nvjitlink "
                           "or use --ptxas") from None

    options = [f"-arch={target.arch}", f"-O{opt_level}", "-Xptxas=-v"]
    options += [f"-Xptxas={opt}" for opt in extra_options]
    data = ptx.encode("utf-8")
    handle = nvjitlink.create(len(options), options)
    try:
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), ptx_name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            log = _log(nvjitlink, handle, error=True) or _log(nvjitlink, handle, error=False)
            raise InternalCompilerError(
                f"nvJitLink rejected the PTX for {target.arch} ({e}):\n"
                f"{_name_ptx_in_log(log, ptx_name).strip()}") from None
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        info = _name_ptx_in_log(_log(nvjitlink, handle, error=False), ptx_name)
    finally:
        nvjitlink.destroy(handle)
    return AssembledPTX(bytes(cubin), info, parse_resource_usage(info), _warnings(info), "nvjitlink")


def link_ptx_modules(modules: list[tuple[str, str]], target: Target, *, opt_level: int = 3) -> AssembledPTX:
    """Assemble several PTX modules (``(name, text)`` pairs, kernels with distinct symbols) into
    one cubin with nvJitLink, and report every kernel's resource usage (variants of a kernel
    compiled separately end up in one cubin that one launcher module embeds).

    Raises:
        InternalCompilerError: nvJitLink rejected a module (the message holds its log), or the
            result is not a cubin.
    """
    try:
        from cuda.bindings import nvjitlink
    except ImportError as e:  # pragma: no cover - the wheel is a hard dependency
        raise CompileError(f"nvJitLink is not available ({e}); install nvidia-nvjitlink") from None

    options = [f"-arch={target.arch}", f"-O{opt_level}", "-Xptxas=-v"]
    handle = nvjitlink.create(len(options), options)
    try:
        try:
            for name, text in modules:
                data = text.encode("utf-8")
                nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            log = _log(nvjitlink, handle, error=True) or _log(nvjitlink, handle, error=False)
            raise InternalCompilerError(f"nvJitLink rejected the PTX modules for {target.arch} ({e}):\n"
                                        f"{log.strip()}") from None
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        info = _log(nvjitlink, handle, error=False)
    finally:
        nvjitlink.destroy(handle)
    if not bytes(cubin).startswith(ELF_MAGIC):
        raise InternalCompilerError(f"nvjitlink returned something that is not a cubin ({len(cubin)} bytes)")
    return AssembledPTX(bytes(cubin), info, parse_resource_usage(info), _warnings(info), "nvjitlink")


def _log(nvjitlink, handle, *, error: bool) -> str:
    get_size = nvjitlink.get_error_log_size if error else nvjitlink.get_info_log_size
    get = nvjitlink.get_error_log if error else nvjitlink.get_info_log
    size = get_size(handle)
    if size <= 1:
        return ""
    buf = bytearray(size)
    get(handle, buf)
    return buf.rstrip(b"\x00").decode("utf-8", errors="replace")


def _assemble_with_ptxas(ptx: str, target: Target, opt_level: int, ptx_name: str,
                         extra_options: tuple[str, ...]) -> AssembledPTX:
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        raise CompileError("--ptxas was given but no 'ptxas' is on PATH")
    with tempfile.TemporaryDirectory(prefix="tritonc-ptxas-") as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        out = os.path.join(tmp, "kernel.cubin")
        with open(src, "w", encoding="utf-8") as f:
            f.write(ptx)
        cmd = [ptxas, f"-arch={target.arch}", f"-O{opt_level}", "-v", *extra_options, src, "-o", out]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        log = (proc.stdout + proc.stderr).replace(src, ptx_name)
        if proc.returncode != 0:
            raise InternalCompilerError(
                f"ptxas rejected the PTX for {target.arch} (exit status {proc.returncode}):\n{log.strip()}")
        with open(out, "rb") as f:
            cubin = f.read()
    return AssembledPTX(cubin, log, parse_resource_usage(log), _warnings(log), "ptxas")
