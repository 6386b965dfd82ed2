"""Generate a Python launcher module that embeds a cubin and launches its kernels.

The module needs only numpy and cuda-python (``cuda.core``) at run time; torch and CuPy are
optional. For every kernel ``K(p0, p1, ...)`` of the cubin it defines::

    K(p0, p1, ..., *, grid=None, stream=None)
        # grid: int or tuple of 1-3 ints, or a callable of K.meta (Triton's grid=lambda meta:
        # ...), or None for the kernel's declared grid (__grid / --grid)
    K.meta                                 # tunables, num_warps, num_stages
    K.metadata                             # the same dict as metadata["K"]
    metadata = {"K": {...}, ...}           # name, arch, num_warps, shared_bytes, params, defines

Argument checking and conversion happen before any CUDA call, in code copied from
``tritonc/launcher/_launch_runtime.py`` (its docstring lists the rules and their sources).
The cubin (or the fatbin of a multi-architecture build) is embedded as base64 and loaded with
``cuda.core`` on the first launch. ``register_torch_op()`` makes the kernels torch custom ops
(the runtime's ``_register_torch_ops``; torch is imported then only), and ``--symbol-prefix``
renames the public names (:func:`prefixed_names`).

A kernel's specialised variants (``CompiledKernel.variants``) are listed in its ``_KernelSpec``;
the runtime launches the first whose facts (``eq1``, ``div16``, ``align16``, bounds such as
``le1024``: the module's ``_FACT_TESTS``, written from ``tritonc.launcher.facts.fact``) the
arguments meet (same public API).

Parameter names that are Python keywords or collide with ``grid``/``stream`` get a trailing
underscore; names starting with ``_`` get an ``arg`` prefix. Output is deterministic (no timestamps, no absolute paths) and starts with a
do-not-edit banner and one ``# tritonc-kernel: {json}`` line per kernel.
"""
from __future__ import annotations

import base64
import keyword
import os
from collections.abc import Sequence

from tritonc.files import write_atomically
from tritonc.launcher.facts import FACTS, fact
from tritonc.launcher.signature import SIGNATURE_TAG, CompiledKernel, Dispatcher, KernelParam, distinct_param_names
from tritonc.version import __version__

_RUNTIME_MARKER = "# ---- runtime ----\n"
_PY_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"grid", "stream", "variant"}


def _runtime_source() -> str:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_launch_runtime.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index(_RUNTIME_MARKER) + len(_RUNTIME_MARKER)
    return text[start:]


def py_param_names(params: Sequence[KernelParam]) -> list[str]:
    """Python names for ``params``: Triton-C names, with ``_`` appended to Python keywords and
    to ``grid``/``stream``, and ``arg`` prefixed to names starting with ``_`` (kept unique)."""
    # "arg" before a leading "_": it could shadow the module's own _module / _<kernel>_spec
    return distinct_param_names(params, _PY_RESERVED, lambda name: "arg" + name if name.startswith("_") else name)


def _check_kernels(kernels: Sequence[CompiledKernel]) -> None:
    if not kernels:
        raise ValueError("a module needs at least one kernel")
    first = kernels[0]
    seen: set[str] = set()
    for k in kernels:
        if not isinstance(k, CompiledKernel):
            raise ValueError(f"expected CompiledKernel, got {type(k).__name__}")
        if k.cubin != first.cubin or k.fatbin != first.fatbin or k.arch != first.arch:
            raise ValueError(f"kernels '{first.name}' and '{k.name}' come from different cubins; "
                             "one module holds the kernels of one cubin")
        if k.name in seen:
            raise ValueError(f"two kernels are named '{k.name}'")
        if k.name in ("metadata", "CUDAUnavailableError", "register_torch_op") or k.name.startswith("_"):
            raise ValueError(f"kernel name '{k.name}' is reserved in the Python module")
        seen.add(k.name)


def _base64_lines(data: bytes, width: int = 76) -> list[str]:
    text = base64.b64encode(data).decode("ascii")
    return [text[i:i + width] for i in range(0, len(text), width)] or [""]


