"""Generate one self-contained C/C++ header that embeds a cubin and launches its kernels.

The header (C99 and C++, ``#pragma once``, ``extern "C"``) needs only ``cuda.h`` and the
CUDA driver library (``-lcuda``). For every kernel ``K`` of the cubin it defines::

    CUresult K_load(void);      /* load the cubin into the current context (optional)  */
    CUresult K_unload(void);    /* unload it from the current context                  */
    CUresult K(CUstream stream, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
               <one C argument per kernel parameter>);
    /* a kernel with a declared grid (``__grid`` or ``--grid``) instead: */
    CUresult K(CUstream stream, <arguments>);        /* computes the grid from the arguments */
    CUresult K_with_grid(CUstream stream, unsigned int grid_x, unsigned int grid_y,
                         unsigned int grid_z, <arguments>);
    const char *K_last_error(void);  /* why the last launch was refused, or NULL       */
    static const struct tritonc_kernel_metadata K_metadata;

Conventions, with their sources:

* Launch entry point ``CUresult K(CUstream, gridX, gridY, gridZ, args...)``: Triton's AOT
  ``compile.h`` (old form, grid at run time); it returns a ``CUresult`` and never calls
  ``exit()`` (cli-launcher-anchors.md §1, takeaways 2-4).
* Argument types: ``CUdeviceptr`` for pointers (64-bit device addresses), scalars at their
  C width; ``float16``/``bfloat16`` as ``__half``/``__nv_bfloat16`` when C++ finds
  ``cuda_fp16.h``/``cuda_bf16.h``, else as their bits in ``uint16_t`` (spec §7; ``c_launch.c_arg_type``).
* ``num_warps * 32`` threads along x, the kernel's dynamic shared memory at each launch,
  ``cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)`` at load when it is
  above 48 KiB (Triton's practice; CUDA driver API, cuFuncSetAttribute).
* Lazy load on first launch, one module per CUDA context: loaded modules are kept in a
  small table keyed by ``cuCtxGetId`` (unique for the process lifetime, so a destroyed
  context whose handle is reused never finds a stale module). Triton's template loads once
  for whatever context is current, which breaks on a second GPU (anchors §1).
* Promises (``__multipleof``, ``__aligned``) are checked before anything else; a broken one
  returns ``CUDA_ERROR_INVALID_VALUE`` and ``K_last_error()`` says which (spec §7).
* An empty grid (a zero dimension) launches nothing and returns ``CUDA_SUCCESS``.
* Specialised variants (``CompiledKernel.variants``, e.g. ``K__spec16`` compiled for
  16-byte-aligned pointers and integers divisible by 16, ``K__spec_s1_d16`` also for unit
  innermost strides): after the promise checks the launcher tests each variant's facts on the
  actual arguments (``facts.fact``: ``(X % 16ull) == 0``, ``(N % 16) == 0``,
  ``(s == 1)``, ``(N <= 1024)``), most specialised first, and launches the first that holds, else ``K``
  itself (Triton's ``link.py`` dispatch, anchors §1). The variants are only entries of the
  module's function table; the public API is the same with or without them.
* A machine-readable ``// tritonc-kernel: {json}`` line per kernel, like Triton's
  ``// tt-linker:`` comment, and a do-not-edit banner without timestamps (ISPC, anchors §2).

Names: with ``symbol_prefix`` ``P`` (``--symbol-prefix``) every name above and every file-scope
name the header defines starts with ``P`` (macros with ``P`` in capitals), so two headers of
one kernel built with different ``-D`` values share a program; with ``cpp_namespace``
(``--cpp-namespace``) a C++ compilation declares the launchers and the kernel's data in that
namespace.

Linkage, stb-style: by default everything is ``static``/``static inline``: the header may be
included in several translation units; each keeps its own cubin and module table. A program
that wants one copy defines ``TRITONC_IMPLEMENTATION`` (or ``<P>IMPLEMENTATION``, ``P`` the
symbol prefix in capitals) before including it in one file, which then defines the public
functions and ``K_metadata`` with external linkage, and ``TRITONC_EXTERN`` (or ``<P>EXTERN``)
in the others, which see only their declarations (:func:`.c_loader.linkage_modes`). A mutex
(``pthread_mutex_t``, an ``SRWLOCK`` on Windows, both statically initialised, so no
once-initialisation is needed) guards the table: threads that launch first at the same time load
the module once; ``K_last_error`` is per thread. Unloading while another thread launches in the
same context remains the caller's to avoid. Define ``TRITONC_MAX_CONTEXTS`` before including to
change the table size (default 16); when it is full, a launch in a new context returns
``CUDA_ERROR_OUT_OF_MEMORY``.

Sections, in order (:func:`generate_c_header`): the banner, the includes, the definitions shared by
every tritonc header, the loader's macros, then, under the linkage modes, the loader (the cubin and
the module table, :mod:`.c_loader`) and the launch functions of the kernels and dispatchers
(:mod:`.c_launch`); the spelling they share is :mod:`.c_text`'s.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from tritonc.files import write_atomically
from tritonc.launcher.c_launch import dispatcher_apis, kernel_apis
from tritonc.launcher.c_loader import linkage_modes, loader_macros, module_definitions
from tritonc.launcher.c_text import comment_safe, grid_names, header_names
from tritonc.launcher.signature import C_RESERVED, SIGNATURE_TAG, CompiledKernel, Dispatcher
from tritonc.version import __version__


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_symbol_prefix(prefix: str) -> None:
    """Raise ``ValueError`` unless ``prefix`` (``--symbol-prefix``) is empty or starts a C
    identifier and is not in tritonc's own ``tritonc_`` namespace (any letter case)."""
    if prefix and not _IDENTIFIER.fullmatch(prefix):
        raise ValueError(f"symbol prefix '{prefix}' is not the start of a C identifier "
                         "(letters, digits and '_', not starting with a digit)")
    if prefix.lower().startswith("tritonc_"):
        raise ValueError(f"symbol prefix '{prefix}': names starting with 'tritonc_' are reserved for the launcher")


