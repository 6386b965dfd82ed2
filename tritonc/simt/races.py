"""Shadow state of shared memory for the SIMT simulator: finds data races between warps.

The simulator runs the warps of a CTA in lock step, so a program with a missing or misplaced
``bar.sync`` still computes the right answer there. This module remembers, for every byte of
the CTA's shared memory, who touched it in the current *barrier epoch* (the number of
``bar.sync`` / ``barrier0`` the CTA has executed so far; every thread reaches each barrier,
so the epoch is one counter for the CTA), and reports a pair of accesses that nothing orders:

* **RAW**: a read of a byte that another warp wrote in the same epoch;
* **WAR**: a write over a byte that another warp read in the same epoch;
* **WAW**: a write over a byte that another warp wrote in the same epoch (or that two warps
  write in one instruction).

Accesses by one warp are never a race with each other: its lanes run one instruction at a time
in lock step (this is what makes ``shfl`` and warp-synchronous code correct), the same
assumption the simulator makes everywhere. The asynchronous operations widen the interval in
which an access may happen (PTX ISA: ``cp.async`` and ``cp.async.wait_group``, 9.7.15 ``wgmma``):

* a ``cp.async`` writes its bytes at some moment between its issue and the
  ``cp.async.wait_group`` that covers its group. The bytes count as written by the issuing
  warp at the wait (so other warps may read them only after a later barrier), and a read or
  write by another warp in any epoch from the issue to the wait is a race with it
  (:meth:`RaceShadow.write` with ``since``);
* a ``wgmma.mma_async`` reads its A and B tiles through the async proxy at some moment between
  its issue and the ``wgmma.wait_group`` that retires its group. It reads on behalf of the
  whole warp group, so a byte written in the same epoch by *any* warp, even one of the warp
  group, is a race (the lowering orders such writes with ``fence.proxy.async`` + ``bar.sync``);
  a write by any warp while the group is in flight is a race; after the wait the bytes count as
  read by the four warps of the warp group in the epoch of the wait
  (:meth:`RaceShadow.retire`);
* ``ldmatrix`` reads (and ``stmatrix`` writes) count for the warp of each lane that supplies a
  row address. Fences (``fence.proxy.async``, ``wgmma.fence``) need no shadow state.

Races are reported by raising :class:`RaceError` at the first one found (the run stops there;
its message names both accesses by their instruction text, the warps and the byte address).

Cost: the state is three arrays over the shared bytes for the last write (epoch, warp, op),
three for the wgmma reads in flight, and two ``[bytes, warps]`` arrays (each warp's last read:
epoch, op); every check is vectorised over
the bytes one instruction touches, and nothing is cleared at a barrier (an entry counts only
when its epoch is current).
"""
from __future__ import annotations

import numpy as np

WARP = 32


class RaceError(AssertionError):
    """Two accesses to one shared-memory byte by different warps with no barrier between them.

    Attributes: ``kind`` (``"RAW"``, ``"WAR"`` or ``"WAW"``), ``address`` (the byte offset in
    the CTA's shared memory), ``epoch`` (the barrier epoch of the later access), ``first`` and
    ``second`` (``(warp, op text)`` of the earlier and the later access; for a wgmma, the first
    warp of its warp group, and ``group`` names which of the two is a wgmma)."""

    def __init__(self, kind: str, address: int, epoch: int, first: tuple[int, str], second: tuple[int, str],
                 group: tuple[bool, bool] = (False, False)):
        self.kind, self.address, self.epoch, self.first, self.second = kind, address, epoch, first, second
        verbs = {"RAW": ("wrote", "reads"), "WAR": ("read", "writes"), "WAW": ("wrote", "writes")}[kind]

        def who(warp, g):
            return f"the warp group of warps {warp}-{warp + 3}" if g else f"warp {warp}"
        super().__init__(
            f"shared-memory race ({kind}) at byte {address:#x} in barrier epoch {epoch}: "
            f"{who(first[0], group[0])} {verbs[0]} it in `{first[1]}`, then {who(second[0], group[1])} "
            f"{verbs[1]} it in `{second[1]}` with no bar.sync between")