def _param_doc(p: KernelParam) -> str:
    if p.is_pointer:
        what = f"{p.dtype} array (CUDA device memory) or int device address"
    else:
        what = p.dtype
    attrs = " ".join(p.attributes())
    return f"{what}{' ' + attrs if attrs else ''}"


def _metadata_lines(kernels: Sequence[CompiledKernel]) -> list[str]:
    """``metadata = {...}`` as a readable Python literal: one key per line, one parameter per line."""
    lines = ["metadata = {"]
    for k in kernels:
        lines.append(f"    {k.name!r}: {{")
        for key, value in k.metadata().items():
            if key == "params":
                lines.append("        'params': [")
                lines += [f"            {p!r}," for p in value]
                lines.append("        ],")
            else:
                lines.append(f"        {key!r}: {value!r},")
        lines.append("    },")
    lines.append("}")
    return lines


def _dispatcher_lines(d: Dispatcher, by_name: dict[str, CompiledKernel]) -> list[str]:
    """``K(args, *, grid=None, stream=None, variant=None)`` launching variant ``variant`` (the
    default when None) of :class:`Dispatcher` ``d``; ``K.variants`` lists their meta-parameters."""
    missing = [v for v in d.variants if v not in by_name]
    if missing or d.name in by_name:
        raise ValueError(f"dispatcher '{d.name}': no kernel '{missing[0]}'" if missing else
                         f"dispatcher '{d.name}' has the name of a kernel")
    ks = [by_name[v] for v in d.variants]
    if any(k.params != ks[0].params for k in ks):
        raise ValueError(f"dispatcher '{d.name}': its variants have different parameters")
    names = py_param_names(ks[0].params)
    args = ", ".join(names)
    return ["", "",
            f"_{d.name}_variants = ({', '.join(k.name for k in ks)},)",
            "", "",
            f"def {d.name}({', '.join(names + ['*', 'grid=None', 'stream=None', 'variant=None'])}):",
            f'    """Launch variant `variant` of {d.name} ({len(ks)} variants; None: the default, '
            f'{d.default}); {d.name}.variants[i] is variant i\'s meta-parameters. grid and stream as for '
            f'each variant (grid=lambda meta: ... gets that variant\'s meta)."""',
            f"    if variant is None:",
            f"        variant = {d.default}",
            f"    if not isinstance(variant, int) or isinstance(variant, bool) or not 0 <= variant < {len(ks)}:",
            f"        raise ValueError(f\"{d.name}(): variant must be an int from 0 to {len(ks) - 1}, got {{variant!r}}\")",
            f"    return _{d.name}_variants[variant]({args}{', ' if args else ''}grid=grid, stream=stream)",
            "",
            "",
            f"{d.name}.variants = [v.meta for v in _{d.name}_variants]",
            f"{d.name}.default_variant = {d.default}",
            f"{d.name}.meta = {d.name}.variants[{d.default}]",
            f"{d.name}.metadata = {ks[d.default].name}.metadata"]


def _tuned_dispatcher_lines(d: Dispatcher, by_name: dict[str, CompiledKernel], lines: list[str]) -> list[str]:
    """:func:`_dispatcher_lines` for a dispatcher with a tuning table (``--tuning``): with
    ``variant=None`` it launches the variant ``_tuned_variant`` picks from the key arguments
    (:mod:`tritonc.tuning.dispatch`); ``K.tuned_variant(key values...)`` says which."""
    params = by_name[d.variants[0]].params
    names = py_param_names(params)
    index = {p.name: i for i, p in enumerate(params)}
    keys = [index[k] for k in d.tuning.key]
    at = lines.index(f"        variant = {d.default}")
    args = ", ".join(names)
    lines = (lines[:at] + [f"        variant = _tuned_variant(_{d.name}_tuning, ({args}{',' if len(names) == 1 else ''}), {d.default})"]
             + lines[at + 1:])
    head = next(i for i, line in enumerate(lines) if line.startswith(f"def {d.name}("))
    lines[head + 1] = lines[head + 1].replace("None: the default, ", "None: the tuning table's pick, else the default ")
    key_names = [names[i] for i in keys]
    return (lines[:head] + [f"# the tuning table: (key parameter indices, per-axis rules (None: powers of two), "
                            "((coordinates, variant), ...))",
                            f"_{d.name}_tuning = {d.tuning.python_literal(keys)}", "", ""] + lines[head:]
            + ["", "",
               f"def _{d.name}_tuned_variant({', '.join(key_names)}):",
               f'    """The variant {d.name}() launches for these values of {", ".join(d.tuning.key)}."""',
               f"    _args = [0] * {len(params)}",
               *[f"    _args[{i}] = {n}" for i, n in zip(keys, key_names)],
               f"    return _tuned_variant(_{d.name}_tuning, _args, {d.default})",
               "",
               "",
               f"{d.name}.tuned_variant = _{d.name}_tuned_variant",
               f"{d.name}.tuning_key = {tuple(d.tuning.key)!r}"])


