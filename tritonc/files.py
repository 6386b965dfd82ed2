"""Writing output files atomically: a temporary file in the target's folder, then a rename.

Every file tritonc writes (the CLI's outputs, the generated launchers, ``tritonc-opt``'s
output) goes through here, so an error never leaves a half-written file behind and a set of
outputs is written completely or not at all. As gcc and nvcc do with special files:

* a symbolic link is kept: its target is written (atomically, in the target's folder);
* a character device or FIFO (``/dev/null``, a named pipe, ``/dev/stdout``) is written
  straight into, not replaced by a regular file; such writes cannot be undone, so they happen
  after every regular output's temporary file is complete, and just before the renames.
"""
from __future__ import annotations

import errno
import os
import stat
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
            f.write(_bytes(data))
        os.chmod(tmp, _new_file_mode())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _written_in_place(path: str) -> bool:
    """Whether ``path`` (after symbolic links) is an existing file that is neither regular nor
    a folder: a device, FIFO or socket, written straight into."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


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
    temps: dict[str, str] = {}  # output path as given -> its temporary file
    targets: dict[str, str] = {}  # output path as given -> the file renamed over (links resolved)
    try:
        for path, data in outputs.items():
            if _written_in_place(path):
                continue
            try:
                targets[path] = os.path.realpath(path)
                temps[path] = _temp_next_to(targets[path], data)
            except OSError as e:
                e.filename = path
                raise
        for path, data in outputs.items():
            if path not in temps:
                try:
                    with open(path, "wb") as f:
                        f.write(_bytes(data))
                except OSError as e:
                    e.filename = path
                    raise
        for path, tmp in list(temps.items()):
            try:
                os.replace(tmp, targets[path])
            except OSError as e:
                e.filename = path
                raise
            del temps[path]
    finally:
        for tmp in temps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)


def same_file_as(output: str, inputs: list[str]) -> str | None:
    """The first of ``inputs`` that ``output`` names (``os.path.samefile``: links and other
    spellings of one file included), or ``None``. An output that does not exist yet names none.
    Writers refuse such an output rather than overwrite their own source, as gcc does."""
    for path in inputs:
        try:
            if os.path.samefile(output, path):
                return path
        except OSError:  # the output does not exist yet, or the input is gone
            continue
    return None
