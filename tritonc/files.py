"""Writing output files atomically: a temporary file in the target's folder, then a rename.

Every file tritonc writes (the CLI's outputs, the generated launchers, ``tritonc-opt``'s
output) goes through here, so an error never leaves a half-written file behind and a set of
outputs is written completely or not at all.
"""
from __future__ import annotations

import errno
import os
import tempfile


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0o666 less the umask (mkstemp's is 0o600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _temp_next_to(path: str, data: str | bytes) -> str:
    """Write ``data`` to a new temporary file in the folder of ``path``; return its name."""
    if os.path.isdir(path):  # found now, before any output is renamed into place
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:  # a file where the folder should be: say so, not "File exists"
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), folder) from None
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tritonc-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, _new_file_mode())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_atomically(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    write_all_atomically({path: data})


def write_all_atomically(outputs: dict[str, str | bytes]) -> None:
    """Write every ``path: data`` of ``outputs``, or none of them.

    Every output goes to a temporary file next to its path first; only when all are written
    are they renamed into place, so an unwritable path leaves no other output behind either.

    Raises:
        OSError: with ``filename`` set to the path that could not be written.
    """
    temps: dict[str, str] = {}
    try:
        for path, data in outputs.items():
            try:
                temps[path] = _temp_next_to(path, data)
            except OSError as e:
                e.filename = path
                raise
        for path, tmp in list(temps.items()):
            try:
                os.replace(tmp, path)
            except OSError as e:
                e.filename = path
                raise
            del temps[path]
    finally:
        for tmp in temps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)
