"""docs/readme_check.py: the README's blocks are run and compared (issue 18 §3).

The light blocks of README.md and examples/README.md run here (CI); heavy ones with
``python docs/readme_check.py --heavy``. The unit tests show that the checker can fail.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("readme_check", ROOT / "docs" / "readme_check.py")
rc = importlib.util.module_from_spec(_spec)
sys.modules["readme_check"] = rc
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
    )
    blocks = rc.parse("p.md", page)
    assert [(b.kind, b.mode) for b in blocks] == [
        ("transcript", "heavy"),
        ("other", "skip"),
        ("file", "light"),
        ("python", "light"),
        ("other", "light"),
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


@pytest.mark.parametrize("page", rc.PAGES)
def test_every_block_is_run_or_marked(page):
    for b in rc.parse(page, (ROOT / page).read_text(encoding="utf-8")):
        assert b.kind != "other" or b.mode == "skip", f"{b.where()}: unmarked block that is not a transcript"


@pytest.mark.slow
@pytest.mark.parametrize("page", rc.PAGES)
def test_light_blocks_match_the_page(page):
    problems = rc.check_page(page, heavy=False, update=False, log=lambda s: None)
    assert not problems, "\n".join(f"{p.block.where()}: {p.message}\n" + "\n".join(p.diff) for p in problems)
