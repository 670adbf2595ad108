"""miles101-tools.pyz (miles101.tools_archive): the reader's four tools in one file.

Its members are the tools byte for byte, its bytes are the same from the same tools (whatever their
mtimes), it runs a tool as `python3 miles101-tools.pyz TOOL ...`, and it refuses an older Python in one
line. The `{tools-download}` block (miles101.sphinx_ext.tools_download) is held to the file the build
writes: the SHA-256 it shows is that file's, in the web site and in the other editions.
"""
from __future__ import annotations

import ast
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from buildutil import ROOT, build
from miles101 import archive_main, tools_archive
from miles101.tools import read_run as rr

FIX = ROOT / "tests" / "fixtures" / "public-logs"
PAGE = "https://example.org/en/latest/sections/7-1-troubleshoot-by-symptom.html"


def _zip(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


@pytest.fixture(scope="module")
def pyz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pyz") / tools_archive.NAME
    path.write_bytes(tools_archive.archive_bytes())
    return path


def _run(pyz: Path, *args: str, env: dict[str, str] | None = None, python: str = sys.executable,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, str(pyz), *args], capture_output=True, text=True, timeout=60, cwd=cwd,
                          env={**os.environ, **(env or {})})


# ------------------------------------------------------------------------------ the archive
@pytest.mark.unit
def test_members_are_the_tools_byte_for_byte() -> None:
    zf = _zip(tools_archive.archive_bytes())
    names = zf.namelist()
    assert names == sorted(names) == ["__main__.py", "miles_tree.py", "preflight.py", "read_run.py", "watchdog.py"]
    for name in tools_archive.TOOLS:
        assert zf.read(name) == (ROOT / "_ext" / "miles101" / "tools" / name).read_bytes(), name
    assert zf.read("__main__.py") == tools_archive.MAIN.read_bytes()  # no address: the dispatcher as committed
    for info in zf.infolist():
        assert info.date_time == tools_archive.DATE_TIME and info.external_attr >> 16 == 0o100644, info


@pytest.mark.unit
def test_the_tools_it_carries_are_every_tool_of_the_folder() -> None:
    """A tool added to _ext/miles101/tools/ is a member too (or the list says why not)."""
    on_disk = {p.name for p in tools_archive.TOOLS_DIR.glob("*.py")} - {"__init__.py"}
    assert on_disk == set(tools_archive.TOOLS)


@pytest.mark.unit
def test_same_bytes_from_the_same_tools_whatever_their_mtimes(tmp_path: Path) -> None:
    first = tools_archive.archive_bytes(PAGE)
    copy = tmp_path / "tools"
    copy.mkdir()
    for n, name in enumerate(tools_archive.TOOLS):
        shutil.copyfile(tools_archive.TOOLS_DIR / name, copy / name)
        os.utime(copy / name, (1_000_000_000 + n * 77, 1_000_000_000 + n * 77))
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "read_run.cpython-311.pyc").write_bytes(b"stale")
    assert tools_archive.archive_bytes(PAGE, tools_dir=copy) == first == tools_archive.archive_bytes(PAGE)
    assert tools_archive.archive_bytes(PAGE) != tools_archive.archive_bytes()  # the address is in __main__.py
    (copy / "watchdog.py").write_bytes((copy / "watchdog.py").read_bytes() + b"\n")
    assert tools_archive.archive_bytes(PAGE, tools_dir=copy) != first


