"""The launch runtime that every generated Python launcher module carries.

``tritonc.launcher.python_module`` copies the code below the ``# ---- runtime ----`` line
verbatim into each generated module, so a module needs only numpy and cuda-python
(``cuda.core``) at run time; this file exists as a module of its own so the code is tested
and read like any other. It must import nothing from ``tritonc``.

What it does, and where the conventions come from (cli-launcher-anchors.md §5c/§5d):

* arguments are checked and converted *before* any CUDA call: pointer arguments accept torch
  tensors, objects with ``__cuda_array_interface__`` (CuPy, Numba, ...) or DLPack
  (``__dlpack__``/``__dlpack_device__``), and plain ``int`` device addresses; the element type
  must be the declared pointee type (``TypeError`` naming the parameter and both types) and
  the memory must be on a CUDA device;
* scalars become numpy scalars of the declared width (cuda.core would pass a Python
  ``float`` as an 8-byte double, which a ``float`` parameter misreads), with range checks
  (``ValueError``); ``bool`` travels as one byte, ``bfloat16`` as its 16 bits (spec §7);
* ``__multipleof``/``__aligned`` promises are checked (``ValueError`` naming the parameter
  and the promise; spec §7);
* the cubin is loaded lazily, on the first launch, with ``ObjectCode.from_cubin`` (a
  context-independent ``cuLibrary``; a fatbin of several architectures, ``tritonc.multiarch``,
  with ``ObjectCode.from_fatbin``, and the driver picks the device's image or JITs the PTX); the kernel's parameter sizes are checked against the
  cubin's (``Kernel.arguments_info``) once; the dynamic shared memory limit is raised per
  device when the kernel needs more than 48 KiB;
* ``stream=None`` launches on torch's current stream when a torch tensor is among the
  arguments, else on the device's default stream;
* a launch that finds no usable CUDA (no driver library, no GPU) raises the
  module's ``CUDAUnavailableError`` with one line of cause, not the loader's traceback;
  importing the module needs neither;
* specialised variants (``K__spec16``, ``K__spec_s1_d16``, see
  ``tritonc/transforms/specialize.py``): after the checks, the first variant whose every fact
  holds (``eq1``: an integer equals 1; ``div16``: an integer is a multiple of 16; ``align16``:
  an address is a multiple of 16 bytes) is launched instead of the kernel; each variant is loaded, checked and
  given its shared-memory limit like a kernel of its own.
"""
# ---- runtime ----
import math as _math

import numpy as _np

_SCALAR_KINDS = {
    "bool": ("bool", 8), "int8": ("int", 8), "int16": ("int", 16), "int32": ("int", 32),
    "int64": ("int", 64), "uint8": ("uint", 8), "uint16": ("uint", 16), "uint32": ("uint", 32),
    "uint64": ("uint", 64), "float16": ("float", 16), "bfloat16": ("float", 16),
    "float32": ("float", 32), "float64": ("float", 64),
}

# __cuda_array_interface__ typestr (without the byte-order character) -> tritonc type name.
_TYPESTR = {
    "b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64",
}

_DLPACK_CUDA, _DLPACK_CUDA_MANAGED = 2, 13
_SHARED_OPT_IN = 48 * 1024
_MAX_GRID = (2**31 - 1, 65535, 65535)
_MAX_CACHED_CONFIGS = 256  # launch configurations a module keeps for reuse


