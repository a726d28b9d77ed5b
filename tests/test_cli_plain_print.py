"""The audit's summary printer (privcheck/cli/terminal.py ``print_text``) prints exactly what rich would,
and skips importing rich (and the progress bar) when there is nothing for rich to render."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.cli import terminal as cli

ROOT = Path(__file__).resolve().parents[1]


def _outcome(print_it, text: str) -> tuple[str, str | None]:
    """What ``print_it(text)`` writes to standard output, and the type of what it raised (markup errors)."""
    import contextlib

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            print_it(text)
    except Exception as exc:  # rich's MarkupError: the same for both
        return buf.getvalue(), type(exc).__name__
    return buf.getvalue(), None


def _rich(text: str) -> None:
    from rich.console import Console

    Console(highlight=False).print(text, soft_wrap=True)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab01 =,.:[]{}()/@#\\\t\r\n\x07…εδ-_")), max_size=40))
def test_same_text_as_rich(text):
    assert _outcome(cli.print_text, text) == _outcome(_rich, text)


def test_a_summary_is_printed_without_rich():
    code = (
        "import sys\nfrom privcheck.cli import main\nsys.argv = ['privcheck', 'audit', 'de', '--samples', '200']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\nprint('RICH', 'rich' in sys.modules, file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(env, PYTHONPATH=str(ROOT)),
        cwd=ROOT,
    )
    assert "verdict" in out.stdout
    assert "RICH False" in out.stderr, out.stderr[-2000:]


def test_rich_terminal_rule(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    for var in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(var, raising=False)
    assert cli.rich_terminal(Tty()) and not cli.rich_terminal(io.StringIO())
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.rich_terminal(io.StringIO())
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    assert not cli.rich_terminal(Tty())
