"""Print a command's result and exit: its JSON (to a file or ``-``) and its text lines, exit 1 when refuted."""

from __future__ import annotations

import sys
from typing import Any, Callable

import click


def write_json(data: dict, json_out: str, *, ensure_ascii: bool = True) -> None:
    """``data`` as indented JSON to standard output (``json_out == "-"``) or to the file ``json_out``."""
    import json  # only when JSON is asked for: a tiny audit's text output does not load it (start-up, issue 33)

    text = json.dumps(data, indent=2, ensure_ascii=ensure_ascii)
    if json_out == "-":
        click.echo(text)
        return
    with open(json_out, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")


def emit_and_exit(
    res: Any, json_out: str | None, lines: Callable[[Any], list[str]], code: int, *, ensure_ascii: bool = False
) -> None:
    """Write ``res.to_dict()`` as JSON to ``json_out`` (``"-"``: standard output only, then exit), print
    ``lines(res)`` and exit with ``code``."""
    if json_out:
        write_json(res.to_dict(), json_out, ensure_ascii=ensure_ascii)
        if json_out == "-":
            sys.exit(code)
    for line in lines(res):
        click.echo(line)
    sys.exit(code)
