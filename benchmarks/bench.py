#!/usr/bin/env python3
"""The build benchmark of Miles 101: build times, the extension's overhead, check time, page weight.

    python3 dev.py bench [--runs N] [--pairs N] [--pairs-only] [--keep] [--skip-weight] [--json PATH]

Everything runs in a temp copy of the repo (node_modules is linked, not copied), so the working
tree is never touched. Each timing is the median of --runs runs (5 by default). See
benchmarks/README.md for what each row means, the targets and the last recorded numbers.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from miles101.book import load_book
from miles101.pages import ANY_ROLE, ROLE
from miles101.registry import FENCE
from sphinx.util.console import strip_escape_sequences as strip_ansi

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
#: sphinx-build that writes down the pages read, from Sphinx's `env-before-read-docs` event.
SPHINX = Path(__file__).with_name("sphinx_events.py")
WRITING = re.compile(r"writing output\.\.\. \[\s*\d+%\] (.+?)\s*$")
COPY_IGNORE = shutil.ignore_patterns(".git", "_build", ".venv", ".tox", "node_modules", "test-artifacts",
                                     ".pytest_cache", "__pycache__", "*.pyc")
#: extension_share: the real build's value change minus the baseline's one-word edit of the same page, CPU
#: seconds, median of the pairs (issue 50; it replaced "value change - no change <= 0.2 s", which plain
#: Sphinx alone cannot meet: it needs about 0.25 s to re-read and write one page).
TARGETS = {"overhead": 1.10, "value_change": 1.5, "extension_share": 0.1, "check": 3.0, "front_kb": 250.0}
#: The fewest pairs the paired row takes (issue 50: a median of at least 7).
MIN_PAIRS = 7


# --------------------------------------------------------------------------- a sandbox copy


@dataclass
class Build:
    """One sphinx-build run: wall time, CPU time (user + sys of it and its children), exit code, the docs
    it re-read, its warnings."""

    seconds: float
    returncode: int
    read: list[str]
    warnings: list[str]
    stdout: str
    written: int = 0
    cpu: float = 0.0


#: The builds' environment: no colour codes, and Python's bytecode cache on even where this shell turns
#: it off (PYTHONDONTWRITEBYTECODE), as on a reader's machine and on Read the Docs. Without the cache
#: every build compiles Sphinx, its extensions and miles101 from source again: about 1.9 s of a 2.7 s
#: no-change build on the 2-core VM, and more for the real build than for the baseline, which imports less.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"NO_COLOR": "1"}


@dataclass
class Sandbox:
    """A temp copy of the repo where pages and data may be edited freely."""

    root: Path
    jobs: str | None = None
    out: Path = field(init=False)

    def __post_init__(self) -> None:
        self.out = self.root / "_build"

    def build(self, *, jobs: str | None = "same", clean: bool = False, srcdir: Path | None = None,
              outdir: Path | None = None, profile: Path | None = None) -> Build:
        """sphinx-build -b html -n --keep-going (no -W: pages may still be incomplete); under cProfile with `profile`."""
        src = srcdir or self.root
        out = outdir or self.out
        if clean:
            shutil.rmtree(out, ignore_errors=True)
        j = self.jobs if jobs == "same" else jobs
        events = out.parent / f"{out.name}-events.json"
        cmd = [PY, *(["-m", "cProfile", "-o", str(profile)] if profile else []), str(SPHINX), str(events),
               "-b", "html", "-n", "--keep-going", *(["-j", j] if j else []), str(src), str(out / "html"),
               "-d", str(out / "doctrees")]
        events.unlink(missing_ok=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=src, capture_output=True, text=True, env=CHILD_ENV)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the build and the -j workers it waited for
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        stdout = strip_ansi(proc.stdout)
        read = json.loads(events.read_text(encoding="utf-8"))["read"] if events.is_file() else []
        written = sum(len(m[1].split(" .. ")) for m in map(WRITING.search, stdout.splitlines()) if m)
        warnings = [ln for ln in strip_ansi(proc.stderr).splitlines() if "WARNING" in ln or "ERROR" in ln]
        if proc.returncode > 1 or not (out / "html").is_dir():  # 1 = warnings under --keep-going
            raise SystemExit(f"bench: sphinx-build failed in {src} (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        return Build(seconds, proc.returncode, read, warnings, stdout, written, cpu)


def make_sandbox(base: Path) -> Sandbox:
    """Copy the repo (minus .git, builds, venvs) and link node_modules, for the local mermaid copy."""
    dest = base / "repo"
    shutil.copytree(ROOT, dest, ignore=COPY_IGNORE, symlinks=True)
    if (ROOT / "node_modules").is_dir():
        (dest / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    for p in dest.rglob("*"):
        if p.is_file() and not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)
    return Sandbox(dest)


def median_of(runs: int, once: Callable[[int], float]) -> tuple[float, list[float]]:
    """Median (and all samples) of `runs` calls of once(i) -> seconds."""
    samples = [once(i) for i in range(runs)]
    return statistics.median(samples), samples


def spread(samples: list[float]) -> str:
    """min–max of the samples, to show how noisy a median is."""
    return f"runs {min(samples):.2f}–{max(samples):.2f} s"


# --------------------------------------------------------------------------- what pages cite

def book(root: Path) -> dict[str, Any]:
    return json.loads((root / "manual.json").read_text(encoding="utf-8"))


def page_files(root: Path) -> list[Path]:
    """front.md and every section file manual.json lists (the core's one page list)."""
    loaded, problems = load_book(root / "manual.json", root)
    if loaded is None:
        raise SystemExit("; ".join(map(str, problems)))
    return [root / f for f in loaded.page_files]


def citing_docs(root: Path, role: str, key: str) -> set[str]:
    """Docnames whose source cites `{role}`key` or `{role}`key:spec`."""
    docs = set()
    for path in page_files(root):
        for m in ROLE.finditer(path.read_text(encoding="utf-8")):
            if m["kind"] == role and m["text"].split(":", 1)[0].strip() == key:
                docs.add(path.relative_to(root).with_suffix("").as_posix())
    return docs


def pick_value(root: Path) -> tuple[str, str, Path, set[str]]:
    """A fact (else a computed value) cited by the fewest pages (at least one)."""
    best: tuple[int, str, str, Path, set[str]] | None = None
    for role, rel, section in (("fact", "capture/facts.json", "facts"), ("computed", "capture/computed.json", "values")):
        data = json.loads((root / rel).read_text(encoding="utf-8")).get(section, {})
        for key, entry in data.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("value"), (int, float)):
                continue
            docs = citing_docs(root, role, key)
            if docs and (best is None or len(docs) < best[0]):
                best = (len(docs), role, key, root / rel, docs)
        if best is not None:
            break
    if best is None:
        raise SystemExit("bench: no page cites a fact or computed value")
    return best[1], best[2], best[3], best[4]


