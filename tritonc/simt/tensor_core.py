"""The tensor-core and asynchronous-copy instructions of the SIMT simulator
(:mod:`tritonc.simt.simulator`), as a mixin of its :class:`~tritonc.simt.simulator.Simulator`.

The warp-collective ones see all their lanes at once (a value is an array over the CTA's
threads, :mod:`tritonc.simt.memory`):

* ``cp.async`` is modelled as a copy that lands at the ``cp.async.wait_group`` that covers its
  group (reads of its bytes before that see the old contents), so a missing wait is seen; in
  the race shadow (:mod:`tritonc.simt.races`) the issuing warp writes the bytes at that wait,
  racing with every access by another warp since the issue;
* ``ldmatrix``/``stmatrix``/``mma`` follow the PTX ISA fragment definitions (9.7.14.5.14-15);
  mma products are computed in float64 and rounded once to the accumulator type;
* ``wgmma.mma_async`` (``dot_wgmma.py``'s inline asm) runs per warp group when it is issued,
  reading A and B through the matrix descriptors (PTX ISA 9.7.15.5.1: start address, LBO,
  SBO, swizzle mode; the canonical K-major and MN-major layouts, the swizzle applied to
  address bits) and writing the accumulator fragments of PTX ISA 9.7.15.5.3; the shared
  bytes it read are remembered with its group, and ``wgmma.wait_group`` checks that nothing
  overwrote them before the group was waited for (a copy into a slot still being read).
"""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np

from .memory import WARP, signed, wrap
from .races import lane_bytes


