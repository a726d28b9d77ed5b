"""docs/check_pages.py: every page's code blocks are run and compared (issue 18 §3, issue 28 §3).

The light blocks of README.md, examples/README.md and every page of the site (docs/site/**/*.md) run here
(CI); heavy ones with ``python docs/check_pages.py --heavy``. The unit tests show that the checker can fail.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_pages", ROOT / "docs" / "check_pages.py")
rc = importlib.util.module_from_spec(_spec)
sys.modules["check_pages"] = rc
_spec.loader.exec_module(rc)


def test_mask_hides_only_volatile_fields():
    a = "verdict        holds  (1.05 s)\neps lower 0.995043 at 10000 steps, 3.2×10⁵ draws/s"
    b = "verdict        holds  (12.4 s)\neps lower 0.995043 at 10000 steps, 4.1×10⁵ draws/s"
    assert rc.mask(a) == rc.mask(b)
    assert rc.mask(a) != rc.mask(a.replace("0.995043", "0.995044"))
    assert rc.mask(a) != rc.mask(a.replace("holds", "refuted"))
    assert rc.mask("10000 steps") == "10000 steps" and rc.mask("sigma = 1.1 s") != "sigma = 1.1 s"


def test_parse_markers_kinds_and_refusals():
    page = (
        "<!-- readme-check: heavy -->\n```\n$ privcheck papers\nx\n```\n\n"
        "<!-- readme-check: skip: installs -->\n```\npip install x\n```\n"
        "```python\n# mod.py — a file\nX = 1\n```\n```python\nimport mod\n```\n```yaml\na: 1\n```\n"
        "<!-- readme-check: output -->\n```\n1\n```\n"
    )
    blocks = rc.parse("p.md", page)
    assert [(b.kind, b.mode) for b in blocks] == [
        ("transcript", "heavy"),
        ("other", "skip"),
        ("file", "light"),
        ("python", "light"),
        ("other", "light"),
        ("output", "output"),
    ]
    assert blocks[1].reason == "installs" and blocks[0].line == 2
    with pytest.raises(ValueError, match="needs a reason"):
        rc.parse("p.md", "<!-- readme-check: skip -->\n```\nx\n```\n")
    assert rc.split_transcript("$ privcheck a\n1\n2\n$ privcheck b\n") == [("privcheck a", "1\n2"), ("privcheck b", "")]
    with pytest.raises(ValueError):
        rc.argv_of("rm -rf /")


def test_checker_fails_on_stale_output_and_unmarked_blocks_and_update_fixes(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```python\n# helper.py — a module\nVALUE = 42\n```\n\n"
        '```\n$ python -c "import helper; print(helper.VALUE)"\n41\n```\n\n'
        "```python\nimport helper\nassert helper.VALUE == 42\n```\n\n```\nnot a command\n```\n",
        encoding="utf-8",
    )
    problems = rc.check_page(str(page), heavy=False, update=False, log=lambda s: None)
    messages = [p.message for p in problems]
    assert len(problems) == 2 and "prints something else" in messages[0] and "no readme-check marker" in messages[1]
    assert any(ln == "+42" for ln in problems[0].diff)
    rc.check_page(str(page), heavy=False, update=True, log=lambda s: None)
    assert "\n42\n```" in page.read_text(encoding="utf-8")
    assert [p.message for p in rc.check_page(str(page), heavy=False, update=False, log=lambda s: None)] == messages[1:]
    page.write_text("```python\nraise SystemExit(3)\n```\n", encoding="utf-8")
    assert "exits 3" in rc.check_page(str(page), heavy=False, update=False, log=lambda s: None)[0].message


def test_output_blocks_compare_the_stdout_of_the_python_block_above(tmp_path):
    page = tmp_path / "page.md"
    stale = "```python\nprint(6 * 7)\n```\nprints\n<!-- readme-check: output -->\n```\n41\n```\n"
    page.write_text(stale, encoding="utf-8")
    problems = rc.check_page(str(page), heavy=False, update=False, log=lambda s: None)
    assert [p.message for p in problems] == ["the python block above prints something else"]
    rc.check_page(str(page), heavy=False, update=True, log=lambda s: None)
    assert page.read_text(encoding="utf-8") == stale.replace("41", "42")
    assert rc.check_page(str(page), heavy=False, update=False, log=lambda s: None) == []
    # a heavy python block not run takes its output block with it; an orphan output block is an error
    page.write_text("<!-- readme-check: heavy -->\n" + stale, encoding="utf-8")
    assert rc.check_page(str(page), heavy=False, update=False, log=lambda s: None) == []
    page.write_text("<!-- readme-check: output -->\n```\n1\n```\n", encoding="utf-8")
    assert rc.check_page(str(page), heavy=False, update=False, log=lambda s: None) == []  # nothing above: not run
    block = rc.parse("p.md", "<!-- readme-check: output -->\n```\n1\n```\n")[0]
    assert "needs a python block" in rc.check_block(block, tmp_path, update=False, state={})[0][0].message


def test_missing_paths_finds_dead_links_and_repository_paths(tmp_path):
    (tmp_path / "docs" / "site").mkdir(parents=True)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "claims.toml").write_text("")
    (tmp_path / "docs" / "site" / "a.md").write_text("")
    (tmp_path / "README.md").write_text("")
    text = (
        "[ok](examples/claims.toml) [gone](examples/gone.toml) ![img](docs/x.png) [web](https://example.org/x)\n"
        "`examples/claims.toml` `benchmarks/nothing.py` `examples/*.toml` `examples/*.py` "
        "`benchmarks/results/mutation_<scope>.json` [anchor](#here)\n"
        "```\nRUNNERS[type(plan.claim)](plan)  # code, not a link\n```\n"
    )
    found = rc.missing_paths("README.md", text, root=tmp_path)
    assert found == [
        "README.md:1: link to 'examples/gone.toml': no such file",
        "README.md:1: link to 'docs/x.png': no such file",
        "README.md:2: 'benchmarks/nothing.py' is not in the repository",
        "README.md:2: 'examples/*.py' is not in the repository",
    ]
    site = rc.missing_paths("docs/site/a.md", "[in](a.md) [out](../../examples/claims.toml)", root=tmp_path)
    assert len(site) == 1 and "leaves the site" in site[0]


def test_generated_parts_fail_when_stale_and_update_rewrites(tmp_path, monkeypatch):
    gen = rc._generated()
    region = gen.Region(
        "demo", "<!-- demo:start -->", "<!-- demo:end -->", heavy=False, how="a test", render=lambda: "new"
    )
    monkeypatch.setattr(gen, "REGIONS", (region,))
    monkeypatch.setattr(rc, "_RENDERED", {})
    text = "before\n<!-- demo:start -->\nold\n<!-- demo:end -->\nafter\n"
    problems, same = rc.check_regions("p.md", text, heavy=False, update=False, log=lambda s: None)
    assert same == text and len(problems) == 1 and "'demo' differs" in problems[0].message
    problems, new = rc.check_regions("p.md", text, heavy=False, update=True, log=lambda s: None)
    assert problems == [] and new == "before\n<!-- demo:start -->\nnew\n<!-- demo:end -->\nafter\n"
    heavy = gen.Region("demo", region.start, region.end, heavy=True, how="x", render=lambda: 1 / 0)
    monkeypatch.setattr(gen, "REGIONS", (heavy,))
    assert rc.check_regions("p.md", text, heavy=False, update=False, log=lambda s: None)[0] == []  # not run
    assert "cannot render" in rc.check_regions("p.md", text, heavy=True, update=False, log=lambda s: None)[0][0].message


def test_the_old_name_still_runs_the_check():
    spec = importlib.util.spec_from_file_location("readme_check_alias", ROOT / "docs" / "readme_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main is rc.main or mod.main.__code__.co_filename.endswith("check_pages.py")


@pytest.mark.parametrize("page", rc.PAGES)
def test_every_block_is_run_or_marked(page):
    for b in rc.parse(page, (ROOT / page).read_text(encoding="utf-8")):
        assert b.kind != "other" or b.mode == "skip", f"{b.where()}: unmarked block that is not a transcript"


@pytest.mark.slow
@pytest.mark.parametrize("page", rc.PAGES)
def test_light_blocks_match_the_page(page):
    problems = rc.check_page(page, heavy=False, update=False, log=lambda s: None)
    assert not problems, "\n".join(f"{p.block.where()}: {p.message}\n" + "\n".join(p.diff) for p in problems)


PROBE = """import os, sys, warnings
print(sys.argv, sys.path[:3], os.getcwd(), os.environ.get("COLUMNS"), "CI" in os.environ, repr(sys.stdin.read()))
print(__name__, __file__, sys.stdout.encoding, sys.stdout.errors, sys.stderr.errors, "é")
print("to stderr", file=sys.stderr)
warnings.warn("careful")
sys.exit(int(sys.argv[1]))
"""


@pytest.mark.skipif(not rc._sibling("command_server").supported(), reason="no os.fork here")
def test_the_fork_server_prints_what_a_fresh_interpreter_prints(tmp_path, monkeypatch):
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    monkeypatch.setenv("CI", "true")  # taken out of the commands' environment on both routes
    commands = [
        "python probe.py 3 'two words'",
        "python -m probe 0",
        "python -c \"import sys, numpy; print(sys.argv, sys.path[0]); sys.exit('bye')\" x",
        "python -c \"raise ValueError('a traceback a user sees')\"",
        "privcheck budget gdp --sigma 10 --steps 100 --delta 1e-5",
        "privcheck budget gdp --sigma -1 --steps 100 --delta 1e-5",
    ]
    forked = [rc.run_command(c, tmp_path) for c in commands]
    assert rc._server() is not None
    monkeypatch.setenv("CHECK_PAGES_FORK", "0")
    monkeypatch.setattr(rc, "_SERVER", {})
    fresh = [rc.run_command(c, tmp_path) for c in commands]
    assert forked == fresh
    assert [code for code, _ in fresh] == [3, 0, 1, 1, 0, 2] and "Traceback" in fresh[3][1]
    assert "probe.py:5: UserWarning: careful" in fresh[0][1] and "é" in fresh[1][1]
