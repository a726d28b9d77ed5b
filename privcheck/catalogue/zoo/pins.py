"""The library versions the README scorecard was made with, and the one-line notes when others are installed.

``pip install 'privcheck[zoo]'`` installs exactly these (pyproject's ``zoo`` extra pins them; ``zoo-latest``
takes current releases). A zoo record lists the versions installed (``details.versions``) beside these
(``details.scorecard_versions``); ``privcheck verify 'zoo.*'`` prints one line per library whose installed
version differs, since a finding of the scorecard may be fixed (or a new one appear) in another release.
"""

from __future__ import annotations

#: distribution -> version of the scorecard run (keep equal to pyproject's zoo / torch extras)
SCORECARD_VERSIONS = {
    "pure-ldp": "1.1.2",
    "multi-freq-ldpy": "0.2.5",
    "diffprivlib": "0.6.6",
    "scikit-learn": "1.5.2",
    "opendp": "0.16.0",
    "python-dp": "1.1.5",
    "flwr": "1.42.0",
    "opacus": "1.6.0",
    "torch": "2.13.0",
}


def differs(dist: str, installed: str | None) -> str | None:
    """One line when ``installed`` (None: absent) differs from the scorecard's version of ``dist``, else None."""
    want = SCORECARD_VERSIONS.get(dist)
    if installed is None or want is None or installed.split("+")[0] == want:
        return None
    return (
        f"{dist} {installed} is installed; the scorecard was made with {dist} {want} "
        f"(pip install 'privcheck[zoo]' installs it): results may differ"
    )


def mismatch_lines(dists) -> list[str]:
    """The :func:`differs` lines of the installed ``dists`` (each distribution once)."""
    from privcheck.catalogue.peers import versions

    out = []
    for d, v in versions(*sorted(set(dists))).items():
        line = differs(d, v)
        if line:
            out.append(line)
    return out
