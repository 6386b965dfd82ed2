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
  ``cuda_fp16.h``/``cuda_bf16.h``, else as their bits in ``uint16_t`` (spec §7; ``c_arg_type``).
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
in the others, which see only their declarations (:func:`_linkage_modes`). A mutex (``pthread_mutex_t``, an ``SRWLOCK`` on Windows, both
statically initialised, so no once-initialisation is needed) guards the table: threads that
launch first at the same time load the module once; ``K_last_error`` is per thread. Unloading
while another thread launches in the same context remains the caller's to avoid.
Define ``TRITONC_MAX_CONTEXTS`` before including to change the table size (default 16);
when it is full, a launch in a new context returns ``CUDA_ERROR_OUT_OF_MEMORY``.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from tritonc.files import write_atomically
from tritonc.launcher.signature import C_RESERVED, SIGNATURE_TAG, CompiledKernel, Dispatcher, KernelParam
from tritonc.launcher.facts import fact as fact_named
from tritonc.version import __version__

#: Above this many bytes of dynamic shared memory a kernel needs an explicit opt-in.
DEFAULT_SHARED_LIMIT = 48 * 1024

#: Names a kernel parameter may not keep in C: they are types, macros or the launcher's own
#: parameters; such parameters get a trailing underscore.
_C_PARAM_RESERVED = C_RESERVED | frozenset("""
stream grid_x grid_y grid_z variant int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
size_t ptrdiff_t intptr_t uintptr_t CUdeviceptr CUstream CUresult CUfunction CUmodule CUcontext
CUDA_SUCCESS CUDA_ERROR_INVALID_VALUE cuLaunchKernel
""".split())


def c_string_literal(text: str) -> str:
    """``text`` as a C string literal: ASCII only, with ``?`` escaped (no trigraphs)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '\\"?':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        else:
            for byte in ch.encode("utf-8"):
                out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def _comment_safe(text: str) -> str:
    """Text that cannot end a ``/* */`` comment."""
    return "".join(ch if ch.isprintable() else " " for ch in text).replace("*/", "*\\/")


def c_param_names(params: Sequence[KernelParam], prefix: str = "") -> list[str]:
    """The C names of ``params``: the Triton-C names, except that names that are C/C++
    keywords, standard types or the launcher's own parameters get a trailing ``_`` and names
    in tritonc's ``tritonc_`` namespace (or starting with the header's symbol ``prefix``) get an
    ``arg_`` prefix (kept unique)."""
    taken: set[str] = set()
    names = []
    original = {p.name for p in params}
    for p in params:
        name = p.name
        if name.startswith("tritonc_") or (prefix and name.startswith(prefix)):
            name = "arg_" + name
        while name in _C_PARAM_RESERVED or name in taken or (name != p.name and name in original):
            name += "_"
        taken.add(name)
        names.append(name)
    return names


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


def header_names(prefix: str) -> tuple[str, str]:
    """``(type prefix, macro prefix)`` of a header with symbol prefix ``prefix``: the struct
    and helper names start with the first (``tritonc_`` by default), the macros with the second
    (the prefix in capitals, ``TRITONC_`` by default). The launch functions and each kernel's
    ``_metadata`` are ``prefix + kernel name``; the header's private data
    ``prefix + "tritonc_" + first kernel name``."""
    tp = prefix or "tritonc_"
    return tp, tp.upper()


def c_arg_type(p: KernelParam, prefix: str = "") -> str:
    """The C type of the launcher's argument for ``p``: ``CUdeviceptr`` for a pointer,
    ``<MP>FLOAT16`` / ``<MP>BFLOAT16`` for a ``float16`` / ``bfloat16`` scalar (``__half`` /
    ``__nv_bfloat16`` where C++ finds ``cuda_fp16.h`` / ``cuda_bf16.h``, else their bits in
    ``uint16_t``), else the scalar's C type (spec section 7)."""
    if p.is_pointer:
        return "CUdeviceptr"
    _, mp = header_names(prefix)
    if p.dtype == "float16":
        return f"{mp}FLOAT16"
    if p.dtype == "bfloat16":
        return f"{mp}BFLOAT16"
    return p.scalar_type.c_type


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


def _grid_names(line: str, prefix: str) -> str:
    """A line of the declared-grid helpers (``tritonc.launcher.grid``) with ``prefix``'s names."""
    tp, mp = header_names(prefix)
    return line.replace("tritonc_grid_", f"{tp}grid_").replace("TRITONC_GRID_", f"{mp}GRID_")


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


