"""``make sanitize``: NVIDIA compute-sanitizer over every example and a sample of generated programs.

For each tool (``memcheck``, ``racecheck``, ``synccheck``, ``initcheck``) it runs, under
``compute-sanitizer --tool T --report-api-errors no --error-exitcode 86``:

1. ``python -m tritonc.tools.gpu_check --no-bench``: every example kernel at its ragged check
   sizes (``tritonc/tools/gpu_cases.py``), outputs checked against the references;
2. ``python -m tritonc.fuzz --target gpu -j 1 --no-shrink``: a sample of generated programs
   (``--programs``, fixed ``--seed``), interpreter against GPU.

``--report-api-errors no``: cuda-python probes driver entry points with ``cuGetProcAddress``,
which the sanitizer would report as API errors that are not ours. Device errors (out-of-bounds
or misaligned accesses, shared-memory races, barrier misuse, reads of uninitialised memory)
make the sanitizer exit with 86; a wrong result makes the checked program exit with 1.

Prints one line per (tool, target) and a summary; exit status 0 when every run is clean, 1
otherwise, also when ``compute-sanitizer`` is not found (one line says so). compute-sanitizer
needs a machine that allows its profiling interface (not every sandbox does); a run it refuses
shows as an error of that run with the sanitizer's own message.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
#: compute-sanitizer's exit status when it found device errors (``--error-exitcode``).
SANITIZER_ERROR = 86


def find_sanitizer() -> str | None:
    """``compute-sanitizer`` from PATH, else from ``$CUDA_HOME/bin`` or ``/usr/local/cuda/bin``."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / "compute-sanitizer").is_file():
            return str(Path(root) / "bin" / "compute-sanitizer")
    return None


def targets(args) -> list[tuple[str, list[str]]]:
    """(name, command) of the programs each tool runs."""
    py = sys.executable
    out = []
    if not args.no_examples:
        cmd = [py, "-m", "tritonc.tools.gpu_check", "--no-bench"]
        if args.only:
            cmd += ["--only", *args.only]
        out.append(("examples", cmd))
    if args.programs:
        out.append((f"{args.programs} generated programs",
                    [py, "-m", "tritonc.fuzz", "-n", str(args.programs), "-j", "1", "--target", "gpu",
                     "--seed", str(args.seed), "--no-shrink"]))
    return out


def summary(text: str) -> str:
    """The sanitizer's ``ERROR SUMMARY`` line (or the last line of the output)."""
    lines = [ln for ln in text.splitlines() if "ERROR SUMMARY" in ln]
    if lines:
        return lines[-1].strip()
    rest = [ln for ln in text.splitlines() if ln.strip()]
    return rest[-1].strip() if rest else "(no output)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="make sanitize", description=__doc__.splitlines()[0])
    ap.add_argument("--tools", nargs="*", default=list(TOOLS), choices=TOOLS, help="sanitizer tools (default: all four)")
    ap.add_argument("--only", nargs="*", help="example case names (default: all; see tritonc/tools/gpu_cases.py)")
    ap.add_argument("--no-examples", action="store_true", help="skip the examples")
    ap.add_argument("--programs", type=int, default=40, help="generated programs per tool (default 40; 0: none)")
    ap.add_argument("--seed", type=int, default=1124, help="seed of the generated programs (default 1124)")
    ap.add_argument("--log-dir", default="build/sanitize", help="full sanitizer output per run (default build/sanitize)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per run (default 3600)")
    args = ap.parse_args(argv)

    sanitizer = find_sanitizer()
    if sanitizer is None:
        print("sanitize: compute-sanitizer not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin "
              "(it ships with the CUDA toolkit)", file=sys.stderr)
        return 1
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    print(f"sanitize: {sanitizer}, tools {' '.join(args.tools)}, {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    bad = 0
    rows = []
    for tool in args.tools:
        for name, cmd in targets(args):
            full = [sanitizer, "--tool", tool, "--report-api-errors", "no", "--error-exitcode", str(SANITIZER_ERROR),
                    "--print-limit", "20", *cmd]
            start = time.time()
            try:
                proc = subprocess.run(full, capture_output=True, text=True, env=env, timeout=args.timeout)
                text, code = proc.stdout + proc.stderr, proc.returncode
            except subprocess.TimeoutExpired as e:
                text, code = f"{e.stdout or ''}{e.stderr or ''}\ntimed out after {args.timeout} s", -1
            log = log_dir / f"{tool}-{name.split()[0]}.log"
            log.write_text(" ".join(full) + "\n\n" + text)
            if code == 0:
                verdict = "clean"
            elif code == SANITIZER_ERROR:
                verdict = "DEVICE ERRORS"
            else:
                verdict = f"FAILED (exit {code})"
            bad += code != 0
            line = f"  {tool:9s} {name}: {verdict}, {summary(text)} ({time.time() - start:.0f} s; {log})"
            rows.append(line)
            print(line, flush=True)
    print(f"sanitize: {len(rows) - bad} of {len(rows)} runs clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
