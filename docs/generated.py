"""The generated parts of the documentation: what produces each one, and how the docs check keeps it in step.

A generated part is the text between two HTML comments (its *markers*) on a page; the page may say anything
around it. :data:`REGIONS` lists every kind. ``python docs/check_pages.py`` finds the markers on every page
and, for each part it can afford, renders the part again and compares (``--update`` rewrites it):

======================  =======  =============================================================================
part                    run      produced by
======================  =======  =============================================================================
``mechanisms``          light    the built-in mechanisms as ``privcheck list`` shows them (name, parameters, source)
``claims-format``       light    the key tables of :data:`privcheck.claimsfile.loader.TABLES` (names, types,
                                 required keys) with the meanings from the ``privcheck.claimsfile`` docstring
``performance``         light    ``benchmarks/perf_report.py`` from ``benchmarks/results/performance.json``
``perf-summary``        light    the README's Performance section: the same, its issue-33 table only
``mutation``            light    ``benchmarks/mutation_report.py`` from ``benchmarks/results/mutation_core.json``
``zoo-scorecard``       light    ``benchmarks/zoo_scorecard.py`` from a ``privcheck verify 'zoo.*' --json`` run,
                                 whose records it keeps in ``benchmarks/results/zoo_scorecard.json.gz`` (then
                                 the part is rendered again and compared); always: the library versions of the
                                 tables against ``privcheck.catalogue.zoo.pins.SCORECARD_VERSIONS``
``zoo-fl-scorecard``    light    ``benchmarks/zoo_fl_scorecard.py`` from ``privcheck verify 'zoo.flwr.*' 'zoo.opacus.*'
                                 --json`` runs with the FL stacks installed, whose records it keeps in
                                 ``benchmarks/results/zoo_fl_scorecard.json.gz``; always: versions against the pins
``zoo-quick-sizing``    light    ``benchmarks/zoo_quick_sizing.py`` from ``benchmarks/results/zoo_quick_sizing.json``
                                 (the smallest size at which each float-representation / Bloom-filter finding shows)
``pld-horizons``        light    ``benchmarks/bench_pld_horizons.py --write`` (issue 33 §2: the certified PLD against
                                 dp_accounting at T = 1e2..1e6), from ``benchmarks/results/pld_horizons_33.md``
``findings``            heavy    ``python -m privcheck.findings`` (the whole catalogue, seed 0)
======================  =======  =============================================================================

A key added to a claims-file entry kind without a line in the package docstring's table (or a line left for a
key the code no longer takes) is reported by the light check, so the format page cannot drift from the code.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import re
import sys
from dataclasses import dataclass
from typing import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Region:
    """One kind of generated part: its markers, whether only ``--heavy`` renders it, and its producer.

    ``render`` returns the body between the markers (``render`` itself or what it returns ``None``: the part
    cannot be rendered here, only ``consistency`` runs); ``consistency(body)`` returns problems found in the present body (one line each).
    ``masked``: compare with the volatile fields (timings) masked, as transcripts are.
    """

    name: str
    start: str
    end: str
    heavy: bool
    how: str
    render: Callable[[], str | None] | None = None
    consistency: Callable[[str], list[str]] | None = None
    masked: bool = False

    def body(self, text: str) -> str | None:
        """The text between this region's markers in ``text`` (None when the markers are absent)."""
        if self.start not in text or self.end not in text.split(self.start, 1)[1]:
            return None
        return text.split(self.start, 1)[1].split(self.end, 1)[0]

    def replace(self, text: str, body: str) -> str:
        """``text`` with the body between the markers replaced by ``body`` (framed by one newline each side)."""
        head, rest = text.split(self.start, 1)
        tail = rest.split(self.end, 1)[1]
        return f"{head}{self.start}\n{body.strip(chr(10))}\n{self.end}{tail}"