def _hex_array(data: bytes, per_line: int = 16) -> list[str]:
    lines = []
    for i in range(0, len(data), per_line):
        chunk = data[i:i + per_line]
        lines.append("    " + ", ".join(f"0x{b:02x}" for b in chunk) + ",")
    return lines


def _promise_checks(kernel: CompiledKernel, cnames: list[str], mod: str) -> list[str]:
    """C statements refusing a launch that breaks a ``__multipleof``/``__aligned`` promise."""
    lines = []
    for p, cname in zip(kernel.params, cnames):
        if p.is_pointer:
            m = p.address_multiple
            if m is None or m == 1:
                continue
            promise = " and ".join(a for a in p.attributes() if a.startswith(("__aligned", "__multipleof")))
            cond = f"({cname} % {m}ull) != 0"
            what = f"{kernel.name}: the address passed for '{p.name}' is not a multiple of {m} bytes, breaking {promise}"
        else:
            m = p.multipleof
            if m is None or m == 1:
                continue
            literal = {"int64": f"INT64_C({m})", "uint64": f"UINT64_C({m})",
                       "uint32": f"{m}u"}.get(p.dtype, str(m))
            cond = f"({cname} % {literal}) != 0"
            what = f"{kernel.name}: the value passed for '{p.name}' is not a multiple of {m}, breaking __multipleof({m})"
        lines += [f"    if ({cond}) {{",
                  f"        {mod}_refused = {c_string_literal(what)};",
                  "        return CUDA_ERROR_INVALID_VALUE;",
                  "    }"]
    return lines


def _variant_dispatch(kernel: CompiledKernel, cnames: list[str], index: int) -> list[str]:
    """C statements setting ``tritonc_fn`` to the first variant whose facts hold (each fact's
    test from :func:`~tritonc.launcher.facts.fact`)."""
    by_name = {p.name: (p, cname) for p, cname in zip(kernel.params, cnames)}
    lines = [f"    unsigned int tritonc_fn = {index}u; /* {kernel.name} */"]
    for i, v in enumerate(kernel.variants):
        tests = " && ".join(fact_named(fact).c_test(*by_name[name]) for name, fact in v.facts)
        keyword = "if" if i == 0 else "else if"
        lines.append(f"    {keyword} ({tests})")
        lines.append(f"        tritonc_fn = {index + 1 + i}u; /* {v.name} */")
    return lines


def _declared_grid_launcher(k: CompiledKernel, cnames: list[str], mod: str, prefix: str = "") -> list[str]:
    """``K(stream, args...)``: computes the declared grid from the arguments (C arithmetic on
    long long, ``tritonc.launcher.grid``) and launches ``K_with_grid``; a grid dimension
    outside ``0..limit`` or a division by zero refuses the launch."""
    from .grid import grid_c, grid_text

    names = {p.name: c for p, c in zip(k.params, cnames)}
    args = ["CUstream stream"]
    for p, cname in zip(k.params, cnames):
        args.append(f"{c_arg_type(p, prefix)} {cname}")
    dims = list(k.grid) + [("int", 1)] * (3 - len(k.grid))
    lines = ["",
             f"/* {_comment_safe(k.signature.triton_c())}",
             f" * on its declared grid ({_comment_safe(grid_text(k.grid))}) */",
             f"static inline CUresult {prefix}{k.name}(" + ",\n        ".join(args) + ")",
             "{",
             "    int tritonc_bad = 0;",
             "    long long tritonc_grid[3];",
             "    static const long long tritonc_limit[3] = {2147483647LL, 65535LL, 65535LL};",
             "    int tritonc_axis;"]
    for axis, d in enumerate(dims):
        lines.append(f"    tritonc_grid[{axis}] = {_grid_names(grid_c(d, names), prefix)};")
    what = f"{k.name}: the declared grid divides by zero or shifts out of range"
    lines += ["    if (tritonc_bad) {",
              f"        {mod}_refused = {c_string_literal(what)};",
              "        return CUDA_ERROR_INVALID_VALUE;",
              "    }",
              "    for (tritonc_axis = 0; tritonc_axis < 3; ++tritonc_axis) {",
              "        if (tritonc_grid[tritonc_axis] < 0 || tritonc_grid[tritonc_axis] > tritonc_limit[tritonc_axis]) {",
              f"            {mod}_refused = {c_string_literal(k.name + ': a dimension of the declared grid is outside 0..limit (2^31-1 along x, 65535 along y and z)')};",
              "            return CUDA_ERROR_INVALID_VALUE;",
              "        }",
              "    }",
              f"    return {prefix}{k.name}_with_grid(stream, (unsigned int)tritonc_grid[0], (unsigned int)tritonc_grid[1], "
              "(unsigned int)tritonc_grid[2]" + "".join(f", {c}" for c in cnames) + ");",
              "}"]
    return lines


