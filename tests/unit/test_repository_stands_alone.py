"""No tracked file points outside the repository (a user's clone has nothing beside it): no
path into a development machine's shared folder, no citation of its research notes."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\.\./shared|/work/shared|shared/(spec|research|design)/|codegen-facts|codegen-snippets")


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.splitlines()]


def test_no_file_points_outside_the_repository():
    bad = []
    for path in _tracked():
        if path.suffix in (".cubin", ".whl") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line) and path.name != Path(__file__).name:
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)
