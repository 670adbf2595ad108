"""The `__main__.py` of miles101-tools.pyz: `python3 miles101-tools.pyz TOOL [ARGS...]` runs one of the book's tools.

The archive (miles101.tools_archive) holds this file beside the tools, byte for byte as they are in
_ext/miles101/tools/. This file is written for any Python, 2.7 included (no annotations, no f-strings, no
`from __future__ import annotations`, which Python 3.6 cannot parse), so that an interpreter older than the
tools support reads it and prints one line saying so instead of a traceback from a tool.
"""
import os
import sys

#: The oldest Python the tools run on: `ast.unparse` (miles_tree.py) and `str.removeprefix` (read_run.py) came
#: in 3.9 (tests/test_tools_archive.py holds each tool's "Python 3.9+" to this).
MIN_PYTHON = (3, 9)
#: The tools a reader runs (miles_tree.py is read by preflight, not run), with what each does.
TOOLS = (
    ("preflight", "can this host run Miles on its GPU; --compare-image: the Miles in an image against the book's"),
    ("watchdog", "stop a run whose rollout engine died or that stopped making progress"),
    ("read_run", "read a Miles log: the first steps against their cut-offs; --diagnose: the log against 7.1"),
)
#: 7.1's full address, set by the build that wrote this archive when it knew the book's canonical URL
#: (read_run.py prints each matched entry as this address and its anchor); "" when it did not.
PAGE_7_1 = ""
#: Where read_run.py reads 7.1's address (read_run.PAGE_URL_ENV).
PAGE_7_1_ENV = "MILES101_7_1_URL"


def too_old(version):
    """The one line that refuses an interpreter older than MIN_PYTHON, or None when `version` will do."""
    if tuple(version[:2]) >= MIN_PYTHON:
        return None
    return ("miles101-tools.pyz: needs Python %d.%d or newer, this is Python %d.%d. Fix: run it with a newer "
            "python3 (`python3 --version` names yours), e.g. python3.11 miles101-tools.pyz preflight --help"
            % (MIN_PYTHON + tuple(version[:2])))


def usage():
    """The tool list, as `python3 miles101-tools.pyz` prints it."""
    lines = ["usage: python3 miles101-tools.pyz TOOL [ARGS...]   (TOOL --help: its options)", "tools:"]
    lines += ["  %-10s %s" % (name, what) for name, what in TOOLS]
    return "\n".join(lines)


def main(argv=None, version=None):
    """Run the tool argv[0] names with the rest of argv, as `python3 TOOL.py ARGS...` would; 2 when it cannot."""
    argv = list(sys.argv[1:] if argv is None else argv)
    refused = too_old(sys.version_info if version is None else version)
    if refused:
        sys.stderr.write(refused + "\n")
        return 2
    names = [name for name, _ in TOOLS]
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(usage() + "\n")
        return 0
    tool = argv[0][:-3] if argv and argv[0].endswith(".py") else (argv[0] if argv else "")
    if tool not in names:
        said = "name a tool:" if not argv else "unknown tool %r:" % argv[0]
        sys.stderr.write("miles101-tools.pyz: %s choose one of %s\n%s\n" % (said, ", ".join(names), usage()))
        return 2
    if PAGE_7_1 and not os.environ.get(PAGE_7_1_ENV):
        os.environ[PAGE_7_1_ENV] = PAGE_7_1
    import runpy

    sys.argv = [tool + ".py"] + argv[1:]
    import importlib.util

    try:
        spec = importlib.util.find_spec(tool)
    except (ImportError, ValueError):
        spec = None
    here = os.path.dirname(os.path.abspath(__file__))
    if spec is None or os.path.dirname(os.path.abspath(spec.origin or "")) != here:
        sys.stderr.write("miles101-tools.pyz: it holds no %s.py (a damaged or partial download). Fix: fetch "
                         "miles101-tools.pyz again and check it with sha256sum -c as the book shows\n" % tool)
        return 2
    runpy.run_module(tool, run_name="__main__", alter_sys=True)  # the tool's own `sys.exit(main())` ends it
    return 0


if __name__ == "__main__":
    sys.exit(main())