def _dispatcher_api(d: Dispatcher, by_name: dict[str, CompiledKernel], prefix: str = "") -> list[str]:
    """C for one :class:`Dispatcher`: ``K(...)`` launching the default variant, ``K_by_id(...,
    variant)``, ``K_num_variants()``, ``K_default_variant()``, ``K_variant_meta(i)`` (the
    variant's meta-parameters as text), ``K_variant_metadata(i)``, and ``K_load`` /
    ``K_unload`` / ``K_last_error`` of the shared module."""
    ks = [by_name[v] for v in d.variants]
    first = ks[0]
    cnames = c_param_names(first.params, prefix)
    declared = first.grid is not None
    args = ["CUstream stream"] + ([] if declared else ["unsigned int grid_x", "unsigned int grid_y",
                                                        "unsigned int grid_z"])
    for p, cname in zip(first.params, cnames):
        args.append(f"{c_arg_type(p, prefix)} {cname}")
    call_args = ", ".join(["stream"] + ([] if declared else ["grid_x", "grid_y", "grid_z"]) + cnames)
    n, name = len(ks), prefix + d.name
    tp = prefix or "tritonc_"
    if d.tuning is not None:
        return _tuned_dispatcher_api(d, ks, cnames, args, call_args, prefix)
    metas = [" ".join(f"{k}={v}" for k, v in k.meta().items()) for k in ks]
    lines = ["", f"/* ---- {name}: {n} variants, default {d.default} ---- */", "",
             f"static inline unsigned int {name}_num_variants(void) {{ return {n}u; }}",
             f"static inline unsigned int {name}_default_variant(void) {{ return {d.default}u; }}",
             "/* The meta-parameters of variant `variant` (NULL when out of range). */",
             f"static inline const char *{name}_variant_meta(unsigned int variant)", "{",
             f"    static const char *const metas[{n}] = {{" + ", ".join(c_string_literal(m) for m in metas) + "};",
             f"    return variant < {n}u ? metas[variant] : NULL;", "}",
             f"static inline const struct {tp}kernel_metadata *{name}_variant_metadata(unsigned int variant)",
             "{"]
    for i, k in enumerate(ks):
        lines.append(f"    if (variant == {i}u) return &{prefix}{k.name}_metadata;")
    lines += ["    return NULL;", "}",
              f"static inline CUresult {name}_load(void) {{ return {prefix}{ks[d.default].name}_load(); }}",
              f"static inline CUresult {name}_unload(void) {{ return {prefix}{ks[d.default].name}_unload(); }}",
              f"static inline const char *{name}_last_error(void) {{ return {prefix}{ks[d.default].name}_last_error(); }}",
              "",
              f"/* {_comment_safe(first.signature.triton_c().replace(first.name, d.name, 1))}: the default variant"
              + (" on its declared grid" if declared else "") + " */",
              f"static inline CUresult {name}(" + ",\n        ".join(args) + ")", "{",
              f"    return {prefix}{ks[d.default].name}({call_args});", "}", "",
              f"/* Variant `variant` (0..{n - 1}) of {name}; CUDA_ERROR_INVALID_VALUE for another index. */",
              f"static inline CUresult {name}_by_id(" + ",\n        ".join(args + ["unsigned int variant"]) + ")",
              "{", "    switch (variant) {"]
    for i, k in enumerate(ks):
        lines.append(f"    case {i}u: return {prefix}{k.name}({call_args});")
    lines += ["    default: return CUDA_ERROR_INVALID_VALUE;", "    }", "}"]
    return lines