def edit_value(path: Path, role: str, key: str, i: int) -> None:
    """Change the value's number (a different one each run) in the copy's data file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = data["facts" if role == "fact" else "values"][key]
    entry["value"] = entry["value"] + (1 if i % 2 == 0 else -1)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def extension_share(profile: Path) -> tuple[float, float]:
    """(seconds in miles101's own functions, seconds in all functions): cProfile tottime, summed."""
    stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    total = own = 0.0
    for (filename, _line, _name), (_cc, _nc, tottime, _cum, _callers) in stats.items():
        total += tottime
        if "/miles101/" in filename.replace(os.sep, "/"):
            own += tottime
    return own, total


def problem_docs(warnings: list[str], root: Path) -> set[str]:
    """Docnames with an unresolved reference ([manual.*] warnings): the extension re-reads them every build."""
    docs = set()
    for w in warnings:
        m = re.match(rf"{re.escape(str(root))}/(\S+?)\.md:\d+: WARNING: .*\[manual\.", w)
        if m:
            docs.add(m[1])
    return docs


# --------------------------------------------------------------------------- the no-extension baseline


def _extension_names() -> tuple[set[str], set[str]]:
    """The roles and directives the book defines (the core's list, which the extension registers)."""
    from miles101.registry import DIRECTIVES, ROLES

    return set(ROLES), set(DIRECTIVES)


def _plain_roles(text: str, role_names: set[str], figure_ids: set[str]) -> str:
    def repl(m: re.Match[str]) -> str:
        role, body = m["kind"], m["text"]
        if role == "ref" and body in figure_ids:
            return f"`{body}`"
        if role not in role_names:
            return m[0]
        label = re.match(r"^(.*?)\s*<([^<>]+)>$", body)
        if label:
            return label[1]
        return f"`{body.split(':', 1)[0] if role in {'measured', 'computed', 'fact'} else body}`"

    return ANY_ROLE.sub(repl, text)




def plain_page(text: str, role_names: set[str], directive_names: set[str], figure_ids: set[str]) -> str:
    """Rewrite roles to inline code/text and the extension's blocks to code or paragraphs."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or m["name"] not in directive_names:
            out.append(lines[i])
            i += 1
            continue
        fence, name, args = m["fence"], m["name"], m["args"].strip()
        close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body, i = [], i + 1
        while i < len(lines) and not close.match(lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        options = [b for b in body if re.match(r"^\s*:[\w-]+:", b)]
        content = [b for b in body if b not in options]
        if name in {"diagram", "book-plate"} and any(c.strip() for c in content):
            title = next((o.split(":", 2)[2].strip() for o in options if o.strip().startswith(":title:")), args)
            out += [f"**{title}**", "", "```text", *content, "```", ""]  # plain Sphinx shows the source
        elif name == "flag":
            out += [f"`{args}`", "", *content, ""]
        elif name == "listing":
            out += ["```text", f"(listing of the run {args})", "```", ""]
        else:
            out += [f"({name} {args})".replace(" )", ")"), "", *content, ""]
    return _plain_roles("\n".join(out) + "\n", role_names, figure_ids)


BASELINE_CONF = '''"""Baseline for the benchmark: the same theme and extensions, without miles101."""
from pathlib import Path

exec(compile(Path(__file__).with_name("conf.real.py").read_text(), "conf.real.py", "exec"))
extensions = [e for e in extensions if e.split(".")[0] != "miles101"]  # the package, whatever module conf.py names
html_math_renderer = "mathjax"  # Sphinx's default; miles101 provides the manual's MathML renderer
root_doc = {root!r}
exclude_patterns = exclude_patterns + {excluded!r}
suppress_warnings = ["myst.xref_missing", "ref.ref"]
# The real conf.py's setup() freezes the loaded heap for the build and at exit (miles101.heap). The baseline
# keeps the exit freeze alone, as the rows have measured it since 2026-12-06, so they compare the same thing.
setup = None
import atexit, gc
atexit.register(gc.freeze)
'''


def make_baseline(src: Sandbox, base: Path) -> Path:
    """A second copy with plain pages, a conf.py without miles101 and a hand-written toctree."""
    dest = base / "baseline"
    shutil.copytree(src.root, dest, ignore=shutil.ignore_patterns("_build"), symlinks=True)
    role_names, directive_names = _extension_names()
    b = book(dest)
    figure_ids: set[str] = set()
    for path in page_files(dest):
        figure_ids |= set(re.findall(r"\{(?:diagram)\}\s+(fig-[\w-]+)", path.read_text(encoding="utf-8")))
    for path in page_files(dest):
        path.write_text(plain_page(path.read_text(encoding="utf-8"), role_names, directive_names, figure_ids),
                        encoding="utf-8")
    front = dest / b.get("front", "front.md")
    toctrees = []
    for part in [*b["parts"], b["reference"]]:
        caption = f"Part {part['number']} · {part['title']}" if "number" in part else part["title"]
        entries = "\n".join(s["file"].removesuffix(".md") for s in part["sections"])
        toctrees.append(f"\n```{{toctree}}\n:caption: {caption}\n:hidden:\n\n{entries}\n```\n")
    front.write_text(front.read_text(encoding="utf-8") + "".join(toctrees), encoding="utf-8")
    listed = {p.relative_to(dest).as_posix() for p in page_files(dest)}
    excluded = sorted(p.relative_to(dest).as_posix() for p in dest.glob("sections/*.md")
                      if p.relative_to(dest).as_posix() not in listed)
    (dest / "conf.py").rename(dest / "conf.real.py")
    root_doc = Path(b.get("front", "front.md")).with_suffix("").as_posix()
    (dest / "conf.py").write_text(BASELINE_CONF.format(root=root_doc, excluded=excluded + ["conf.real.py"]),
                                  encoding="utf-8")
    return dest


def one_word_edit(original: str, i: int) -> str:
    """The page with one word added at the end of its first prose line (even i), or as it was (odd i):
    every call changes the page against the call before."""
    if i % 2:
        return original
    lines = original.splitlines(keepends=True)
    prose = [n for n, line in enumerate(lines) if line.strip() and not re.match(r"^\s*([#`:|>*(<-]|\d+\.)", line)]
    if not prose:
        raise SystemExit("bench: the baseline's page has no line of prose to add a word to")
    at = prose[0]
    lines[at] = lines[at].rstrip("\n") + " again\n"
    return "".join(lines)


@dataclass
class Pairs:
    """The paired row: per pair, the real build's value change and the baseline's one-word edit, CPU and wall."""

    page: str
    real_cpu: list[float] = field(default_factory=list)
    base_cpu: list[float] = field(default_factory=list)
    real_wall: list[float] = field(default_factory=list)
    base_wall: list[float] = field(default_factory=list)
    real_read: list[list[str]] = field(default_factory=list)
    base_read: list[list[str]] = field(default_factory=list)
    real_written: list[int] = field(default_factory=list)
    base_written: list[int] = field(default_factory=list)

    @property
    def diffs(self) -> list[float]:
        return [r - b for r, b in zip(self.real_cpu, self.base_cpu)]


def paired_share(box: Sandbox, baseline: Path, bl_out: Path, pairs: int) -> Pairs:
    """The extension's share of a value change: each pair is one incremental build of the real book after a
    captured value changed, then one of the baseline after a one-word edit of the page citing it, back to back
    (the same -j), so both see the same machine. Both trees must have been built already."""
    role, key, data_file, citing = pick_value(box.root)
    page = sorted(citing)[0]
    plain = baseline / f"{page}.md"
    original = plain.read_text(encoding="utf-8")
    result = Pairs(page)
    try:
        for i in range(pairs):
            edit_value(data_file, role, key, i)
            real = box.build()
            plain.write_text(one_word_edit(original, i), encoding="utf-8")
            base = box.build(outdir=bl_out, srcdir=baseline)
            result.real_cpu.append(real.cpu)
            result.base_cpu.append(base.cpu)
            result.real_wall.append(real.seconds)
            result.base_wall.append(base.seconds)
            result.real_read.append(real.read)
            result.base_read.append(base.read)
            result.real_written.append(real.written)
            result.base_written.append(base.written)
    finally:
        plain.write_text(original, encoding="utf-8")
    return result


def pairs_rows(pr: Pairs) -> list[tuple[str, str, str]]:
    """The paired row and its two sides, as table rows."""
    med = statistics.median(pr.diffs)
    reads = lambda runs: sorted({len(r) for r in runs})  # noqa: E731
    return [
        (f"incremental, value change (real) vs one-word edit of {pr.page}.md (baseline), paired, CPU",
         f"{med:+.2f} s",
         f"median of {len(pr.diffs)} pairs' differences (real − baseline, user + sys of each build); "
         f"differences {min(pr.diffs):+.2f} to {max(pr.diffs):+.2f} s; target <= {TARGETS['extension_share']} s: "
         f"{'ok' if med <= TARGETS['extension_share'] else 'OVER'}"),
        ("  its real side: value change, CPU", fmt_s(statistics.median(pr.real_cpu)),
         f"runs {min(pr.real_cpu):.2f}–{max(pr.real_cpu):.2f} s; wall median {fmt_s(statistics.median(pr.real_wall))}; "
         f"pages re-read per build: {reads(pr.real_read)}, written: {sorted(set(pr.real_written))}"),
        ("  its baseline side: one-word edit, CPU", fmt_s(statistics.median(pr.base_cpu)),
         f"runs {min(pr.base_cpu):.2f}–{max(pr.base_cpu):.2f} s; wall median {fmt_s(statistics.median(pr.base_wall))}; "
         f"pages re-read per build: {reads(pr.base_read)}, written: {sorted(set(pr.base_written))}"),
    ]


# --------------------------------------------------------------------------- page weight


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and (a.get("rel") or "") in {"stylesheet", "preload", "icon"} and a.get("href"):
            self.refs.append(a["href"])
        elif tag in {"script", "img"} and a.get("src"):
            self.refs.append(a["src"])


def static_weight(html_dir: Path, rel: str) -> dict[str, int]:
    """Bytes of a page and of the <link>/<script>/<img> it names, parsed from the built files."""
    page = html_dir / rel
    parser = _Refs()
    parser.feed(page.read_text(encoding="utf-8"))
    sizes = {rel: page.stat().st_size}
    for ref in parser.refs:
        if re.match(r"^[a-z]+:", ref):
            continue
        target = (page.parent / ref.split("?")[0].split("#")[0]).resolve()
        if target.is_file():
            sizes[target.relative_to(html_dir.resolve()).as_posix()] = target.stat().st_size
    return sizes


def browser_weights(html_dir: Path) -> dict[str, dict[str, Any]] | None:
    """Per page: bytes the browser fetched (all, and without mermaid), and whether mermaid loaded."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        return None
    spec = importlib.util.spec_from_file_location("browser_support", ROOT / "tests" / "browser" / "browser_support.py")
    support = sys.modules["browser_support"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)
    CHROMIUM_ARGS, Server, is_local, diagram_state = (
        support.CHROMIUM_ARGS, support.Server, support.is_local, support.diagram_state)
    pages = sorted(p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.html")
                   if not p.relative_to(html_dir).parts[0].startswith("_"))
    result: dict[str, dict[str, Any]] = {}
    with Server(html_dir) as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS)
        for rel in pages:
            context = browser.new_context()  # a fresh cache per page: what a first visit costs
            context.route("**/*", lambda r: r.continue_() if is_local(r.request.url) else r.abort())
            page = context.new_page()
            got: dict[str, int] = {}

            def done(req: Any, got: dict[str, int] = got) -> None:
                try:
                    got[req.url] = req.sizes()["responseBodySize"]
                except Exception:
                    got[req.url] = 0

            page.on("requestfinished", done)
            page.goto(srv.base + rel, wait_until="load")
            state = diagram_state(page)
            page.wait_for_load_state("networkidle")
            mermaid = sum(v for k, v in got.items() if "/_static/mermaid/" in k)
            result[rel] = {"bytes": sum(got.values()), "without_mermaid": sum(got.values()) - mermaid,
                           "mermaid_bytes": mermaid, "requests": len(got), "diagrams": state.get("total", 0)}
            context.close()
        browser.close()
    return result


