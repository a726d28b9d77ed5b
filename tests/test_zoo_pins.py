"""The zoo's version pins end to end: ``privcheck verify`` prints exactly one line per library whose installed
version differs from the scorecard's (a fake installed version stands in for another release), none when the
pinned versions are installed, also for claims that are not sampled entries (traces, calibrators, Opacus's
calibration); and the pinned ``zoo``/``zoo-torch`` extras name the versions the scorecards were made with."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from privcheck.catalogue.zoo.pins import SCORECARD_VERSIONS

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ["zoo.opacus.calibration", "zoo.flwr.trace.localdp_mod", "zoo.flwr.server_fixed", "zoo.pure_ldp.he"]


def _run(monkeypatch, installed: dict[str, str]):
    from privcheck.catalogue import peers
    from privcheck.cli import main

    fake = dict(SCORECARD_VERSIONS, **installed)
    monkeypatch.setattr(peers, "versions", lambda *d: {x: fake.get(x) for x in d})
    monkeypatch.setattr(peers, "missing", lambda *m: m[0])  # nothing really runs: every check is skipped
    return CliRunner().invoke(main, ["verify", *CLAIMS])


def _notices(output: str) -> list[str]:
    # the console may wrap a long line (another test's COLUMNS): rejoin before splitting into notices
    text = " ".join(output.split())
    return [
        m.group(0)
        for m in re.finditer(r"[\w.-]+ \S+ is installed; the scorecard was made with .*?results may differ", text)
    ]


def test_pinned_versions_print_nothing(monkeypatch):
    r = _run(monkeypatch, {})
    assert _notices(r.output) == [], r.output


def test_a_fake_release_prints_one_line_per_library(monkeypatch):
    r = _run(monkeypatch, {"flwr": "1.99.0", "opacus": "0.0.1", "torch": "2.13.0+cpu"})
    lines = _notices(r.output)
    assert len(lines) == 2, r.output  # flwr once (3 of its claims selected), opacus once; torch's +cpu is 2.13.0
    assert any(ln.startswith("flwr 1.99.0 is installed; the scorecard was made with flwr 1.42.0") for ln in lines)
    assert any(ln.startswith("opacus 0.0.1 is installed; the scorecard was made with opacus 1.6.0") for ln in lines)
    assert all("pip install 'privcheck[zoo]'" in ln for ln in lines)


def test_a_calibrator_alone_still_gets_its_line(monkeypatch):
    from privcheck.catalogue import peers
    from privcheck.catalogue.zoo.engine import selection_lines

    monkeypatch.setattr(
        peers, "versions", lambda *d: {x: ("9.0" if x == "opacus" else SCORECARD_VERSIONS.get(x)) for x in d}
    )
    assert len(selection_lines(["zoo.opacus.calibration"])) == 1
    assert selection_lines(["zoo.pure_ldp.he"]) == []


def test_extras_pin_every_scorecard_version():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras = {n: re.search(rf"^{n} = \[(.*?)\]", text, re.S | re.M).group(1) for n in ("zoo", "torch", "zoo-torch")}
    pinned = dict(re.findall(r'"([\w.-]+)==([\w.]+)"', extras["zoo"] + extras["zoo-torch"]))
    assert pinned == {d: v for d, v in SCORECARD_VERSIONS.items()}  # every scorecard version, nothing else pinned
    # the torch extra leaves torch to the user (the canary adapter shares it): another torch gets the notice
    assert '"torch>=' in extras["torch"] and f'"opacus=={SCORECARD_VERSIONS["opacus"]}"' in extras["torch"]