def check_cpp_namespace(namespace: str | None) -> list[str]:
    """The names of ``namespace`` (``A::B`` -> ``["A", "B"]``; ``[]`` for ``None``); raise
    ``ValueError`` unless each is a C++ identifier that is not a keyword."""
    if namespace is None:
        return []
    names = namespace.split("::")
    for name in names:
        if not _IDENTIFIER.fullmatch(name) or name in C_RESERVED:
            raise ValueError(f"C++ namespace '{namespace}': '{name}' is not an identifier")
    return names


def _half_types(mp: str) -> list[str]:
    """Preprocessor lines defining ``<mp>FLOAT16`` and ``<mp>BFLOAT16``: CUDA's ``__half`` and
    ``__nv_bfloat16`` (2-byte classes holding the bits) when compiled as C++ with
    ``cuda_fp16.h`` / ``cuda_bf16.h`` on the include path (and the ``crt/`` headers they
    include, which the nvidia-cuda-runtime wheel lacks) and ``<mp>NO_CUDA_FP16`` undefined;
    otherwise ``uint16_t`` (C gets only ``__half_raw`` from those headers, no arithmetic type)."""
    return [f"#ifndef {mp}HALF_TYPES_V1",
            f"#define {mp}HALF_TYPES_V1",
            f"#if defined(__cplusplus) && defined(__has_include) && !defined({mp}NO_CUDA_FP16)",
            "#if __has_include(<cuda_fp16.h>) && __has_include(<crt/host_defines.h>)",
            "#include <cuda_fp16.h>",
            f"#define {mp}FLOAT16 __half",
            "#endif",
            "#if __has_include(<cuda_bf16.h>) && __has_include(<crt/host_defines.h>)",
            "#include <cuda_bf16.h>",
            f"#define {mp}BFLOAT16 __nv_bfloat16",
            "#endif",
            "#endif",
            f"#ifndef {mp}FLOAT16",
            f"#define {mp}FLOAT16 uint16_t /* the bits of a float16 */",
            "#endif",
            f"#ifndef {mp}BFLOAT16",
            f"#define {mp}BFLOAT16 uint16_t /* the bits of a bfloat16 */",
            "#endif",
            "#endif"]


def _module_prefix(name: str) -> str:
    return f"tritonc_{name}"


def _check_kernels(kernels: Sequence[CompiledKernel]) -> None:
    if not kernels:
        raise ValueError("a header needs at least one kernel")
    first = kernels[0]
    public: dict[str, str] = {}
    for k in kernels:
        if not isinstance(k, CompiledKernel):
            raise ValueError(f"expected CompiledKernel, got {type(k).__name__}")
        if k.cubin != first.cubin or k.fatbin != first.fatbin:
            raise ValueError(f"kernels '{first.name}' and '{k.name}' come from different cubins; "
                             "one header holds the kernels of one cubin")
        if k.arch != first.arch:
            raise ValueError(f"kernels '{first.name}' and '{k.name}' have different archs")
        for sym in (k.name, f"{k.name}_load", f"{k.name}_unload", f"{k.name}_last_error",
                    f"{k.name}_metadata") + ((f"{k.name}_with_grid",) if k.grid is not None else ()):
            if sym in public:
                raise ValueError(f"kernel '{k.name}' would define '{sym}', which kernel "
                                 f"'{public[sym]}' already defines")
            public[sym] = k.name
    for sym in public:
        if sym.startswith("tritonc_"):
            raise ValueError(f"'{sym}': names starting with 'tritonc_' are reserved for the launcher")


