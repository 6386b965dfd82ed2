"""The GPU of ``tritonc-tune`` (:mod:`tritonc.tools.tune`): :class:`Gpu` allocates device memory,
uploads and downloads the arguments and times a launch, through the CUDA driver API
(cuda-python; torch is not needed). ``cuda.bindings`` is imported when a :class:`Gpu` is made,
not with the module.

Timing (docs/tuning.md, "Tuning on a GPU"): the launch is captured in a CUDA graph (or launched
directly when it cannot be captured); each repetition restores the outputs, writes
:data:`L2_FLUSH_BYTES` to evict the L2 cache, then launches between two CUDA events; warm-up
repetitions first, then the median of the timed ones, in microseconds.

Errors: a failing driver call raises :class:`RuntimeError` naming the call and the driver's
error (one of :data:`STICKY_ERRORS` means the context is lost); making a :class:`Gpu` raises
whatever the import or the driver raises where there is no usable GPU.
"""
from __future__ import annotations

import statistics

#: Bytes written between repetitions to evict the L2 cache (50 MiB on H100; 4x that).
L2_FLUSH_BYTES = 256 << 20

#: Driver errors after which the context cannot run anything more.
STICKY_ERRORS = ("ILLEGAL_ADDRESS", "ILLEGAL_INSTRUCTION", "LAUNCH_FAILED", "MISALIGNED_ADDRESS",
                 "HARDWARE_STACK_ERROR", "ASSERT")


class Gpu:
    """Device memory, streams, events and graphs through the CUDA driver API (cuda-python)."""

    def __init__(self):
        from cuda.bindings import driver

        self.d = driver
        self.call(driver.cuInit(0), "cuInit")
        dev = self.call(driver.cuDeviceGet(0), "cuDeviceGet")
        self.ctx = self.call(driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        self.call(driver.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.stream = self.call(driver.cuStreamCreate(1), "cuStreamCreate")  # non-blocking
        self.start = self.call(driver.cuEventCreate(0), "cuEventCreate")
        self.flush = self.alloc(L2_FLUSH_BYTES)
        self.allocations: list[int] = []

    def call(self, result, what: str):
        err, *rest = result if isinstance(result, tuple) else (result,)
        if int(err) != 0:
            _, text = self.d.cuGetErrorString(err)
            raise RuntimeError(f"{what} failed: {err.name if hasattr(err, 'name') else err} "
                               f"({text.decode() if text else ''})")
        return rest[0] if len(rest) == 1 else (tuple(rest) if rest else None)

    def alloc(self, nbytes: int) -> int:
        return int(self.call(self.d.cuMemAlloc(max(nbytes, 16)), "cuMemAlloc"))

    def upload(self, array) -> int:
        ptr = self.alloc(array.nbytes)
        self.allocations.append(ptr)
        if array.nbytes:
            self.call(self.d.cuMemcpyHtoD(ptr, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")
        return ptr

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        if nbytes:
            self.call(self.d.cuMemcpyDtoDAsync(dst, src, nbytes, self.stream), "cuMemcpyDtoDAsync")

    def download(self, array, ptr: int) -> None:
        self.sync()
        if array.nbytes:
            self.call(self.d.cuMemcpyDtoH(array.ctypes.data, ptr, array.nbytes), "cuMemcpyDtoH")

    def sync(self) -> None:
        self.call(self.d.cuStreamSynchronize(self.stream), "cuStreamSynchronize")

    def free_all(self) -> None:
        self.sync()
        for ptr in self.allocations:
            self.d.cuMemFree(ptr)
        self.allocations = []

    def capture(self, launch):
        """A CUDA graph of what ``launch(stream handle)`` enqueues, or None when the launch
        cannot be captured (then each repetition launches directly)."""
        d = self.d
        mode = d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        try:
            self.call(d.cuStreamBeginCapture(self.stream, mode), "cuStreamBeginCapture")
        except RuntimeError:
            return None
        try:
            launch(int(self.stream))
        except Exception:
            d.cuStreamEndCapture(self.stream)
            return None
        err, graph = d.cuStreamEndCapture(self.stream)
        if int(err) != 0:
            return None
        err, exe = d.cuGraphInstantiate(graph, 0)
        d.cuGraphDestroy(graph)
        return exe if int(err) == 0 else None

    def time(self, launch, restore, warmup: int, reps: int) -> float:
        """Median microseconds of one launch: per repetition ``restore()`` (enqueues the copies
        that reset the outputs), an L2 flush, then the launch between two events."""
        d = self.d
        graph = self.capture(launch)
        ends = [self.call(d.cuEventCreate(0), "cuEventCreate") for _ in range(reps)]
        starts = [self.call(d.cuEventCreate(0), "cuEventCreate") for _ in range(reps)]
        try:
            for i in range(warmup + reps):
                restore()
                self.call(d.cuMemsetD32Async(self.flush, i, L2_FLUSH_BYTES // 4, self.stream), "cuMemsetD32Async")
                timed = i >= warmup
                if timed:
                    self.call(d.cuEventRecord(starts[i - warmup], self.stream), "cuEventRecord")
                if graph is not None:
                    self.call(d.cuGraphLaunch(graph, self.stream), "cuGraphLaunch")
                else:
                    launch(int(self.stream))
                if timed:
                    self.call(d.cuEventRecord(ends[i - warmup], self.stream), "cuEventRecord")
            self.sync()
            times = [self.call(d.cuEventElapsedTime(s, e), "cuEventElapsedTime") * 1000.0
                     for s, e in zip(starts, ends)]
        finally:
            if graph is not None:
                d.cuGraphExecDestroy(graph)
            for ev in starts + ends:
                d.cuEventDestroy(ev)
        return statistics.median(times)
