"""Run every code block of every documentation page and compare what it prints with the page.

The pages: README.md, examples/README.md and the site, docs/site/**/*.md (:func:`default_pages`).
Usage (from the repository root)::

    python docs/check_pages.py                  # light blocks (what tests/test_readme_check.py runs in CI)
    python docs/check_pages.py --heavy          # every block, and the heavy generated parts (Findings)
    python docs/check_pages.py --update         # rewrite the light transcripts and generated parts
    python docs/check_pages.py --update --heavy    # rewrite everything, Findings included (several minutes)
    python docs/check_pages.py docs/site/audit.md  # one page

(``python docs/readme_check.py`` is the same command under its old name.)

How a block is treated (the *marker* is an HTML comment on the nearest non-blank line above the
opening fence; it does not show on GitHub):

- ``<!-- readme-check: skip: REASON -->`` — not run (installs, cluster commands, fragments that need
  the reader's own code). The reason is mandatory and printed by ``--list``.
- ``<!-- readme-check: heavy -->`` — run only with ``--heavy`` (full catalogue runs, 10^6-sample
  audits, calibrations that take tens of seconds).
- ``<!-- readme-check: output -->`` — the standard output of the python block above it (compared, rewritten
  by ``--update``; run whenever that block runs).
- no marker — *light*: run by the test suite.

Kinds of block:

- *transcript*: a block with lines starting ``$ ``. Each ``$ privcheck ARGS`` (or ``$ python ARGS``)
  runs in a scratch directory; the lines after it, up to the next ``$`` line, are its expected
  output (standard output then standard error). The comparison masks only the *volatile* fields
  listed in :data:`VOLATILE` (elapsed seconds, draws per second); everything else must be equal.
  ``--update`` rewrites those lines from the output of the same command.
- *file*: a ``python``/``toml`` block whose first line is ``# NAME.EXT — ...`` (or ``-``): written
  into the scratch directory under NAME.EXT so that later blocks of the same page can import or
  read it; a Python file is compiled.
- *python*: any other ``python`` block runs as a script (``python BLOCK.py``) in the scratch
  directory, after the file blocks above it were written; it must exit 0. Its comments are
  illustrative; the numbers they show are asserted by tests/test_public_api.py and
  tests/test_foreign_readme.py.
- any other block (plain commands without output, YAML, TOML fragments) must carry a ``skip`` or
  ``heavy`` marker; an unmarked one is reported as an error, so a new section cannot slip in unchecked.

Generated parts (between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``; ``docs/generated.py`` lists
them and what produces each) are rendered again and compared: the claims-file format from the code's key
tables, the performance and mutation figures from their results files, the zoo scorecard's library versions
against the pins; the Findings (``python -m privcheck.findings``, the whole catalogue) only with ``--heavy``.
``--update`` rewrites them. Every random result is seeded (the CLI's default ``--seed 0``), so a run without
code changes reproduces the pages up to the volatile fields.

Paths: every Markdown link and image of a page must point at a file that exists (a site page only at
files of the site: mkdocs serves nothing else), and every repository path a page names (``privcheck/…``,
``benchmarks/…``, ``examples/…`` …, in text or code) must exist.

Exit status: 0 when every checked block matches, 1 when some differ (a unified diff per block),
2 on bad usage.
"""

from __future__ import annotations

import argparse
import atexit
import difflib
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Sequence

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = "docs/site"


def default_pages(root: pathlib.Path = ROOT) -> tuple[str, ...]:
    """README.md, examples/README.md and every page of the site (``docs/site/**/*.md``), as root-relative paths."""
    site = sorted(p.relative_to(root).as_posix() for p in (root / SITE).rglob("*.md"))
    return ("README.md", "examples/README.md", *site)


PAGES = default_pages()

#: (pattern, replacement) pairs applied to both sides before comparing: only fields that
#: legitimately change from run to run (wall-clock time and throughput)
VOLATILE: tuple[tuple[str, str], ...] = (
    (r"\b\d+(?:\.\d+)?(?:e[+-]?\d+)? ?(?:s|ms|min)\b(?! \w*[a-z]=)", "<time>"),
    (r"\b\d+(?:\.\d+)?(?:e[+-]?\d+)?(?:×10\S+)? draws/s\b", "<rate> draws/s"),
    (r'"(seconds|draws_per_second)": [0-9.e+-]+', r'"\1": <volatile>'),
)