def generate_c_header(kernels: CompiledKernel | Sequence[CompiledKernel], *,
                      header_name: str | None = None, command: str | None = None,
                      dispatchers: Sequence[Dispatcher] = (), symbol_prefix: str = "",
                      cpp_namespace: str | None = None) -> str:
    """Return the text of a header for ``kernels``, which must all come from one cubin.

    Args:
        kernels: one kernel or several kernels of the same cubin (same bytes, same arch).
        header_name: the file name shown in the banner (default ``<first kernel>.h``).
        command: the command line shown in the banner (omit it for byte-stable output).
        dispatchers: public names that launch one of several variants among ``kernels``
            (:class:`~tritonc.launcher.signature.Dispatcher`; ``tritonc.variants``).
        symbol_prefix: ``P`` (``--symbol-prefix``): every name the header defines starts with it
            (:func:`.c_text.header_names`), so headers of one kernel built with different ``-D`` values
            and prefixes can be included in one program. Default: the launch functions carry
            the kernel's name and the rest starts with ``tritonc_`` / ``TRITONC_``.
        cpp_namespace: ``NS`` or ``A::B`` (``--cpp-namespace``): compiled as C++, the launch
            functions and the kernel's data are declared in this namespace (with C++ linkage);
            compiled as C nothing changes.

    Raises:
        ValueError: no kernels, kernels of different cubins/archs, colliding C names, a
            dispatcher naming a kernel that is not there or variants of different signatures,
            or a prefix / namespace that is not a C identifier (``check_symbol_prefix``).
    """
    if isinstance(kernels, CompiledKernel):
        kernels = [kernels]
    kernels = list(kernels)
    _check_kernels(kernels)
    check_symbol_prefix(symbol_prefix)
    namespaces = check_cpp_namespace(cpp_namespace)
    P = symbol_prefix
    mod = P + _module_prefix(kernels[0].name)
    _, mp = header_names(P)

    out = _banner(kernels, header_name or f"{kernels[0].name}.h", command)
    out += _includes(mp)
    out += _shared_definitions(kernels, dispatchers, P)
    out += _namespace_opening(namespaces)
    out += loader_macros(mp)
    definitions = module_definitions(kernels, mod, mp) + kernel_apis(kernels, mod, P)
    definitions += dispatcher_apis(dispatchers, kernels, P)
    out += linkage_modes(definitions, mod, mp)
    out += _closing(namespaces, cpp_namespace)
    return "\n".join(out) + "\n"


def _banner(kernels: list[CompiledKernel], header_name: str, command: str | None) -> list[str]:
    """The do-not-edit comment (each kernel's signature, launch shape, declared grid and
    variants; how to use the header) and the ``// tritonc-kernel: {json}`` lines."""
    first = kernels[0]
    image = first.image  # the fatbin of a multi-arch build (cuModuleLoadData takes either)
    lines = ["/*",
             f" * {comment_safe(header_name)}: launcher{'s' if len(kernels) > 1 else ''} for "
             + ", ".join(k.name for k in kernels)
             + f" ({first.arch}, {'fatbin' if first.fatbin else 'cubin'} of {len(image)} bytes).",
             f" * Generated by tritonc {__version__}. DO NOT EDIT: regenerate it from the Triton-C source."]
    if command:
        lines.append(f" * Command: {comment_safe(command)}")
    lines.append(" *")
    for k in kernels:
        lines.append(f" *   {comment_safe(k.signature.triton_c())}")
        lines.append(f" *       num_warps={k.num_warps} ({k.block_threads} threads per block), "
                     f"dynamic shared memory {k.shared_bytes} bytes"
                     + (f", defines {comment_safe(k.defines_string())}" if k.defines else ""))
        if k.grid is not None:
            from .grid import grid_text

            lines.append(f" *       declared grid ({comment_safe(grid_text(k.grid))}): {k.name}(stream, args...) "
                         f"computes it, {k.name}_with_grid(stream, grid_x, grid_y, grid_z, args...) takes another")
        for v in k.variants:
            lines.append(f" *       runs the variant {v.name} when {comment_safe(v.describe())} "
                         "(addresses in bytes)")
    lines += [" *",
              " * Use: cuInit(0), make a context current (cuDevicePrimaryCtxRetain + cuCtxSetCurrent, or any",
              " * CUDA runtime call), then call the launcher; it loads the cubin into the current context on",
              " * first use. Launchers return CUDA_ERROR_INVALID_VALUE when an argument breaks a",
              " * __multipleof/__aligned promise (<kernel>_last_error() says which) and CUDA_SUCCESS without",
              " * launching when a grid dimension is 0. Link with -lcuda.",
              " */"]
    return lines + [f"// {SIGNATURE_TAG} {k.signature_json()}" for k in kernels]