class RaceShadow:
    """The per-byte shadow of one CTA's shared memory (``nbytes`` bytes, ``num_warps`` warps).

    Addresses are byte offsets into shared memory (int64 arrays); ``warps`` gives the warp of
    each address (same shape); ``op`` is an op id from :meth:`op_id`."""

    def __init__(self, nbytes: int, num_warps: int):
        self.epoch = 0
        self.num_warps = num_warps
        self._texts: list = []  # op id -> its text, or a function that makes it
        self._op_ids: dict = {}
        self.w_epoch = np.full(nbytes, -1, dtype=np.int32)   # epoch of the last write
        self.w_warp = np.zeros(nbytes, dtype=np.int16)       # its warp
        self.w_op = np.zeros(nbytes, dtype=np.int32)         # its op
        self.r_epoch = np.full((nbytes, num_warps), -1, dtype=np.int32)  # each warp's last read
        self.r_op = np.zeros((nbytes, num_warps), dtype=np.int32)
        self.in_flight = np.zeros(nbytes, dtype=np.int16)    # wgmma groups reading the byte
        self.in_flight_op = np.zeros(nbytes, dtype=np.int32)
        self.in_flight_warp = np.zeros(nbytes, dtype=np.int16)  # first warp of its warp group
        self.flying = 0  # operands of wgmmas in flight

    def op_id(self, key, text) -> int:
        """The id of the op ``key`` (any hashable), described in reports by ``text``: a string,
        or a function that makes it (called only for a report)."""
        i = self._op_ids.get(key)
        if i is None:
            i = self._op_ids[key] = len(self._texts)
            self._texts.append(text)
        return i

    def text(self, op: int) -> str:
        """How reports name op ``op``."""
        t = self._texts[op]
        return t if isinstance(t, str) else t()

    def barrier(self) -> None:
        """A ``bar.sync`` executed by the whole CTA: a new epoch."""
        self.epoch += 1

    # -- checks --------------------------------------------------------------------------------
    def read(self, addr: np.ndarray, warps: np.ndarray, op: int, any_writer: bool = False) -> None:
        """Warps ``warps`` read bytes ``addr`` now. ``any_writer``: a wgmma's async-proxy read by
        the warp group starting at ``warps``: a write in this epoch by any warp is a race."""
        if addr.size == 0:
            return
        hit = self.w_epoch[addr] == self.epoch
        if hit.any():
            if not any_writer:
                hit &= self.w_warp[addr] != warps
            if hit.any():
                i = int(np.argmax(hit))
                a = int(addr[i])
                raise RaceError("RAW", a, self.epoch, (int(self.w_warp[a]), self.text(int(self.w_op[a]))),
                                (int(warps[i]), self.text(op)), (False, any_writer))
        self.r_epoch[addr, warps] = self.epoch
        self.r_op[addr, warps] = op

    def write(self, addr: np.ndarray, warps: np.ndarray, op: int, since: int | None = None) -> None:
        """Warps ``warps`` write bytes ``addr`` now; ``since``: the write may have happened at
        any moment from the start of epoch ``since`` on (a ``cp.async`` landing at its wait),
        so every access by another warp from that epoch on is a race with it."""
        if addr.size == 0:
            return
        lo = self.epoch if since is None else since
        self.check_in_flight(addr, warps, op)
        hit = (self.w_epoch[addr] >= lo) & (self.w_warp[addr] != warps)
        if hit.any():
            i = int(np.argmax(hit))
            a = int(addr[i])
            raise RaceError("WAW", a, self.epoch, (int(self.w_warp[a]), self.text(int(self.w_op[a]))),
                            (int(warps[i]), self.text(op)))
        readers = self.r_epoch[addr] >= lo
        readers[np.arange(addr.size), warps] = False
        if readers.any():
            i, w = (int(x) for x in np.argwhere(readers)[0])
            a = int(addr[i])
            raise RaceError("WAR", a, self.epoch, (w, self.text(int(self.r_op[a, w]))), (int(warps[i]), self.text(op)))
        self.w_epoch[addr] = self.epoch
        self.w_warp[addr] = warps
        self.w_op[addr] = op
        if self.num_warps > 1:  # two warps writing one byte in this one instruction: one of them lost
            lost = self.w_warp[addr] != warps
            if lost.any():
                i = int(np.argmax(lost))
                a = int(addr[i])
                first, second = sorted((int(warps[i]), int(self.w_warp[a])))
                raise RaceError("WAW", a, self.epoch, (first, self.text(op)), (second, self.text(op)))

    def check_in_flight(self, addr: np.ndarray, warps: np.ndarray, op: int) -> None:
        """A write (or the issue of a ``cp.async``) over bytes that a wgmma still in flight
        reads is a race, whichever warp writes."""
        if not self.flying:
            return
        flying = self.in_flight[addr] > 0
        if flying.any():
            i = int(np.argmax(flying))
            a = int(addr[i])
            raise RaceError("WAR", a, self.epoch, (int(self.in_flight_warp[a]), self.text(int(self.in_flight_op[a])) +
                                                   " (in flight: not yet retired by wgmma.wait_group)"),
                            (int(warps[i]), self.text(op)), (True, False))

    # -- wgmma groups ------------------------------------------------------------------------
    def issue(self, addr: np.ndarray, first_warp: int, op: int) -> None:
        """A wgmma issued by the warp group of warps ``first_warp .. first_warp + 3`` starts
        reading bytes ``addr`` (distinct) through the async proxy."""
        self.read(addr, np.full(addr.size, first_warp), op, any_writer=True)
        group = slice(first_warp, first_warp + 4)
        self.r_epoch[addr, group] = self.epoch
        self.r_op[addr, group] = op
        self.flying += 1
        self.in_flight[addr] += 1
        self.in_flight_op[addr] = op
        self.in_flight_warp[addr] = first_warp

    def retire(self, addr: np.ndarray, first_warp: int, op: int) -> None:
        """The wgmma that read ``addr`` (as passed to :meth:`issue`) is complete: its bytes count
        as read by its warp group in the current epoch."""
        self.flying -= 1
        self.in_flight[addr] -= 1
        group = slice(first_warp, first_warp + 4)
        self.r_epoch[addr, group] = self.epoch
        self.r_op[addr, group] = op


def lane_bytes(addr: np.ndarray, lanes: np.ndarray, nbytes: int) -> tuple[np.ndarray, np.ndarray]:
    """The bytes ``addr[l] .. addr[l] + nbytes - 1`` of the lanes ``lanes`` (thread ids) and
    the warp of each: two flat int64 arrays."""
    a = (addr[lanes].astype(np.int64)[:, None] + np.arange(nbytes)).reshape(-1)
    return a, np.repeat(lanes // WARP, nbytes)