def _load(path: pathlib.Path, name: str):
    """Import a script of the repository (``benchmarks/…``) as a module."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------- claims format

_ROLE = re.compile(r":(?:func|data|mod|class|meth|attr):`~?([^`]+)`")
_TYPE_NAMES = {str: "string", float: "number", int: "integer", bool: "bool", list: "array", dict: "table"}


def rst_inline(text: str) -> str:
    """RST inline markup of the claims-file docstring as Markdown: ````x```` → `` `x` ``, roles → code."""
    text = _ROLE.sub(lambda m: f"`{m.group(1).split('.')[-1] if m.group(0).count('~') else m.group(1)}`", text)
    return re.sub(r"``(.+?)``", r"`\1`", text)


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return " or ".join(_TYPE_NAMES.get(x, x.__name__) for x in t)
    return _TYPE_NAMES.get(t, getattr(t, "__name__", str(t)))


@dataclass
class DocTable:
    """One RST simple table of the claims-file docstring: its heading paragraph, rows and the text after it."""

    kind: str  # "common" or the entry kind (privacy, accountant …)
    heading: str
    rows: list[tuple[str, str]]  # (key, meaning) in order
    after: str = ""


def _parse_table(lines: list[str]) -> list[tuple[str, str]]:
    """Rows ``(key, meaning)`` of an RST simple table (``lines`` between its first and last border)."""
    border = lines[0]
    cols = [m.start() for m in re.finditer(r"=+", border)]
    rows: list[list[str]] = []
    for ln in lines[1:]:
        if not ln.strip() or re.fullmatch(r"=+(\s+=+)+", ln.strip()):
            continue
        key = ln[: cols[1]].strip()
        meaning = ln[cols[2] :].strip() if len(cols) > 2 else ""
        if key:
            rows.append([key, meaning])
        elif rows:
            rows[-1][1] = (rows[-1][1] + " " + meaning).strip()
    return [(k.strip("`"), m) for k, m in rows]


def doc_tables(doc: str) -> list[DocTable]:
    """The key tables of the ``TOML format`` section of the claims-file package docstring, in order."""
    section = doc.split("TOML format\n-----------\n", 1)[1].split("\nPython format\n", 1)[0]
    paragraphs = re.split(r"\n\s*\n", section.strip("\n"))
    tables: list[DocTable] = []
    heading = ""
    for para in paragraphs:
        lines = para.splitlines()
        if lines and re.fullmatch(r"=+(\s+=+)+", lines[0].strip()):
            m = re.match(r"``\[\[(\w+)\]\]``", heading)
            tables.append(DocTable(m.group(1) if m else "common", heading, _parse_table(lines)))
            heading = ""
        elif tables and not heading and not para.startswith("``[["):
            tables[-1].after = (tables[-1].after + "\n\n" + para).strip()
        else:
            heading = " ".join(ln.strip() for ln in lines)
    return tables


def claims_format_problems() -> list[str]:
    """Keys of the code's entry kinds without a docstring row, and docstring rows for keys the code lacks."""
    import privcheck.claimsfile as pkg
    from privcheck.claimsfile.entry import COMMON
    from privcheck.claimsfile.loader import TABLES

    tables = doc_tables(pkg.__doc__ or "")
    documented: dict[str, set[str]] = {}
    for t in tables:
        documented.setdefault(t.kind, set()).update(k for k, _ in t.rows)
    problems = []
    common = documented.get("common", set())
    if common != set(COMMON):
        problems.append(f"the common-keys table lists {sorted(common)}, the code {sorted(COMMON)}")
    for name, kind in TABLES.items():
        own = set(kind.keys) - set(COMMON)
        doc = documented.get(name)
        if doc is None:
            problems.append(f"[[{name}]] has no key table in the privcheck.claimsfile docstring")
            continue
        for key in sorted(own - doc):
            problems.append(f"[[{name}]] key {key!r} is not in the privcheck.claimsfile docstring's table")
        for key in sorted(doc - own):
            problems.append(f"[[{name}]]: the docstring lists {key!r}, which the code does not accept")
    for name in sorted(set(documented) - set(TABLES) - {"common"}):
        problems.append(f"the docstring documents [[{name}]], which is not in privcheck.claimsfile.loader.TABLES")
    return [f"privcheck/claimsfile/__init__.py: {p}" for p in problems]


