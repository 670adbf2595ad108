#!/usr/bin/env python3
"""One entry point for a fresh machine with Python 3.11+ (and Node.js with npm for the tests and `draw`).

    python3 dev.py docs      build the manual into _build/html (-nW: any warning fails)
    python3 dev.py test      run every test (arguments go to pytest: -m unit, --durations=15, ...)
    python3 dev.py serve     build, then serve _build/html on http://127.0.0.1:8000
    python3 dev.py check     python3 capture/run.py --check
    python3 dev.py bench     the build benchmark (benchmarks/README.md)
    python3 dev.py pdf       the PDF edition into _build/pdf/latex/miles101.pdf (XeLaTeX; see README for
                             the apt packages)
    python3 dev.py epub      the EPUB edition into _build/epub/Miles101.epub
    python3 dev.py draw      draw the diagrams every edition shows into drawings/ (mermaid's CLI on
                             Debian's Chromium): run it after changing a diagram, then commit them

Add --help after a command to see what that command does, installing nothing.

It makes .venv/ and installs what the command needs, pinned, with the project (`pip install -e .`):
requirements.txt for the book (docs, serve, check, bench, pdf, epub), requirements-test.txt on top for
`test` (torch, transformers, Playwright: the docs never wait for them). Each set is installed the
first time and again when its files change. Only `test` runs `npm ci` (when node_modules/ does not hold
the pinned axe-core and vnu-jar, which the browser and HTML tests run); the book itself needs no Node:
its diagrams are the committed drawings.
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
#: Each set of requirements: what it installs, and the files whose bytes its stamp in .venv/ holds.
SETS = {
    "docs": ("requirements.txt", ["requirements.txt", "pyproject.toml"]),
    "test": ("requirements-test.txt", ["requirements.txt", "requirements-test.txt", "pyproject.toml"]),
}
#: What the PDF needs from Debian or Ubuntu (README lists the same packages; tests/test_hints.py holds them equal).
#: No Chromium: the editions use the drawings kept in drawings/ (only `dev.py draw` needs a browser).
PDF_APT = "texlive-xetex texlive-latex-extra texlive-fonts-recommended latexmk xindy fonts-freefont-otf tex-gyre"
PIP = ("install", "-q", "--disable-pip-version-check", "--no-input")


def run(*cmd: str | Path, **kw) -> None:
    print("+", " ".join(map(str, cmd)), flush=True)
    result = subprocess.run([str(c) for c in cmd], cwd=ROOT, **kw)
    if result.returncode:
        sys.exit(result.returncode)


def _stamp(name: str) -> tuple[Path, str]:
    """A requirement set's stamp file in .venv/ and the digest it must hold to be current."""
    digest = hashlib.sha256(b"".join((ROOT / f).read_bytes() for f in SETS[name][1])).hexdigest()
    return VENV / f".{name}.sha256", digest


