"""The README section "Auditing your own code" runs as printed (at reduced sample sizes)."""

from __future__ import annotations

import pathlib
import re
import sys

import privcheck

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_auditing_your_own_code_blocks_run(tmp_path, monkeypatch):
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Auditing your own code") : text.index("## How the checks work")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2 and blocks[0].startswith("# mymech.py")
    (tmp_path / "mymech.py").write_text(blocks[0])
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mymech", raising=False)
    real = privcheck.audit
    seen = []

    def small_audit(*args, **kwargs):  # the README's sizes, capped for CI
        kwargs["samples"] = min(kwargs.get("samples", 1_000_000), 30_000)
        res = real(*args, **kwargs)
        seen.append(res)
        return res

    monkeypatch.setattr(privcheck, "audit", small_audit)
    ns: dict = {}
    exec(compile(blocks[1], "README.md", "exec"), ns)
    verdicts = [r.verdict for r in seen]
    assert verdicts[:3] == ["holds"] * 3 and verdicts[3:6] == ["holds", "refuted", "holds"]
    assert ns["res"].reproducible is True
    assert not ns["raw"].eps_lower > 0.3 and ns["seen"].eps_lower > 0.8
