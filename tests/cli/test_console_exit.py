"""The console script's fast exit (``tritonc.cli.console_main``): ``os._exit`` once the outputs
are written and the streams flushed, with :func:`tritonc.cli.main`'s exit status."""
from __future__ import annotations

import subprocess
import sys

from cli_helpers import EXAMPLES_DIR, tritonc_process

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"


def python_m(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, **kwargs)


def test_outputs_complete_and_status_zero(tmp_path):
    run = tritonc_process(VECTOR_ADD, "-D", "BLOCK=1024", "--emit=cubin,py", "-o", tmp_path / "v.cubin")
    assert run.status == 0, run.stderr
    assert (tmp_path / "v.cubin").read_bytes()[:4] == b"\x7fELF"
    assert (tmp_path / "v.py").read_text().rstrip().endswith(")")
    # PTX to a pipe: every byte flushed before the process ends
    proc = python_m("-m", "tritonc", VECTOR_ADD, "-D", "BLOCK=1024", "--emit=ptx", "--no-specialize", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(b"//") and proc.stdout.rstrip().endswith(b"}")


def test_an_error_exits_one_with_its_message(tmp_path):
    bad = tmp_path / "bad.tri"
    bad.write_text("__global__ void k(int *X) { *X = 1 }\n")
    proc = python_m("-m", "tritonc", bad, "-o", tmp_path / "bad.cubin")
    assert proc.returncode == 1
    assert b"error: expected ';' before '}'" in proc.stderr
    assert not (tmp_path / "bad.cubin").exists()


def test_exit_status_as_the_interpreter_gives_it():
    """``sys.exit(3)`` gives 3, ``sys.exit("text")`` prints the text and gives 1."""
    for code, status, printed in (("3", 3, b""), ("'boom'", 1, b"boom"), ("None", 0, b"")):
        proc = python_m("-c", "import tritonc.cli as c\n"
                              f"def fake(argv=None): raise SystemExit({code})\n"
                              "c.main = fake\nc.console_main()")
        assert proc.returncode == status, (code, proc.stderr)
        assert printed in proc.stderr


def test_the_collector_stays_off_to_the_end():
    """:func:`tritonc.cli.main` turns the cyclic collector on again after the command when it was
    on before; the console script turns it off first, so no collection walks the IR before
    ``os._exit``."""
    proc = python_m("-c", "import gc, tritonc.cli as c\n"
                          "def fake(argv=None): print('collector on:', gc.isenabled(), flush=True)\n"
                          "c.main = fake\nc.console_main()")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b"collector on: False"
