"""Tuning tables: what ``tritonc-tune`` measured, and what ``tritonc --tuning`` builds from it.

A table is a JSON object (format ``tritonc-tuning-table``, :data:`VERSION`; docs/tuning.md
shows one)::

    {"format": "tritonc-tuning-table", "version": 1,
     "source": "matmul.tri", "source_sha256": "<sha-256 of the source text>", "arch": "sm_90a",
     "kernels": {"matmul": {
         "key": ["M", "N", "K"],                      # the __retune (or the sizes file's) parameters
         "buckets": {"M": "pow2", "N": "pow2", "K": [1024, 8192]},
         "variants": [{"id": 0, "meta": {"TM": 64, ..., "num_warps": 4, "num_stages": 3}}, ...],
         "entries": {"M=4096,N=4096,K=4096": {
             "coordinates": [12, 12, 12], "sizes": [{"M": 4096, "N": 4096, "K": 4096}],
             "variant": 5, "meta": {...}, "us": [812.3, null, ...]}}}}}

``us[i]`` is variant ``i``'s median time in microseconds over the entry's sizes (summed when
several sizes fall into one bucket), ``null`` where it failed or gave a wrong result;
``variant`` is the fastest. Buckets: ``"pow2"`` (the smallest power of two ``>= v``) or a
list of ascending bounds (ranges ``[b[i-1], b[i])``); coordinates and the nearest-bucket rule
are those of :mod:`tritonc.tuning.dispatch`.

This module needs no GPU: it reads, checks, writes and plans; ``tritonc.tuning.tuner``
measures.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ..diagnostics import CompileError, SourceLoc
from .dispatch import TunedDispatch, pow2_coordinate, range_coordinate

FORMAT = "tritonc-tuning-table"
VERSION = 1
META_KEYS = ("num_warps", "num_stages")


class TableError(CompileError):
    """A tuning table that is malformed or does not fit the build (exit status 1)."""


def source_sha256(text: str) -> str:
    """The SHA-256 of a source text (UTF-8), as tables record it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def coordinate(value: int, rule) -> int:
    """The bucket coordinate of ``value`` under ``rule`` (``"pow2"`` / ``None``, or bounds)."""
    return pow2_coordinate(value) if rule in (None, "pow2") else range_coordinate(value, tuple(rule))


def bucket_label(key: list[str], coords: list[int], buckets: dict) -> str:
    """``M=4096,N=4096,K=[1024,8192)``: each axis's power of two, or its range."""
    parts = []
    for name, c in zip(key, coords):
        rule = buckets.get(name, "pow2")
        if rule == "pow2":
            parts.append(f"{name}={1 << c}")
        else:
            lo = "-inf" if c == 0 else str(rule[c - 1])
            hi = "inf" if c == len(rule) else str(rule[c])
            parts.append(f"{name}=[{lo},{hi})")
    return ",".join(parts)


def meta_text(meta: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in meta.items())


@dataclass
class KernelTable:
    """One kernel's part of a table (see the module docstring)."""

    key: list[str]
    buckets: dict                       # name -> "pow2" | [bounds]
    variants: list[dict]                # the tuner's variants' meta-parameters, by id
    entries: dict = field(default_factory=dict)  # label -> entry dict

    def to_json(self) -> dict:
        return {"key": self.key, "buckets": {k: self.buckets.get(k, "pow2") for k in self.key},
                "variants": [{"id": i, "meta": m} for i, m in enumerate(self.variants)],
                "entries": dict(sorted(self.entries.items(), key=lambda kv: kv[1]["coordinates"]))}

    def add(self, sizes: dict[str, int], us: list[float | None]) -> None:
        """Record the times ``us`` (per variant, ``None`` for a failure) measured at ``sizes``;
        sizes in one bucket are summed (a variant that failed at one of them stays ``None``)."""
        us = [None if t is None else round(float(t), 3) for t in us]
        coords = [coordinate(int(sizes[k]), self.buckets.get(k, "pow2")) for k in self.key]
        label = bucket_label(self.key, coords, self.buckets)
        entry = self.entries.get(label)
        if entry is None:
            entry = self.entries[label] = {"coordinates": coords, "sizes": [], "us": list(us)}
        else:
            entry["us"] = [None if a is None or b is None else a + b for a, b in zip(entry["us"], us)]
        entry["sizes"].append({k: int(sizes[k]) for k in self.key})
        timed = [(t, i) for i, t in enumerate(entry["us"]) if t is not None]
        entry["variant"] = min(timed)[1] if timed else None
        entry["meta"] = self.variants[entry["variant"]] if timed else None


