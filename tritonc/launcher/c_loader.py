"""The loader of the generated header (:mod:`.c_header`): the embedded cubin and the per-context
module table that loads it, with the function of every kernel and variant, and the stb-style
linkage modes wrapping the header's definitions.

* The cubin (or the fatbin of a multi-arch build: ``cuModuleLoadData`` takes either) is a
  16-byte-aligned ``unsigned char`` array.
* Lazy load, one module per CUDA context: ``<mod>_find`` looks the current context up by
  ``cuCtxGetId`` in a table of ``<MP>MAX_CONTEXTS`` slots (``CUDA_ERROR_OUT_OF_MEMORY`` when it
  is full) under a statically initialised mutex, and loads the module there when asked:
  ``cuModuleLoadData``, ``cuModuleGetFunction`` for each entry of the function table (each
  kernel, then its variants) and ``cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)``
  for a function above :data:`DEFAULT_SHARED_LIMIT` bytes of dynamic shared memory.
* ``<mod>_unload`` unloads the module of the current context; ``<mod>_refused`` (thread-local)
  holds why the last launch was refused.

``<mod>`` is the header's private prefix (``P + "tritonc_" + first kernel name``), ``<MP>`` its
macro prefix (:func:`~tritonc.launcher.c_text.header_names`).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from tritonc.launcher.c_text import c_string_literal
from tritonc.launcher.signature import CompiledKernel

#: Above this many bytes of dynamic shared memory a kernel needs an explicit opt-in.
DEFAULT_SHARED_LIMIT = 48 * 1024


def loader_macros(mp: str) -> list[str]:
    """The macros of the module table (once per program, whichever tritonc header comes first):
    ``<mp>MUTEX`` / ``<mp>LOCK`` / ``<mp>UNLOCK``, ``<mp>THREAD_LOCAL``, ``<mp>MAX_CONTEXTS``,
    and the ``<mp>UNUSED`` / ``<mp>ALIGNED_16`` attributes."""
    return [f"#ifndef {mp}THREADS_V1",
            f"#define {mp}THREADS_V1",
            "/* The module table's lock (statically initialised) and thread-local error state. */",
            "#if defined(_WIN32)",
            f"#define {mp}MUTEX SRWLOCK",
            f"#define {mp}MUTEX_INIT SRWLOCK_INIT",
            f"#define {mp}LOCK(m) AcquireSRWLockExclusive(m)",
            f"#define {mp}UNLOCK(m) ReleaseSRWLockExclusive(m)",
            "#else",
            f"#define {mp}MUTEX pthread_mutex_t",
            f"#define {mp}MUTEX_INIT PTHREAD_MUTEX_INITIALIZER",
            f"#define {mp}LOCK(m) ((void)pthread_mutex_lock(m))",
            f"#define {mp}UNLOCK(m) ((void)pthread_mutex_unlock(m))",
            "#endif",
            "#if defined(__cplusplus) && __cplusplus >= 201103L",
            f"#define {mp}THREAD_LOCAL thread_local",
            "#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L",
            f"#define {mp}THREAD_LOCAL _Thread_local",
            "#elif defined(__GNUC__) || defined(__clang__)",
            f"#define {mp}THREAD_LOCAL __thread",
            "#elif defined(_MSC_VER)",
            f"#define {mp}THREAD_LOCAL __declspec(thread)",
            "#else",
            '#error "a tritonc header needs thread-local storage (C11, C++11, GCC, Clang or MSVC)"',
            "#endif",
            "#endif",
            f"#ifndef {mp}MAX_CONTEXTS",
            f"#define {mp}MAX_CONTEXTS 16",
            "#endif",
            f"#ifndef {mp}ATTRIBUTES_V1",
            f"#define {mp}ATTRIBUTES_V1",
            "#if defined(__GNUC__) || defined(__clang__)",
            f"#define {mp}UNUSED __attribute__((unused))",
            f"#define {mp}ALIGNED_16 __attribute__((aligned(16)))",
            "#elif defined(_MSC_VER)",
            f"#define {mp}UNUSED",
            f"#define {mp}ALIGNED_16 __declspec(align(16))",
            "#else",
            f"#define {mp}UNUSED",
            f"#define {mp}ALIGNED_16",
            "#endif",
            "#endif",
            ""]


def module_definitions(kernels: Sequence[CompiledKernel], mod: str, mp: str) -> list[str]:
    """The cubin, the module table, ``<mod>_find`` and ``<mod>_unload``. The function table
    holds each kernel, then its variants: a kernel's launcher indexes it from the kernel's place."""
    functions = [(f.name, f.shared_bytes) for k in kernels for f in (k, *k.variants)]
    return (_embedded_cubin(kernels[0].image, mod, mp) + _module_table(functions, mod, mp)
            + _find_functions(len(functions), mod, mp) + _unload_function(mod, mp))


def _embedded_cubin(image: bytes, mod: str, mp: str) -> list[str]:
    return ([f"static const {mp}ALIGNED_16 unsigned char {mod}_cubin[{len(image)}] = {{"]
            + _hex_array(image) + ["};", ""])


def _hex_array(data: bytes, per_line: int = 16) -> list[str]:
    lines = []
    for i in range(0, len(data), per_line):
        chunk = data[i:i + per_line]
        lines.append("    " + ", ".join(f"0x{b:02x}" for b in chunk) + ",")
    return lines


def _module_table(functions: list[tuple[str, int]], mod: str, mp: str) -> list[str]:
    """The table's type and slots, the refusal message, the lock, and the name and dynamic shared
    memory of each function."""
    nf = len(functions)
    return ["/* The module loaded in one CUDA context, with the function of each kernel. */",
            f"struct {mod}_loaded {{",
            "    unsigned long long context_id; /* cuCtxGetId; 0 marks a free slot */",
            "    CUmodule module;",
            f"    CUfunction functions[{nf}];",
            "};",
            f"static struct {mod}_loaded {mod}_table[{mp}MAX_CONTEXTS];",
            f"static {mp}THREAD_LOCAL const char *{mod}_refused = NULL; /* per thread */",
            f"static {mp}MUTEX {mod}_lock = {mp}MUTEX_INIT; /* guards {mod}_table */",
            "",
            f"static const char *const {mod}_names[{nf}] = {{"
            + ", ".join(c_string_literal(name) for name, _ in functions) + "};",
            f"static const unsigned int {mod}_shared_bytes[{nf}] = {{"
            + ", ".join(f"{shared}u" for _, shared in functions) + "};",
            ""]


def _find_functions(nf: int, mod: str, mp: str) -> list[str]:
    """``<mod>_find_locked`` (look the current context up, load the module there) and
    ``<mod>_find`` (the same under the lock)."""
    return ["/* Find this header's module in the current context; load it there when `load` is set and it",
            " * is missing. `*out` is NULL when it is neither loaded nor to be loaded. */",
            f"static inline CUresult {mod}_find_locked(int load, struct {mod}_loaded **out)",
            "{",
            "    CUcontext context = NULL;",
            "    unsigned long long id = 0;",
            f"    struct {mod}_loaded *free_slot = NULL;",
            "    CUmodule module = NULL;",
            f"    CUfunction functions[{nf}];",
            "    CUresult err;",
            "    int i;",
            "    *out = NULL;",
            "    err = cuCtxGetCurrent(&context);",
            "    if (err != CUDA_SUCCESS) return err;",
            "    if (context == NULL) return CUDA_ERROR_INVALID_CONTEXT;",
            "    err = cuCtxGetId(context, &id);",
            "    if (err != CUDA_SUCCESS) return err;",
            f"    for (i = 0; i < {mp}MAX_CONTEXTS; ++i) {{",
            f"        if ({mod}_table[i].context_id == id) {{",
            f"            *out = &{mod}_table[i];",
            "            return CUDA_SUCCESS;",
            "        }",
            f"        if ({mod}_table[i].context_id == 0 && free_slot == NULL) free_slot = &{mod}_table[i];",
            "    }",
            "    if (!load) return CUDA_SUCCESS;",
            "    if (free_slot == NULL) return CUDA_ERROR_OUT_OF_MEMORY;",
            f"    err = cuModuleLoadData(&module, {mod}_cubin);",
            "    if (err != CUDA_SUCCESS) return err;",
            f"    for (i = 0; i < {nf}; ++i) {{",
            f"        err = cuModuleGetFunction(&functions[i], module, {mod}_names[i]);",
            f"        if (err == CUDA_SUCCESS && {mod}_shared_bytes[i] > {DEFAULT_SHARED_LIMIT}u)",
            "            err = cuFuncSetAttribute(functions[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,",
            f"                                     (int){mod}_shared_bytes[i]);",
            "        if (err != CUDA_SUCCESS) {",
            "            cuModuleUnload(module);",
            "            return err;",
            "        }",
            "    }",
            "    free_slot->module = module;",
            f"    for (i = 0; i < {nf}; ++i) free_slot->functions[i] = functions[i];",
            "    free_slot->context_id = id;",
            "    *out = free_slot;",
            "    return CUDA_SUCCESS;",
            "}",
            "",
            "/* The same under the table's lock: threads that launch first at once load the module once. */",
            f"static inline CUresult {mod}_find(int load, struct {mod}_loaded **out)",
            "{",
            "    CUresult err;",
            f"    {mp}LOCK(&{mod}_lock);",
            f"    err = {mod}_find_locked(load, out);",
            f"    {mp}UNLOCK(&{mod}_lock);",
            "    return err;",
            "}",
            ""]


def _unload_function(mod: str, mp: str) -> list[str]:
    return [f"static inline CUresult {mod}_unload(void)",
            "{",
            f"    struct {mod}_loaded *loaded = NULL;",
            "    CUresult err;",
            f"    {mp}LOCK(&{mod}_lock);",
            f"    err = {mod}_find_locked(0, &loaded);",
            "    if (err == CUDA_SUCCESS && loaded != NULL) {",
            "        err = cuModuleUnload(loaded->module);",
            "        loaded->context_id = 0;",
            "        loaded->module = NULL;",
            "    }",
            f"    {mp}UNLOCK(&{mod}_lock);",
            "    return err;",
            "}"]


def linkage_modes(lines: list[str], mod: str, mp: str) -> list[str]:
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