class _Param:
    """One kernel parameter as the launcher checks it (see tritonc.launcher.signature)."""

    __slots__ = ("name", "kind", "dtype", "multipleof", "aligned", "writeonly", "size")

    def __init__(self, name, kind, dtype, multipleof=None, aligned=None, writeonly=False):
        self.name = name
        self.kind = kind
        self.dtype = dtype
        self.multipleof = multipleof
        self.aligned = aligned
        self.writeonly = writeonly
        self.size = 8 if kind == "pointer" else max(_SCALAR_KINDS[dtype][1] // 8, 1)


class _KernelSpec:
    """A kernel of the embedded cubin: name, parameters, block size and dynamic shared memory,
    and its specialised variants as ``(spec, ((parameter index, fact name), ...))`` pairs;
    ``fact_tests`` maps each fact name to its test of an int (the generated module's
    ``_FACT_TESTS``, written from tritonc.launcher.facts)."""

    def __init__(self, name, params, num_warps, shared_bytes, variants=(), fact_tests=None):
        self.name = name
        self.params = tuple(params)
        self.num_warps = num_warps
        self.block_threads = num_warps * 32
        self.shared_bytes = shared_bytes
        self.fact_tests = dict(fact_tests or {})
        self.variants = tuple(
            (_KernelSpec(symbol, self.params, num_warps, variant_shared), tuple(facts))
            for symbol, variant_shared, facts in variants)
        for _, facts in self.variants:
            for _, fact in facts:
                if fact not in self.fact_tests:
                    raise ValueError(f"{name}: no test for the fact {fact!r}")

    def select(self, converted):
        """The spec to launch for the converted arguments (integers, addresses): the first
        variant whose facts all hold, else this kernel."""
        tests = self.fact_tests
        for spec, facts in self.variants:
            if all(tests[fact](int(converted[i])) for i, fact in facts):
                return spec
        return self


def _where(spec, param):
    return f"{spec.name}(): parameter '{param.name}'"


def _grid3(spec, grid):
    """``grid`` as three ints: an int, or a tuple/list of 1 to 3 ints (missing ones are 1)."""
    if isinstance(grid, (int, _np.integer)) and not isinstance(grid, (bool, _np.bool_)):
        dims = (int(grid),)
    elif isinstance(grid, (tuple, list)) and 1 <= len(grid) <= 3 and all(
            isinstance(g, (int, _np.integer)) and not isinstance(g, (bool, _np.bool_)) for g in grid):
        dims = tuple(int(g) for g in grid)
    else:
        raise TypeError(f"{spec.name}(): grid must be an int or a tuple of 1 to 3 ints, got {grid!r}")
    dims = dims + (1,) * (3 - len(dims))
    for axis, (d, limit) in enumerate(zip(dims, _MAX_GRID)):
        if not 0 <= d <= limit:
            raise ValueError(f"{spec.name}(): grid dimension {axis} is {d}, outside 0..{limit}")
    return dims


def _grid_div(a, b):
    """C's ``a / b`` (truncating toward zero) for a declared grid; ValueError on zero."""
    if b == 0:
        raise ValueError("the grid divides by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _grid_mod(a, b):
    return a - b * _grid_div(a, b)


def _grid_cdiv(a, b):
    return _grid_div(a + b - 1, b)


def _grid_shl(a, n):
    if not 0 <= n <= 63:
        raise ValueError(f"the grid shifts by {n} (0..63 allowed)")
    return a << n


def _grid_shr(a, n):
    if not 0 <= n <= 63:
        raise ValueError(f"the grid shifts by {n} (0..63 allowed)")
    return a >> n


def _grid_min(a, b):
    return a if a < b else b


def _grid_max(a, b):
    return a if a > b else b


def _resolve_grid(spec, grid, declared, meta, args):
    """The grid to launch: ``grid`` itself (an int or tuple), ``grid(meta)`` for a callable
    (Triton's ``grid=lambda meta: ...``), or the kernel's declared grid (``declared(*args)``)
    when ``grid`` is None."""
    if grid is None:
        if declared is None:
            raise TypeError(f"{spec.name}() needs grid=: the kernel declares no __grid")
        try:
            return declared(*args)
        except ValueError as e:
            raise ValueError(f"{spec.name}(): {e}") from None
    if callable(grid):
        return grid(dict(meta))
    return grid


def _check_dtype(spec, param, found):
    if found != param.dtype:
        raise TypeError(f"{_where(spec, param)} points to {param.dtype}, but the array's "
                        f"element type is {found}")


def _pointer(spec, param, value):
    """Check a pointer argument; return ``(address, device id or None, is a torch tensor)``."""
    if isinstance(value, (bool, _np.bool_)) or value is None:
        raise TypeError(f"{_where(spec, param)} is a {param.dtype} pointer; got {value!r}")
    if isinstance(value, (int, _np.integer)):
        address = int(value)
        if not 0 <= address < 2**64:
            raise ValueError(f"{_where(spec, param)}: {address} is not a 64-bit device address")
        return address, None, False
    if type(value).__module__.split(".")[0] == "torch" and hasattr(value, "data_ptr"):
        if not value.is_cuda:
            raise TypeError(f"{_where(spec, param)} needs CUDA device memory, got a tensor on "
                            f"{value.device}")
        _check_dtype(spec, param, str(value.dtype).replace("torch.", ""))
        return int(value.data_ptr()), value.device.index, True
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        typestr = cai.get("typestr", "")
        found = _TYPESTR.get(typestr[1:], typestr) if typestr[:1] in "<|=" else typestr
        _check_dtype(spec, param, found)
        address, readonly = cai["data"]
        if readonly and param.writeonly:
            raise ValueError(f"{_where(spec, param)} is __writeonly, but the array is read-only")
        return int(address or 0), None, False
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        device_type, device_id = value.__dlpack_device__()
        if int(device_type) not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            raise TypeError(f"{_where(spec, param)} needs CUDA device memory, got an array on "
                            f"DLPack device type {int(device_type)} (1 is the CPU)")
        from cuda.core.utils import StridedMemoryView

        view = StridedMemoryView.from_dlpack(value, stream_ptr=-1)
        _check_dtype(spec, param, _np.dtype(view.dtype).name)
        if view.readonly and param.writeonly:
            raise ValueError(f"{_where(spec, param)} is __writeonly, but the array is read-only")
        return int(view.ptr), int(device_id), False
    raise TypeError(f"{_where(spec, param)} needs a CUDA array (a torch tensor, or an object with "
                    f"__cuda_array_interface__ or __dlpack__) or an int device address; got "
                    f"{type(value).__name__}")


def _bfloat16_bits(value):
    """The bfloat16 nearest to ``value`` (round to nearest even), as its 16 bits.

    float64 -> float32 rounds to odd (truncate, then set the last bit if inexact), so the
    final float32 -> bfloat16 rounding is not a double rounding.
    """
    if _math.isnan(value):
        return 0x7FC0
    with _np.errstate(over="ignore"):
        f = _np.float32(value)
    if float(f) != value and not _math.isinf(value):
        if abs(float(f)) > abs(value):
            f = _np.nextafter(f, _np.float32(0.0))
        bits = int(_np.array(f, dtype=_np.float32).view(_np.uint32)) | 1
    else:
        bits = int(_np.array(f, dtype=_np.float32).view(_np.uint32))
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _scalar(spec, param, value):
    """Convert a scalar argument to a numpy scalar of the declared width."""
    kind, bits = _SCALAR_KINDS[param.dtype]
    is_bool = isinstance(value, (bool, _np.bool_))
    is_int = isinstance(value, (int, _np.integer)) and not is_bool
    if kind == "bool":
        if is_bool or (is_int and int(value) in (0, 1)):
            return _np.uint8(1 if value else 0)
        if is_int:
            raise ValueError(f"{_where(spec, param)} is bool; got {value!r}")
        raise TypeError(f"{_where(spec, param)} is bool; got {type(value).__name__} {value!r}")
    if kind in ("int", "uint"):
        if not (is_int or is_bool):
            raise TypeError(f"{_where(spec, param)} is {param.dtype}; got {type(value).__name__} "
                            f"{value!r}")
        v = int(value)
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "int" else (0, (1 << bits) - 1)
        if not lo <= v <= hi:
            raise ValueError(f"{_where(spec, param)} is {param.dtype}; {v} is outside {lo}..{hi}")
        if param.multipleof and v % param.multipleof:
            raise ValueError(f"{_where(spec, param)} = {v} breaks its __multipleof("
                             f"{param.multipleof}) promise")
        return _np.dtype(param.dtype).type(v)
    if not (is_int or isinstance(value, (float, _np.floating))) or is_bool:
        raise TypeError(f"{_where(spec, param)} is {param.dtype}; got {type(value).__name__} {value!r}")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{_where(spec, param)} is {param.dtype}; {value!r} is out of range") from None
    if param.dtype == "bfloat16":
        out = _np.uint16(_bfloat16_bits(v))
        overflow = (int(out) & 0x7FFF) == 0x7F80 and not _math.isinf(v)
    else:
        with _np.errstate(over="ignore"):
            out = _np.dtype(param.dtype).type(v)
        overflow = bool(_np.isinf(out)) and not _math.isinf(v)
    if overflow:
        raise ValueError(f"{_where(spec, param)} is {param.dtype}; {value!r} is out of range")
    return out


def _check_address(spec, param, address):
    for promise, m in (("__aligned", param.aligned), ("__multipleof", param.multipleof)):
        if m and address % m:
            raise ValueError(f"{_where(spec, param)} has address {address:#x}, which breaks its "
                             f"{promise}({m}) promise (the address must be a multiple of {m} bytes)")


class CUDAUnavailableError(RuntimeError):
    """A launch found no usable CUDA: the NVIDIA driver library cannot be loaded or there is
    no GPU (without cuda-python the launch raises ``ImportError``, as before). Raised by a launch (after the argument
    checks), never by importing the module; its message is one line naming the kernel and the
    cause, without the driver loader's traceback."""


def _first_line(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0].strip() if text else ''}".rstrip(": ")


class _CubinModule:
    """The embedded cubin: loaded on the first launch, then shared by all devices."""

    def __init__(self, cubin, name):
        self._cubin = cubin
        self._name = name
        self._kernels = {}          # kernel name -> cuda.core Kernel
        self._shared_ready = set()  # (kernel name, device id) with the shared-memory limit raised
        # per-launch objects made once (the host time of a launch: 64 us from Python on an H100
        # host before, against Triton's 17, for softmax 4096x1024, benchmarks/RESULTS.md session 7)
        self._streams = {}          # (device id, stream handle) -> cuda.core Stream (not owned)
        self._configs = {}          # (grid, threads, shared bytes) -> cuda.core LaunchConfig
        self._core = None

    def _cuda_core(self):
        if self._core is None:
            import cuda.core as core

            self._core = core
        return self._core

    def _kernel(self, core, spec):
        kernel = self._kernels.get(spec.name)
        if kernel is None:
            if not self._kernels:
                load = core.ObjectCode.from_fatbin if self._cubin[:4] == b"\x50\xed\x55\xba" \
                    else core.ObjectCode.from_cubin  # a fatbin: the driver picks the device's image
                self._object_code = load(self._cubin, name=self._name)
            kernel = self._object_code.get_kernel(spec.name)
            sizes = [size for _, size in kernel.arguments_info]
            expected = [p.size for p in spec.params]
            if sizes != expected:
                raise RuntimeError(f"{spec.name}(): the cubin's kernel takes parameters of "
                                   f"{sizes} bytes, this launcher passes {expected}; the launcher "
                                   "and the cubin do not match")
            self._kernels[spec.name] = kernel
        return kernel

    def _raise_shared_limit(self, spec, kernel, device_id):
        from cuda.bindings import driver

        attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        handle = kernel.handle
        if isinstance(handle, driver.CUkernel):
            (err,) = driver.cuKernelSetAttribute(attribute, spec.shared_bytes, handle,
                                                 driver.CUdevice(device_id))
        else:
            (err,) = driver.cuFuncSetAttribute(handle, attribute, spec.shared_bytes)
        if err != driver.CUresult.CUDA_SUCCESS:
            _, text = driver.cuGetErrorString(err)
            raise RuntimeError(f"{spec.name}(): cannot allow {spec.shared_bytes} bytes of dynamic "
                               f"shared memory on device {device_id}: {err.name} "
                               f"({text.decode() if text else ''})")
        self._shared_ready.add((spec.name, device_id))

    def launch(self, spec, grid, stream, args):
        """Check ``args`` against ``spec``, then launch on ``grid`` (see the module docstring)."""
        if len(args) != len(spec.params):
            raise TypeError(f"{spec.name}() takes {len(spec.params)} arguments, got {len(args)}")
        converted = []
        devices = {}
        torch_device = None
        for param, value in zip(spec.params, args):
            if param.kind == "pointer":
                address, device, is_torch = _pointer(spec, param, value)
                _check_address(spec, param, address)
                if device is not None:
                    devices.setdefault(device, param.name)
                if is_torch and torch_device is None:
                    torch_device = value.device
                converted.append(address)
            else:
                converted.append(_scalar(spec, param, value))
        if len(devices) > 1:
            where = ", ".join(f"'{name}' on device {dev}" for dev, name in devices.items())
            raise ValueError(f"{spec.name}(): arrays on different devices: {where}")
        dims = _grid3(spec, grid)
        if 0 in dims:
            return

        name = spec.name
        spec = spec.select(converted)
        try:  # the first CUDA calls: import cuda.core, load the driver library, pick the GPU
            core = self._cuda_core()
            device = core.Device(next(iter(devices)) if devices else None)
            device.set_current()
        except ImportError:  # no cuda-python: the module's one requirement besides numpy
            raise
        except Exception as e:  # cuda.pathfinder's DynamicLibNotFoundError, CUDAError (no GPU)
            raise CUDAUnavailableError(f"{name}(): no usable CUDA driver or GPU here "
                                       f"({_first_line(e)})") from None
        kernel = self._kernel(core, spec)
        if spec.shared_bytes > _SHARED_OPT_IN and (spec.name, device.device_id) not in self._shared_ready:
            self._raise_shared_limit(spec, kernel, device.device_id)
        if stream is None:
            if torch_device is not None:
                import torch

                handle = torch.cuda.current_stream(torch_device).cuda_stream
                stream = self._streams.get((device.device_id, handle))
                if stream is None:  # a wrapper of torch's stream (cuda.core does not own it)
                    stream = core.Stream.from_handle(handle)
                    self._streams[(device.device_id, handle)] = stream
            else:
                stream = device.default_stream
        elif isinstance(stream, core.Stream):
            pass
        elif isinstance(stream, (int, _np.integer)) and not isinstance(stream, bool):
            stream = core.Stream.from_handle(int(stream))
        elif hasattr(stream, "__cuda_stream__"):
            stream = device.create_stream(stream)
        else:
            raise TypeError(f"{spec.name}(): stream must be a cuda.core Stream, an object with "
                            f"__cuda_stream__, an int handle or None; got {type(stream).__name__}")
        key = (dims, spec.block_threads, spec.shared_bytes)
        config = self._configs.get(key)
        if config is None:
            if len(self._configs) >= _MAX_CACHED_CONFIGS:  # a grid per problem size: stay bounded
                self._configs.clear()
            config = self._configs[key] = core.LaunchConfig(grid=dims, block=(spec.block_threads, 1, 1),
                                                             shmem_size=spec.shared_bytes)
        core.launch(stream, config, kernel, *converted)


# ---- tuned dispatch (tritonc/tuning/dispatch.py; docs/tuning.md) ----

def _tuned_variant(table, args, default):
    """The variant a tuning table picks for ``args``: ``table`` is ``(key parameter indices,
    per-axis rules, ((coordinates, variant), ...))``; a rule is ``None`` (powers of two: the
    coordinate is ceil(log2(v)), 0 for v <= 1) or ascending bounds (the number of bounds <= v).
    The entry at the least L1 distance between coordinates wins, the earlier on a tie; ``default``
    when there is no entry or a key argument is not an integer (the launch's own checks then
    report it)."""
    keys, rules, entries = table
    here = []
    for i, rule in zip(keys, rules):
        v = args[i]
        if isinstance(v, (bool, _np.bool_)) or not isinstance(v, (int, _np.integer)):
            return default
        v = int(v)
        if rule is None:
            here.append(0 if v <= 1 else (v - 1).bit_length())
        else:
            here.append(sum(1 for b in rule if b <= v))
    memo = (id(table), tuple(here), default)  # tables are the module's constants: their ids stay
    best = _TUNED_MEMO.get(memo)
    if best is not None:
        return best
    best, best_distance = default, None
    for coords, variant in entries:
        distance = sum(abs(a - b) for a, b in zip(coords, here))
        if best_distance is None or distance < best_distance:
            best, best_distance = variant, distance
    _TUNED_MEMO[memo] = best
    return best


_TUNED_MEMO = {}  # (id of a table, bucket coordinates, default) -> variant


# ---- torch custom ops (the module's register_torch_op) ----
_TORCH_OPS = {}  # (namespace, op name) -> the op this module registered


def _torch_scalar_type(dtype):
    """The Python type torch.library infers a schema type from (int -> SymInt, float, bool)."""
    kind = _SCALAR_KINDS[dtype][0]
    return bool if kind == "bool" else float if kind == "float" else int


def _register_torch_ops(namespace, entries, only):
    """Register each kernel of ``entries`` (op name, launcher, parameter names, kinds, dtypes,
    mutated parameter names, whether it declares a grid) as the torch custom op
    ``namespace::name`` (torch.library.custom_op, CUDA implementation = the launcher on the
    declared grid and torch's current stream; a fake kernel that returns nothing, for tracing:
    kernels write through their pointers, so the op mutates every pointer argument not declared
    __readonly and returns nothing). ``only``: op names to register (None: all). Registering
    again returns the ops already registered. Returns {op name: torch.ops.<namespace>.<name>}."""
    import inspect

    import torch

    known = {entry[0] for entry in entries}
    unknown = sorted(set(only or ()) - known)
    if unknown:
        raise ValueError(f"register_torch_op(): no kernel '{unknown[0]}' in this module "
                         f"(kernels: {', '.join(sorted(known))})")
    chosen = [e for e in entries if only is None or e[0] in only]
    gridless = [e[0] for e in chosen if not e[6]]
    if gridless:
        raise ValueError(f"register_torch_op(): kernel '{gridless[0]}' declares no launch grid (__grid or "
                         "--grid); a torch op launches on the grid its launcher computes from the arguments")
    ops = {}
    for name, launcher, names, kinds, dtypes, mutated, _ in chosen:
        if (namespace, name) not in _TORCH_OPS:
            def impl(*args, _launcher=launcher):
                _launcher(*args)

            impl.__name__ = name
            impl.__signature__ = inspect.Signature(
                [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                   annotation=torch.Tensor if k == "pointer" else _torch_scalar_type(d))
                 for n, k, d in zip(names, kinds, dtypes)], return_annotation=None)
            op = torch.library.custom_op(f"{namespace}::{name}", impl, mutates_args=tuple(mutated),
                                         device_types="cuda")
            op.register_fake(lambda *args: None)  # writes through its arguments, allocates nothing
            _TORCH_OPS[(namespace, name)] = op
        ops[name] = getattr(getattr(torch.ops, namespace), name)
    return ops
