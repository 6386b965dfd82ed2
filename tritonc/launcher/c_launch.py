"""The launch functions of the generated header (:mod:`.c_header`): for every kernel ``K`` its
metadata, ``K_load`` / ``K_unload`` / ``K_last_error`` (over the loader's module table,
:mod:`.c_loader`) and ``K(...)``, and the dispatchers' API over their variants.

* ``K(stream, grid_x, grid_y, grid_z, args...)`` (``K_with_grid`` for a kernel with a declared
  grid): checks the ``__multipleof`` / ``__aligned`` promises (a broken one sets
  ``<mod>_refused`` and returns ``CUDA_ERROR_INVALID_VALUE``), returns ``CUDA_SUCCESS`` on an
  empty grid, finds (or loads) the module of the current context, packs the arguments
  (``bool`` as 8 bits) and launches the first specialised variant whose facts hold, else ``K``.
* A kernel with a declared grid (``__grid`` or ``--grid``) also gets ``K(stream, args...)``,
  computing the grid from the arguments (:mod:`.grid`) and calling ``K_with_grid``.
* A :class:`~tritonc.launcher.signature.Dispatcher` ``D`` gets ``D(...)`` (the default variant,
  or the one its tuning table picks, :mod:`.tuned`), ``D_by_id``, ``D_num_variants``,
  ``D_default_variant``, ``D_variant_meta``, ``D_variant_metadata`` and the module functions.
"""
from __future__ import annotations

from collections.abc import Sequence

from tritonc.launcher.c_text import c_string_literal, comment_safe, grid_names, header_names
from tritonc.launcher.facts import fact as fact_named
from tritonc.launcher.signature import C_RESERVED, CompiledKernel, Dispatcher, KernelParam, distinct_param_names

#: Names a kernel parameter may not keep in C: they are types, macros or the launcher's own
#: parameters; such parameters get a trailing underscore.
_C_PARAM_RESERVED = C_RESERVED | frozenset("""
stream grid_x grid_y grid_z variant int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
size_t ptrdiff_t intptr_t uintptr_t CUdeviceptr CUstream CUresult CUfunction CUmodule CUcontext
CUDA_SUCCESS CUDA_ERROR_INVALID_VALUE cuLaunchKernel
""".split())


def c_param_names(params: Sequence[KernelParam], prefix: str = "") -> list[str]:
    """The C names of ``params``: the Triton-C names, except that names that are C/C++
    keywords, standard types or the launcher's own parameters get a trailing ``_`` and names
    in tritonc's ``tritonc_`` namespace (or starting with the header's symbol ``prefix``) get an
    ``arg_`` prefix (kept unique)."""
    def renamed(name: str) -> str:
        return "arg_" + name if name.startswith("tritonc_") or (prefix and name.startswith(prefix)) else name
    return distinct_param_names(params, _C_PARAM_RESERVED, renamed)


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


def _argument_declarations(params: Sequence[KernelParam], cnames: list[str], prefix: str) -> list[str]:
    """``<C type> <name>`` of each launcher argument (:func:`c_arg_type`)."""
    return [f"{c_arg_type(p, prefix)} {cname}" for p, cname in zip(params, cnames)]


def kernel_apis(kernels: Sequence[CompiledKernel], mod: str, prefix: str = "") -> list[str]:
    """The API of each kernel of the header, in the order of the loader's function table."""
    lines: list[str] = []
    index = 0  # the kernel's place in the function table
    for k in kernels:
        others = [o.name for o in kernels if o is not k]
        lines += _kernel_api(k, others, index, mod, prefix)
        index += 1 + len(k.variants)
    return lines


def _kernel_api(k: CompiledKernel, others: list[str], index: int, mod: str, prefix: str) -> list[str]:
    """``K_metadata``, the module functions and the launchers of kernel ``k``, whose function
    table entry is ``index``; ``others``: the header's other kernels."""
    cnames = c_param_names(k.params, prefix)
    lines = ["", f"/* ---- {k.name} ---- */", ""]
    lines += _kernel_metadata(k, prefix)
    lines += _module_functions(k, others, mod, prefix)
    lines += _launch_function(k, cnames, index, mod, prefix)
    if k.grid is not None:
        lines += _declared_grid_launcher(k, cnames, mod, prefix)
    return lines


def _kernel_metadata(k: CompiledKernel, prefix: str) -> list[str]:
    tp, mp = header_names(prefix)
    return [f"static const struct {tp}kernel_metadata {prefix}{k.name}_metadata {mp}UNUSED = {{",
            f"    {c_string_literal(k.name)},",
            f"    {c_string_literal(k.signature.triton_c())},",
            f"    {c_string_literal(k.arch)},",
            f"    {k.num_warps}u,",
            f"    {k.block_threads}u,",
            f"    {k.shared_bytes}u,",
            f"    {len(k.params)}u,",
            f"    {c_string_literal(k.defines_string())},",
            "};",
            ""]


def _module_functions(k: CompiledKernel, others: list[str], mod: str, prefix: str) -> list[str]:
    """``K_load``, ``K_unload`` and ``K_last_error``: the loader's module functions under the
    kernel's name."""
    name = prefix + k.name
    if others:
        unload = ("/* Unload the cubin from the current context (this also unloads "
                  + ", ".join(others) + "; the next launch reloads it). */")
    else:
        unload = "/* Unload the cubin from the current context (the next launch reloads it). */"
    return [f"/* Load the cubin into the current context now rather than at the first launch of {k.name}. */",
            f"static inline CUresult {name}_load(void)",
            "{",
            f"    struct {mod}_loaded *loaded = NULL;",
            f"    return {mod}_find(1, &loaded);",
            "}",
            "",
            unload,
            f"static inline CUresult {name}_unload(void)",
            "{",
            f"    return {mod}_unload();",
            "}",
            "",
            "/* Why the last launch of a kernel of this header was refused (NULL if none was). */",
            f"static inline const char *{name}_last_error(void)",
            "{",
            f"    return {mod}_refused;",
            "}",
            ""]