class TensorCoreOps:
    """The ``cp.async``, ``ldmatrix``/``stmatrix``, ``mma.sync`` and ``wgmma`` instructions of a
    :class:`~tritonc.simt.simulator.Simulator`, which provides ``T`` (its threads), ``mem``
    (:class:`~tritonc.simt.memory.Memory`), ``shadow`` (the race shadow, or ``None``) and
    ``op``/``op_text`` (an instruction's id in the shadow, its name in a report), and calls
    :meth:`init_async_state` once."""

    def init_async_state(self) -> None:
        self.groups: list = []      # committed cp.async groups, oldest first
        self.pending: list = []     # copies issued since the last commit
        self.wg_groups: list = []   # committed wgmma groups: (addresses, bytes, first warp, op) they read
        self.wg_pending: list = []  # wgmma reads since the last commit

    # -- cp.async --------------------------------------------------------------------------------
    def cp_async(self, name: str, args: list, mask: np.ndarray, inst) -> None:
        """``llvm.nvvm.cp.async.{ca,cg}.shared.global.N.s`` (``args``: destination, source and
        source size): the first ``src_size`` of its ``N`` bytes read now, the rest zeros,
        pending until the next commit."""
        dst, src, size = args
        n = int(name.split(".shared.global.")[1].split(".")[0])
        size = size.astype(np.int64)
        active = mask & (size > 0)
        if (src[active].astype(np.int64) % n).any():
            raise IndexError(f"cp.async of {n} bytes from a misaligned global address")
        data = np.zeros((self.T, n), dtype=np.uint8)
        for j in range(n):
            data[:, j] = self.mem.read(1, src + np.uint64(j), 1, mask & (size > j))[:, 0]
        epoch = None
        if self.shadow is not None:  # the copy may land from now on: not over bytes a wgmma reads
            a, w = lane_bytes(dst, np.nonzero(mask)[0], n)
            self.shadow.check_in_flight(a, w, self.op(inst))
            epoch = self.shadow.epoch
        self.pending.append((dst.copy(), data, mask.copy(), inst, epoch))

    def cp_async_commit(self) -> None:
        self.groups.append(self.pending)
        self.pending = []

    def cp_async_wait(self, keep: int, inst) -> None:
        """``cp.async.wait_group keep`` (``inst``): all but the newest ``keep`` groups land."""
        while len(self.groups) > keep:
            self.land(self.groups.pop(0), inst)

    def call_wait_all(self, inst):
        self.cp_async_commit()
        self.cp_async_wait(0, inst)

    def land(self, group: list, wait) -> None:
        """The copies of a ``cp.async`` group land at the wait ``wait`` that covers it (in the
        shadow: written by the issuing warp at the wait, racing with every access by another
        warp since the issue's epoch)."""
        for dst, data, m, issue, epoch in group:
            self.mem.write(3, dst, data, m)
            if self.shadow is not None:
                a, w = lane_bytes(dst, np.nonzero(m)[0], data.shape[1])
                op = self.op(issue, f"; landed at {self.op_text(wait)}", key=(id(issue), id(wait)))
                self.shadow.write(a, w, op, since=epoch)

    def ldmatrix(self, name, addr, inst=None):
        """``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16`` (PTX ISA 9.7.14.5.15): matrix ``i``'s
        eight 16-byte rows come from the addresses of lanes ``8i .. 8i + 7`` of each warp."""
        count = int(re.search(r"\.x(\d)", name).group(1))
        trans = ".trans" in name
        out = [np.zeros(self.T, dtype=np.uint32) for _ in range(count)]
        lane = np.arange(WARP)
        g, t = lane // 4, lane % 4
        for w in range(self.T // WARP):
            lanes = np.arange(w * WARP, (w + 1) * WARP)
            for i in range(count):
                rows = addr[lanes[8 * i:8 * i + 8]]
                m = self.mem.read(3, rows, 16, np.ones(8, dtype=bool)).view(np.uint16).reshape(8, 8)
                if trans:
                    m = m.T
                out[i][lanes] = m[g, 2 * t].astype(np.uint32) | (m[g, 2 * t + 1].astype(np.uint32) << 16)
        if self.shadow is not None and inst is not None:
            lanes = np.nonzero((np.arange(self.T) % WARP) < 8 * count)[0]
            a, w = lane_bytes(addr, lanes, 16)
            self.shadow.read(a, w, self.op(inst))
        return tuple(out)

    def stmatrix(self, name, addr, regs, inst=None):
        """``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16`` (PTX ISA 9.7.14.5.16), the inverse
        of :meth:`ldmatrix`: lane ``4g + t``'s register ``i`` holds elements ``(g, 2t)`` and
        ``(g, 2t + 1)`` of matrix ``i`` (transposed with ``.trans``), whose eight 16-byte rows go
        to the addresses of lanes ``8i .. 8i + 7`` of the warp."""
        count = int(re.search(r"\.x(\d)", name).group(1))
        trans = ".trans" in name
        lane = np.arange(WARP)
        g, t = lane // 4, lane % 4
        for w in range(self.T // WARP):
            lanes = np.arange(w * WARP, (w + 1) * WARP)
            for i in range(count):
                r = np.asarray(regs[i]).astype(np.uint32)[lanes]
                m = np.zeros((8, 8), dtype=np.uint16)
                m[g, 2 * t] = r & 0xFFFF
                m[g, 2 * t + 1] = r >> 16
                if trans:
                    m = np.ascontiguousarray(m.T)
                self.mem.write(3, addr[lanes[8 * i:8 * i + 8]], m.view(np.uint8).reshape(8, 16),
                               np.ones(8, dtype=bool))
        if self.shadow is not None and inst is not None:
            lanes = np.nonzero((np.arange(self.T) % WARP) < 8 * count)[0]
            a, w = lane_bytes(addr, lanes, 16)
            self.shadow.write(a, w, self.op(inst))
        return None

    def mma(self, name, args):
        shape = re.search(r"m16n8k(\d+)", name)
        K = int(shape.group(1))
        kind = name.split(".")[-1]
        if name.endswith(".f32.f32"):
            etype, kw = np.float16, 2
        elif kind == "bf16":
            etype, kw = ml_dtypes.bfloat16, 2
        elif kind == "tf32":
            etype, kw = np.float32, 1
        elif kind == "s8":
            etype, kw = np.int8, 4
        else:
            raise NotImplementedError(name)
        a_regs, b_regs, c_regs = args[0:4], args[4:6], args[6:10]

        def elems(reg):  # [T] packed 32-bit register -> [T, kw] elements
            if isinstance(reg, np.ndarray) and reg.ndim == 2:  # <2 x half>
                return reg.astype(np.float64)
            raw = np.ascontiguousarray(np.asarray(reg).astype(np.uint32))
            return raw.view(etype).reshape(self.T, kw).astype(np.float64)
        acc_int = kind == "s8"
        outs = [np.zeros(self.T, dtype=np.int64 if acc_int else np.float64) for _ in range(4)]
        lane = np.arange(WARP)
        g, t = lane // 4, lane % 4
        ea = [elems(r) for r in a_regs]
        eb_ = [elems(r) for r in b_regs]
        cs = [(signed(np.asarray(c), 32).astype(np.float64) if acc_int else np.asarray(c).astype(np.float64))
              for c in c_regs]
        for w in range(self.T // WARP):
            lanes = np.arange(w * WARP, (w + 1) * WARP)
            A = np.zeros((16, K))
            B = np.zeros((K, 8))
            C = np.zeros((16, 8))
            for r in range(4):
                for e in range(kw):
                    A[g + 8 * (r % 2), kw * t + 4 * kw * (r // 2) + e] = ea[r][lanes, e]
            for r in range(2):
                for e in range(kw):
                    B[kw * t + 4 * kw * r + e, g] = eb_[r][lanes, e]
            C[g, 2 * t], C[g, 2 * t + 1], C[g + 8, 2 * t], C[g + 8, 2 * t + 1] = (c[lanes] for c in cs)
            D = A @ B + C
            for j, (dr, dc) in enumerate(((0, 0), (0, 1), (8, 0), (8, 1))):
                outs[j][lanes] = D[g + dr, 2 * t + dc]
        if acc_int:
            return tuple(wrap(o, 32) for o in outs)
        return tuple(o.astype(np.float32) for o in outs)


    # -- wgmma -----------------------------------------------------------------------------------
    def wgmma_commit(self) -> None:
        self.wg_groups.append(self.wg_pending)
        self.wg_pending = []

    def wgmma_wait(self, keep: int, inst=None) -> None:
        while len(self.wg_groups) > keep:
            for addr, data, first_warp, op in self.wg_groups.pop(0):
                now = self.mem.s[addr]
                if not np.array_equal(now, data):
                    raise RuntimeError("shared memory read by a wgmma was overwritten before its wait_group")
                if self.shadow is not None:
                    self.shadow.retire(addr, first_warp, op)

    def _wgmma_operand(self, desc: int, rows: int, transposed: bool, etype, first_warp: int = 0,
                       op: int = 0) -> np.ndarray:
        """The ``[rows, 16]`` matrix (M or N rows, K columns) a descriptor describes."""
        start = (desc & 0x3FFF) << 4
        lbo = ((desc >> 16) & 0x3FFF) << 4
        sbo = ((desc >> 32) & 0x3FFF) << 4
        swizzle = {1: 128, 2: 64, 3: 32}[desc >> 62]
        eb = np.dtype(etype).itemsize
        width = swizzle // eb
        r, k = np.meshgrid(np.arange(rows), np.arange(16), indexing="ij")
        if transposed:  # MN-major: 8-row K groups SBO apart, swizzle-wide MN blocks LBO apart
            linear = start + (r // width) * lbo + (k // 8) * sbo + (k % 8) * swizzle + (r % width) * eb
        else:           # K-major: 8-row groups SBO apart, rows one swizzle width apart
            linear = start + (r // 8) * sbo + (r % 8) * swizzle + k * eb
        mask = swizzle // 16 - 1
        addr = linear ^ (((linear >> 7) & mask) << 4)
        byte_addr = (addr[..., None] + np.arange(eb)).reshape(-1)
        data = self.mem.s[byte_addr].copy()
        self.wg_pending.append((byte_addr, data, first_warp, op))
        if self.shadow is not None:
            self.shadow.issue(byte_addr, first_warp, op)
        return data.view(etype).reshape(rows, 16).astype(np.float64)

    def wgmma(self, text: str, vals: list, inst=None) -> tuple:
        m_ = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.(\w+)\.\w+ \{([^}]*)\}, \$(\d+), "
                       r"\$(\d+), p, 1, 1, (\d), (\d);", text)
        a_regs = None
        if m_ is None:  # A in registers: {a0, a1, a2, a3}, b-desc, scale-d, 1, 1, trans-b (PTX ISA 9.7.15.5.2)
            r_ = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.(\w+)\.\w+ \{([^}]*)\}, "
                           r"\{([^}]*)\}, \$(\d+), p, 1, 1, (\d);", text)
            a_regs = [int(x.strip().lstrip("$")) for x in r_.group(4).split(",")]
            groups = (r_.group(1), r_.group(2), r_.group(3), None, r_.group(5), None, r_.group(6))
        else:
            groups = m_.groups()
        n = int(groups[0])
        etype = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}[groups[1]]
        count = len(groups[2].split(","))
        ia, ib = (int(groups[3]) if groups[3] is not None else None), int(groups[4])
        scale = int(re.search(r"setp\.ne\.b32 p, \$(\d+), 0", text).group(1))
        regs = {count + i: v for i, v in enumerate(vals)}  # inputs after the outputs
        acc = [np.asarray(regs[count + i]).astype(np.float64) for i in range(count)]  # tied inputs
        outs = [a.copy() for a in acc]
        lane = np.arange(WARP)
        g, t = lane // 4, lane % 4
        for wg in range(self.T // 128):
            base = 128 * wg
            op = self.op(inst) if self.shadow is not None else 0
            if a_regs is None:
                A = self._wgmma_operand(int(regs[ia][base]), 64, groups[5] == "1", etype, 4 * wg, op)
            else:  # per warp, the mma.sync m16n8k16 A fragment of its 16 rows
                A = np.zeros((64, 16))
                for w in range(4):
                    lanes = base + 32 * w + lane
                    for i, (dr, dc) in enumerate(((0, 0), (8, 0), (0, 8), (8, 8))):
                        word = np.asarray(regs[a_regs[i]][lanes]).astype(np.int64) & 0xFFFFFFFF
                        pair = word.astype(np.uint32).view(np.uint16).reshape(WARP, 2)
                        vals = pair.view(etype).astype(np.float64)
                        for e in range(2):
                            A[16 * w + g + dr, 2 * t + dc + e] = vals[:, e]
            B = self._wgmma_operand(int(regs[ib][base]), n, groups[6] == "1", etype, 4 * wg, op).T
            C = np.zeros((64, n))
            use_c = bool(regs[scale][base])
            for w in range(4):
                lanes = base + 32 * w + lane
                for j in range(n // 8):
                    for i, (dr, dc) in enumerate(((0, 0), (0, 1), (8, 0), (8, 1))):
                        C[16 * w + g + dr, 8 * j + 2 * t + dc] = acc[4 * j + i][lanes]
            D = A @ B + (C if use_c else 0)
            for w in range(4):
                lanes = base + 32 * w + lane
                for j in range(n // 8):
                    for i, (dr, dc) in enumerate(((0, 0), (0, 1), (8, 0), (8, 1))):
                        outs[4 * j + i][lanes] = D[16 * w + g + dr, 8 * j + 2 * t + dc]
        return tuple(o.astype(np.float32) for o in outs)