def render_claims_format() -> str:
    """The TOML format of claims files as Markdown: one table per entry kind (key, type, required, meaning).

    Keys, types and required keys come from the code (:data:`privcheck.claimsfile.loader.TABLES`); the
    meanings from the package docstring; the accountant queries from
    :func:`privcheck.claimsfile.query_names`. Raises ``ValueError`` when code and docstring disagree.
    """
    import privcheck.claimsfile as pkg
    from privcheck.claimsfile.entry import COMMON
    from privcheck.claimsfile.loader import TABLES

    problems = claims_format_problems()
    if problems:
        raise ValueError("; ".join(problems))
    out = [
        "Generated by `python docs/check_pages.py --update` from the key tables of `privcheck/claimsfile/` "
        "(keys, types, required keys) and the package docstring (meanings); do not edit by hand.",
        "",
        "Top-level arrays of tables, nothing else: " + ", ".join(f"`[[{n}]]`" for n in TABLES) + ".",
    ]
    for t in doc_tables(pkg.__doc__ or ""):
        keys = COMMON if t.kind == "common" else TABLES[t.kind].keys
        required = ("id",) if t.kind == "common" else TABLES[t.kind].required
        if t.kind == "common":
            out += ["", "### Keys of every entry"]
        else:
            name, _, what = rst_inline(t.heading).rstrip(":").partition(" — ")
            out += ["", f"### {name}", "", what[:1].upper() + what[1:] + "."]
        out += ["", "| key | type | required | meaning |", "|---|---|---|---|"]
        for key, meaning in t.rows:
            if key in required:
                meaning = re.sub(r"^required(?:[;:,] ?|$)", "", meaning).strip()
            cell = rst_inline(meaning).replace("|", "\\|")
            out.append(f"| `{key}` | {_type_name(keys[key])} | {'yes' if key in required else ''} | {cell} |")
        if t.after:
            out += ["", rst_inline(" ".join(t.after.split()))]
    queries = ", ".join(f"`{q}`" for q in pkg.query_names())
    out += [
        "",
        f"Accountant queries (`query`): {queries} (parameters: the keyword arguments of the matching "
        "function in `accountants/`).",
    ]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------ the others


def render_mechanisms() -> str:
    """The built-in mechanisms as ``privcheck list`` shows them: name, parameters with defaults, source."""
    from privcheck.reports.listing import catalogue_listing, mechanism_signature
    from privcheck.reports.sources import cite_source

    rows = [
        f"| `{m['name']}` | `{mechanism_signature(m)}` | {cite_source(m['source'])} |"
        for m in sorted(catalogue_listing()["mechanisms"], key=lambda m: m["name"])
    ]
    return "\n".join(
        [
            "Generated by `python docs/check_pages.py --update` from `privcheck list`; do not edit by hand.",
            "",
            "| mechanism | parameters (defaults) | source |",
            "|---|---|---|",
            *rows,
        ]
    )


def render_performance() -> str:
    """The performance page's figures, from ``benchmarks/results/performance.json``."""
    perf = _load(ROOT / "benchmarks" / "perf_report.py", "perf_report")
    return perf.render(json.loads((ROOT / perf.RESULTS).read_text(encoding="utf-8")))


def render_perf_summary() -> str:
    """The README's Performance section, from ``benchmarks/results/performance.json``."""
    perf = _load(ROOT / "benchmarks" / "perf_report.py", "perf_report")
    return perf.render_readme(json.loads((ROOT / perf.RESULTS).read_text(encoding="utf-8")))


def render_mutation() -> str:
    """The mutation-testing figures, from ``benchmarks/results/mutation_core.json``."""
    mr = _load(ROOT / "benchmarks" / "mutation_report.py", "mutation_report")
    return mr.render(json.loads((ROOT / "benchmarks" / "results" / "mutation_core.json").read_text(encoding="utf-8")))


def render_findings() -> str:
    """The Findings page's generated part: the whole catalogue at seed 0 (several minutes)."""
    import time

    from privcheck.findings import render
    from privcheck.runner import verify

    t0 = time.perf_counter()
    records = verify(None, seed=0, jobs=None)
    return render(records, seed=0, seconds=time.perf_counter() - t0)


def render_zoo_scorecard() -> str | None:
    """The scorecard rendered from the inputs ``benchmarks/zoo_scorecard.py`` kept (None when there are none)."""
    return _load(ROOT / "benchmarks" / "zoo_scorecard.py", "zoo_scorecard").render_saved()


def render_zoo_fl_scorecard() -> str | None:
    """The FL-stack scorecard rendered from the records ``benchmarks/zoo_fl_scorecard.py`` kept (None: none kept)."""
    return _load(ROOT / "benchmarks" / "zoo_fl_scorecard.py", "zoo_fl_scorecard").render_saved()


