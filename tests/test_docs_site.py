"""The documentation site and the README (issue 28 §3): shape, navigation, paths, generated parts, completion.

The code blocks of every page run in tests/test_readme_check.py; here, what does not need running them:
the README stays short and carries exactly the two set-up commands (the second one is what ``.ci/run``
runs), every site page is in mkdocs.yml's ``nav`` and every ``nav`` entry exists, no page points at a file
the repository does not have, the generated parts are in step with what produces them (the claims-file
format, the performance and mutation figures, the zoo scorecard's versions), and shell completion works as
Getting started says. The strict MkDocs build is not repeated here (issue 33 §3): the README's test command,
which .ci/run runs (test_readme_has_exactly_two_set_up_commands_and_the_second_is_ci), builds the site with
``mkdocs build --strict`` before the tests.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_pages", ROOT / "docs" / "check_pages.py")
cp = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("check_pages", cp)
_spec.loader.exec_module(cp)
gen = cp._generated()

README = ROOT / "README.md"
MAX_README_LINES = 300


def _fenced(text: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)


def test_readme_is_at_most_300_lines():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines (at most {MAX_README_LINES}): move sections to docs/site/"


def test_readme_has_exactly_two_set_up_commands_and_the_second_is_ci():
    text = README.read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = [b.strip() for b in _fenced(setup)]
    assert len(commands) == 2 and all(c.startswith("python3 -m venv .venv && ") for c in commands)
    assert commands[0].endswith("privcheck verify")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines(), "the README's test command must be the line .ci/run runs"
    assert "mkdocs build --strict" in commands[1] and "'.[test,docs]'" in commands[1]


def _nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text.split("\nnav:\n", 1)[1]
    return re.findall(r":\s*([\w./-]+\.md)\s*$", nav, re.M)


def test_every_site_page_is_in_the_nav_and_every_nav_entry_exists():
    site = ROOT / "docs" / "site"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.md"))
    nav = _nav_pages()
    missing = sorted(set(pages) - set(nav))
    assert not missing, f"pages not in mkdocs.yml's nav (add a line for each): {missing}"
    assert not sorted(set(nav) - set(pages)), "nav entries without a page"
    assert len(nav) == len(set(nav)), "a page is in the nav twice"


def test_the_docs_extra_pins_what_ci_installs():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    docs = re.search(r"^docs = \[(.*)\]\s*$", text, re.M).group(1)
    pins = dict(re.findall(r'"([\w\[\].-]+)==([\w.]+)"', docs))
    assert set(pins) >= {"mkdocs", "mkdocs-material", "mkdocstrings[python]"}, pins
    from importlib.metadata import PackageNotFoundError, version

    for dist, pinned in pins.items():
        try:
            installed = version(dist.split("[")[0])
        except PackageNotFoundError:
            continue
        assert installed == pinned, f"{dist} {installed} is installed, the docs extra pins {pinned}"


def _extras() -> dict[str, list[str]]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras: dict[str, list[str]] = {}
    for name, body in re.findall(r"^([\w-]+) = \[(.*?)\]\s*$", re.sub(r",\s*\n\s+", ", ", block), re.M | re.S):
        extras[name] = [re.split(r"[<>=!\[;]", d.strip().strip('"'))[0] for d in body.split('", "')]
    return extras


def test_getting_started_lists_every_extra():
    page = (ROOT / "docs" / "site" / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([\w-]+)` \|", page, re.M))
    assert listed == set(_extras()), "the extras table of docs/site/index.md differs from pyproject.toml"


def test_the_peers_install_line_names_the_peers_extra():
    page = (ROOT / "docs" / "site" / "peers.md").read_text(encoding="utf-8")
    line = next(ln for ln in page.splitlines() if ln.startswith("pip install 'privcheck[peers]'"))
    for dist in _extras()["peers"]:
        assert dist in line, f"{dist} of the peers extra is not named on {line!r}"


@pytest.mark.parametrize("page", cp.PAGES)
def test_no_page_points_at_a_file_that_is_not_there(page):
    assert cp.missing_paths(page, (ROOT / page).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "page,region",
    [
        ("docs/site/audit.md", "mechanisms"),
        ("docs/site/claims-files.md", "claims-format"),
        ("examples/README.md", "claims-format"),
        ("docs/site/performance.md", "performance"),
        ("README.md", "perf-summary"),
        ("docs/site/budgets.md", "pld-horizons"),
        ("docs/site/mutation.md", "mutation"),
        ("docs/site/scorecard.md", "zoo-scorecard"),
        ("docs/site/findings.md", "findings"),
    ],
)
def test_generated_pages_hold_their_generated_part(page, region):
    reg = {r.name: r for r in gen.REGIONS}[region]
    assert reg.body((ROOT / page).read_text(encoding="utf-8")), f"{page}: markers of {region} missing or empty"


@pytest.mark.parametrize(
    "page",
    [
        "docs/site/audit.md",
        "docs/site/claims-files.md",
        "examples/README.md",
        "docs/site/performance.md",
        "README.md",
        "docs/site/budgets.md",
        "docs/site/scorecard.md",
    ],
)
def test_light_generated_parts_are_in_step(page):
    problems, _ = cp.check_regions(
        page, (ROOT / page).read_text(encoding="utf-8"), heavy=False, update=False, log=print
    )
    assert not problems, "\n".join(p.message + "\n" + "\n".join(p.diff) for p in problems)


def test_claims_format_lists_every_key_of_the_code(monkeypatch):
    from privcheck.claimsfile import loader
    from privcheck.claimsfile.entry import TableKind

    body = gen.render_claims_format()
    for name, kind in loader.TABLES.items():
        assert f"### `[[{name}]]`" in body
        for key in kind.keys:
            assert f"| `{key}` |" in body, f"[[{name}]] {key}"
    # a key the docstring does not describe is a problem, not a silent omission
    priv = loader.TABLES["privacy"]
    grown = TableKind(priv.name, {**priv.keys, "brand_new_key": str}, priv.required, priv.build)
    monkeypatch.setitem(loader.TABLES, "privacy", grown)
    problems = gen.claims_format_problems()
    assert problems == [
        "privcheck/claimsfile/__init__.py: [[privacy]] key 'brand_new_key' is not in the privcheck.claimsfile "
        "docstring's table"
    ]
    with pytest.raises(ValueError, match="brand_new_key"):
        gen.render_claims_format()


def test_zoo_scorecard_versions_are_checked_against_the_pins():
    body = "Generated by `benchmarks/zoo_scorecard.py` from x\n#### pure-ldp (pure-ldp 1.1.2)\n"
    assert gen.zoo_scorecard_problems(body) == []
    assert gen.zoo_scorecard_problems(body.replace("1.1.2)", "1.2.0)")) == [
        "the scorecard shows pure-ldp 1.2.0; the pins say 1.1.2"
    ]


def test_zoo_scorecard_is_rendered_again_from_the_kept_records(tmp_path):
    zs = gen._load(ROOT / "benchmarks" / "zoo_scorecard.py", "zoo_scorecard")
    saved = tmp_path / "kept.json.gz"
    assert zs.render_saved(saved) is None
    zs.save_inputs(saved, "[]", 12.0, 2, "seconds=60", None)
    again = zs.render_saved(saved)
    assert again == zs.section([], 12.0, 2, "seconds=60", None) and "0 zoo claims" in again


def test_performance_page_renders_its_results_file_and_refuses_ragged_rows():
    perf = gen._load(ROOT / "benchmarks" / "perf_report.py", "perf_report")
    data = {"tables": [{"id": "t", "title": "T", "command": "c", "columns": ["a", "b"], "rows": [["1", "2|3"]]}]}
    out = perf.render(data)
    assert "| 1 | 2\\|3 |" in out and "Placeholder" not in out
    assert "Placeholder" in perf.render({**data, "placeholder": "typed"})
    with pytest.raises(ValueError, match="2 columns"):
        perf.render({"tables": [{**data["tables"][0], "rows": [["only one"]]}]})
    assert perf.main(["--check"]) == 0


def _privcheck_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


_RUN_AS_PRIVCHECK = "import sys; sys.argv[0] = 'privcheck'; from privcheck.cli import main; main()"


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o nosort -F"), ("zsh", "compdef"), ("fish", "complete")])
def test_shell_completion_scripts_as_documented(shell, marker):
    page = (ROOT / "docs" / "site" / "index.md").read_text(encoding="utf-8")
    assert f"_PRIVCHECK_COMPLETE={shell}_source privcheck" in page
    out = subprocess.run(
        [sys.executable, "-c", _RUN_AS_PRIVCHECK],
        env=_privcheck_env(_PRIVCHECK_COMPLETE=f"{shell}_source"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and marker in out.stdout and "_PRIVCHECK_COMPLETE" in out.stdout


@pytest.mark.parametrize(
    "words,cword,expected",
    [("privcheck bud", 1, {"budget"}), ("privcheck budget p", 2, {"plan", "pld"}), ("privcheck zzz", 1, set())],
)
def test_bash_completion_completes_commands(words, cword, expected):
    out = subprocess.run(
        [sys.executable, "-c", _RUN_AS_PRIVCHECK],
        env=_privcheck_env(_PRIVCHECK_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(cword)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0
    assert {ln.split(",", 1)[1] for ln in out.stdout.splitlines() if ln.startswith("plain,")} == expected
