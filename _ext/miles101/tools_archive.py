"""miles101-tools.pyz: the reader's four tools in one file, runnable (`python3 miles101-tools.pyz preflight ...`)
or unpacked (`unzip miles101-tools.pyz`).

Its members are the files of _ext/miles101/tools/ byte for byte (the very files the core and the lab import),
beside `__main__.py` (miles101/archive_main.py, the dispatcher). The bytes depend on nothing but those files
and the address of 7.1 the build gives: an explicit member list, names sorted, one fixed timestamp and mode,
no `__pycache__` (zipapp.create_archive is not used: its bytes follow the files' mtimes and the walk order).

    python3 -m miles101.tools_archive OUT.pyz [--page-7-1 URL]   # write it outside a Sphinx build
"""
from __future__ import annotations

import argparse
import hashlib
import io
import sys
import zipfile
from pathlib import Path

#: The archive's file name, as the book serves it and as the pages' commands run it.
NAME = "miles101-tools.pyz"
TOOLS_DIR = Path(__file__).with_name("tools")
#: The tools it carries: every reader-facing file of TOOLS_DIR (miles_tree.py is read by preflight.py).
TOOLS = ("miles_tree.py", "preflight.py", "read_run.py", "watchdog.py")
MAIN = Path(__file__).with_name("archive_main.py")
#: Every member's timestamp (a ZIP cannot hold one before 1980) and Unix mode.
DATE_TIME = (1980, 1, 1, 0, 0, 0)
MODE = 0o100644
#: The line of archive_main.py that the build fills with 7.1's address.
PAGE_LINE = 'PAGE_7_1 = ""\n'


def main_source(page_7_1: str | None = None) -> bytes:
    """`__main__.py`: archive_main.py, with 7.1's full address when the build knows it."""
    text = MAIN.read_text(encoding="utf-8")
    if text.count(PAGE_LINE) != 1:
        raise ValueError(f"{MAIN}: expected one line {PAGE_LINE.strip()!r} for the build to fill; found "
                         f"{text.count(PAGE_LINE)}. Fix: keep that line as it is")
    if page_7_1:
        if any(c in page_7_1 for c in "'\"\\\n\r") or not page_7_1.startswith(("http://", "https://")):
            raise ValueError(f"7.1's address {page_7_1!r} is not a plain http(s) URL. Fix: set html_baseurl "
                             "(READTHEDOCS_CANONICAL_URL) to the site's address")
        text = text.replace(PAGE_LINE, f"PAGE_7_1 = {page_7_1!r}\n")
    return text.encode("utf-8")


def members(page_7_1: str | None = None, tools_dir: Path = TOOLS_DIR) -> dict[str, bytes]:
    """Name -> bytes of every member, `__main__.py` and the tools as they are on disk."""
    out = {"__main__.py": main_source(page_7_1)}
    for name in TOOLS:
        path = tools_dir / name
        try:
            out[name] = path.read_bytes()
        except OSError as e:
            raise ValueError(f"{path}: cannot read the tool for {NAME} ({e.strerror}). Fix: restore it from Git") from e
    return out


def archive_bytes(page_7_1: str | None = None, tools_dir: Path = TOOLS_DIR) -> bytes:
    """The archive's bytes: the same for the same tools and the same address."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in sorted(members(page_7_1, tools_dir).items()):
            info = zipfile.ZipInfo(name, date_time=DATE_TIME)
            info.create_system = 3  # Unix, so the mode below is read as one
            info.external_attr = MODE << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=9)
    return buf.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(path: Path, data: bytes) -> None:
    """Write `data` at `path` unless it already holds those bytes (its mtime then stays)."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m miles101.tools_archive", description=f"Write {NAME}.")
    ap.add_argument("out", type=Path, help=f"where to write it (e.g. {NAME})")
    ap.add_argument("--page-7-1", metavar="URL", help="7.1's full address, which read_run.py --diagnose prints")
    args = ap.parse_args(argv)
    try:
        data = archive_bytes(args.page_7_1)
    except ValueError as e:
        print(f"tools_archive: {e}", file=sys.stderr)
        return 2
    write(args.out, data)
    print(f"{sha256(data)}  {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
