"""Every edition carries every value: the text and LaTeX builds of the test root and of the manual
show what the web pages show (no TeX needed), and EPUB builds under -W.

The values are checked against the resolver itself (miles101.resolve), so a role a builder drops
shows up as a missing string, not as a changed snapshot.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from buildutil import ROOT, build
from miles101.capture import load_capture
from miles101.pages import scan_text
from miles101.resolve import resolve

IGNORE = shutil.ignore_patterns("_build", ".venv", ".tox", "node_modules", ".git", "tests", "benchmarks",
                                "test-artifacts", "__pycache__", ".pytest_cache")
VALUE_KINDS = ("measured", "computed", "fact", "reference", "default")
#: Pages of the manual whose every value is looked for: one per kind of value at least.
MANUAL_PAGES = ["sections/2-3-stop-ray-killing-the-job.md", "sections/3-1-train-math-on-gsm8k.md",
                "sections/2-1-pick-a-model-size.md"]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _untex(tex: str) -> str:
    """LaTeX source to comparable text: the escapes Sphinx writes undone, whitespace folded."""
    tex = tex.replace("\\sphinxhyphen{}", "-").replace("\\textasciitilde{}", "~")
    tex = re.sub(r"\\([%&#_$])", r"\1", tex)
    tex = tex.replace("{,}", ",")
    return _flat(tex)


def _expected(capture, page: Path) -> list[tuple[str, str]]:
    """(role text, what the page shows) for every value the page cites."""
    shown = []
    for ref in scan_text(page.read_text(encoding="utf-8"), page.name):
        if ref.kind not in VALUE_KINDS:
            continue
        result = resolve(capture, ref.kind, ref.text)
        text = getattr(result, "extra", {}).get("shown") if hasattr(result, "extra") else None
        if ref.kind == "default" or text is None:
            continue
        shown.append((f"{ref.kind}:{ref.text}", text))
    return shown


# ------------------------------------------------------------------------------ the test root
@pytest.fixture(scope="module")
def root_text(tmp_path_factory, rootdir: Path):
    src = tmp_path_factory.mktemp("ed") / "book"
    shutil.copytree(rootdir / "test-book", src)
    return build(src, buildername="text", m101_diagrams="text")


@pytest.fixture(scope="module")
def root_latex(tmp_path_factory, rootdir: Path):
    src = tmp_path_factory.mktemp("ed") / "book"
    shutil.copytree(rootdir / "test-book", src)
    return build(src, buildername="latex", m101_diagrams="text")


def _text(built, docname: str) -> str:
    return _flat((Path(built.app.outdir) / f"{docname}.txt").read_text(encoding="utf-8"))


def _prose(text: str) -> str:
    """A page without its closing "Values on this page" list (which names every value anyway)."""
    return text.split("Values on this page")[0]


def _chapter(tex: str, docname: str) -> str:
    """One page's chapter of the assembled LaTeX document, without its closing values list."""
    start = tex.index(f"\\label{{\\detokenize{{{docname}::doc}}}}")
    end = tex.find("\\chapter{", start)
    return _prose(tex[start:end if end > 0 else None])


def _latex(built) -> str:
    tex = next(Path(built.app.outdir).glob("*.tex"))
    return _untex(tex.read_text(encoding="utf-8"))


def test_root_text_carries_the_values(root_text, rootdir: Path) -> None:
    assert root_text.warnings == "" and root_text.app.statuscode == 0
    page = _prose(_text(root_text, "sections/2-1-values"))
    expected = _expected(load_capture(rootdir / "test-book"), rootdir / "test-book" / "sections" / "2-1-values.md")
    assert len(expected) >= 4
    for role, shown in expected:  # computed, fact, measured, and a pending marker
        assert shown in page, role
    assert "Throughput is pending." in page
    assert 'colocation defaults to "false"' in page  # a flag's extracted default


def test_root_text_carries_flag_facts(root_text) -> None:
    page = _text(root_text, "sections/1-1-first")
    assert "--colocate" in page and "Default:" in page or "default" in page.lower()


def test_root_latex_builds(root_latex) -> None:
    assert root_latex.warnings == "" and root_latex.app.statuscode == 0
    tex = _latex(root_latex)
    assert "\\part{Part 1 · Alpha}" in tex and "\\part{Part 2 · Beta}" in tex
    assert "\\chapter{2.1 Values}" in tex
    assert "m101-eyebrow" not in tex


def test_root_latex_carries_the_values(root_latex, rootdir: Path) -> None:
    tex = _chapter(_latex(root_latex), "sections/2-1-values")
    expected = _expected(load_capture(rootdir / "test-book"), rootdir / "test-book" / "sections" / "2-1-values.md")
    missing = [role for role, shown in expected if _flat(shown) not in tex]
    assert not missing, missing
    assert "Throughput is pending" in tex