MARKER = re.compile(r"<!--\s*readme-check:\s*(skip|heavy|output)\s*(?::\s*(.*?))?\s*-->")
FILE_HEADER = re.compile(r"#\s*([\w.-]+\.(?:py|toml))\s+(?:—|-)")
TIMEOUT = 900


@dataclass
class Block:
    """One fenced code block: where it is, its language, text, marker and kind."""

    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    body: str
    mode: str  # "light", "heavy", "skip" or "output"
    reason: str = ""
    start: int = 0  # character offsets of the body inside the page
    end: int = 0

    @property
    def kind(self) -> str:
        """``transcript``, ``file``, ``python``, ``output`` or ``other`` (see the module docstring)."""
        if self.mode == "output":
            return "output"
        lines = self.body.splitlines()
        if any(ln.startswith("$ ") for ln in lines):
            return "transcript"
        if lines and self.lang in ("python", "toml") and FILE_HEADER.match(lines[0]):
            return "file"
        if self.lang == "python":
            return "python"
        return "other"

    def where(self) -> str:
        """``page:line`` of the opening fence."""
        return f"{self.page}:{self.line}"


@dataclass
class Problem:
    """A block that does not match the page, or cannot be run."""

    block: Block
    message: str
    diff: list[str] = field(default_factory=list)


def parse(page: str, text: str) -> list[Block]:
    """The fenced blocks of ``text`` (a Markdown page) with their markers.

    A marker is an HTML comment ``<!-- readme-check: skip: REASON -->`` or ``<!-- readme-check:
    heavy -->`` on the nearest non-blank line above the fence; a ``skip`` without a reason is refused.
    """
    blocks: list[Block] = []
    fence = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
    for m in fence.finditer(text):
        before = text[: m.start()].rstrip("\n").splitlines()
        prev = next((ln for ln in reversed(before) if ln.strip()), "")
        mode, reason = "light", ""
        mk = MARKER.search(prev)
        if mk:
            mode, reason = mk.group(1), (mk.group(2) or "").strip()
            if mode == "skip" and not reason:
                raise ValueError(
                    f"{page}:{text.count(chr(10), 0, m.start()) + 1}: 'readme-check: skip' needs a reason ('skip: why')"
                )
        blocks.append(
            Block(
                page=page,
                line=text.count("\n", 0, m.start()) + 1,
                lang=m.group(1) or "",
                body=m.group(2),
                mode=mode,
                reason=reason,
                start=m.start(2),
                end=m.end(2),
            )
        )
    return blocks


def mask(text: str) -> str:
    """``text`` with the volatile fields of :data:`VOLATILE` replaced by placeholders, trailing spaces cut."""
    for pat, rep in VOLATILE:
        text = re.sub(pat, rep, text)
    return "\n".join(ln.rstrip() for ln in text.strip("\n").splitlines())


def split_transcript(body: str) -> list[tuple[str, str]]:
    """``[(command, expected output)]`` of a transcript block (commands without the ``$ ``)."""
    out: list[tuple[str, list[str]]] = []
    for ln in body.splitlines():
        if ln.startswith("$ "):
            out.append((ln[2:].strip(), []))
        elif out:
            out[-1][1].append(ln)
        elif ln.strip():
            raise ValueError(f"output before the first '$' line: {ln!r}")
    return [(c, "\n".join(o)) for c, o in out]


