"""A content-addressed cache of the CLI's outputs.

An entry is keyed by the SHA-256 of: the source text, the preprocessed text when the source
has an ``#include`` (so the contents of included files count; without one the preprocessed
text is a function of the source, the defines and pcpp's version, all in the key), every option that can change an output or what is printed
(:class:`~tritonc.options.CompileOptions` as a whole, the variant lists, ``-v``), the target
(``arch``, part of the options), tritonc's own files (:func:`compiler_fingerprint`), and the
versions of tritonc, llvmlite (which fixes the LLVM
version), nvJitLink, cuda-bindings, pcpp and lark. It holds each output kind compiled under that key (a
later run asking for another kind compiles and adds it) and what the compilation printed to
standard error (warnings, ``-v``). Errors are never cached.

Location: ``$TRITONC_CACHE_DIR``, else the user cache directory (``platformdirs``:
``~/.cache/tritonc`` on Linux); ``--no-cache`` (or ``TRITONC_NO_CACHE=1`` in the
environment) neither reads nor writes it. Entries are
written to a temporary folder and renamed into place, so a reader never sees half an entry;
an unreadable entry is a miss. Nothing is ever evicted automatically: delete the folder to
reclaim the space.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .options import CompileOptions, artifact_identity

#: The packages whose versions are part of every key.
VERSIONED_PACKAGES = ("llvmlite", "nvidia-nvjitlink", "cuda-bindings", "pcpp", "lark")

_KIND_FILE = "out.{kind}"
_STDERR_FILE = "stderr.txt"


def cache_dir() -> Path:
    """``$TRITONC_CACHE_DIR``, else the user cache directory for ``tritonc``."""
    env = os.environ.get("TRITONC_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("tritonc", appauthor=False))


def compiler_fingerprint(package: Path | None = None) -> str:
    """A digest of the compiler's own files: each ``.py`` file of the ``tritonc`` package and the
    grammar, by relative path, size and modification time (``os.stat``, about 2 ms; contents
    are not read). A development tree whose code changes under an unchanged version number
    therefore misses the cache instead of returning what older code compiled."""
    package = package or Path(__file__).resolve().parent
    grammar = package.parent / "grammar" / "triton_c.lark"
    digest = hashlib.sha256()
    files = sorted(package.rglob("*.py")) + ([grammar] if grammar.exists() else [])
    for path in files:
        st = path.stat()
        digest.update(f"{path.relative_to(package.parent)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    from importlib import metadata

    from .version import __version__

    out = {"tritonc": __version__, "tritonc-files": compiler_fingerprint()}
    for name in VERSIONED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def cache_key(source: str, preprocessed: str, options: CompileOptions, extra: dict | None = None) -> str:
    """The hex SHA-256 key of a compilation (see the module docstring); ``extra`` holds the
    CLI's other output-changing settings (variant lists, ``-v``)."""
    payload = {"source": source, "preprocessed": preprocessed, "options": artifact_identity(options),
               "extra": _jsonable(extra or {}), "versions": _versions()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()


class CompileCache:
    """The cache folder ``root`` (default :func:`cache_dir`)."""

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else cache_dir()

    def _entry(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str, kinds: list[str]) -> tuple[dict[str, bytes], str] | None:
        """``({kind: bytes}, stderr)`` when the entry holds every kind in ``kinds``, else None."""
        entry = self._entry(key)
        try:
            outputs = {kind: (entry / _KIND_FILE.format(kind=kind)).read_bytes() for kind in kinds}
            stderr = (entry / _STDERR_FILE).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return outputs, stderr

    def put(self, key: str, outputs: dict[str, str | bytes], stderr: str) -> None:
        """Add ``outputs`` to the entry of ``key`` (kinds already there are kept). Failing to
        write (read-only folder, full disk) is not an error: the cache is only a speed-up."""
        entry = self._entry(key)
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            old = {}
            if entry.is_dir():
                old = {p.name: p.read_bytes() for p in entry.iterdir() if p.is_file()}
            tmp = Path(tempfile.mkdtemp(prefix=f".{key[:8]}-", dir=entry.parent))
            files = dict(old)
            for kind, data in outputs.items():
                files[_KIND_FILE.format(kind=kind)] = data.encode("utf-8") if isinstance(data, str) else data
            files[_STDERR_FILE] = stderr.encode("utf-8")
            for name, data in files.items():
                (tmp / name).write_bytes(data)
            if entry.exists():
                trash = Path(tempfile.mkdtemp(prefix=f".{key[:8]}-old-", dir=entry.parent))
                os.replace(entry, trash / "entry")
                os.replace(tmp, entry)
                _remove_tree(trash)
            else:
                os.replace(tmp, entry)
        except OSError:
            return


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
