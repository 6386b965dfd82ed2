"""Fatbin builds: ``--arch sm_80,sm_90a[,...]`` compiles each architecture and puts the images in
one fatbin (``--emit=fatbin``, and embedded in the C header and the Python module).

The fatbin (:mod:`tritonc.codegen.fatbin`, built with nvFatbin) holds:

* one SASS image (cubin) per architecture of :data:`~tritonc.target.ARCHS` in the list;
* PTX for forward compatibility: the PTX of the newest listed architecture that is not
  arch-specific. Arch-specific PTX (``sm_90a``: wgmma, setmaxnreg) is not JIT-compiled for
  newer GPUs, so a list of arch-specific architectures only (``--arch sm_90a``) gets one more
  compilation, for the same architecture without the ``a`` (``sm_90``), for its PTX;
* PTX of each PTX-only target (:data:`~tritonc.target.PTX_ONLY_ARCHS`: ``sm_100``, ``sm_120``),
  compiled on the path it shares with an older architecture and retargeted
  (:func:`retarget_ptx`).

Every image is the same program with the same meta-parameters: the first architecture with
SASS (the *primary*) runs the cost model, and the others reuse its frontend module, tunables,
``num_warps`` and ``num_stages`` (:meth:`tritonc.driver.Compilation.for_arch`), so one launch
shape fits every image. The launchers pass one dynamic shared-memory size per kernel: the
largest any image needs, which must fit a CTA of every listed architecture (else a
``CompileError`` says which image needs what). Variants (``--tune`` lists) are not combined
with a list of architectures.
"""
from __future__ import annotations

import dataclasses
import re
from functools import cached_property

from .diagnostics import CompileError, InternalCompilerError
from .target import ARCHS, PTX_ONLY_ARCHS, Target

__all__ = ["FatbinBuild", "parse_arch_list", "retarget_ptx"]


def parse_arch_list(text: str) -> tuple[str, ...]:
    """The architectures of an ``--arch`` value: one of :data:`~tritonc.target.ARCHS`, or a
    comma-separated list of them and of :data:`~tritonc.target.PTX_ONLY_ARCHS`, in order.

    Raises:
        ValueError: an empty item, an unknown or repeated architecture, or a list without an
            architecture that has SASS (a PTX-only target alone); the message says which.
    """
    items = [a.strip() for a in text.split(",")]
    if any(not a for a in items):
        raise ValueError(f"'{text}' has an empty item; give architectures separated by commas "
                         f"(sm_80,sm_90a)")
    known = ARCHS + tuple(PTX_ONLY_ARCHS)
    for a in items:
        if a not in known:
            if len(items) == 1:
                raise ValueError(f"'{a}' is not one of {', '.join(repr(x) for x in ARCHS)}.")
            raise ValueError(f"'{a}' is not one of {', '.join(repr(x) for x in known)} "
                             f"({', '.join(PTX_ONLY_ARCHS)}: PTX only)")
    repeated = [a for i, a in enumerate(items) if a in items[:i]]
    if repeated:
        raise ValueError(f"'{repeated[0]}' is listed twice")
    if not any(a in ARCHS for a in items):
        raise ValueError(f"{', '.join(items)}: PTX-only target{'s' if len(items) > 1 else ''} need an "
                         f"architecture with SASS in the list too, e.g. sm_80,{items[0]}")
    return tuple(items)


def retarget_ptx(ptx: str, arch: str, ptx_version: int) -> str:
    """``ptx`` with its ``.target`` set to ``arch`` and its ``.version`` raised to at least
    ``ptx_version`` (x10). PTX is forward compatible (PTX ISA 1.3 "PTX ISA Version"): code
    written for ``sm_80`` at PTX 8.6 is valid for ``sm_100`` and for PTX 8.7.

    Raises:
        InternalCompilerError: ``ptx`` lacks its ``.version`` or ``.target`` directive.
    """
    m = re.search(r"^\.version (\d+)\.(\d+)$", ptx, re.MULTILINE)
    if m is None or not re.search(r"^\.target sm_\w+", ptx, re.MULTILINE):
        raise InternalCompilerError("PTX without .version or .target: cannot retarget it")
    if int(m.group(1)) * 10 + int(m.group(2)) < ptx_version:
        ptx = ptx[:m.start()] + f".version {ptx_version // 10}.{ptx_version % 10}" + ptx[m.end():]
    return re.sub(r"^\.target sm_\w+", f".target {arch}", ptx, count=1, flags=re.MULTILINE)