def generate_python_module(kernels: CompiledKernel | Sequence[CompiledKernel], *,
                           module_name: str | None = None, command: str | None = None,
                           dispatchers: Sequence[Dispatcher] = (), symbol_prefix: str = "") -> str:
    """Return the source of a launcher module for ``kernels`` (all from one cubin).

    Args:
        kernels: one kernel or several kernels of the same cubin.
        module_name: shown in the banner (default: the first kernel's name).
        command: the command line shown in the banner (omit for byte-stable output).
        dispatchers: public names that launch one of several variants among ``kernels``
            (:class:`~tritonc.launcher.signature.Dispatcher`; ``tritonc.variants``).
        symbol_prefix: ``--symbol-prefix``: the launchers (kernels and dispatchers),
            ``metadata`` and ``register_torch_op`` are named ``<prefix><name>`` instead (:func:`prefixed_names`); the
            ``metadata`` keys stay the cubin's kernel names.

    Raises:
        ValueError: no kernels, kernels of different cubins, a reserved kernel name, a
            dispatcher naming a missing kernel or variants of different parameters, or a
            prefix that is not a Python identifier's start or starts with ``_``.
    """
    if isinstance(kernels, CompiledKernel):
        kernels = [kernels]
    kernels = list(kernels)
    _check_kernels(kernels)
    renames = prefixed_names([k.name for k in kernels] + [d.name for d in dispatchers], symbol_prefix)
    first = kernels[0]
    module_name = module_name or first.name

    out: list[str] = []
    emit = out.append
    doc = [f"{module_name}: launcher{'s' if len(kernels) > 1 else ''} for the Triton-C kernel"
           f"{'s' if len(kernels) > 1 else ''} " + ", ".join(k.name for k in kernels)
           + f" ({first.arch}, {'fatbin' if first.fatbin else 'cubin'} of {len(first.image)} bytes).",
           "",
           f"Generated by tritonc {__version__}. DO NOT EDIT: regenerate it from the Triton-C source."]
    if command:
        doc.append(f"Command: {command}")
    doc.append("")
    for k in kernels:
        names = py_param_names(k.params)
        doc.append(f"    {k.name}({', '.join(names + ['*', 'grid=None', 'stream=None'])})")
        doc.append(f"        {k.signature.triton_c()}")
        doc.append(f"        num_warps={k.num_warps} ({k.block_threads} threads per block), "
                   f"dynamic shared memory {k.shared_bytes} bytes")
    doc += ["",
            "Needs numpy and cuda-python (cuda.core) at run time; torch and CuPy are optional.",
            "Arguments are checked before any CUDA call: TypeError for a wrong kind or element",
            "type, ValueError for an out-of-range scalar or a broken __multipleof/__aligned promise.",
            "Importing needs no GPU; a launch without a CUDA driver or a GPU raises",
            "CUDAUnavailableError (a RuntimeError) with a one-line message."]
    docstring = "\n".join(doc).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    emit(f'"""{docstring}\n"""')
    for k in kernels:
        emit(f"# {SIGNATURE_TAG} {k.signature_json()}")
    emit("")
    emit("import base64 as _base64")
    emit("")
    emit("# The launch runtime, copied from tritonc/launcher/_launch_runtime.py.")
    emit(_runtime_source().rstrip("\n"))
    emit("")
    emit("")
    emit("# ---- this module's cubin and kernels ----")
    emit("")
    out.extend(_metadata_lines(kernels))
    emit("")
    emit("_CUBIN = _base64.b64decode(")
    for line in _base64_lines(first.image):  # the fatbin of a multi-arch build
        emit(f'    "{line}"')
    emit(")")
    emit(f"_module = _CubinModule(_CUBIN, {module_name!r})")
    if any(k.variants for k in kernels):
        emit("# The facts specialised variants assume, from tritonc.launcher.facts.")
        names = dict.fromkeys([*FACTS, *(f for k in kernels for v in k.variants for _, f in v.facts)])
        emit("_FACT_TESTS = {" + ", ".join(f"{n!r}: lambda v: {fact(n).python}" for n in names) + "}")
    for k in kernels:
        names = py_param_names(k.params)
        emit("")
        emit(f"_{k.name}_spec = _KernelSpec({k.name!r}, num_warps={k.num_warps}, "
             f"shared_bytes={k.shared_bytes}, params=(")
        for p in k.params:
            extra = []
            if p.multipleof is not None:
                extra.append(f"multipleof={p.multipleof}")
            if p.aligned is not None:
                extra.append(f"aligned={p.aligned}")
            if p.writeonly:
                extra.append("writeonly=True")
            emit(f"    _Param({p.name!r}, {p.kind!r}, {p.dtype!r}{''.join(', ' + e for e in extra)}),")
        if k.variants:
            index = {p.name: i for i, p in enumerate(k.params)}
            emit("), variants=(  # (cubin symbol, shared bytes, ((parameter index, fact), ...))")
            for v in k.variants:
                facts = ", ".join(f"({index[name]}, {fact!r})" for name, fact in v.facts)
                emit(f"    ({v.name!r}, {v.shared_bytes}, ({facts},)),  # {v.describe()}")
            emit("), fact_tests=_FACT_TESTS)")
        else:
            emit("))")
        declared = "None"
        if k.grid is not None:
            from .grid import grid_py, grid_text

            declared = f"_{k.name}_grid"
            by_name = {p.name: n for p, n in zip(k.params, names)}
            emit("")
            emit("")
            emit(f"def _{k.name}_grid({', '.join(names)}):")
            emit(f'    """The declared grid ({grid_text(k.grid)})."""'.replace("\\", "\\\\"))
            emit(f"    return ({', '.join(grid_py(d, by_name) for d in k.grid)},)")
        emit("")
        emit(f"_{k.name}_meta = {k.meta()!r}")
        emit("")
        emit("")
        signature = ", ".join(names + ["*", "grid=None", "stream=None"])
        emit(f"def {k.name}({signature}):")
        emit(f'    """Launch {k.signature.triton_c()}.'.replace("\\", "\\\\"))
        emit("")
        for p, name in zip(k.params, names):
            emit(f"    {name}: {_param_doc(p)}")
        emit(f"    grid: number of blocks, an int or a tuple of 1 to 3 ints ({k.block_threads} "
             "threads each; a 0 launches nothing), or a")
        emit(f"        callable taking {k.name}.meta (the tunables, num_warps, num_stages) and returning one;")
        if k.grid is not None:
            from .grid import grid_text

            emit(f"        None: the declared grid, ({grid_text(k.grid)})")
        else:
            emit("        required: the kernel declares no __grid")
        emit("    stream: a cuda.core Stream, an object with __cuda_stream__ (torch, CuPy), an int")
        emit("        handle, or None: torch's current stream when a torch tensor is passed, else the")
        emit("        device's default stream")
        emit('    """')
        args = f"({', '.join(names)}{',' if len(names) == 1 else ''})"
        emit(f"    _args = {args}")
        emit(f"    grid = _resolve_grid(_{k.name}_spec, grid, {declared}, _{k.name}_meta, _args)")
        emit(f"    _module.launch(_{k.name}_spec, grid, stream, _args)")
        emit("")
        emit("")
        emit(f"{k.name}.metadata = metadata[{k.name!r}]")
        emit(f"{k.name}.meta = _{k.name}_meta")
    by_name = {k.name: k for k in kernels}
    for d in dispatchers:
        lines = _dispatcher_lines(d, by_name)
        if d.tuning is not None:
            lines = _tuned_dispatcher_lines(d, by_name, lines)
        out.extend(lines)
    out.extend(_torch_op_lines(kernels, renames))
    out.extend(_prefix_lines(renames))
    return "\n".join(out) + "\n"


