"""The site page "Auditing your own code" (docs/site/own-code.md) runs as printed (at reduced sample sizes)."""

from __future__ import annotations

import pathlib
import re
import sys

import privcheck

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "site" / "own-code.md"


def test_auditing_your_own_code_blocks_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2 and blocks[0].startswith("# mymech.py")
    (tmp_path / "mymech.py").write_text(blocks[0])
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mymech", raising=False)
    real = privcheck.audit
    seen = []

    def small_audit(*args, **kwargs):  # the page's sizes, capped for CI
        kwargs["samples"] = min(kwargs.get("samples", 1_000_000), 30_000)
        res = real(*args, **kwargs)
        seen.append(res)
        return res

    monkeypatch.setattr(privcheck, "audit", small_audit)
    ns: dict = {}
    exec(compile(blocks[1], "docs/site/own-code.md", "exec"), ns)
    verdicts = [r.verdict for r in seen]
    assert verdicts[:3] == ["holds"] * 3 and verdicts[3:6] == ["holds", "refuted", "holds"]
    assert ns["res"].reproducible is True
    assert not ns["raw"].eps_lower > 0.3 and ns["seen"].eps_lower > 0.8