# ------------------------------------------------------------------------------ the manual
@pytest.fixture(scope="module")
def manual_src(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("manual-ed") / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    return src


@pytest.fixture(scope="module")
def manual_text(manual_src: Path):
    return build(manual_src, buildername="text", parallel=2, m101_diagrams="text")


@pytest.fixture(scope="module")
def manual_latex(manual_src: Path):
    return build(manual_src, buildername="latex", m101_diagrams="text")


@pytest.mark.parametrize("page", MANUAL_PAGES)
def test_manual_text_carries_every_value(manual_text, page: str) -> None:
    assert manual_text.warnings == "", manual_text.warnings[:2000]
    capture = load_capture(ROOT)
    expected = _expected(capture, ROOT / page)
    assert expected, f"{page} cites no values: pick another page"
    out = _prose(_text(manual_text, page.removesuffix(".md")))
    missing = [role for role, shown in expected if shown not in out]
    assert not missing, missing
    if any(role.startswith("reference:") for role, _ in expected):
        assert re.search(r"\(public ref(erence)?: ", out)  # the reference's label and hardware beside the number


def test_manual_text_has_the_worked_sum_and_diagram_lines(manual_text) -> None:
    page = _text(manual_text, "sections/2-1-pick-a-model-size")
    assert "Worked sum for" in page and "Verdict at these settings:" in page and "Ray's kill line" in page
    assert "Diagram: drawn in the web edition." in page


def test_manual_latex_is_a_book(manual_latex) -> None:
    assert manual_latex.warnings == "", manual_latex.warnings[:2000]
    tex = _latex(manual_latex)
    assert tex.count("\\part{") == len([p for p in __import__("json").loads((ROOT / "manual.json").read_text())["parts"]]) + 1
    assert "\\chapter{2.1 Pick a model size}" in tex
    assert "Worked sum for" in tex and "Verdict at these settings:" in tex
    assert "Diagram: drawn in the web edition." in tex  # no renderer in the copy: a line, not a gap


@pytest.mark.parametrize("page", MANUAL_PAGES)
def test_manual_latex_carries_every_value(manual_latex, page: str) -> None:
    capture = load_capture(ROOT)
    tex = _chapter(_latex(manual_latex), page.removesuffix(".md"))
    expected = _expected(capture, ROOT / page)
    missing = [role for role, shown in expected if _flat(shown) not in tex]
    assert not missing, missing
    if any(role.startswith("reference:") for role, _ in expected):
        assert re.search(r"\(public ref(erence)?: ", tex)


def test_manual_latex_has_the_reference_tables(manual_latex) -> None:
    tex = _latex(manual_latex)
    flags = tex[tex.index("\\chapter{R.1 Flags by job}"):tex.index("\\chapter{R.2 ")]
    assert "generated for the HTML edition" not in flags
    assert flags.count("\\begin{tabular") + flags.count("\\begin{longtable") >= 2
    assert "--rollout-batch-size" in flags


def test_epub_builds_under_W(tmp_path: Path, rootdir: Path) -> None:
    src = tmp_path / "book"
    shutil.copytree(rootdir / "test-book", src)
    built = build(src, buildername="epub", m101_diagrams="text", copyright="test data")
    assert built.warnings == "", built.warnings
    out = Path(built.app.outdir)
    assert not (out / "_static" / "mermaid").exists()  # the site's script stays with the site
    assert built.app.config.version == built.app.config.release == "2026.12"  # manual.json's edition


def test_manual_epub_builds_under_W(manual_src: Path) -> None:
    built = build(manual_src, buildername="epub", parallel=2, m101_diagrams="text")
    assert built.warnings == "", built.warnings[:2000]
    assert (Path(built.app.outdir) / "Miles101.epub").is_file()
    out = Path(built.app.outdir)  # the log doctor is a note there: e-readers run no modules
    page = (out / "sections" / "7-1-troubleshoot-by-symptom.xhtml").read_text(encoding="utf-8")
    assert "m101-doctor-edition" in page and "m101-log-doctor.js" not in page and "<textarea" not in page
    assert not (out / "_static" / "m101-doctor-rules.json").exists()


def test_diagram_css_names_every_meaning() -> None:
    from miles101.palette import HUES, MEANINGS
    from miles101.sphinx_ext.editions import diagram_css

    css = diagram_css()
    for meaning, hue in MEANINGS.items():
        assert f".node.{meaning} " in css and HUES[hue].light_tint in css
    assert "var(" not in css  # a drawn image has no page to define variables


def test_log_doctor_outside_the_web_says_what_it_is(manual_text, manual_latex) -> None:
    for page in ("sections/7-1-troubleshoot-by-symptom", "sections/1-3-read-your-first-ten-steps"):
        text = _text(manual_text, page)
        assert "The log doctor: paste or drop a Miles log" in text and "It runs in the web edition" in text, page
        assert 'read_run.py "$LOG" --diagnose' in text, page
    tex = _latex(manual_latex)
    assert tex.count("The log doctor: paste or drop a Miles log") == 2

