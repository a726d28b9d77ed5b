"""Run Python code in a fresh interpreter with the checkout first on PYTHONPATH and read the JSON its last
stdout line prints (start-up and import tests: what a fresh process loads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_json(code: str, timeout: float = 600) -> dict:
    """``code`` run by ``python -c`` in the checkout; its last stdout line parsed as JSON (the run must succeed)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
