"""Render an HTML report in headless Chromium at desktop and phone widths (a visual check; not run in CI).

Usage::

    python benchmarks/screenshot_report.py REPORT.html [--out DIR] [--height 2000]
    python benchmarks/screenshot_report.py --records records.json   # writes the report first

Writes ``DIR/report_1400.png`` and ``DIR/report_390.png`` (Debian's ``chromium``
package: ``apt-get install -y chromium``) and prints what to look at: clipped
labels, tables wider than the page, figures that overflow, formulas that did
not render. The flags keep Chromium off the network (the report needs none).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def screenshot(html_path: str, png_path: str, width: int, height: int) -> None:
    """One PNG of ``html_path`` at ``width`` × ``height`` CSS pixels."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        sys.exit("chromium not found: apt-get install -y chromium")
    with tempfile.TemporaryDirectory(prefix="privcheck-chromium-") as profile:
        subprocess.run(
            [
                exe,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--screenshot={os.path.abspath(png_path)}",
                f"--window-size={width},{height}",
                "file://" + os.path.abspath(html_path),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html", nargs="?", help="an HTML report (privcheck verify --html PATH)")
    ap.add_argument("--records", help="write the report from this --json records file first")
    ap.add_argument("--out", default=".", help="directory of the PNGs (default: .)")
    ap.add_argument("--height", type=int, default=2000)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    html_path = args.html
    if args.records:
        from privcheck.reports import records_from_json, write_html

        html_path = html_path or os.path.join(args.out, "report.html")
        with open(args.records, encoding="utf-8") as fh:
            write_html(records_from_json(fh.read()), html_path)
    if not html_path:
        ap.error("give an HTML report or --records")
    for width in (1400, 390):
        png = os.path.join(args.out, f"report_{width}.png")
        screenshot(html_path, png, width, args.height)
        print(f"{png}: {width} px wide")


if __name__ == "__main__":
    main()
