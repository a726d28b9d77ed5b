"""Render an HTML report in headless Chromium at desktop and phone widths, and measure its layout (not in CI).

Usage::

    python benchmarks/screenshot_report.py REPORT.html [--out DIR] [--height 2000] [--tiles N] [--open]
    python benchmarks/screenshot_report.py --records records.json   # writes the report first

Writes ``DIR/report_1400.png`` and ``DIR/report_390.png`` (the top ``--height`` pixels; with ``--tiles N``
also the first N tiles of the whole page, ``report_<width>_<i>.png``, each ``--height`` tall) and prints,
per width, what a layout probe found (Chromium ``--dump-dom`` of a copy of the report with a small script
that measures it; ``--open`` opens every ``<details>`` first, in the probe and the screenshots):

- ``past viewport``: tables, images or boxes reaching past the window's right edge outside any scroll
  container (the page itself scrolls sideways: content looks cut);
- ``scrolling``: scroll containers whose content is wider than they are (a table or figure that scrolls
  sideways inside the page; the screenshots hide scrollbars, so such content looks cut);
- ``squeezed``: table cells whose text wraps into lines of fewer than 6 characters (a column squeezed
  by its neighbours: numbers broken across lines).

Chromium lays a window out at least 500 px wide, so a plain ``--window-size=390,...`` screenshot crops a 500 px
page; the report is therefore shown in an iframe of the wanted width (:data:`HARNESS`). Debian's ``chromium``
package: ``apt-get install -y chromium``. The flags keep Chromium off the network (the report needs none).

Measured on the report of ``privcheck verify --quick`` (121 records, every ``<details>`` open), before → after
issue 29's fixes: squeezed cells 153 → 8 at 1400 px and 335 → 7 at 390 px; paper and summary tables scrolling
sideways at 390 px 13 → 0 (cards of labelled lines below 720 px, vertical verdict headers); the page is never
wider than the window; wide data tables inside the records' details (lists of cases) still scroll in their box
(63 at 1400 px, 105 at 390 px), and figures scroll at 390 px rather than shrink below legibility (34).
"""

from __future__ import annotations

import argparse
import html as htmllib
import json
import os
import re
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
WIDTHS = (1400, 390)

#: measures the laid-out page and writes the result as JSON into <pre id="layout-probe">
PROBE_JS = r"""
(function(){
  var vw = document.documentElement.clientWidth;
  var out = {viewport: vw, page_width: document.documentElement.scrollWidth, past_viewport: [], scrolling: [],
             squeezed: 0, squeezed_examples: []};
  function label(el){ var h = el.closest('[id]'); return el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + (h ? ' in #' + h.id : ''); }
  function scrolls(el){ for (var p = el.parentElement; p; p = p.parentElement) { var o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; } return false; }
  document.querySelectorAll('table, img, pre, .sides').forEach(function(el){
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1 && !scrolls(el)) out.past_viewport.push(label(el) + ' right=' + Math.round(r.right));
  });
  document.querySelectorAll('.scroll, .value, .fig, pre').forEach(function(el){
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) out.scrolling.push(label(el) + ' ' + el.scrollWidth + '>' + el.clientWidth);
  });
  document.querySelectorAll('td, th').forEach(function(el){
    if (el.querySelector('table')) return;
    var t = el.textContent.trim(); if (t.length < 6) return;
    var rg = document.createRange(); rg.selectNodeContents(el);
    var tops = {}; Array.prototype.forEach.call(rg.getClientRects(), function(r){ if (r.width > 0) tops[Math.round(r.top)] = 1; });
    var lines = Object.keys(tops).length;
    if (lines >= 3 && t.length / lines < 6) { out.squeezed++; if (out.squeezed_examples.length < 5) out.squeezed_examples.push(label(el) + ' "' + t.slice(0, 24) + '" in ' + lines + ' lines'); }
  });
  window.parent.postMessage(JSON.stringify(out), '*');
})();
"""
OPEN_JS = "document.querySelectorAll('details').forEach(function(d){ d.open = true; });"
#: Chromium lays a window out at least 500 px wide (a 390 px screenshot would crop a 500 px page): the report
#: is shown in an iframe of the wanted width inside a page at least that wide, which receives the probe's result
HARNESS = """<!DOCTYPE html><html><head><meta charset='utf-8'><style>html,body{{margin:0;padding:0;background:#fff}}
iframe{{border:0;display:block}}</style></head><body><iframe src='{src}' width='{width}' height='{height}'></iframe>
<pre id='layout-probe'></pre><script>window.addEventListener('message', function(e){{
document.getElementById('layout-probe').textContent = e.data; }});</script></body></html>"""
MIN_WINDOW = 500