@pytest.mark.unit
def test_the_cli_writes_it_and_prints_its_sha256(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / tools_archive.NAME
    assert tools_archive.main([str(out)]) == 0
    assert capsys.readouterr().out == f"{hashlib.sha256(out.read_bytes()).hexdigest()}  {out}\n"
    assert tools_archive.main([str(out), "--page-7-1", "file:///x'"]) == 2
    assert "is not a plain http(s) URL" in capsys.readouterr().err


# ------------------------------------------------------------------------------ running it
@pytest.mark.unit
def test_it_runs_a_tool(pyz: Path, tmp_path: Path) -> None:
    (tmp_path / "preflight.py").write_text("raise SystemExit('an old loose copy ran')\n", encoding="utf-8")
    done = _run(pyz, "preflight", "--help", cwd=tmp_path)  # the archive's tools come first, not the cwd's
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: preflight.py") and "--compare-image" in done.stdout
    for tool in ("watchdog", "read_run.py"):
        done = _run(pyz, tool, "--help")
        assert done.returncode == 0 and done.stdout.startswith(f"usage: {tool.removesuffix('.py')}.py"), done


@pytest.mark.unit
def test_no_tool_or_an_unknown_one_lists_the_tools(pyz: Path) -> None:
    for args, said in (((), "name a tool"), (("miles_tree",), "unknown tool 'miles_tree'")):
        done = _run(pyz, *args)
        assert done.returncode == 2 and said in done.stderr, done
        for name, _ in archive_main.TOOLS:
            assert f"\n  {name} " in done.stderr
    assert _run(pyz, "--help").returncode == 0


@pytest.mark.unit
def test_an_older_python_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert archive_main.main(["preflight", "--help"], version=(3, 8, 18, "final", 0)) == 2
    err = capsys.readouterr().err
    assert err == archive_main.too_old((3, 8)) + "\n" and err.count("\n") == 1
    assert "needs Python 3.9 or newer, this is Python 3.8" in err
    assert archive_main.too_old((3, 9)) is None and archive_main.too_old(sys.version_info) is None


def _interpreters() -> dict[str, str]:
    """Older Pythons on PATH that start (pyenv's shims need PYENV_VERSION to name the installed versions)."""
    env = dict(os.environ)
    if shutil.which("pyenv"):
        bare = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, timeout=30)
        env["PYENV_VERSION"] = ":".join(bare.stdout.split())
    found = {}
    for name in ("python2.7", "python3.6", "python3.8", "python3.9"):
        exe = shutil.which(name)
        if exe and subprocess.run([exe, "-c", "pass"], capture_output=True, env=env, timeout=30).returncode == 0:
            found[name] = env.get("PYENV_VERSION", "")
    return found


@pytest.mark.unit
def test_real_older_pythons_are_refused_and_the_minimum_runs(pyz: Path) -> None:
    found = _interpreters()
    if not found:
        pytest.skip("no older Python on PATH")
    for name, pyenv in found.items():
        done = _run(pyz, "read_run", str(FIX / "slime-1542-403-forbidden.log"), "--diagnose",
                    env={"PYENV_VERSION": pyenv} if pyenv else None, python=name)
        if name == "python3.9":
            assert done.returncode == 0 and "in the book: 7.1 Troubleshoot by symptom" in done.stdout, done
        else:
            assert done.returncode == 2 and done.stderr.count("\n") == 1 and "needs Python 3.9" in done.stderr, done


@pytest.mark.unit
def test_each_tool_says_the_minimum_and_parses_as_it() -> None:
    """The tools' "Python 3.9+" is the dispatcher's MIN_PYTHON, and no tool uses newer grammar."""
    want = "Python {}.{}+".format(*archive_main.MIN_PYTHON)
    for name in tools_archive.TOOLS:
        text = (tools_archive.TOOLS_DIR / name).read_text(encoding="utf-8")
        assert want in ast.get_docstring(ast.parse(text)), name
        ast.parse(text, feature_version=archive_main.MIN_PYTHON)


@pytest.mark.unit
def test_read_run_from_the_archive_prints_7_1s_address(tmp_path: Path) -> None:
    path = tmp_path / tools_archive.NAME
    path.write_bytes(tools_archive.archive_bytes(PAGE))
    done = _run(path, "read_run", str(FIX / "slime-1542-403-forbidden.log"), "--diagnose",
                env={rr.PAGE_URL_ENV: ""})
    assert f"  in the book: {PAGE}#engine-403-forbidden\n" in done.stdout, done


@pytest.mark.unit
def test_read_run_names_7_1_by_its_title() -> None:
    first = (ROOT / "sections" / "7-1-troubleshoot-by-symptom.md").read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# {rr.PAGE_TITLE}"