def _launch_function(k: CompiledKernel, cnames: list[str], index: int, mod: str, prefix: str) -> list[str]:
    """``K(stream, grid_x, grid_y, grid_z, args...)`` (``K_with_grid`` for a declared grid):
    promise checks, empty grid, module lookup, argument packing, launch."""
    args = ["CUstream stream", "unsigned int grid_x", "unsigned int grid_y", "unsigned int grid_z"]
    args += _argument_declarations(k.params, cnames, prefix)
    launch_name = prefix + (k.name if k.grid is None else f"{k.name}_with_grid")
    lines = [f"/* {comment_safe(k.signature.triton_c())} */"]
    if k.grid is not None:
        lines.append("/* with an explicit grid (the declared one is computed by the function below) */")
    lines += [f"static inline CUresult {launch_name}(" + ",\n        ".join(args) + ")",
              "{",
              f"    struct {mod}_loaded *tritonc_loaded = NULL;",
              "    CUresult tritonc_err;"]
    bool_copies = [(i, cname) for i, (p, cname) in enumerate(zip(k.params, cnames))
                   if not p.is_pointer and p.dtype == "bool"]
    if k.params:
        lines.append(f"    void *tritonc_params[{len(k.params)}];")
    for i, cname in bool_copies:
        lines.append(f"    uint8_t tritonc_bool_{i} = {cname} ? 1 : 0; /* bool travels as 8 bits */")
    lines += _promise_checks(k, cnames, mod)
    lines += [f"    {mod}_refused = NULL;",
              "    if (grid_x == 0u || grid_y == 0u || grid_z == 0u) return CUDA_SUCCESS;",
              f"    tritonc_err = {mod}_find(1, &tritonc_loaded);",
              "    if (tritonc_err != CUDA_SUCCESS) return tritonc_err;"]
    bool_index = {i for i, _ in bool_copies}
    for i, cname in enumerate(cnames):
        source = f"tritonc_bool_{i}" if i in bool_index else cname
        lines.append(f"    tritonc_params[{i}] = &{source};")
    return lines + _launch_call(k, cnames, index, mod) + ["}"]


def _launch_call(k: CompiledKernel, cnames: list[str], index: int, mod: str) -> list[str]:
    """``cuLaunchKernel`` of the kernel's function table entry ``index``, or of the variant
    :func:`_variant_dispatch` picks."""
    params_arg = "tritonc_params" if k.params else "NULL"
    if k.variants:
        lines = _variant_dispatch(k, cnames, index)
        fn, shared = "tritonc_fn", f"{mod}_shared_bytes[tritonc_fn]"
    else:
        lines, fn, shared = [], f"{index}", f"{k.shared_bytes}u"
    return lines + [f"    return cuLaunchKernel(tritonc_loaded->functions[{fn}], grid_x, grid_y, grid_z, "
                    f"{k.block_threads}u, 1u, 1u,",
                    f"                          {shared}, stream, {params_arg}, NULL);"]


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
    args = ["CUstream stream"] + _argument_declarations(k.params, cnames, prefix)
    dims = list(k.grid) + [("int", 1)] * (3 - len(k.grid))
    lines = ["",
             f"/* {comment_safe(k.signature.triton_c())}",
             f" * on its declared grid ({comment_safe(grid_text(k.grid))}) */",
             f"static inline CUresult {prefix}{k.name}(" + ",\n        ".join(args) + ")",
             "{",
             "    int tritonc_bad = 0;",
             "    long long tritonc_grid[3];",
             "    static const long long tritonc_limit[3] = {2147483647LL, 65535LL, 65535LL};",
             "    int tritonc_axis;"]
    for axis, d in enumerate(dims):
        lines.append(f"    tritonc_grid[{axis}] = {grid_names(grid_c(d, names), prefix)};")
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
    args += _argument_declarations(first.params, cnames, prefix)
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
              f"/* {comment_safe(first.signature.triton_c().replace(first.name, d.name, 1))}: the default variant"
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


def dispatcher_apis(dispatchers: Sequence[Dispatcher], kernels: Sequence[CompiledKernel],
                    prefix: str = "") -> list[str]:
    """The API of each dispatcher over its variants among ``kernels``; ``ValueError`` for a
    dispatcher that does not fit them (:func:`_check_dispatcher`)."""
    by_name = {k.name: k for k in kernels}
    lines: list[str] = []
    for d in dispatchers:
        _check_dispatcher(d, by_name)
        lines += _dispatcher_api(d, by_name, prefix)
    return lines


def _check_dispatcher(d: Dispatcher, by_name: dict[str, CompiledKernel]) -> None:
    missing = [v for v in d.variants if v not in by_name]
    if missing:
        raise ValueError(f"dispatcher '{d.name}': no kernel '{missing[0]}'")
    if d.name in by_name:
        raise ValueError(f"dispatcher '{d.name}' has the name of a kernel")
    ks = [by_name[v] for v in d.variants]
    if any(k.params != ks[0].params or (k.grid is None) != (ks[0].grid is None) for k in ks):
        raise ValueError(f"dispatcher '{d.name}': its variants have different parameters or grid kinds")
