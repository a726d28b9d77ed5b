"""Claims files as pytest tests: collection, one item per check, options, markers and the verdict summary.

The hooks here are re-exported by :mod:`privcheck.pytest_plugin` (the ``privcheck`` pytest11 entry point),
so installing privcheck is enough: ``pytest`` collects every claims file whose name matches the
``privcheck_files`` ini patterns (default ``privcheck_*.toml``) and any ``.toml`` file given on the command
line, and runs each of its checks as one test item named by the claim id.

- An item passes when its verdict meets the claim's ``expect`` (``holds`` by default; a calculator's
  ``computed`` meets ``holds``); it fails with the verdict line as the message — verdict, id, method,
  claimed → measured, interval and the reason (``inconclusive: ...``, the error, the adjusted p-value of a
  quick refutation) — and no traceback.
- Options: ``--privcheck-seed N`` (default 0), ``--privcheck-quick`` (Monte Carlo sizes ÷ 5),
  ``--privcheck-samples N`` (every Monte Carlo size), ``--privcheck-confidence C`` (family-wise, default 0.95);
  ini ``privcheck_seed``, ``privcheck_quick``, ``privcheck_samples``, ``privcheck_confidence`` set their defaults.
- Markers: ``privcheck`` on every item, ``privcheck_<kind>`` (``privacy``, ``estimator``, ``formula``,
  ``bound``) and ``privcheck_<method>`` (``exact``, ``symbolic``, ``numeric``, ``mc``, ``scaling``,
  ``calculator``): ``pytest -m privcheck_formula``, ``pytest -m "privcheck and not privcheck_mc"``.
- Confidence: the Monte Carlo checks of one file are corrected together (Bonferroni over the file's random
  checks, as ``privcheck verify --file F``), so each item's verdict is the one ``privcheck verify --file F
  --seed N`` prints, whichever items ``-m``/``-k`` select.
- The terminal summary ends with a ``privcheck`` section: the verdict counts (``run_summary``) and every
  check whose verdict did not meet its expectation. Each item's record is also attached to its report
  (``user_properties``: ``privcheck_verdict`` and the JSON record), so pytest-xdist and ``--junitxml`` carry it.
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

import pytest

from privcheck.claims import KINDS, METHODS, RANDOM_METHODS, Check, RunContext, VerdictRecord

#: default of the ``privcheck_files`` ini option
DEFAULT_PATTERNS = ("privcheck_*.toml",)
#: the ``user_properties`` key under which an item's verdict record (JSON) travels to the report
RECORD_KEY = "privcheck_record"
_SESSION = pytest.StashKey["_Session"]()
_OPTIONS = ("privcheck_seed", "privcheck_quick", "privcheck_samples", "privcheck_confidence")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--privcheck-*`` options and the ``privcheck_*`` ini keys."""
    group = parser.getgroup("privcheck", "privcheck claims files (privcheck_*.toml)")
    group.addoption("--privcheck-seed", type=int, default=None, help="Seed of every check (default 0).")
    group.addoption(
        "--privcheck-quick",
        action="store_true",
        default=None,
        help="Reduced Monte Carlo power: sizes divided by 5 (verdicts labelled quick).",
    )
    group.addoption(
        "--privcheck-samples", type=int, default=None, help="Override every Monte Carlo size (>= 20) of the checks."
    )
    group.addoption(
        "--privcheck-confidence",
        type=float,
        default=None,
        help="Family-wise confidence of each file's Monte Carlo checks (default 0.95).",
    )
    parser.addini(
        "privcheck_files",
        "claims files collected as tests: glob patterns of file names (or, with a '/', of paths relative to the "
        "rootdir), separated by spaces",
        type="args",
        default=list(DEFAULT_PATTERNS),
    )
    parser.addini("privcheck_seed", "default of --privcheck-seed", default="0")
    parser.addini("privcheck_quick", "default of --privcheck-quick", type="bool", default=False)
    parser.addini("privcheck_samples", "default of --privcheck-samples", default="")
    parser.addini("privcheck_confidence", "default of --privcheck-confidence", default="0.95")


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers (``privcheck``, ``privcheck_<kind>``, ``privcheck_<method>``)."""
    config.addinivalue_line("markers", "privcheck: a privcheck claim check (or a test that runs claims)")
    for kind in KINDS:
        config.addinivalue_line("markers", f"privcheck_{kind}: a privcheck check of a {kind} claim")
    for method in METHODS:
        config.addinivalue_line("markers", f"privcheck_{method}: a privcheck check by the {method} method")
    config.stash[_SESSION] = _Session(config)
    config.pluginmanager.register(config.stash[_SESSION], "privcheck-session")
    if any(config.getoption(o) is not None for o in _OPTIONS):
        run_options(config)  # a bad --privcheck-* value is a usage error before anything runs


def run_options(config: pytest.Config):
    """The :class:`~privcheck.runner.RunOptions` of this session (command line over ini), validated."""
    from privcheck.base.errors import PrivcheckUsageError
    from privcheck.runner import RunOptions

    def pick(opt: str, ini: str, conv):
        val = config.getoption(opt)
        if val is not None:
            return val
        raw = config.getini(ini)
        if raw in ("", None):
            return None
        try:
            return conv(raw)
        except ValueError:
            raise pytest.UsageError(f"ini option {ini} = {raw!r} is not a valid {conv.__name__}") from None

    try:
        return RunOptions(
            seed=pick("privcheck_seed", "privcheck_seed", int),
            quick=bool(pick("privcheck_quick", "privcheck_quick", bool)),
            samples=pick("privcheck_samples", "privcheck_samples", int),
            confidence=pick("privcheck_confidence", "privcheck_confidence", float),
            jobs=1,
        )
    except PrivcheckUsageError as exc:
        raise pytest.UsageError(f"privcheck: {exc}") from None


def _matches(config: pytest.Config, file_path: Path) -> bool:
    patterns = config.getini("privcheck_files") or list(DEFAULT_PATTERNS)
    try:
        rel = file_path.relative_to(config.rootpath).as_posix()
    except ValueError:
        rel = file_path.as_posix()
    return any(fnmatch.fnmatch(rel if "/" in p else file_path.name, p) for p in patterns)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """A claims file matching ``privcheck_files`` (or a ``.toml`` named on the command line) is a test file."""
    if file_path.suffix.lower() not in (".toml", ".py"):
        return None
    explicit = file_path.suffix.lower() == ".toml" and parent.session.isinitpath(file_path)
    if not (explicit or _matches(parent.config, file_path)):
        return None
    return ClaimsFile.from_parent(parent, path=file_path)


class ClaimsFile(pytest.File):
    """A claims file (``.toml`` or ``.py``): loading it registers its claims; each check is a :class:`ClaimItem`."""

    def collect(self):
        from privcheck.base.errors import PrivcheckUsageError
        from privcheck.claims import CATALOGUE
        from privcheck.claimsfile import load_user_file
        from privcheck.runner import select

        try:
            ids = load_user_file(str(self.path))
        except PrivcheckUsageError as exc:  # one line naming the file, the entry and the problem
            raise self.CollectError(str(exc)) from None
        self.config.stash[_SESSION].loaded.append(str(self.path))
        checks = select(ids, registry=CATALOGUE)
        family = sum(c.method in RANDOM_METHODS for c in checks)
        counts: dict[str, int] = {}
        for c in checks:
            counts[c.claim_id] = counts.get(c.claim_id, 0) + 1
        for chk in checks:
            claim = CATALOGUE.claims[chk.claim_id]
            label = chk.method + (f":{chk.part}" if chk.part else "")
            name = chk.claim_id if counts[chk.claim_id] == 1 else f"{chk.claim_id}[{label}]"
            item = ClaimItem.from_parent(self, name=name, check=chk, family=family)
            item.add_marker("privcheck")
            item.add_marker(f"privcheck_{claim.kind}")
            item.add_marker(f"privcheck_{chk.method}")
            yield item


class ClaimFailed(Exception):
    """A check whose verdict did not meet its expectation (the message is its verdict line)."""


class ClaimItem(pytest.Item):
    """One check of a claims file, run like ``privcheck verify --file`` runs it."""

    def __init__(self, *, check: Check, family: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.family = family
        self.record: VerdictRecord | None = None

    def runtest(self) -> None:
        from privcheck.reports.text import verdict_line
        from privcheck.runner import run_check

        opts = run_options(self.config)
        base = RunContext(
            seed=opts.seed,
            quick=opts.quick,
            samples=opts.samples,
            jobs=1,
            confidence=opts.confidence,
            family=max(1, self.family),
        )
        rec = run_check(self.check, base)
        self.record = rec
        self.user_properties.append(("privcheck_verdict", rec.verdict))
        self.user_properties.append((RECORD_KEY, json.dumps(rec.to_dict(), ensure_ascii=False)))
        if not rec.met_expectation:
            raise ClaimFailed(verdict_line(rec))

    def repr_failure(self, excinfo, style=None):  # type: ignore[override]
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        label = self.check.method + (f":{self.check.part}" if self.check.part else "")
        return self.path, None, f"{self.check.claim_id} [{label}]"


def _record_of(report: pytest.TestReport) -> VerdictRecord | None:
    from privcheck.reports.text import records_from_json

    for key, val in getattr(report, "user_properties", ()):
        if key == RECORD_KEY:
            return records_from_json("[" + val + "]")[0]
    return None


class _Session:
    """Per-session hooks (registered by :func:`pytest_configure`): gather the records, print the summary,
    unregister the loaded claims files at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: list[VerdictRecord] = []
        self.loaded: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Each claim item's record, from its report (so also in the controller of pytest-xdist)."""
        if report.when == "call":
            rec = _record_of(report)
            if rec is not None:
                self.records.append(rec)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        """The ``privcheck`` section: verdict counts and the checks that did not meet their expectation."""
        from privcheck.reports.text import run_summary, verdict_line

        if not self.records:
            return
        terminalreporter.write_sep("=", "privcheck")
        terminalreporter.write_line(run_summary(self.records))
        for rec in self.records:
            if not rec.met_expectation:
                terminalreporter.write_line("  " + verdict_line(rec))

    def pytest_sessionfinish(self) -> None:
        """Unregister the claims files this session loaded (a long-lived process keeps a clean catalogue)."""
        from privcheck.claimsfile import unload_user_file

        for path in self.loaded:
            unload_user_file(path)
