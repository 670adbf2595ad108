#!/usr/bin/env python3
"""One entry point for a fresh machine with Python 3.11+ (and Node.js with npm, for mermaid).

    python3 dev.py docs      build the manual into _build/html (-nW: any warning fails)
    python3 dev.py test      run every test
    python3 dev.py serve     build, then serve _build/html on http://127.0.0.1:8000
    python3 dev.py check     python3 capture/run.py --check
    python3 dev.py bench     the build benchmark (benchmarks/README.md)
    python3 dev.py pdf       the PDF edition into _build/pdf/latex/miles101.pdf (XeLaTeX, diagrams drawn
                             by mermaid's CLI on Debian's Chromium; see README for the apt packages)
    python3 dev.py epub      the EPUB edition into _build/epub/Miles101.epub

Add --help after a command to see what that command does, installing nothing.

It makes .venv/, installs the pinned requirements and then the project (`pip install -e .`)
the first time (and again when they change), and runs `npm ci` when node_modules/ does not hold the pinned mermaid.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"
REQS = [ROOT / "requirements.txt", ROOT / "requirements-test.txt", ROOT / "pyproject.toml"]


def run(*cmd: str | Path, **kw) -> None:
    print("+", " ".join(map(str, cmd)), flush=True)
    result = subprocess.run([str(c) for c in cmd], cwd=ROOT, **kw)
    if result.returncode:
        sys.exit(result.returncode)


def ensure_python() -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"dev.py: Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    if not PY.exists():
        venv.create(VENV, with_pip=True)
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in REQS)).hexdigest()
    stamp = VENV / ".requirements.sha256"
    if not stamp.is_file() or stamp.read_text() != digest:
        run(PY, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", ROOT / "requirements-test.txt")
        # The project itself (miles101, its Sphinx extension, capture/), editable: no sys.path edits.
        run(PY, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "-e", ROOT)
        stamp.write_text(digest)


def ensure_mermaid() -> None:
    """`npm ci` when node_modules/ lacks a package of package-lock.json at its pinned version
    (mermaid, served to readers; axe-core, run by the accessibility test)."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    packages = lock["packages"]
    wanted = {**packages[""].get("dependencies", {}), **packages[""].get("devDependencies", {})}
    for name in wanted:
        pinned = packages[f"node_modules/{name}"]["version"]
        installed = ROOT / "node_modules" / name / "package.json"
        if not (installed.is_file() and json.loads(installed.read_text()).get("version") == pinned):
            break
    else:
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("dev.py: npm is needed to install the pinned mermaid and axe-core (install Node.js 18+ with npm).")
    run(npm, "ci", "--no-fund", "--no-audit", "--ignore-scripts")


PDF_TOOLS = ROOT / "tools" / "pdf"


def ensure_pdf_tools() -> None:
    """mermaid's CLI, pinned by tools/pdf/package-lock.json, kept out of the site's node_modules (it is
    ~350 MB with puppeteer). PUPPETEER_SKIP_DOWNLOAD: puppeteer never fetches a browser; the build
    drives Debian's Chromium."""
    lock = json.loads((PDF_TOOLS / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/@mermaid-js/mermaid-cli"]["version"]
    installed = PDF_TOOLS / "node_modules" / "@mermaid-js" / "mermaid-cli" / "package.json"
    if not (installed.is_file() and json.loads(installed.read_text()).get("version") == pinned):
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("dev.py: npm is needed to install mermaid's CLI for the PDF's diagrams (Node.js 18+).")
        print("+ (tools/pdf)", flush=True)
        run(npm, "ci", "--prefix", PDF_TOOLS, "--no-fund", "--no-audit", "--ignore-scripts",
            env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})
    missing = [tool for tool in ("xelatex", "latexmk") if shutil.which(tool) is None]
    if not any(shutil.which(c) for c in ("chromium", "chromium-browser")) and not os.environ.get("PUPPETEER_EXECUTABLE_PATH"):
        missing.append("chromium")
    if missing:
        sys.exit(f"dev.py: the PDF needs {', '.join(missing)}; on Debian or Ubuntu: apt-get install "
                 "texlive-xetex latexmk texlive-latex-extra fonts-freefont-otf tex-gyre chromium")


COMMANDS = ("docs", "test", "serve", "check", "bench", "pdf", "epub")


def command_help(command: str) -> str:
    """The lines of this module's docstring that describe one command."""
    lines = __doc__.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[1:3] == ["dev.py", command])
    end = start + 1
    while end < len(lines) and lines[end].startswith(" " * 20) and lines[end].strip():
        end += 1
    return "\n".join(line.strip() for line in lines[start:end])


def sphinx(*extra: str) -> None:
    run(PY, "-m", "sphinx", "-b", "html", "-nW", "--keep-going", "-j", "auto", ".", "_build/html",
        "-d", "_build/doctrees", *extra)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "help"
    if command not in COMMANDS:
        print(__doc__)
        return 0 if command in ("help", "--help", "-h") else 2
    if argv[1:2] in (["--help"], ["-h"]):  # what the command does, before installing anything
        print(command_help(command))
        return 0
    ensure_python()
    ensure_mermaid()
    if command == "docs":
        sphinx(*argv[1:])
    elif command == "test":
        run(PY, "-m", "pytest", *argv[1:], env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    elif command == "serve":
        sphinx()
        run(PY, "-m", "http.server", "8000", "--bind", "127.0.0.1", "--directory", "_build/html")
    elif command == "check":
        run(PY, "capture/run.py", "--check", *argv[1:])
    elif command == "bench":
        run(PY, "benchmarks/bench.py", *argv[1:])
    elif command in {"pdf", "epub"}:
        ensure_pdf_tools()
        # m101_diagrams=images: a diagram that cannot be drawn fails the build instead of becoming a line of text.
        builder = ["-M", "latexpdf", ".", "_build/pdf"] if command == "pdf" else ["-b", "epub", ".", "_build/epub"]
        run(PY, "-m", "sphinx", *builder, "-nW", "--keep-going", "-d", f"_build/doctrees-{command}",
            "-D", "m101_diagrams=images", *argv[1:])
        print(f"dev.py: {'_build/pdf/latex/miles101.pdf' if command == 'pdf' else '_build/epub/Miles101.epub'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