@dataclass
class Table:
    source: str
    source_sha256: str
    arch: str
    kernels: dict[str, KernelTable]

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "source": self.source, "source_sha256": self.source_sha256,
                "arch": self.arch, "kernels": {k: t.to_json() for k, t in self.kernels.items()}}

    def dumps(self) -> str:
        """The table as JSON text: what fits in 100 columns on one line (a variant, its
        meta-parameters, coordinates), the rest one key or element per line."""
        return _dump(self.to_json(), 0) + "\n"


def _dump(value, depth: int) -> str:
    text = json.dumps(value)
    if not isinstance(value, (dict, list)) or not value or len(text) + depth <= 100:
        return text
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_dump(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    return "[\n" + ",\n".join(f"{inner}{_dump(v, depth + 1)}" for v in value) + f"\n{pad}]"


def _fail(path: str, message: str) -> TableError:
    return TableError(f"{path}: {message}")


def _int(path: str, where: str, value) -> int:
    if type(value) is not int:
        raise _fail(path, f"{where} must be an integer, got {json.dumps(value)}")
    return value


def parse_table(text: str, path: str) -> Table:
    """Read and check a table's JSON text.

    Raises:
        TableError: invalid JSON (at its line and column), another format or version, or a
            field of the wrong shape (the message names it).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TableError(f"not a tuning table: {e.msg}", SourceLoc(path, e.lineno, e.colno)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _fail(path, f"not a tuning table (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise _fail(path, f"table version {json.dumps(data.get('version'))}; this tritonc reads version {VERSION}")
    for name in ("source", "source_sha256", "arch"):
        if not isinstance(data.get(name), str):
            raise _fail(path, f"\"{name}\" must be a string")
    kernels = data.get("kernels")
    if not isinstance(kernels, dict) or not kernels:
        raise _fail(path, "\"kernels\" must be an object naming at least one kernel")
    out = {}
    for kname, kt in kernels.items():
        where = f"kernel '{kname}'"
        if not isinstance(kt, dict):
            raise _fail(path, f"{where} must be an object")
        key = kt.get("key")
        if not isinstance(key, list) or not key or not all(isinstance(k, str) for k in key) or len(set(key)) != len(key):
            raise _fail(path, f"{where}: \"key\" must be a list of distinct parameter names")
        buckets = kt.get("buckets", {})
        if not isinstance(buckets, dict) or set(buckets) - set(key):
            raise _fail(path, f"{where}: \"buckets\" must map key names to \"pow2\" or a list of bounds")
        for name, rule in buckets.items():
            if rule != "pow2" and not (isinstance(rule, list) and rule and all(type(b) is int for b in rule)
                                       and all(a < b for a, b in zip(rule, rule[1:]))):
                raise _fail(path, f"{where}: the buckets of '{name}' must be \"pow2\" or strictly ascending integers")
        variants = kt.get("variants")
        if not isinstance(variants, list):
            raise _fail(path, f"{where}: \"variants\" must be a list")
        metas = []
        for i, v in enumerate(variants):
            meta = v.get("meta") if isinstance(v, dict) else None
            if not isinstance(v, dict) or v.get("id") != i or not isinstance(meta, dict):
                raise _fail(path, f"{where}: variant {i} must be {{\"id\": {i}, \"meta\": {{...}}}}")
            for mk, mv in meta.items():
                _int(path, f"{where}: variant {i}'s {mk}", mv)
            if any(k not in meta for k in META_KEYS):
                raise _fail(path, f"{where}: variant {i} needs num_warps and num_stages")
            metas.append(meta)
        entries = kt.get("entries", {})
        if not isinstance(entries, dict):
            raise _fail(path, f"{where}: \"entries\" must be an object")
        for label, e in entries.items():
            ew = f"{where}: entry '{label}'"
            if not isinstance(e, dict):
                raise _fail(path, f"{ew} must be an object")
            coords = e.get("coordinates")
            if not isinstance(coords, list) or len(coords) != len(key):
                raise _fail(path, f"{ew}: \"coordinates\" must list {len(key)} integers")
            for c in coords:
                _int(path, f"{ew}'s coordinate", c)
            chosen = e.get("variant")
            if chosen is not None and (type(chosen) is not int or not 0 <= chosen < len(metas)):
                raise _fail(path, f"{ew}: variant {json.dumps(chosen)} is not one of the table's "
                                  f"{len(metas)} variants")
            us = e.get("us", [])
            if not isinstance(us, list) or not all(t is None or isinstance(t, (int, float)) for t in us):
                raise _fail(path, f"{ew}: \"us\" must list numbers or nulls")
        out[kname] = KernelTable(list(key), {k: buckets.get(k, "pow2") for k in key}, metas, dict(entries))
    return Table(data["source"], data["source_sha256"], data["arch"], out)


def load_table(path: str) -> Table:
    """:func:`parse_table` of the file ``path``; TableError when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise _fail(path, f"cannot read the tuning table: {getattr(e, 'strerror', None) or e}") from None
    return parse_table(text, path)


@dataclass
class TablePlan:
    """What a ``--tuning`` build compiles: ``configs`` (the variants, each a meta-parameter
    dict: tunables, ``num_warps``, ``num_stages``; empty: every surviving variant of the
    command line's space) and each kernel's :class:`TunedDispatch` over them."""

    configs: list[dict]
    dispatch: dict[str, TunedDispatch]


def plan(table: Table, path: str, text: str, kernels: list[str], arch: str) -> TablePlan:
    """Check ``table`` against the build (source text, its kernel names, ``--arch``) and list
    the variants to compile: the ones some entry picked, in table order.

    Raises:
        TableError: the table was measured for another source (hash), another arch, or names a
            kernel the file does not have.
    """
    digest = source_sha256(text)
    if table.source_sha256 != digest:
        raise _fail(path, f"the table was measured for another version of its source '{table.source}' "
                          f"(SHA-256 {table.source_sha256[:12]}..., this source is {digest[:12]}...); "
                          "run tritonc-tune again")
    if table.arch != arch:
        raise _fail(path, f"the table was measured for {table.arch}, this build is for {arch} (--arch)")
    for name in table.kernels:
        if name not in kernels:
            raise _fail(path, f"the table is for kernel '{name}', which the source does not define "
                              f"(its kernels: {', '.join(kernels) or 'none'})")
    configs: list[dict] = []
    dispatch = {}
    for name, kt in table.kernels.items():
        pairs = []
        for e in kt.entries.values():
            if e.get("variant") is None:
                continue
            meta = kt.variants[e["variant"]]
            if meta not in configs:
                configs.append(meta)
            pairs.append((e["coordinates"], configs.index(meta)))
        rules = tuple(None if kt.buckets.get(k, "pow2") == "pow2" else tuple(kt.buckets[k]) for k in kt.key)
        dispatch[name] = (kt.key, rules, pairs)
    return TablePlan(configs, {n: TunedDispatch(tuple(k), r, tuple((tuple(c), i) for c, i in p))
                               for n, (k, r, p) in dispatch.items()})


def check_space(configs: list[dict], space: dict[str, list[int] | None], warps: list[int] | None,
                stages: list[int] | None, path: str) -> None:
    """Every config must lie in the build's variant space: each tunable a name of ``space``
    (``const tunable`` names and ``--tune`` names, with their allowed values or ``None`` for
    any), ``num_warps`` in ``warps`` (any power of two up to 32 when ``None``), ``num_stages``
    in ``stages`` (any positive number when ``None``).

    Raises:
        TableError: naming the variant and the value that is not allowed.
    """
    for meta in configs:
        what = f"the table's variant {meta_text(meta)} is not in this build's variant space"
        for name, value in meta.items():
            if name == "num_warps":
                ok = value in warps if warps else (1 <= value <= 32 and value & (value - 1) == 0)
                allowed = warps
            elif name == "num_stages":
                ok = value in stages if stages else value >= 1
                allowed = stages
            elif name not in space:
                raise _fail(path, f"{what}: '{name}' is neither a const tunable of the source nor a --tune name")
            else:
                allowed = space[name]
                ok = allowed is None or value in allowed
            if not ok:
                listed = ", ".join(map(str, allowed)) if allowed else "a power of two from 1 to 32" \
                    if name == "num_warps" else "a positive number"
                raise _fail(path, f"{what}: {name}={value} is not one of {listed}")
