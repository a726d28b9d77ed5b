"""Print a check's result and exit: its JSON (to a file or ``-``) and its text lines, exit 1 when refuted."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

import click


def emit_and_exit(res: Any, json_out: str | None, lines: Callable[[Any], list[str]], code: int) -> None:
    """Write ``res.to_dict()`` as JSON to ``json_out`` (``"-"``: standard output only, then exit), print
    ``lines(res)`` and exit with ``code``."""
    if json_out:
        text = json.dumps(res.to_dict(), indent=2, ensure_ascii=False)
        if json_out == "-":
            click.echo(text)
            sys.exit(code)
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    for line in lines(res):
        click.echo(line)
    sys.exit(code)