def _env(scratch: pathlib.Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(scratch), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["COLUMNS"] = "100"  # the terminal layout depends on the width: fix it
    env["NO_COLOR"] = "1"
    for ci_marker in ("CI", "BUILD_NUMBER"):  # pytest stops shortening summary lines on CI: same output everywhere
        env.pop(ci_marker, None)
    return env


def argv_of(command: str) -> list[str]:
    """The argument vector for a transcript command: ``privcheck ...`` or ``python ...`` only."""
    words = shlex.split(command)
    if not words or words[0] not in ("privcheck", "python"):
        raise ValueError(f"transcript commands start with 'privcheck' or 'python', not {command!r}")
    if words[0] == "privcheck":
        return [
            sys.executable,
            "-c",
            "import sys; sys.argv[0] = 'privcheck'; from privcheck.cli import main; main()",
            *words[1:],
        ]
    return [sys.executable, *words[1:]]


def _server():
    """The fork server of this process (started on first use; ``None`` where forking is unavailable or
    ``CHECK_PAGES_FORK=0``); see docs/command_server.py."""
    if "server" not in _SERVER:
        mod = _sibling("command_server")
        use = mod.supported() and os.environ.get("CHECK_PAGES_FORK", "1") != "0"
        _SERVER["server"] = mod.CommandServer((str(ROOT),)) if use else None
        if use:
            atexit.register(_SERVER["server"].close)
    return _SERVER["server"]


_SERVER: dict = {}


def run_python(argv: list[str], scratch: pathlib.Path) -> tuple[int, str, str]:
    """``argv`` (``[sys.executable, ...]``) in ``scratch``: exit status, standard output, standard error.

    Through the fork server when there is one (same output as a fresh interpreter, without its start-up and
    imports), else — and whenever the server declines — as a subprocess.
    """
    env = _env(scratch)
    server = _server()
    if server is not None:
        done = server.run(argv[1:], str(scratch), env, TIMEOUT)
        if done is not None:
            return done
    proc = subprocess.run(
        argv, cwd=scratch, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
    return proc.returncode, proc.stdout, proc.stderr


def run_command(command: str, scratch: pathlib.Path) -> tuple[int, str]:
    """Run one transcript command in ``scratch``: exit code and standard output + standard error."""
    code, out, err = run_python(argv_of(command), scratch)
    return code, (out + err).rstrip("\n")


def check_block(
    block: Block, scratch: pathlib.Path, *, update: bool, state: dict | None = None
) -> tuple[list[Problem], str | None]:
    """Run one block; the problems found and, with ``update``, the new body of a transcript or output block.

    ``state`` carries the standard output of the last python block run (``state["stdout"]``) to the
    output block that follows it.
    """
    state = {} if state is None else state
    kind = block.kind
    if kind == "output":
        got = state.get("stdout")
        if got is None:
            return [Problem(block, "an output block needs a python block above it (run in this mode)")], None
        if update:
            return [], got.rstrip("\n") + "\n"
        if mask(got) != mask(block.body):
            diff = list(
                difflib.unified_diff(
                    mask(block.body).splitlines(), mask(got).splitlines(), block.page, "now", lineterm="", n=1
                )
            )
            return [Problem(block, "the python block above prints something else", diff)], None
        return [], None
    if kind == "file":
        name = FILE_HEADER.match(block.body).group(1)
        (scratch / name).write_text(block.body, encoding="utf-8")
        if name.endswith(".py"):
            try:
                compile(block.body, f"{block.where()} ({name})", "exec")
            except SyntaxError as exc:
                return [Problem(block, f"{name} does not compile: {exc}")], None
        return [], None
    if kind == "python":
        script = scratch / f"block_{block.line}.py"
        script.write_text(block.body, encoding="utf-8")
        code, stdout, stderr = run_python([sys.executable, script.name], scratch)
        state["stdout"] = stdout
        if code != 0:
            tail = (stderr or stdout).strip().splitlines()[-3:]
            return [Problem(block, f"python block exits {code}: " + " | ".join(tail))], None
        return [], None
    if kind == "other":
        return [
            Problem(
                block,
                "block has no '$' lines and no readme-check marker "
                "(add '<!-- readme-check: skip: REASON -->' or make it a transcript)",
            )
        ], None
    problems: list[Problem] = []
    new_lines: list[str] = []
    for command, expected in split_transcript(block.body):
        code, got = run_command(command, scratch)
        new_lines.append(f"$ {command}")
        if got:
            new_lines.append(got)
        if code not in (0, 1):
            problems.append(Problem(block, f"`{command}` exits {code}: {got.splitlines()[-1] if got else ''}"))
            continue
        if mask(got) != mask(expected) and not update:
            diff = list(
                difflib.unified_diff(
                    mask(expected).splitlines(), mask(got).splitlines(), block.page, "now", lineterm="", n=1
                )
            )
            problems.append(Problem(block, f"`{command}` prints something else", diff))
    return problems, ("\n".join(new_lines) + "\n") if update else None


def _sibling(name: str):
    """The module ``docs/NAME.py`` (loaded once per process)."""
    import importlib.util

    key = f"docs_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, pathlib.Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    spec.loader.exec_module(mod)
    return mod


def _generated():
    """The module ``docs/generated.py`` (the registry of generated parts)."""
    return _sibling("generated")


_RENDERED: dict = {}  # generated parts rendered in this process (one render per part and run)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def check_regions(
    page: str, text: str, *, heavy: bool, update: bool, skip: Sequence[str] = (), log: Callable[[str], None] = print
) -> tuple[list[Problem], str]:
    """Check (and with ``update`` rewrite) the generated parts of one page; the problems and the new text."""
    problems: list[Problem] = []
    for region in _generated().REGIONS:
        body = region.body(text)
        if body is None or region.name in skip or (region.heavy and not heavy):
            continue
        where = Block(page, _line_of(text, text.index(region.start)), "md", body, "heavy" if region.heavy else "light")
        log(f"{where.where()}  generated  {region.name} ({region.how})")
        if region.consistency is not None:
            problems.extend(Problem(where, msg) for msg in region.consistency(body))
        if region.render is None:
            continue
        if region not in _RENDERED:
            try:
                _RENDERED[region] = region.render()
            except Exception as exc:  # a producer that fails is a problem of the page, reported in one line
                problems.append(Problem(where, f"{region.name}: cannot render ({type(exc).__name__}: {exc})"))
                continue
        new = _RENDERED[region]
        if new is None:  # nothing to render from here (e.g. the zoo run's records were not kept)
            continue
        norm = mask if region.masked else (lambda t: "\n".join(ln.rstrip() for ln in t.strip("\n").splitlines()))
        if norm(new) == norm(body):
            continue
        if update:
            text = region.replace(text, new)
            log(f"{page}: rewrote the generated part {region.name}")
        else:
            diff = list(
                difflib.unified_diff(norm(body).splitlines(), norm(new).splitlines(), page, "now", lineterm="", n=0)
            )
            problems.append(Problem(where, f"the generated part {region.name!r} differs from {region.how}", diff))
    return problems, text


LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: a path into the repository named in the text: starts with a top-level directory of the checkout
REPO_PATH = re.compile(
    r"(?<![\w./~:@(-])((?:privcheck|estimators|accountants|proofs|benchmarks|docs|examples|tests|\.ci)/[\w./*-]*)"
)


def missing_paths(page: str, text: str, root: pathlib.Path = ROOT) -> list[str]:
    """Links, images and repository paths of ``text`` (the page ``page``) that point at nothing; one line each.

    Links and images (outside code blocks) resolve from the page's directory (``http(s):``, ``mailto:`` and
    ``#anchors`` are not checked); a page of the site may link only inside the site (mkdocs serves nothing else: name other files
    of the repository as code, ``examples/claims.toml``). Repository paths (``privcheck/…``,
    ``benchmarks/…`` …, in text or code blocks) resolve from the root; a glob must match something; a path
    followed by ``<`` or ``{`` is a pattern, not a file.
    """
    out: list[str] = []
    base = (root / page).parent
    site = (root / SITE).resolve()
    in_site = (root / page).resolve().is_relative_to(site)
    fences = [(m.start(), m.end()) for m in re.finditer(r"^```.*?^```[ \t]*$", text, re.S | re.M)]
    for m in LINK.finditer(text):
        target = m.group(1)
        if any(a <= m.start() < b for a, b in fences):  # code is not a link
            continue
        if re.match(r"^(?:[a-z][a-z0-9+.-]*:|#)", target):
            continue
        path = target.split("#", 1)[0]
        resolved = (base / path).resolve()
        line = _line_of(text, m.start())
        if not resolved.exists():
            out.append(f"{page}:{line}: link to {target!r}: no such file")
        elif in_site and not resolved.is_relative_to(site):
            out.append(f"{page}:{line}: link to {target!r} leaves the site (docs/site): name the file as code instead")
    for m in REPO_PATH.finditer(text):
        path = m.group(1).rstrip(".,:;")
        if text[m.end() : m.end() + 1] in ("<", "{") or not path.strip("/"):
            continue
        hit = list(root.glob(path.rstrip("/"))) if "*" in path else [root / path]
        if not any(h.exists() for h in hit):
            out.append(f"{page}:{_line_of(text, m.start())}: {path!r} is not in the repository")
    return out


def check_page(
    page: str,
    *,
    heavy: bool,
    update: bool,
    findings: bool = True,
    regions: bool = True,
    log: Callable[[str], None] = print,
) -> list[Problem]:
    """Check (and with ``update`` rewrite) the blocks, generated parts and paths of one page; the problems found.

    ``findings=False`` leaves the Findings part out of a ``heavy`` run; ``regions=False`` all generated parts.
    """
    path = ROOT / page
    text = path.read_text(encoding="utf-8")
    blocks = parse(page, text)
    problems: list[Problem] = []
    replacements: list[tuple[int, int, str]] = []
    with tempfile.TemporaryDirectory(prefix="readme-check-") as tmp:
        scratch = pathlib.Path(tmp)
        (scratch / "examples").symlink_to(ROOT / "examples")  # pages cite examples/... from the root
        state: dict = {}
        for b in blocks:
            # file blocks are always written: later blocks depend on them; an output block goes with the
            # python block above it
            run = b.kind == "file" or b.mode == "light" or (b.mode == "heavy" and heavy)
            if b.kind == "output":
                run = "stdout" in state
            elif b.kind == "python" and not run:
                state.pop("stdout", None)
            if not run:
                continue
            log(f"{b.where()}  {b.kind:<10} {b.mode}")
            found, new = check_block(b, scratch, update=update, state=state)
            problems.extend(found)
            if new is not None and mask(new) != mask(b.body):  # timings alone do not rewrite a block
                replacements.append((b.start, b.end, new))
    new_text = text
    for s, e, new in sorted(replacements, reverse=True):
        new_text = new_text[:s] + new + new_text[e:]
    if regions:
        found, new_text = check_regions(
            page, new_text, heavy=heavy, update=update, skip=() if findings else ("findings",), log=log
        )
        problems.extend(found)
    for line in missing_paths(page, new_text):
        problems.append(Problem(Block(page, int(line.split(":")[1]), "md", "", "light"), line.split(": ", 1)[1]))
    if update and new_text != text:
        path.write_text(new_text, encoding="utf-8")
        log(f"{page}: rewritten ({len(replacements)} block(s))")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (see the module docstring); returns the exit status."""
    ap = argparse.ArgumentParser(prog="python docs/check_pages.py", description=__doc__.splitlines()[0])
    ap.add_argument("--heavy", action="store_true", help="also run heavy blocks and the heavy generated parts")
    ap.add_argument("--update", action="store_true", help="rewrite transcripts and generated parts")
    ap.add_argument("--no-findings", action="store_true", help="with --heavy: leave the Findings part out")
    ap.add_argument("--list", action="store_true", help="list the blocks with kind and mode, run nothing")
    ap.add_argument("pages", nargs="*", default=list(PAGES), help="pages to check (default: README, examples, site)")
    args = ap.parse_args(argv)
    problems: list[Problem] = []
    for page in args.pages:
        if not (ROOT / page).is_file():
            print(f"check_pages: no page {page!r} under {ROOT}", file=sys.stderr)
            return 2
        if args.list:
            for b in parse(page, (ROOT / page).read_text(encoding="utf-8")):
                print(f"{b.where():<32} {b.kind:<10} {b.mode:<5} {b.reason}")
            continue
        problems.extend(check_page(page, heavy=args.heavy, update=args.update, findings=not args.no_findings))
    for p in problems:
        print(f"FAIL {p.block.where()}: {p.message}")
        for ln in p.diff:
            print("    " + ln)
    if not args.list:
        print(
            f"check_pages: {len(problems)} problem(s)" + ("" if args.heavy else " (light blocks only; --heavy for all)")
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