def _tuned_dispatcher_api(d: Dispatcher, ks: list[CompiledKernel], cnames: list[str], args: list[str],
                          call_args: str, prefix: str) -> list[str]:
    """C for a :class:`Dispatcher` with a tuning table (``--tuning``, :mod:`.tuned`): the same
    API as :func:`_dispatcher_api`, plus ``K_tuned_variant(key...)``; ``K(...)`` launches the
    variant that function picks from the key arguments."""
    plain = _dispatcher_api(Dispatcher(d.name, d.variants, d.default), {k.name: k for k in ks}, prefix)
    name, tp = prefix + d.name, prefix or "tritonc_"
    by_param = {p.name: c for p, c in zip(ks[0].params, cnames)}
    keys = [by_param[k] for k in d.tuning.key]
    start = next(i for i, line in enumerate(plain) if line.startswith(f"static inline CUresult {name}("))
    end = plain.index("}", start)
    body = [f"static inline CUresult {name}(" + ",\n        ".join(args) + ")", "{",
            f"    switch ({name}_tuned_variant({', '.join(f'(long long){c}' for c in keys)})) {{"]
    body += [f"    case {i}u: return {prefix}{k.name}({call_args});" for i, k in enumerate(ks)]
    body += ["    default: return CUDA_ERROR_INVALID_VALUE;", "    }", "}"]
    comment = plain[start - 1].replace(": the default variant", ": the variant the tuning table picks")
    from .tuned import c_function as tuned_function

    return (plain[:start - 1] + tuned_function(d.tuning, f"{name}_tuned_variant", keys, d.default, tp) + [""]
            + [comment] + body + plain[end + 1:])


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
            (:func:`header_names`), so headers of one kernel built with different ``-D`` values
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
    first = kernels[0]
    P = symbol_prefix
    mod = P + _module_prefix(first.name)
    tp, mp = header_names(P)
    nk = len(kernels)
    # The cubin functions, in table order: each kernel, then its variants.
    functions = [(f.name, f.shared_bytes) for k in kernels for f in (k, *k.variants)]
    nf = len(functions)
    cubin = first.image  # the fatbin of a multi-arch build (cuModuleLoadData takes either)
    header_name = header_name or f"{first.name}.h"

    out: list[str] = []
    emit = out.append

    # ---- banner
    emit("/*")
    emit(f" * {_comment_safe(header_name)}: launcher{'s' if nk > 1 else ''} for "
         + ", ".join(k.name for k in kernels) + f" ({first.arch}, {'fatbin' if first.fatbin else 'cubin'} of {len(cubin)} bytes).")
    emit(f" * Generated by tritonc {__version__}. DO NOT EDIT: regenerate it from the Triton-C source.")
    if command:
        emit(f" * Command: {_comment_safe(command)}")
    emit(" *")
    for k in kernels:
        emit(f" *   {_comment_safe(k.signature.triton_c())}")
        emit(f" *       num_warps={k.num_warps} ({k.block_threads} threads per block), "
             f"dynamic shared memory {k.shared_bytes} bytes"
             + (f", defines {_comment_safe(k.defines_string())}" if k.defines else ""))
        if k.grid is not None:
            from .grid import grid_text

            emit(f" *       declared grid ({_comment_safe(grid_text(k.grid))}): {k.name}(stream, args...) "
                 f"computes it, {k.name}_with_grid(stream, grid_x, grid_y, grid_z, args...) takes another")
        for v in k.variants:
            emit(f" *       runs the variant {v.name} when {_comment_safe(v.describe())} "
                 "(addresses in bytes)")
    emit(" *")
    emit(" * Use: cuInit(0), make a context current (cuDevicePrimaryCtxRetain + cuCtxSetCurrent, or any")
    emit(" * CUDA runtime call), then call the launcher; it loads the cubin into the current context on")
    emit(" * first use. Launchers return CUDA_ERROR_INVALID_VALUE when an argument breaks a")
    emit(" * __multipleof/__aligned promise (<kernel>_last_error() says which) and CUDA_SUCCESS without")
    emit(" * launching when a grid dimension is 0. Link with -lcuda.")
    emit(" */")
    for k in kernels:
        emit(f"// {SIGNATURE_TAG} {k.signature_json()}")
    emit("#pragma once")
    emit("")
    emit("#include <cuda.h>")
    emit("#include <stddef.h>")
    emit("#include <stdint.h>")
    emit("#if defined(_WIN32)")
    emit("#include <windows.h>")
    emit("#else")
    emit("#include <pthread.h>")
    emit("#endif")
    out.extend(_half_types(mp))
    emit("#ifndef __cplusplus")
    emit("#include <stdbool.h>")
    emit("#endif")
    emit("")
    emit("#ifdef __cplusplus")
    emit('extern "C" {')
    emit("#endif")
    emit("")

    # ---- shared definitions (once per program, whichever tritonc header comes first)
    emit(f"#ifndef {mp}KERNEL_METADATA_V1")
    emit(f"#define {mp}KERNEL_METADATA_V1")
    emit("/* Describes one compiled kernel; shared by every tritonc-generated header. */")
    emit(f"struct {tp}kernel_metadata {{")
    emit("    const char *name;")
    emit("    const char *signature;     /* the Triton-C parameter list */")
    emit("    const char *arch;          /* sm_80, sm_86, sm_89, sm_90 or sm_90a */")
    emit("    unsigned int num_warps;")
    emit("    unsigned int block_threads; /* num_warps * 32, along x */")
    emit("    unsigned int shared_bytes;  /* dynamic shared memory per block */")
    emit("    unsigned int num_params;")
    emit("    const char *defines;       /* NAME=VALUE;NAME=VALUE (sorted) */")
    emit("};")
    emit("#endif")
    emit("")
    if any(k.grid is not None for k in kernels):
        from .grid import c_helper_definitions

        out.extend(_grid_names(line, P) for line in c_helper_definitions())
        emit("")
    if any(d.tuning is not None for d in dispatchers):
        from .tuned import c_helper_definitions as tuned_helpers

        out.extend(tuned_helpers(tp, mp))
        emit("")
    if namespaces:
        emit("#ifdef __cplusplus")
        emit('}  /* extern "C" */')
        emit(" ".join(f"namespace {ns} {{" for ns in namespaces))
        emit("#endif")
        emit("")
    emit(f"#ifndef {mp}THREADS_V1")
    emit(f"#define {mp}THREADS_V1")
    emit("/* The module table's lock (statically initialised) and thread-local error state. */")
    emit("#if defined(_WIN32)")
    emit(f"#define {mp}MUTEX SRWLOCK")
    emit(f"#define {mp}MUTEX_INIT SRWLOCK_INIT")
    emit(f"#define {mp}LOCK(m) AcquireSRWLockExclusive(m)")
    emit(f"#define {mp}UNLOCK(m) ReleaseSRWLockExclusive(m)")
    emit("#else")
    emit(f"#define {mp}MUTEX pthread_mutex_t")
    emit(f"#define {mp}MUTEX_INIT PTHREAD_MUTEX_INITIALIZER")
    emit(f"#define {mp}LOCK(m) ((void)pthread_mutex_lock(m))")
    emit(f"#define {mp}UNLOCK(m) ((void)pthread_mutex_unlock(m))")
    emit("#endif")
    emit("#if defined(__cplusplus) && __cplusplus >= 201103L")
    emit(f"#define {mp}THREAD_LOCAL thread_local")
    emit("#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L")
    emit(f"#define {mp}THREAD_LOCAL _Thread_local")
    emit("#elif defined(__GNUC__) || defined(__clang__)")
    emit(f"#define {mp}THREAD_LOCAL __thread")
    emit("#elif defined(_MSC_VER)")
    emit(f"#define {mp}THREAD_LOCAL __declspec(thread)")
    emit("#else")
    emit('#error "a tritonc header needs thread-local storage (C11, C++11, GCC, Clang or MSVC)"')
    emit("#endif")
    emit("#endif")
    emit(f"#ifndef {mp}MAX_CONTEXTS")
    emit(f"#define {mp}MAX_CONTEXTS 16")
    emit("#endif")
    emit(f"#ifndef {mp}ATTRIBUTES_V1")
    emit(f"#define {mp}ATTRIBUTES_V1")
    emit("#if defined(__GNUC__) || defined(__clang__)")
    emit(f"#define {mp}UNUSED __attribute__((unused))")
    emit(f"#define {mp}ALIGNED_16 __attribute__((aligned(16)))")
    emit("#elif defined(_MSC_VER)")
    emit(f"#define {mp}UNUSED")
    emit(f"#define {mp}ALIGNED_16 __declspec(align(16))")
    emit("#else")
    emit(f"#define {mp}UNUSED")
    emit(f"#define {mp}ALIGNED_16")
    emit("#endif")
    emit("#endif")
    emit("")

    # ---- the cubin and the per-context module table
    defs_start = len(out)
    emit(f"static const {mp}ALIGNED_16 unsigned char {mod}_cubin[{len(cubin)}] = {{")
    out.extend(_hex_array(cubin))
    emit("};")
    emit("")
    emit("/* The module loaded in one CUDA context, with the function of each kernel. */")
    emit(f"struct {mod}_loaded {{")
    emit("    unsigned long long context_id; /* cuCtxGetId; 0 marks a free slot */")
    emit("    CUmodule module;")
    emit(f"    CUfunction functions[{nf}];")
    emit("};")
    emit(f"static struct {mod}_loaded {mod}_table[{mp}MAX_CONTEXTS];")
    emit(f"static {mp}THREAD_LOCAL const char *{mod}_refused = NULL; /* per thread */")
    emit(f"static {mp}MUTEX {mod}_lock = {mp}MUTEX_INIT; /* guards {mod}_table */")
    emit("")
    emit(f"static const char *const {mod}_names[{nf}] = {{"
         + ", ".join(c_string_literal(name) for name, _ in functions) + "};")
    emit(f"static const unsigned int {mod}_shared_bytes[{nf}] = {{"
         + ", ".join(f"{shared}u" for _, shared in functions) + "};")
    emit("")
    emit("/* Find this header's module in the current context; load it there when `load` is set and it")
    emit(" * is missing. `*out` is NULL when it is neither loaded nor to be loaded. */")
    emit(f"static inline CUresult {mod}_find_locked(int load, struct {mod}_loaded **out)")
    emit("{")
    emit("    CUcontext context = NULL;")
    emit("    unsigned long long id = 0;")
    emit(f"    struct {mod}_loaded *free_slot = NULL;")
    emit("    CUmodule module = NULL;")
    emit(f"    CUfunction functions[{nf}];")
    emit("    CUresult err;")
    emit("    int i;")
    emit("    *out = NULL;")
    emit("    err = cuCtxGetCurrent(&context);")
    emit("    if (err != CUDA_SUCCESS) return err;")
    emit("    if (context == NULL) return CUDA_ERROR_INVALID_CONTEXT;")
    emit("    err = cuCtxGetId(context, &id);")
    emit("    if (err != CUDA_SUCCESS) return err;")
    emit(f"    for (i = 0; i < {mp}MAX_CONTEXTS; ++i) {{")
    emit(f"        if ({mod}_table[i].context_id == id) {{")
    emit(f"            *out = &{mod}_table[i];")
    emit("            return CUDA_SUCCESS;")
    emit("        }")
    emit(f"        if ({mod}_table[i].context_id == 0 && free_slot == NULL) free_slot = &{mod}_table[i];")
    emit("    }")
    emit("    if (!load) return CUDA_SUCCESS;")
    emit("    if (free_slot == NULL) return CUDA_ERROR_OUT_OF_MEMORY;")
    emit(f"    err = cuModuleLoadData(&module, {mod}_cubin);")
    emit("    if (err != CUDA_SUCCESS) return err;")
    emit(f"    for (i = 0; i < {nf}; ++i) {{")
    emit(f"        err = cuModuleGetFunction(&functions[i], module, {mod}_names[i]);")
    emit(f"        if (err == CUDA_SUCCESS && {mod}_shared_bytes[i] > {DEFAULT_SHARED_LIMIT}u)")
    emit("            err = cuFuncSetAttribute(functions[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,")
    emit(f"                                     (int){mod}_shared_bytes[i]);")
    emit("        if (err != CUDA_SUCCESS) {")
    emit("            cuModuleUnload(module);")
    emit("            return err;")
    emit("        }")
    emit("    }")
    emit("    free_slot->module = module;")
    emit(f"    for (i = 0; i < {nf}; ++i) free_slot->functions[i] = functions[i];")
    emit("    free_slot->context_id = id;")
    emit("    *out = free_slot;")
    emit("    return CUDA_SUCCESS;")
    emit("}")
    emit("")
    emit("/* The same under the table's lock: threads that launch first at once load the module once. */")
    emit(f"static inline CUresult {mod}_find(int load, struct {mod}_loaded **out)")
    emit("{")
    emit("    CUresult err;")
    emit(f"    {mp}LOCK(&{mod}_lock);")
    emit(f"    err = {mod}_find_locked(load, out);")
    emit(f"    {mp}UNLOCK(&{mod}_lock);")
    emit("    return err;")
    emit("}")
    emit("")
    emit(f"static inline CUresult {mod}_unload(void)")
    emit("{")
    emit(f"    struct {mod}_loaded *loaded = NULL;")
    emit("    CUresult err;")
    emit(f"    {mp}LOCK(&{mod}_lock);")
    emit(f"    err = {mod}_find_locked(0, &loaded);")
    emit("    if (err == CUDA_SUCCESS && loaded != NULL) {")
    emit("        err = cuModuleUnload(loaded->module);")
    emit("        loaded->context_id = 0;")
    emit("        loaded->module = NULL;")
    emit("    }")
    emit(f"    {mp}UNLOCK(&{mod}_lock);")
    emit("    return err;")
    emit("}")

    # ---- per-kernel API
    index = 0  # the kernel's place in the function table
    for k in kernels:
        cnames = c_param_names(k.params, P)
        emit("")
        emit(f"/* ---- {k.name} ---- */")
        emit("")
        emit(f"static const struct {tp}kernel_metadata {P}{k.name}_metadata {mp}UNUSED = {{")
        emit(f"    {c_string_literal(k.name)},")
        emit(f"    {c_string_literal(k.signature.triton_c())},")
        emit(f"    {c_string_literal(k.arch)},")
        emit(f"    {k.num_warps}u,")
        emit(f"    {k.block_threads}u,")
        emit(f"    {k.shared_bytes}u,")
        emit(f"    {len(k.params)}u,")
        emit(f"    {c_string_literal(k.defines_string())},")
        emit("};")
        emit("")
        emit(f"/* Load the cubin into the current context now rather than at the first launch of {k.name}. */")
        emit(f"static inline CUresult {P}{k.name}_load(void)")
        emit("{")
        emit(f"    struct {mod}_loaded *loaded = NULL;")
        emit(f"    return {mod}_find(1, &loaded);")
        emit("}")
        emit("")
        if nk > 1:
            emit(f"/* Unload the cubin from the current context (this also unloads "
                 + ", ".join(o.name for o in kernels if o is not k) + "; the next launch reloads it). */")
        else:
            emit("/* Unload the cubin from the current context (the next launch reloads it). */")
        emit(f"static inline CUresult {P}{k.name}_unload(void)")
        emit("{")
        emit(f"    return {mod}_unload();")
        emit("}")
        emit("")
        emit("/* Why the last launch of a kernel of this header was refused (NULL if none was). */")
        emit(f"static inline const char *{P}{k.name}_last_error(void)")
        emit("{")
        emit(f"    return {mod}_refused;")
        emit("}")
        emit("")
        args = ["CUstream stream", "unsigned int grid_x", "unsigned int grid_y", "unsigned int grid_z"]
        for p, cname in zip(k.params, cnames):
            args.append(f"{c_arg_type(p, P)} {cname}")
        launch_name = P + (k.name if k.grid is None else f"{k.name}_with_grid")
        emit(f"/* {_comment_safe(k.signature.triton_c())} */")
        if k.grid is not None:
            emit("/* with an explicit grid (the declared one is computed by the function below) */")
        emit(f"static inline CUresult {launch_name}(" + ",\n        ".join(args) + ")")
        emit("{")
        emit(f"    struct {mod}_loaded *tritonc_loaded = NULL;")
        emit("    CUresult tritonc_err;")
        bool_copies = [(i, cname) for i, (p, cname) in enumerate(zip(k.params, cnames))
                       if not p.is_pointer and p.dtype == "bool"]
        if k.params:
            emit(f"    void *tritonc_params[{len(k.params)}];")
        for i, cname in bool_copies:
            emit(f"    uint8_t tritonc_bool_{i} = {cname} ? 1 : 0; /* bool travels as 8 bits */")
        out.extend(_promise_checks(k, cnames, mod))
        emit(f"    {mod}_refused = NULL;")
        emit("    if (grid_x == 0u || grid_y == 0u || grid_z == 0u) return CUDA_SUCCESS;")
        emit(f"    tritonc_err = {mod}_find(1, &tritonc_loaded);")
        emit("    if (tritonc_err != CUDA_SUCCESS) return tritonc_err;")
        bool_index = {i for i, _ in bool_copies}
        for i, cname in enumerate(cnames):
            source = f"tritonc_bool_{i}" if i in bool_index else cname
            emit(f"    tritonc_params[{i}] = &{source};")
        params_arg = "tritonc_params" if k.params else "NULL"
        if k.variants:
            out.extend(_variant_dispatch(k, cnames, index))
            emit("    return cuLaunchKernel(tritonc_loaded->functions[tritonc_fn], grid_x, grid_y, grid_z, "
                 f"{k.block_threads}u, 1u, 1u,")
            emit(f"                          {mod}_shared_bytes[tritonc_fn], stream, {params_arg}, NULL);")
        else:
            emit(f"    return cuLaunchKernel(tritonc_loaded->functions[{index}], grid_x, grid_y, grid_z, "
                 f"{k.block_threads}u, 1u, 1u,")
            emit(f"                          {k.shared_bytes}u, stream, {params_arg}, NULL);")
        emit("}")
        if k.grid is not None:
            out.extend(_declared_grid_launcher(k, cnames, mod, P))
        index += 1 + len(k.variants)

    by_name = {k.name: k for k in kernels}
    for d in dispatchers:
        _check_dispatcher(d, by_name)
        out.extend(_dispatcher_api(d, by_name, P))

    out[defs_start:] = _linkage_modes(out[defs_start:], mod, mp)
    emit("")
    emit("#ifdef __cplusplus")
    if namespaces:
        emit(" ".join("}" for _ in namespaces) + f"  /* namespace {cpp_namespace} */")
    else:
        emit('}  /* extern "C" */')
    emit("#endif")
    return "\n".join(out) + "\n"