def ensure_python(needs: str = "docs") -> None:
    """.venv/ with the requirement set `needs` ("docs" or "test") and the project, editable."""
    if sys.version_info < (3, 11):
        sys.exit(f"dev.py: Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    stamp, digest = _stamp(needs)
    if PY.exists() and stamp.is_file() and stamp.read_text() == digest:
        return
    pip = _pip()
    # One pip run: the pinned set and the project itself (miles101, its Sphinx extension, capture/),
    # editable, so nothing edits sys.path; the project's own dependencies are among the pins.
    # --no-compile: Python compiles what it imports, when it first imports it (compiling every
    # installed module up front costs seconds before the first page, for modules never imported).
    run(*pip, *PIP, "--no-compile", "-r", ROOT / SETS[needs][0], "-e", ROOT)
    # The test set holds the docs set (`-r requirements.txt`), so installing it brings the docs set too.
    for name in ("docs", needs) if needs == "test" else (needs,):
        path, value = _stamp(name)
        path.write_text(value)


def _pip() -> list[str | Path]:
    """The pip that installs into .venv/ (made here when missing).

    The running Python's own pip, aimed at .venv/ with `--python` (pip 22.3+), spares installing a
    second pip into it (ensurepip: 5-10 s of a first run); without one, .venv/ gets its own.
    """
    if not PY.exists():
        venv.create(VENV, with_pip=False)
    if (VENV / "bin" / "pip").exists():
        return [PY, "-m", "pip"]
    host = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    version = host.stdout.split()[1] if host.returncode == 0 and host.stdout.startswith("pip ") else "0"
    if tuple(int(p) for p in version.split(".")[:2] if p.isdigit()) >= (22, 3):
        return [sys.executable, "-m", "pip", "--python", PY]
    run(PY, "-m", "ensurepip", "--upgrade", "--default-pip")
    return [PY, "-m", "pip"]


def start_npm() -> subprocess.Popen | None:
    """Start `npm ci` when node_modules/ lacks a package of package-lock.json at its pinned version
    (axe-core and vnu-jar, which the tests run); it runs while pip does."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    packages = lock["packages"]
    wanted = {**packages[""].get("dependencies", {}), **packages[""].get("devDependencies", {})}
    for name in wanted:
        pinned = packages[f"node_modules/{name}"]["version"]
        installed = ROOT / "node_modules" / name / "package.json"
        if not (installed.is_file() and json.loads(installed.read_text()).get("version") == pinned):
            break
    else:
        return None
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("dev.py: the tests need npm to install the pinned axe-core and vnu-jar (install Node.js 18+ with npm).")
    cmd = [npm, "ci", "--no-fund", "--no-audit", "--ignore-scripts"]
    print("+", " ".join(cmd), "(alongside pip)", flush=True)
    return subprocess.Popen(cmd, cwd=ROOT)


def finish(job: subprocess.Popen | None) -> None:
    """Wait for a job started alongside; stop with its exit status if it failed."""
    if job is not None and job.wait():
        sys.exit(job.returncode)


PDF_TOOLS = ROOT / "tools" / "pdf"


def ensure_draw_tools() -> None:
    """mermaid's CLI, pinned by tools/pdf/package-lock.json, kept out of the site's node_modules (it is
    ~350 MB with puppeteer). PUPPETEER_SKIP_DOWNLOAD: puppeteer never fetches a browser; the drawing
    drives Debian's Chromium."""
    if not any(shutil.which(c) for c in ("chromium", "chromium-browser")) and not os.environ.get("PUPPETEER_EXECUTABLE_PATH"):
        sys.exit("dev.py: drawing the diagrams needs Chromium; on Debian or Ubuntu: apt-get install chromium")
    lock = json.loads((PDF_TOOLS / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/@mermaid-js/mermaid-cli"]["version"]
    installed = PDF_TOOLS / "node_modules" / "@mermaid-js" / "mermaid-cli" / "package.json"
    if not (installed.is_file() and json.loads(installed.read_text()).get("version") == pinned):
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("dev.py: npm is needed to install mermaid's CLI, which draws the diagrams (Node.js 18+).")
        print("+ (tools/pdf)", flush=True)
        run(npm, "ci", "--prefix", PDF_TOOLS, "--no-fund", "--no-audit", "--ignore-scripts",
            env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"})


def ensure_latex() -> None:
    missing = [tool for tool in ("xelatex", "latexmk", "xindy") if shutil.which(tool) is None]
    if missing:
        sys.exit(f"dev.py: the PDF needs {', '.join(missing)}; on Debian or Ubuntu: apt-get install {PDF_APT}")


COMMANDS = ("docs", "test", "serve", "check", "bench", "pdf", "epub", "draw")


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
    npm = start_npm() if command == "test" else None
    ensure_python("test" if command == "test" else "docs")
    finish(npm)
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
    elif command == "draw":
        ensure_draw_tools()
        run(PY, "-m", "sphinx", "-b", "dummy", ".", "_build/draw", "-nW", "--keep-going", "-d", "_build/doctrees-draw",
            "-D", "m101_diagrams=draw", *argv[1:])
        print("dev.py: the drawings are in drawings/; commit them with the diagrams they draw")
    elif command in {"pdf", "epub"}:
        # The diagrams come drawn from drawings/ (dev.py draw); a stale one fails the build (-W).
        if command == "pdf":
            ensure_latex()
        builder = ["-M", "latexpdf", ".", "_build/pdf"] if command == "pdf" else ["-b", "epub", ".", "_build/epub"]
        run(PY, "-m", "sphinx", *builder, "-nW", "--keep-going", "-d", f"_build/doctrees-{command}", *argv[1:])
        print(f"dev.py: {'_build/pdf/latex/miles101.pdf' if command == 'pdf' else '_build/epub/Miles101.epub'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
