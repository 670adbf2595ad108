"""Paired Lighthouse row: each page of the book against the same page built by plain Sphinx + MyST + Furo.

Builds the book and bench.py's no-extension copy (`make_baseline`) in temp folders, serves both over
HTTP with gzip (as a host does), and runs Lighthouse (mobile, its default simulated throttling) on each
page, book and plain alternating, `--runs` times. Prints medians of the performance and accessibility
scores, total blocking time, DOM elements (Lighthouse's `dom-size`, and the same less the elements of
inline drawings and plots, counted in the built HTML), bytes transferred, the load average during the
runs, and the book's three costliest main-thread categories (`mainthread-work-breakdown`).

Lighthouse is not a dependency of the project: install it outside the repo
(`npm i lighthouse@12.8.2` in a temp folder) and pass its binary with `--lighthouse`; Chromium comes
from `CHROME_PATH` (for example /usr/bin/chromium).

    .venv/bin/python benchmarks/lighthouse.py --lighthouse /path/node_modules/.bin/lighthouse \
        --pages front 1.1 1.3 2.1 3.1 5.1 5.3 7.1 --runs 5

`--static-dom` prints the DOM rows alone, without Lighthouse or a browser: the elements of each built page
as written (before any script runs), less those of its inline drawings and plots, counted as above; the
two sites are built as above unless `--book-html` and `--plain-html` name built ones.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ROOT, book, make_baseline, make_sandbox  # noqa: E402

#: Types a host compresses (as the 2026-12-06 Lighthouse runs did).
GZIP_TYPES = (".html", ".css", ".js", ".json", ".svg", ".mjs", ".txt")
#: Pages where the baseline copy drops the content (its tables), so the DOM target does not apply.
NO_DOM_TARGET = "reference/"
TARGETS = {"tbt_ms": 100.0, "score_median": 5.0, "score_floor": 10.0, "dom_ratio": 1.3}


class GzipHandler(SimpleHTTPRequestHandler):
    """The standard-library file server, gzipping text types when the client accepts it."""

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if (not path.is_file() or path.suffix not in GZIP_TYPES
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        return io.BytesIO(body)


def serve(directory: Path) -> tuple[ThreadingHTTPServer, str]:
    """Serve `directory` on a free local port in a thread; return the server and its base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(GzipHandler, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


class SvgCount(HTMLParser):
    """Count elements in a page, and those inside its inline drawings and plots."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.total = self.in_svg = self.depth = 0

    @staticmethod
    def drawing(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        """An inline drawing (<svg role="img">) or plot (class m101-plot-svg); not the theme's icons."""
        a = dict(attrs)
        return tag == "svg" and (a.get("role") == "img" or "m101-plot" in (a.get("class") or ""))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.total += 1
        if self.depth or self.drawing(tag, attrs):
            self.in_svg += 1
            if tag not in self.VOID:
                self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.total += 1
        if self.depth or self.drawing(tag, attrs):
            self.in_svg += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1


def static_dom(html: Path) -> tuple[int, int]:
    """A built page's elements as written (no script run), and those of its inline drawings and plots."""
    p = SvgCount()
    p.feed(html.read_text(encoding="utf-8"))
    return p.total, p.in_svg


def print_static_dom(pages: dict[str, str], book_html: Path, plain_html: Path) -> None:
    """The DOM rows without Lighthouse: elements as written, less drawings and plots, and the ratio."""
    print("| page | elements book / plain, as written | less drawings and plots, ratio | DOM target |")
    print("| --- | --- | --- | --- |")
    for label, rel in pages.items():
        (tb, sb), (tp, sp) = (static_dom(d / resolve(d, rel)) for d in (book_html, plain_html))
        ratio = (tb - sb) / (tp - sp) if tp - sp else float("nan")
        target = "n/a" if rel.startswith(NO_DOM_TARGET) else "ok" if ratio <= TARGETS["dom_ratio"] else "OVER"
        print(f"| {label} | {tb} / {tp} | {tb - sb} / {tp - sp} = {ratio:.2f}x | {target} |")


def svg_elements(html: Path) -> int:
    """Elements of a built page's inline drawings and plots (Lighthouse's dom-size counts them too)."""
    p = SvgCount()
    p.feed(html.read_text(encoding="utf-8"))
    return p.in_svg


def page_paths(root: Path, labels: list[str]) -> dict[str, str]:
    """'front', '1.3', 'R.1' or a docname -> the page's path under the HTML root."""
    b = book(root)
    out: dict[str, str] = {}
    for label in labels:
        if label == "front":
            out[label] = "index.html"
            continue
        found = None
        for part in [*b["parts"], b["reference"]]:
            for i, s in enumerate(part["sections"], 1):
                num = f"{part.get('number', 'R')}.{i}"
                doc = s["file"].removesuffix(".md")
                if label in (num, doc):
                    found = doc + ".html"
        if not found:
            raise SystemExit(f"lighthouse: no page {label!r} in manual.json (use 'front', '1.3', 'R.1' or a docname)")
        out[label] = found
    return out


def resolve(html_dir: Path, rel: str) -> str:
    """The front page is index.html or the root document's own name (the baseline's is front.html)."""
    if rel == "index.html" and not (html_dir / rel).is_file():
        return "front.html"
    return rel


def run_lighthouse(binary: str, url: str, out: Path) -> dict[str, Any]:
    """One Lighthouse run (mobile, simulated throttling); the numbers the table needs."""
    cmd = [binary, url, "--quiet", "--form-factor=mobile", "--output=json", f"--output-path={out}",
           "--only-categories=performance,accessibility", '--chrome-flags=--headless --no-sandbox']
    load = os.getloadavg()[0]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        raise SystemExit(f"lighthouse: {url} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    out.with_suffix(".load").write_text(f"{load}\n", encoding="utf-8")
    return summarize(json.loads(out.read_text(encoding="utf-8")), load)


def summarize(r: dict[str, Any], load: float) -> dict[str, Any]:
    """The numbers the table needs from one Lighthouse report."""
    a = r["audits"]
    work = {i["groupLabel"]: i["duration"] for i in a["mainthread-work-breakdown"]["details"]["items"]}
    boot = {i["url"].rsplit("/", 1)[-1]: i["total"] for i in a["bootup-time"]["details"].get("items", [])}
    long_tasks = [(i.get("url", "").rsplit("/", 1)[-1], i["duration"])
                  for i in a.get("long-tasks", {}).get("details", {}).get("items", [])]
    return {"perf": round(r["categories"]["performance"]["score"] * 100),
            "a11y": round(r["categories"]["accessibility"]["score"] * 100),
            "tbt": a["total-blocking-time"]["numericValue"], "dom": a["dom-size"]["numericValue"],
            "bytes": a["total-byte-weight"]["numericValue"], "load": load, "work": work, "boot": boot,
            "long_tasks": long_tasks}


def from_reports(folder: Path, pages: dict[str, str]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Re-read a kept run's reports (<page>-<site>-<i>.json, with the load beside each in .load)."""
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {p: {"book": [], "plain": []} for p in pages}
    for label in pages:
        for site in ("book", "plain"):
            for f in sorted(folder.glob(f"{label}-{site}-*.json")):
                load_file = f.with_suffix(".load")
                load = float(load_file.read_text()) if load_file.is_file() else float("nan")
                runs[label][site].append(summarize(json.loads(f.read_text(encoding="utf-8")), load))
            if not runs[label][site]:
                raise SystemExit(f"lighthouse: no report for {label} ({site}) in {folder}")
    return runs


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lighthouse", default=shutil.which("lighthouse") or "lighthouse",
                    help="the Lighthouse binary (npm's node_modules/.bin/lighthouse)")
    ap.add_argument("--pages", nargs="+", default=["front", "1.1", "1.3", "2.1", "3.1", "5.1", "5.3", "7.1"])
    ap.add_argument("--runs", type=int, default=5, help="runs per page and site (default 5)")
    ap.add_argument("--book-html", type=Path, help="a built book to use instead of building one")
    ap.add_argument("--plain-html", type=Path, help="a built baseline to use instead of building one")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (builds, reports)")
    ap.add_argument("--reports", type=Path,
                    help="only print the table from a kept run's reports/ folder (with --book-html, --plain-html)")
    ap.add_argument("--json", type=Path, help="also write every run as JSON here")
    ap.add_argument("--static-dom", action="store_true",
                    help="only count each page's elements as written, book and plain (no Lighthouse, no browser)")
    args = ap.parse_args(argv)
    if args.static_dom and args.book_html and args.plain_html:
        print_static_dom(page_paths(ROOT, args.pages), args.book_html, args.plain_html)
        return 0
    if not os.environ.get("CHROME_PATH") and not args.static_dom:
        print("lighthouse: CHROME_PATH is not set; Lighthouse looks for Chrome itself", file=sys.stderr)
    if args.reports:
        if not (args.book_html and args.plain_html):
            raise SystemExit("lighthouse: --reports needs --book-html and --plain-html (the built sites it measured)")
        pages = page_paths(ROOT, args.pages)
        runs = from_reports(args.reports, pages)
        print_table(runs, pages, args.book_html, args.plain_html, max(len(v["book"]) for v in runs.values()))
        return 0
    base = Path(tempfile.mkdtemp(prefix="m101-lh-"))
    log = lambda msg: print(f"[lighthouse] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    try:
        box = make_sandbox(base)
        book_html, plain_html = args.book_html, args.plain_html
        if book_html is None:
            box.build(jobs=None, clean=True)
            book_html = box.out / "html"
            log(f"book built: {book_html}")
        if plain_html is None:
            baseline = make_baseline(box, base)
            box.build(jobs=None, clean=True, srcdir=baseline, outdir=base / "baseline-build")
            plain_html = base / "baseline-build" / "html"
            log(f"plain copy built: {plain_html}")
        pages = page_paths(box.root, args.pages)
        if args.static_dom:
            print_static_dom(pages, book_html, plain_html)
            return 0
        servers = {name: serve(d) for name, d in (("book", book_html), ("plain", plain_html))}
        runs: dict[str, dict[str, list[dict[str, Any]]]] = {p: {"book": [], "plain": []} for p in pages}
        for i in range(max(1, args.runs)):
            for label, rel in pages.items():
                order = ("book", "plain") if i % 2 == 0 else ("plain", "book")
                for site in order:
                    out = base / "reports" / f"{label}-{site}-{i}.json"
                    out.parent.mkdir(exist_ok=True)
                    html_dir = book_html if site == "book" else plain_html
                    r = run_lighthouse(args.lighthouse, servers[site][1] + resolve(html_dir, rel), out)
                    runs[label][site].append(r)
                    log(f"run {i + 1} {label} {site}: perf {r['perf']} tbt {r['tbt']:.0f} ms "
                        f"dom {r['dom']:.0f} load {r['load']:.2f}")
        for httpd, _ in servers.values():
            httpd.shutdown()
        print_table(runs, pages, book_html, plain_html, args.runs)
        if args.json:
            args.json.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
        return 0
    finally:
        if args.keep:
            log(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def print_table(runs: dict[str, dict[str, list[dict[str, Any]]]], pages: dict[str, str], book_html: Path,
                plain_html: Path, n: int) -> None:
    """The paired table (markdown), the targets' verdicts and the book's main-thread breakdown."""
    print(f"| page | perf book / plain (median, range) | a11y book / plain | TBT ms book / plain (median) "
          f"| DOM book / plain (dom-size) | DOM less drawings, ratio | KB transferred book / plain |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    gaps, loads, verdicts = [], [], []
    for label, rel in pages.items():
        b, p = runs[label]["book"], runs[label]["plain"]
        loads += [r["load"] for r in b + p]
        mb = {k: med([r[k] for r in b]) for k in ("perf", "a11y", "tbt", "dom", "bytes")}
        mp = {k: med([r[k] for r in p]) for k in ("perf", "a11y", "tbt", "dom", "bytes")}
        svg_b = svg_elements(book_html / resolve(book_html, rel))
        svg_p = svg_elements(plain_html / resolve(plain_html, rel))
        dom_b, dom_p = mb["dom"] - svg_b, mp["dom"] - svg_p
        ratio = dom_b / dom_p if dom_p else float("nan")
        rng = lambda rs: f"{min(r['perf'] for r in rs)}-{max(r['perf'] for r in rs)}"  # noqa: E731
        print(f"| {label} | {mb['perf']:.0f} ({rng(b)}) / {mp['perf']:.0f} ({rng(p)}) | {mb['a11y']:.0f} / "
              f"{mp['a11y']:.0f} | {mb['tbt']:.0f} / {mp['tbt']:.0f} | {mb['dom']:.0f} / {mp['dom']:.0f} | "
              f"{dom_b:.0f} / {dom_p:.0f} = {ratio:.2f}x | {mb['bytes'] / 1000:.1f} / {mp['bytes'] / 1000:.1f} |")
        gaps.append(mb["perf"] - mp["perf"])
        tbt_ok = mb["tbt"] <= mp["tbt"] + TARGETS["tbt_ms"]
        floor_ok = mb["perf"] >= mp["perf"] - TARGETS["score_floor"]
        dom_ok = rel.startswith(NO_DOM_TARGET) or ratio <= TARGETS["dom_ratio"]
        verdicts.append(f"{label}: TBT {'ok' if tbt_ok else 'OVER'}, score floor {'ok' if floor_ok else 'UNDER'}, "
                        f"DOM {'n/a' if rel.startswith(NO_DOM_TARGET) else ('ok' if dom_ok else 'OVER')}, "
                        f"perf>=95 {'ok' if mb['perf'] >= 95 else 'no'}, a11y>=95 {'ok' if mb['a11y'] >= 95 else 'no'}")
    loads = [x for x in loads if x == x]  # NaN: a report kept without its load
    load_text = f"median {med(loads):.2f}, range {min(loads):.2f}-{max(loads):.2f}" if loads else "not recorded"
    print(f"\n{n} run(s) per page and site, alternating; 1-minute load average as each run started: {load_text}")
    print(f"median page's score gap (book - plain): {med(gaps):+.1f} (target >= -{TARGETS['score_median']:.0f})")
    for v in verdicts:
        print("- " + v)
    print("\nthe book's main thread (median ms per category, top 3; long tasks by script):")
    for label in pages:
        b = runs[label]["book"]
        cats = sorted({c for r in b for c in r["work"]}, key=lambda c: -med([r["work"].get(c, 0) for r in b]))[:3]
        lt = [t for r in b for t in r["long_tasks"]]
        print(f"- {label}: " + ", ".join(f"{c} {med([r['work'].get(c, 0) for r in b]):.0f}" for c in cats)
              + f"; long tasks {len(lt)} in {n} runs, max {max((d for _, d in lt), default=0):.0f} ms")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