def _linkage_modes(lines: list[str], mod: str, mp: str) -> list[str]:
    """Wrap the header's definitions (``lines``: the cubin, the module table and the launch
    functions) in its three stb-style modes, chosen by the including file:

    * ``<MP>IMPLEMENTATION`` or ``TRITONC_IMPLEMENTATION`` defined: this translation unit
      defines the public functions and ``<kernel>_metadata`` with external linkage, and holds
      the one copy of the cubin and module table of the program;
    * else ``<MP>EXTERN`` or ``TRITONC_EXTERN`` defined: only their declarations;
    * else (the default, as before): everything ``static``, the header is self-contained.

    Public functions are those whose name does not start with ``mod`` (the private prefix)."""
    tag = f"{mp}MODE_{mod}"
    api, data = f"{tag}_API", f"{tag}_DATA"
    body: list[str] = []
    prototypes: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("static inline ") and not re.match(rf"static inline [^(]*\b{mod}_\w+\(", line):
            signature = [line[len("static inline "):]]
            if ") {" in line:  # a one-line function
                head = signature[0][:signature[0].index(") {") + 1]
                prototypes.append(head + ";")
                body.append(f"{api} " + signature[0])
                i += 1
                continue
            while not signature[-1].endswith(")"):
                i += 1
                signature.append(lines[i])
            prototypes.append("\n".join(signature) + ";")
            body.append(f"{api} " + signature[0])
            body.extend(signature[1:])
        elif re.fullmatch(r"static const struct \w+ \w+_metadata \w+ = \{", line):
            decl = line[len("static "):-len(" = {")].replace(f" {mp}UNUSED", "")
            prototypes.append(f"extern {decl};")
            body.append(f"{data} " + line[len("static "):])
        else:
            body.append(line)
        i += 1
    return ["/* Linkage (docs/cli.md): define TRITONC_IMPLEMENTATION or " + mp + "IMPLEMENTATION before",
            " * including this header in one file of a program, and TRITONC_EXTERN or " + mp + "EXTERN in",
            " * the others, to keep one copy of the cubin; with neither, everything is static. */",
            f"#if defined({mp}IMPLEMENTATION) || defined(TRITONC_IMPLEMENTATION)",
            f"#define {tag} 2",
            f"#elif defined({mp}EXTERN) || defined(TRITONC_EXTERN)",
            f"#define {tag} 1",
            "#else",
            f"#define {tag} 0",
            "#endif",
            f"#if {tag} == 0",
            f"#define {api} static inline",
            f"#define {data} static",
            "#else",
            f"#define {api}",
            f"#define {data}",
            *prototypes,
            "#endif",
            f"#if {tag} != 1",
            *body,
            f"#endif /* {tag} != 1 */"]


def _check_dispatcher(d: Dispatcher, by_name: dict[str, CompiledKernel]) -> None:
    missing = [v for v in d.variants if v not in by_name]
    if missing:
        raise ValueError(f"dispatcher '{d.name}': no kernel '{missing[0]}'")
    if d.name in by_name:
        raise ValueError(f"dispatcher '{d.name}' has the name of a kernel")
    ks = [by_name[v] for v in d.variants]
    if any(k.params != ks[0].params or (k.grid is None) != (ks[0].grid is None) for k in ks):
        raise ValueError(f"dispatcher '{d.name}': its variants have different parameters or grid kinds")


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