# --------------------------------------------------------------------------- the benchmark


def machine() -> dict[str, str]:
    """nproc, CPU model, memory, Python and Sphinx versions, and the date."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "?"
    mem = "?"
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())[1])
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, TypeError):
        pass
    import sphinx

    return {"date": time.strftime("%Y-%m-%d"), "nproc": str(os.cpu_count()), "cpu": cpu, "memory": mem,
            "python": platform.python_version(), "sphinx": sphinx.__version__,
            "bytecode": ("cache on (PYTHONDONTWRITEBYTECODE is set in this shell; the builds run without it)"
                         if "PYTHONDONTWRITEBYTECODE" in os.environ else "cache on")}


def fmt_s(x: float) -> str:
    return f"{x:.2f} s"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per timing; the median is shown (default 5)")
    ap.add_argument("--keep", action="store_true", help="keep the temp copies and print where they are")
    ap.add_argument("--skip-weight", action="store_true", help="skip the page-weight measurement")
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    ap.add_argument("--pairs", type=int, default=MIN_PAIRS,
                    help=f"pairs for the paired value-change row (at least {MIN_PAIRS}; default {MIN_PAIRS})")
    ap.add_argument("--pairs-only", action="store_true",
                    help="only the paired row (the extension's share of a value change), after the builds it needs")
    args = ap.parse_args(argv)
    runs = max(1, args.runs)
    pairs = max(MIN_PAIRS, args.pairs)
    base = Path(tempfile.mkdtemp(prefix="m101-bench-"))
    rows: list[tuple[str, str, str]] = []
    results: dict[str, Any] = {"machine": machine(), "runs": runs}
    notes: list[str] = []
    try:
        box = make_sandbox(base)
        log = lambda msg: print(f"[bench] {msg}", file=sys.stderr, flush=True)  # noqa: E731
        log(f"sandbox {box.root}; {runs} run(s) per timing")

        # One build first, not timed: it writes the bytecode cache every timed build then reads.
        box.build(jobs=None, clean=True)
        log("warm-up build done (bytecode cache written)")
        if args.pairs_only:
            box.jobs = "auto"
            box.build(clean=True)
            baseline, bl_out = make_baseline(box, base), base / "baseline-build"
            box.build(outdir=bl_out, srcdir=baseline, clean=True)
            pr = paired_share(box, baseline, bl_out, pairs)
            rows = pairs_rows(pr)
            results["pairs"] = pr.__dict__ | {"diffs": pr.diffs}
            results["rows"] = rows
            print_table(rows, results["machine"], runs, notes)
            if args.json:
                args.json.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
            return 0

        # Full builds, fresh each time.
        for label, jobs in (("full build, fresh, serial", None), ("full build, fresh, -j auto", "auto")):
            med, samples = median_of(runs, lambda i, jobs=jobs: box.build(jobs=jobs, clean=True).seconds)
            results[label] = samples
            rows.append((label, fmt_s(med), spread(samples)))
            log(f"{label}: {fmt_s(med)}")
        full = box.build(jobs="auto", clean=True)  # the state every incremental run starts from
        problems = problem_docs(full.warnings, box.root)
        box.jobs = "auto"

        # Incremental: touch one section page.
        page = box.root / book(box.root)["parts"][0]["sections"][1]["file"]
        page_doc = page.relative_to(box.root).with_suffix("").as_posix()

        def touch(i: int) -> float:
            now = time.time()  # never in the future: Sphinx would re-read the page on every later build
            os.utime(page, (now, now))
            b = box.build()
            results.setdefault("touch_read", b.read)
            results.setdefault("touch_written", b.written)
            return b.seconds

        med, samples = median_of(runs, touch)
        extra = sorted(set(results["touch_read"]) - {page_doc})
        rows.append((f"incremental, touch {page_doc}.md", fmt_s(med),
                     f"re-read {len(results['touch_read'])}: {page_doc}" + (f" + {extra}" if extra else "")
                     + f"; {spread(samples)}"))
        log(f"touch: {fmt_s(med)}")

        # Incremental: nothing changed (the floor), then one captured value changed, interleaved so
        # drift on a shared machine hits both alike.
        role, key, data_file, citing = pick_value(box.root)
        reads: list[list[str]] = []
        writes: list[int] = []
        floor_s: list[float] = []
        floor_reads: list[list[str]] = []

        def change(i: int) -> float:
            b = box.build()
            floor_s.append(b.seconds)
            floor_reads.append(b.read)
            edit_value(data_file, role, key, i)
            b = box.build()
            reads.append(b.read)
            writes.append(b.written)
            return b.seconds

        med, samples = median_of(runs, change)
        floor_med = statistics.median(floor_s)
        floor_extra = sorted({d for r in floor_reads for d in r})
        rows.append(("incremental, no change (floor)", fmt_s(floor_med),
                     f"re-read {len(floor_reads[0])}" + (f": {floor_extra}" if floor_extra else "")
                     + f"; {spread(floor_s)}"))
        results["floor"] = {"samples": floor_s, "read": floor_reads}
        read = set(reads[0])
        exact = all(set(r) == citing for r in reads)
        unexplained = read - citing - problems
        verdict = "exactly the citing pages" if exact else (
            f"citing {sorted(citing)}; also re-read {sorted(read - citing)}"
            + (" (pages with unresolved references, re-read every build)" if not unexplained else "")
            + (f"; NOT re-read {sorted(citing - read)}" if citing - read else ""))
        rows.append((f"incremental, change {role} {key} ({data_file.relative_to(box.root)})", fmt_s(med),
                     f"re-read {sorted(read)}: {verdict}; {spread(samples)}"))
        results["value_change"] = {"key": f"{role}:{key}", "citing": sorted(citing), "read": [sorted(r) for r in reads],
                                   "samples": samples, "exact": exact, "problem_pages": sorted(problems)}
        value_med = med
        log(f"floor: {fmt_s(floor_med)}; value change: {fmt_s(med)} ({verdict})")

        # Incremental: edit manual.json (a part's summary: no structural change).
        manual = box.root / "manual.json"
        original = manual.read_text(encoding="utf-8")

        def edit_manual(i: int) -> float:
            data = json.loads(original)
            data["parts"][0]["summary"] += f" (bench {i})"
            manual.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            b = box.build()
            results.setdefault("manual_read", b.read)
            results.setdefault("manual_written", b.written)
            return b.seconds

        med, samples = median_of(runs, edit_manual)
        manual.write_text(original, encoding="utf-8")
        count = len(results["manual_read"])
        named = f": {sorted(set(results['manual_read']))}" if count <= 5 else ""
        rows.append(("incremental, edit manual.json (a part summary)", fmt_s(med),
                     f"re-read {count} of {len(page_files(box.root))} pages{named}; {spread(samples)}"))
        log(f"manual.json: {fmt_s(med)}")

        # The extension's overhead against a plain baseline (serial, fresh).
        baseline = make_baseline(box, base)
        bl_out = base / "baseline-build"
        first = box.build(jobs=None, outdir=bl_out, srcdir=baseline, clean=True)
        if first.warnings:
            notes.append(f"baseline build: {len(first.warnings)} warning(s), e.g. {first.warnings[0][:160]}")
        real_s, bl_s = [], []
        for _ in range(runs):  # interleaved, so drift on a shared machine hits both alike
            real_s.append(box.build(jobs=None, clean=True).seconds)
            bl_s.append(box.build(jobs=None, outdir=bl_out, srcdir=baseline, clean=True).seconds)
        ratio = statistics.median(real_s) / statistics.median(bl_s)
        rows.append(("baseline (no miles101), fresh, serial", fmt_s(statistics.median(bl_s)),
                     f"{spread(bl_s)}; the real build interleaved with it: {fmt_s(statistics.median(real_s))}"))
        rows.append(("extension overhead (real / baseline, serial)", f"{ratio:.2f}x",
                     f"target <= {TARGETS['overhead']:.2f}x: {'ok' if ratio <= TARGETS['overhead'] else 'OVER'}"))
        results["overhead"] = {"real": real_s, "baseline": bl_s, "ratio": ratio}
        log(f"overhead: {ratio:.2f}x")

        # The extension's share of a value change, paired with the baseline's one-word edit (both -j auto,
        # each tree built fresh right before, so both start from a complete build).
        box.build(clean=True)
        box.build(outdir=bl_out, srcdir=baseline, clean=True)
        pr = paired_share(box, baseline, bl_out, pairs)
        rows += pairs_rows(pr)
        results["pairs"] = pr.__dict__ | {"diffs": pr.diffs}
        log(f"paired share: {statistics.median(pr.diffs):+.2f} s CPU over {len(pr.diffs)} pairs")

        # The extension's own share of a full build: one fresh serial build under cProfile.
        profile = base / "full.prof"
        box.build(jobs=None, clean=True, profile=profile)
        own, total = extension_share(profile)
        rows.append(("extension's own code in a full build (cProfile, serial)", f"{100 * own / total:.1f} %",
                     f"{own:.2f} s of {total:.2f} s under the profiler: tottime of every function in miles101/, "
                     "summed, over all functions' tottime"))
        results["extension_share"] = {"own": own, "total": total}
        log(f"extension share: {own:.2f} s of {total:.2f} s")

        # capture/run.py --check
        check = box.root / "capture" / "check.py"
        if check.is_file():
            codes: list[int] = []

            def run_check(i: int) -> float:
                start = time.perf_counter()
                # this checkout's script (the one Python imports the project from) on the sandbox's data
                proc = subprocess.run([PY, str(ROOT / "capture" / "run.py"), "--check", "--root", str(box.root)],
                                      cwd=box.root, capture_output=True, text=True, env=CHILD_ENV)
                codes.append(proc.returncode)
                return time.perf_counter() - start

            med, samples = median_of(runs, run_check)
            rows.append(("python3 capture/run.py --check", fmt_s(med),
                         f"exit {codes[0]}; {spread(samples)}; target <= {TARGETS['check']:.0f} s: "
                         f"{'ok' if med <= TARGETS['check'] else 'OVER'}"))
            results["check"] = {"samples": samples, "exit": codes}
        else:
            rows.append(("python3 capture/run.py --check", "not available", "capture/check.py does not exist yet"))

        value_row = next(r for r in rows if r[0].startswith("incremental, change"))
        over_floor = value_med - floor_med
        rows[rows.index(value_row)] = (value_row[0], value_row[1], value_row[2] + (
            f"; target <= {TARGETS['value_change']} s: {'ok' if value_med <= TARGETS['value_change'] else 'OVER'}"
            f"; {over_floor:+.2f} s over the floor (reported; the paired row below holds the extension's share)"))

        # Page weight.
        html_dir = box.out / "html"
        front_rel = Path(book(box.root).get("front", "front.md")).with_suffix(".html").as_posix()
        weights = None if args.skip_weight else browser_weights(html_dir)
        if weights:
            heavy = max(weights, key=lambda r: weights[r]["bytes"])
            fw = weights[front_rel]
            rows.append((f"page weight, {front_rel} (browser, first visit)", f"{fw['bytes'] / 1024:.0f} KB",
                         f"{fw['without_mermaid'] / 1024:.0f} KB without mermaid ({fw['diagrams']} diagram(s), "
                         f"{fw['requests']} requests); target <= {TARGETS['front_kb']:.0f} KB without mermaid: "
                         f"{'ok' if fw['without_mermaid'] / 1024 <= TARGETS['front_kb'] else 'OVER'}"))
            hw = weights[heavy]
            rows.append((f"page weight, heaviest: {heavy}", f"{hw['bytes'] / 1024:.0f} KB",
                         f"{hw['without_mermaid'] / 1024:.0f} KB without mermaid, {hw['diagrams']} diagram(s)"))
            leaky = sorted(r for r, w in weights.items() if not w["diagrams"] and w["mermaid_bytes"])
            rows.append(("mermaid loaded on pages without a diagram", f"{len(leaky)} page(s)",
                         ", ".join(leaky) if leaky else "none (as it should be)"))
            results["weights"] = weights
        else:
            sizes = static_weight(html_dir, front_rel)
            total = sum(sizes.values())
            rows.append((f"page weight, {front_rel} (parsed files)", f"{total / 1024:.0f} KB",
                         "HTML + linked CSS/JS/img; Playwright unavailable (or --skip-weight), mermaid modules not counted"))
            results["weights_static"] = sizes

        results["rows"] = rows
        print_table(rows, results["machine"], runs, notes)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    finally:
        if args.keep:
            print(f"[bench] kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


def print_table(rows: list[tuple[str, str, str]], m: dict[str, str], runs: int, notes: list[str]) -> None:
    """A Markdown table, ready to paste into benchmarks/README.md."""
    print(f"\nMiles 101 build benchmark, {m['date']}: {m['nproc']} CPUs ({m['cpu']}), {m['memory']}, "
          f"Python {m['python']}, Sphinx {m['sphinx']}, bytecode {m['bytecode']}; medians of {runs} run(s)\n")
    print("| measurement | median | notes |")
    print("| --- | --- | --- |")
    for name, value, note in rows:
        print(f"| {name} | {value} | {note.replace('|', '/')} |")
    for n in notes:
        print(f"\nnote: {n}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