def _torch_op_lines(kernels: Sequence[CompiledKernel], renames: dict[str, str]) -> list[str]:
    """``register_torch_op()``: the module's kernels as torch custom ops (``torch.library``; the
    runtime's ``_register_torch_ops``). Each op is named as its launcher (with the prefix)."""
    lines = ["", "", "# ---- torch custom ops ----", "_torch_op_kernels = (  # (op name, launcher, parameter names, "
             "kinds, dtypes, mutated parameters, declares a grid)"]
    for k in kernels:
        names = py_param_names(k.params)
        mutated = tuple(n for p, n in zip(k.params, names) if p.is_pointer and not p.readonly)
        lines.append(f"    ({renames.get(k.name, k.name)!r}, {k.name}, {tuple(names)!r}, "
                     f"{tuple(p.kind for p in k.params)!r}, {tuple(p.dtype for p in k.params)!r}, {mutated!r}, "
                     f"{k.grid is not None}),")
    lines += [")",
              "",
              "",
              "def register_torch_op(kernels=None, *, namespace=\"tritonc\"):",
              '    """Register kernels of this module as torch custom ops, torch.ops.<namespace>.<kernel>',
              "    (torch.library.custom_op; torch is imported here, not before): usable in eager code,",
              "    inside torch.compile and in CUDA graphs. Each op takes the launcher's arguments (tensors",
              "    for pointers), launches on the kernel's declared grid and torch's current stream, and",
              "    returns nothing: it mutates every pointer argument not declared __readonly, which its fake",
              "    kernel (for tracing) models by allocating and returning nothing.",
              "",
              "    kernels: a kernel name or names (default: every kernel of the module).",
              "    Returns {kernel name: op}. Registering again returns the same ops.",
              "    Raises ValueError for a kernel without a declared grid (__grid or --grid) or an unknown",
              '    name; ImportError without torch."""',
              "    only = None if kernels is None else ((kernels,) if isinstance(kernels, str) else tuple(kernels))",
              "    return _register_torch_ops(namespace, _torch_op_kernels, only)"]
    return lines