def chromium() -> str:
    """The Chromium executable (exits with the install command when there is none)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        sys.exit("chromium not found: apt-get install -y chromium")
    return exe


def _run(args: list[str], width: int, height: int, url: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="privcheck-chromium-") as profile:
        return subprocess.run(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, f"--window-size={width},{height}", url],
            check=True,
            capture_output=True,
            text=True,
            timeout=300,
        )


def _framed(html_path: str, script: str, width: int, height: int, tmp: str) -> str:
    """A copy of the report with ``script`` run at the end of its body, framed ``width`` × ``height`` CSS pixels
    in a harness page (:data:`HARNESS`); returns the harness's path (the original report is left alone)."""
    with open(html_path, encoding="utf-8") as fh:
        text = fh.read()
    inner = os.path.join(tmp, "report.html")
    with open(inner, "w", encoding="utf-8") as fh:
        fh.write(text.replace("</body>", f"<script>{script}</script></body>", 1))
    outer = os.path.join(tmp, "harness.html")
    with open(outer, "w", encoding="utf-8") as fh:
        fh.write(HARNESS.format(src="report.html", width=width, height=height))
    return outer


def screenshot(html_path: str, png_path: str, width: int, height: int, open_details: bool = False) -> None:
    """One PNG of ``html_path`` laid out ``width`` CSS pixels wide: the top ``height`` pixels of the page."""
    from PIL import Image

    with tempfile.TemporaryDirectory(prefix="privcheck-shot-") as tmp:
        outer = _framed(html_path, OPEN_JS if open_details else "", width, height, tmp)
        raw = os.path.join(tmp, "shot.png")
        _run([f"--screenshot={raw}"], max(width, MIN_WINDOW), height, "file://" + outer)
        with Image.open(raw) as im:
            im.crop((0, 0, width, height)).save(png_path)


def probe(html_path: str, width: int, open_details: bool = False) -> dict:
    """What :data:`PROBE_JS` measures on ``html_path`` laid out ``width`` CSS pixels wide."""
    with tempfile.TemporaryDirectory(prefix="privcheck-probe-") as tmp:
        outer = _framed(html_path, (OPEN_JS if open_details else "") + PROBE_JS, width, 900, tmp)
        dom = _run(["--virtual-time-budget=10000", "--dump-dom"], max(width, MIN_WINDOW), 900, "file://" + outer).stdout
    m = re.search(r'<pre id="layout-probe">(.+?)</pre>', dom, re.S)
    if m is None:
        sys.exit("the layout probe did not report (no result in the harness page's DOM)")
    return json.loads(htmllib.unescape(m.group(1)))


def tiles(html_path: str, out: str, width: int, height: int, count: int, open_details: bool) -> list[str]:
    """The first ``count`` tiles (``height`` tall) of the whole page at ``width``, as PNGs."""
    from PIL import Image

    full = os.path.join(out, f"report_{width}_full.png")
    screenshot(html_path, full, width, height * count, open_details)
    names = []
    with Image.open(full) as im:
        for i in range(count):
            name = os.path.join(out, f"report_{width}_{i}.png")
            im.crop((0, i * height, width, (i + 1) * height)).save(name)
            names.append(name)
    os.remove(full)
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html", nargs="?", help="an HTML report (privcheck verify --html PATH)")
    ap.add_argument("--records", help="write the report from this --json records file first")
    ap.add_argument("--out", default=".", help="directory of the PNGs (default: .)")
    ap.add_argument("--height", type=int, default=2000)
    ap.add_argument("--tiles", type=int, default=0, help="also save the first N tiles of the whole page")
    ap.add_argument("--open", action="store_true", help="open every <details> (the records) first")
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
    for width in WIDTHS:
        png = os.path.join(args.out, f"report_{width}.png")
        screenshot(html_path, png, width, args.height, args.open)
        print(f"{png}: {width} px wide")
        for name in tiles(html_path, args.out, width, args.height, args.tiles, args.open) if args.tiles else []:
            print(f"  {name}")
        found = probe(html_path, width, args.open)
        print(
            f"  layout at {width} px: page {found['page_width']} px wide; "
            f"past viewport {len(found['past_viewport'])}, scrolling {len(found['scrolling'])}, "
            f"squeezed cells {found['squeezed']}"
        )
        for key in ("past_viewport", "scrolling", "squeezed_examples"):
            for item in found[key][:4]:
                print(f"    {key}: {item}")


if __name__ == "__main__":
    main()
