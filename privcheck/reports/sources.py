"""The papers behind the built-in catalogue, cited by authors, title and venue.

Claim sources name a paper by its file in the project's paper collection
(``000_55a5a0ab95d522af.txt``), which is not shipped with the package. Reports,
``privcheck list`` and ``privcheck papers`` show the citation instead
(:func:`cite_source`). Titles and authors are those printed on the papers
themselves; venues are the published proceedings (000) or the preprint the
text comes from (002, 004), else what the text says about itself (001 is an
anonymous submission under double-blind review, so it has no authors; 003 a
preprint without a stated venue).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """One paper of the catalogue: key (``000``), short name, authors, title, venue and its file name."""

    key: str
    short: str
    authors: str
    title: str
    venue: str
    file: str

    def citation(self) -> str:
        """``Authors. Title. Venue.`` on one line."""
        return f"{self.authors}. {self.title}. {self.venue}."

    def label(self) -> str:
        """``[000] FedSel (Liu et al.)`` — how tables refer to the paper."""
        return f"[{self.key}] {self.short}"


PAPERS: dict[str, Paper] = {
    p.key: p
    for p in (
        Paper(
            "000",
            "FedSel (Liu et al.)",
            "Ruixuan Liu, Yang Cao, Masatoshi Yoshikawa, Hong Chen",
            "FedSel: Federated SGD under Local Differential Privacy with Top-k Dimension Selection",
            "DASFAA 2020, Springer LNCS 12112, pp. 485–501",
            "000_55a5a0ab95d522af.txt",
        ),
        Paper(
            "001",
            "sqSGD (anonymous)",
            "Anonymous authors",
            "Practical Locally Private Federated Learning with Communication Efficiency (sqSGD)",
            "paper under double-blind review",
            "001_30a1c1c8dca8a50f.txt",
        ),
        Paper(
            "002",
            "SPriFed-OMP (Mulay, Lin)",
            "Ajinkya K. Mulay, Xiaojun Lin",
            "SPriFed-OMP: A Differentially Private Federated Learning Algorithm for Sparse Basis Recovery",
            "arXiv preprint (HTML version)",
            "002_53ad70670a94e98a.txt",
        ),
        Paper(
            "003",
            "LDP sampling (Biswas et al.)",
            "Sayan Biswas, Graham Cormode, Carsten Maple",
            "Impact of Sampling on Locally Differentially Private Data Collection",
            "preprint",
            "003_e5d52747d9985dd0.txt",
        ),
        Paper(
            "004",
            "Wireless FL (Seif et al.)",
            "Mohamed Seif Eldin Mohamed, Wei-Ting Chang, Ravi Tandon",
            "Privacy Amplification for Federated Learning via User Sampling and Wireless Aggregation",
            "arXiv:2103.01953, 2021 (parts submitted to ISIT 2021, as the paper states)",
            "004_cc7ee25c83388ef6.txt",
        ),
    )
}

_FILE = re.compile(r"\b(\d{3})_[0-9a-f]{8,}\.txt\b")
_BY_FILE = {p.file: p for p in PAPERS.values()}


def paper_of(source: str) -> Paper | None:
    """The :class:`Paper` a source string refers to (by file name or a leading ``000`` key), else None."""
    src = source or ""
    m = _FILE.search(src)
    if m:
        return _BY_FILE.get(m.group(0)) or PAPERS.get(m.group(1))
    m = re.match(r"\[(\d{3})\]", src)  # an already cited source: "[000] FedSel (Liu et al.) ..."
    if m:
        return PAPERS.get(m.group(1))
    head = src.split(" ", 1)[0]
    return PAPERS.get(head)


def cite_source(source: str) -> str:
    """The source with each paper file name replaced by its short citation.

    ``000_55a5a0ab95d522af.txt Alg. 3, Lemma 2`` → ``[000] FedSel (Liu et al.) Alg. 3, Lemma 2``.
    References to ``CLAIMS.md`` (a design document that is not shipped) point
    at ``privcheck list`` instead. Other sources are returned unchanged.
    """

    def repl(m: re.Match) -> str:
        p = _BY_FILE.get(m.group(0)) or PAPERS.get(m.group(1))
        return p.label() if p else m.group(0)

    text = _FILE.sub(repl, source or "")
    return text.replace("definition in CLAIMS.md", "definition in the mechanism's docstring").replace(
        "CLAIMS.md", "the privcheck catalogue"
    )


def papers_for(sources) -> list[Paper]:
    """The papers cited by an iterable of source strings, in key order, without repeats."""
    keys = {p.key for p in (paper_of(s) for s in sources) if p is not None}
    return [PAPERS[k] for k in sorted(keys)]


def cite_all(obj):
    """``obj`` (a JSON-ready value: dicts, lists, strings, numbers) with :func:`cite_source` applied to every
    string, keys included: user-facing JSON and JUnit never show the paper collection's file names."""
    if isinstance(obj, str):
        return cite_source(obj)
    if isinstance(obj, dict):
        return {cite_all(k): cite_all(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [cite_all(v) for v in obj]
    return obj
