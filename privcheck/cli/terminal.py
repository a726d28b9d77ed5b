"""Terminal output shared by the commands: rich's terminal rule and a plain printer that matches rich.

Kept apart from the commands so that a light command (``audit`` of a built-in mechanism, ``audit --canaries``)
prints without importing rich when nothing in its text needs it (start-up, issue 33).
"""

from __future__ import annotations

import os
import re

import click


def rich_terminal(stream) -> bool:
    """Whether a rich ``Console`` on ``stream`` would treat it as a terminal (rich's own rule:
    ``TTY_COMPATIBLE`` 0/1, then ``FORCE_COLOR``, then ``isatty()``)."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: text rich might print differently: backslash escapes, markup tags, ``:emoji:`` codes, tabs, control codes
_RICH_SPECIAL = re.compile(r"\\|\[[a-z#/@]|:\S*?:|[\t\x07\x08\x0b\x0c\r]")


def print_text(text: str) -> None:
    """Print ``text`` to standard output exactly as ``Console(highlight=False).print(text, soft_wrap=True)``
    does, without importing rich when the text holds nothing rich would render differently."""
    if _RICH_SPECIAL.search(text) is None:
        click.echo(text)
        return
    from rich.console import Console

    Console(highlight=False).print(text, soft_wrap=True)