def prefixed_names(names: Sequence[str], prefix: str) -> dict[str, str]:
    """``--symbol-prefix`` in the Python module: the public name of each launcher of ``names``,
    of ``metadata`` and of ``register_torch_op`` (``{"vector_add": "mm64_vector_add", ...}``);
    empty without a prefix.

    Raises:
        ValueError: ``prefix`` does not start a Python identifier, starts with ``_`` (the
            module's private names), or makes a public name equal to another's.
    """
    if not prefix:
        return {}
    if not (prefix + "x").isidentifier() or prefix.startswith("_"):
        raise ValueError(f"symbol prefix '{prefix}' is not the start of a public Python name "
                         "(letters, digits and '_', not starting with a digit or '_')")
    renames = {n: prefix + n for n in list(names) + ["metadata", "register_torch_op"]}
    clash = [n for n in renames.values() if (n in renames and renames[n] != n) or keyword.iskeyword(n)]
    if clash:
        raise ValueError(f"symbol prefix '{prefix}' gives '{clash[0]}', which is another public name of the module "
                         "or a Python keyword")
    return renames


def _prefix_lines(renames: dict[str, str]) -> list[str]:
    """Bind each launcher to its prefixed name and remove the unprefixed one; ``__all__`` lists
    the public names (``from module import *`` brings exactly those)."""
    if not renames:
        return []
    lines = ["", "", "# ---- --symbol-prefix: the public names ----"]
    lines += [f"{new} = {old}" for old, new in renames.items()]
    lines.append(f"del {', '.join(renames)}")
    lines.append(f"__all__ = {sorted(list(renames.values()) + ['CUDAUnavailableError'])!r}")
    return lines


def write_python_module(path: str, kernels: CompiledKernel | Sequence[CompiledKernel], *,
                        command: str | None = None) -> None:
    """Write :func:`generate_python_module` output to ``path`` atomically (temp file + rename)."""
    name = os.path.splitext(os.path.basename(path))[0]
    text = generate_python_module(kernels, module_name=name, command=command)
    write_atomically(path, text)