class FatbinBuild:
    """The fatbin of ``comp`` (a :class:`~tritonc.driver.Compilation` for the list's first
    architecture with SASS) for the architectures ``archs`` (:func:`parse_arch_list`).

    Raises (from its properties):
        CompileError: an image fails to compile, or the launchers' one shared-memory size per
            kernel does not fit a CTA of a listed architecture.
        ValueError: ``comp`` is not compiled for the list's first architecture with SASS.
    """

    def __init__(self, comp, archs: tuple[str, ...]):
        self.archs = tuple(archs)
        self.sass_archs = tuple(a for a in self.archs if a in ARCHS)
        self.ptx_only_archs = tuple(a for a in self.archs if a in PTX_ONLY_ARCHS)
        if not self.sass_archs or comp.options.arch != self.sass_archs[0]:
            raise ValueError(f"the compilation is for {comp.options.arch}, not the first architecture with SASS "
                             f"of {','.join(self.archs)}")
        self.primary = comp
        self._compilations: dict[str, object] = {}

    def compilation(self, arch: str):
        """The launchers' compilation (specialised variants included) for ``arch`` of :data:`ARCHS`."""
        if arch not in self._compilations:
            self._compilations[arch] = self.primary.for_arch(arch).launch_compilation
        return self._compilations[arch]

    @property
    def forward_ptx_arch(self) -> str:
        """The architecture whose PTX the fatbin carries for newer GPUs: the newest listed one
        that is not arch-specific, else the newest listed one without its ``a``."""
        generic = [a for a in self.sass_archs if not Target(a).arch_specific]
        if generic:
            return max(generic, key=lambda a: Target(a).capability)
        return max(self.sass_archs, key=lambda a: Target(a).capability).rstrip("a")

    @cached_property
    def ptxs(self) -> dict[str, str]:
        """The fatbin's PTX, by the architecture it is for."""
        out = {self.forward_ptx_arch: self.compilation(self.forward_ptx_arch).ptx}
        for arch in self.ptx_only_archs:
            path, version = PTX_ONLY_ARCHS[arch]
            out[arch] = retarget_ptx(self.compilation(path).ptx, arch, version)
        return out

    @cached_property
    def cubins(self) -> dict[str, bytes]:
        """The fatbin's SASS images, by architecture."""
        return {a: self.compilation(a).cubin for a in self.sass_archs}

    @cached_property
    def fatbin(self) -> bytes:
        """The fatbin (:func:`tritonc.codegen.fatbin.build_fatbin`)."""
        from .codegen.fatbin import build_fatbin

        cubins = self.cubins
        return build_fatbin(cubins, self.ptxs, name=self.primary.path.rsplit("/", 1)[-1])

    def _image_archs(self) -> list[str]:
        """Every architecture compiled: the SASS ones, then the PTX paths."""
        paths = [self.forward_ptx_arch] + [PTX_ONLY_ARCHS[a][0] for a in self.ptx_only_archs]
        return list(dict.fromkeys(list(self.sass_archs) + paths))

    @cached_property
    def kernels(self) -> list:
        """The primary's :class:`~tritonc.launcher.signature.CompiledKernel` s with the fatbin
        and, per kernel and specialised variant, the largest dynamic shared memory of any image."""
        from .launcher.build import compiled_kernels

        primary = compiled_kernels(self.compilation(self.sass_archs[0]))
        shared: dict[str, tuple[int, str]] = {}
        for arch in self._image_archs():
            for k in compiled_kernels(self.compilation(arch)):
                mine = next((p for p in primary if p.name == k.name), None)
                if mine is None or mine.num_warps != k.num_warps \
                        or [v.name for v in mine.variants] != [v.name for v in k.variants]:
                    raise InternalCompilerError(f"kernel '{k.name}' for {arch} does not match its {self.sass_archs[0]} "
                                                "image (name, warps or variants)")
                for name, size in [(k.name, k.shared_bytes)] + [(v.name, v.shared_bytes) for v in k.variants]:
                    if size > shared.get(name, (-1, ""))[0]:
                        shared[name] = (size, arch)
        limits = {a: Target(a).max_shared_bytes_per_cta for a in self._image_archs()}
        limits.update({a: Target(PTX_ONLY_ARCHS[a][0]).max_shared_bytes_per_cta for a in self.ptx_only_archs})
        tightest = min(limits, key=lambda a: limits[a])
        for name, (size, arch) in sorted(shared.items()):
            if size > limits[tightest]:
                raise CompileError(f"kernel '{name}' needs {size} bytes of dynamic shared memory on {arch}, more "
                                   f"than a CTA of {tightest} may have ({limits[tightest]}); the launchers pass one "
                                   f"size for every image of a fatbin: list these architectures in separate builds")
        fatbin = self.fatbin
        out = []
        for k in primary:
            variants = tuple(dataclasses.replace(v, shared_bytes=shared[v.name][0]) for v in k.variants)
            out.append(dataclasses.replace(k, shared_bytes=shared[k.name][0], variants=variants, fatbin=fatbin))
        return out

    def emit(self, kind: str) -> str | bytes:
        """Output ``kind``: ``fatbin``, ``header``, ``py``, or ``ttir`` (the same for every
        architecture); the others are one architecture's and not made for a list.

        Raises:
            ValueError: any other kind.
        """
        if kind == "fatbin":
            return self.fatbin
        if kind == "header":
            from .launcher.c_header import generate_c_header

            return generate_c_header(self.kernels, symbol_prefix=self.primary.options.symbol_prefix,
                                     cpp_namespace=self.primary.options.cpp_namespace)
        if kind == "py":
            from .launcher.python_module import generate_python_module

            return generate_python_module(self.kernels, symbol_prefix=self.primary.options.symbol_prefix)
        if kind == "ttir":
            return self.primary.emit("ttir")
        raise ValueError(f"--emit={kind} is one architecture's output; a list of architectures writes "
                         f"ttir, fatbin, header and py")

    def resource_usage_report(self) -> list[str]:
        """``--resource-usage``: each SASS image's lines (:meth:`Compilation.resource_usage_report`)."""
        lines = []
        for arch in self.sass_archs:
            lines += self.compilation(arch).resource_usage_report()
        return lines