def _includes(mp: str) -> list[str]:
    """``#pragma once``, the included headers, the half types, and the opening of ``extern "C"``."""
    return (["#pragma once",
             "",
             "#include <cuda.h>",
             "#include <stddef.h>",
             "#include <stdint.h>",
             "#if defined(_WIN32)",
             "#include <windows.h>",
             "#else",
             "#include <pthread.h>",
             "#endif"]
            + _half_types(mp)
            + ["#ifndef __cplusplus",
               "#include <stdbool.h>",
               "#endif",
               "",
               "#ifdef __cplusplus",
               'extern "C" {',
               "#endif",
               ""])


def _shared_definitions(kernels: list[CompiledKernel], dispatchers: Sequence[Dispatcher], prefix: str) -> list[str]:
    """Definitions shared by every tritonc header of a program (once, whichever header comes
    first): ``struct <tp>kernel_metadata``, and the declared-grid and tuned-dispatch helpers when
    a kernel or dispatcher needs them."""
    tp, mp = header_names(prefix)
    lines = [f"#ifndef {mp}KERNEL_METADATA_V1",
             f"#define {mp}KERNEL_METADATA_V1",
             "/* Describes one compiled kernel; shared by every tritonc-generated header. */",
             f"struct {tp}kernel_metadata {{",
             "    const char *name;",
             "    const char *signature;     /* the Triton-C parameter list */",
             "    const char *arch;          /* sm_80, sm_86, sm_89, sm_90 or sm_90a */",
             "    unsigned int num_warps;",
             "    unsigned int block_threads; /* num_warps * 32, along x */",
             "    unsigned int shared_bytes;  /* dynamic shared memory per block */",
             "    unsigned int num_params;",
             "    const char *defines;       /* NAME=VALUE;NAME=VALUE (sorted) */",
             "};",
             "#endif",
             ""]
    if any(k.grid is not None for k in kernels):
        from .grid import c_helper_definitions

        lines += [grid_names(line, prefix) for line in c_helper_definitions()] + [""]
    if any(d.tuning is not None for d in dispatchers):
        from .tuned import c_helper_definitions as tuned_helpers

        lines += tuned_helpers(tp, mp) + [""]
    return lines


def _namespace_opening(namespaces: list[str]) -> list[str]:
    """In C++, leave ``extern "C"`` for the namespaces of ``--cpp-namespace`` (nothing without one)."""
    if not namespaces:
        return []
    return ["#ifdef __cplusplus",
            '}  /* extern "C" */',
            " ".join(f"namespace {ns} {{" for ns in namespaces),
            "#endif",
            ""]


def _closing(namespaces: list[str], cpp_namespace: str | None) -> list[str]:
    """The end of the namespaces, or of ``extern "C"``."""
    if namespaces:
        close = " ".join("}" for _ in namespaces) + f"  /* namespace {cpp_namespace} */"
    else:
        close = '}  /* extern "C" */'
    return ["", "#ifdef __cplusplus", close, "#endif"]


def find_cuda_include() -> str | None:
    """A folder holding ``cuda.h``, to compile generated headers against, or ``None``.

    Looked for in ``$CUDA_HOME``/``$CUDA_PATH``, then in the ``nvidia-cuda-runtime`` wheel
    (``site-packages/nvidia/cu13/include`` for CUDA 13; ``nvidia/cuda_runtime/include`` in
    CUDA 12 wheels), then ``/usr/local/cuda/include``.
    """
    import glob
    import importlib.util
    import os

    candidates = [os.path.join(os.environ[v], "include") for v in ("CUDA_HOME", "CUDA_PATH")
                  if os.environ.get(v)]
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidates += sorted(glob.glob(os.path.join(root, "*", "include")), reverse=True)
    candidates.append("/usr/local/cuda/include")
    for folder in candidates:
        if os.path.isfile(os.path.join(folder, "cuda.h")):
            return folder
    return None


def write_c_header(path: str, kernels: CompiledKernel | Sequence[CompiledKernel], *,
                   command: str | None = None) -> None:
    """Write :func:`generate_c_header` output to ``path`` atomically (temp file + rename)."""
    import os
    text = generate_c_header(kernels, header_name=os.path.basename(path), command=command)
    write_atomically(path, text)