def render_zoo_quick_sizing() -> str | None:
    """The ``--quick`` sizing table from ``benchmarks/results/zoo_quick_sizing.json`` (None when absent)."""
    path = ROOT / "benchmarks" / "results" / "zoo_quick_sizing.json"
    if not path.is_file():
        return None
    qs = _load(ROOT / "benchmarks" / "zoo_quick_sizing.py", "zoo_quick_sizing")
    return qs.render(json.loads(path.read_text(encoding="utf-8")))


def render_pld_horizons() -> str | None:
    """The PLD-horizons table as ``benchmarks/bench_pld_horizons.py --write`` left it in
    ``benchmarks/results/pld_horizons_33.md`` (its body, below the heading; None when absent)."""
    path = ROOT / "benchmarks" / "results" / "pld_horizons_33.md"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    return text.split("\n", 1)[1].strip("\n") if text.startswith("# ") else text.strip("\n")


def _pin_problems(body: str) -> list[str]:
    """Library versions named in a scorecard's table headings that differ from the scorecard pins."""
    from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS

    problems = []
    for heading in re.findall(r"^#+ .*\((.*)\)\s*$", body, re.M):
        for dist, version in re.findall(r"([A-Za-z][\w.-]*) (\d[\w.]*)", heading):
            pinned = SCORECARD_VERSIONS.get(dist)
            if pinned is not None and pinned != version.split("+")[0]:
                problems.append(f"the scorecard shows {dist} {version}; the pins say {pinned}")
    return problems


def zoo_fl_scorecard_problems(body: str) -> list[str]:
    """The FL-stack scorecard's versions against the pins, and its provenance line."""
    problems = _pin_problems(body)
    if "Generated by `benchmarks/zoo_fl_scorecard.py`" not in body:
        problems.append("the FL-stack scorecard does not say how it was generated")
    return problems


def zoo_scorecard_problems(body: str) -> list[str]:
    """Library versions named in the scorecard's table headings that differ from the scorecard pins."""
    problems = _pin_problems(body)
    if "Generated by `benchmarks/zoo_scorecard.py`" not in body:
        problems.append("the scorecard does not say how it was generated")
    return problems


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


REGIONS: tuple[Region, ...] = (
    Region(
        "mechanisms",
        *_markers("mechanisms"),
        heavy=False,
        how="privcheck list (the built-in mechanisms)",
        render=render_mechanisms,
    ),
    Region(
        "claims-format",
        *_markers("claims-format"),
        heavy=False,
        how="the key tables of privcheck/claimsfile/",
        render=render_claims_format,
        consistency=lambda body: claims_format_problems(),
    ),
    Region(
        "performance",
        *_markers("perf"),
        heavy=False,
        how="benchmarks/perf_report.py from benchmarks/results/performance.json",
        render=render_performance,
    ),
    Region(
        "perf-summary",
        *_markers("perf-summary"),
        heavy=False,
        how="benchmarks/perf_report.py (README section) from benchmarks/results/performance.json",
        render=render_perf_summary,
    ),
    Region(
        "mutation",
        *_markers("mutation"),
        heavy=False,
        how="benchmarks/mutation_report.py from benchmarks/results/mutation_core.json",
        render=render_mutation,
    ),
    Region(
        "zoo-scorecard",
        *_markers("zoo-scorecard"),
        heavy=False,
        how="benchmarks/zoo_scorecard.py from a privcheck verify 'zoo.*' --json run",
        render=render_zoo_scorecard,
        consistency=zoo_scorecard_problems,
    ),
    Region(
        "zoo-fl-scorecard",
        *_markers("zoo-fl-scorecard"),
        heavy=False,
        how="benchmarks/zoo_fl_scorecard.py from privcheck verify 'zoo.flwr.*' 'zoo.opacus.*' --json runs",
        render=render_zoo_fl_scorecard,
        consistency=zoo_fl_scorecard_problems,
    ),
    Region(
        "zoo-quick-sizing",
        *_markers("zoo-quick-sizing"),
        heavy=False,
        how="benchmarks/zoo_quick_sizing.py from benchmarks/results/zoo_quick_sizing.json",
        render=render_zoo_quick_sizing,
    ),
    Region(
        "pld-horizons",
        *_markers("pld-horizons"),
        heavy=False,
        how="benchmarks/bench_pld_horizons.py --write (from benchmarks/results/pld_horizons_33.md)",
        render=render_pld_horizons,
    ),
    Region(
        "findings",
        *_markers("findings"),
        heavy=True,
        how="python -m privcheck.findings (the whole catalogue, seed 0)",
        render=render_findings,
        masked=True,
    ),
)