# ------------------------------------------------------------------------------ the {tools-download} block
def _with_block(src: Path, block: str = "```{tools-download}\n:into: ~/miles-logs\n```\n") -> Path:
    page = src / "sections" / "1-1-first.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Get the tools\n\n" + block, encoding="utf-8")
    return src


def _served(built) -> bytes:
    return (Path(built.app.outdir) / "_downloads" / tools_archive.NAME).read_bytes()


@pytest.mark.build
def test_the_web_page_without_an_address_links_it_relatively(book_copy: Path) -> None:
    built = build(_with_block(book_copy))
    assert built.warnings == "" and built.app.statuscode == 0
    data = _served(built)
    assert data == tools_archive.archive_bytes()  # no canonical URL: no address in __main__.py
    sha = hashlib.sha256(data).hexdigest()
    html = built.html("sections/1-1-first")
    assert f'href="../_downloads/{tools_archive.NAME}"' in html
    assert "no fixed web address" in html and "curl -fLO https" not in html
    text = re.sub(r"<[^>]+>", "", html)
    assert f"mkdir -p ~/miles-logs &amp;&amp; cd ~/miles-logs\necho '{sha}  {tools_archive.NAME}' | sha256sum -c" in text


@pytest.mark.build
def test_the_web_page_with_an_address_gives_the_fetch_line(book_copy: Path) -> None:
    built = build(_with_block(book_copy), html_baseurl="https://example.org/book/")
    assert built.warnings == "" and built.app.statuscode == 0
    data = _served(built)
    sha = hashlib.sha256(data).hexdigest()
    baked = _zip(data).read("__main__.py").decode()
    assert "PAGE_7_1 = 'https://example.org/book/sections/7-1-troubleshoot-by-symptom.html'\n" in baked
    text = re.sub(r"<[^>]+>", "", built.html("sections/1-1-first"))
    assert (f"curl -fLO https://example.org/book/_downloads/{tools_archive.NAME}\n"
            f"echo '{sha}  {tools_archive.NAME}' | sha256sum -c") in text
    assert f"SHA-256 {sha}" in text


@pytest.mark.build
def test_the_pdf_says_where_to_fetch_it(book_copy: Path) -> None:
    built = build(_with_block(book_copy), buildername="latex", html_baseurl="https://example.org/book/")
    assert built.warnings == "" and built.app.statuscode == 0
    tex = next(Path(built.app.outdir).glob("*.tex")).read_text(encoding="utf-8")
    tex = tex.replace("\\sphinxhyphen{}", "-").replace("\\PYGZhy{}", "-").replace("\\PYGZus{}", "_")
    sha = hashlib.sha256(tools_archive.archive_bytes(
        "https://example.org/book/sections/7-1-troubleshoot-by-symptom.html")).hexdigest()
    assert "which the web edition serves" in tex and sha in tex
    assert f"https://example.org/book/_downloads/{tools_archive.NAME}" in tex  # in the code block, set by Pygments
    assert not (Path(built.app.outdir) / "_downloads" / tools_archive.NAME).exists()  # written into the site only


@pytest.mark.build
def test_a_bad_directory_is_refused(book_copy: Path) -> None:
    built = build(_with_block(book_copy, "```{tools-download}\n:into: ~/logs; rm -rf ~\n```\n"))
    assert any(":into: '~/logs; rm -rf ~' is not a plain directory path" in m for m in built.messages("manual.bad_format"))


@pytest.mark.build
def test_the_epub_says_where_to_fetch_it_without_an_address(book_copy: Path) -> None:
    built = build(_with_block(book_copy), buildername="epub")
    page = (Path(built.app.outdir) / "sections" / "1-1-first.xhtml").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", page)
    sha = hashlib.sha256(tools_archive.archive_bytes()).hexdigest()
    assert f"which the web edition of this book serves from its root as _downloads/{tools_archive.NAME}" in text
    assert f"echo '{sha}  {tools_archive.NAME}' | sha256sum -c" in text
    assert "_downloads/" not in "".join(re.findall(r'href="([^"]*)"', page))  # no link into a site the EPUB lacks
