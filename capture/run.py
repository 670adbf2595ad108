#!/usr/bin/env python3
"""Miles 101 capture CLI.

    python3 capture/run.py [--miles-src PATH] [--commit REV]   extract from Miles and derive
    python3 capture/run.py --check [--strict]                  verify every capture file and page
    python3 capture/run.py preflight [<id>] [--json]           can this host record the run? (checks with fixes)
    python3 capture/run.py record <id>... [--dry-run]          record runs on the GPU host
    python3 capture/run.py campaign [<id>...] [--no-record]    the whole job on the Spark (tox -e capture)
    python3 capture/run.py rehearse [--no-build]               that job here, with stand-ins, into a copy
    python3 capture/run.py diff OLD NEW [--json]               what changed in Miles between two extractions
    python3 capture/run.py slime --slime-src PATH              slime's side of the GB10 image (capture/slime/gb10.json)
    python3 capture/run.py crosscheck [--image IMG] [--host H] the trainer's bytes on this GPU, against computed.json
"""
from __future__ import annotations

import signal

# A Ctrl-C before the `try` below (this file's own imports) ends the process as a C program's would, with no
# traceback; the default handler is put back there, so each sub-command meets KeyboardInterrupt as usual.
signal.signal(signal.SIGINT, signal.SIG_DFL)

import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _reexec_in_venv() -> None:
    """Run under the project's .venv when this Python lacks the project (e.g. a bare python3).

    The project is installed there (`pip install -e .`, which dev.py runs), so `capture` and
    `miles101` import as packages.
    """
    try:
        import jsonschema  # noqa: F401
        import yaml  # noqa: F401

        import capture.check  # noqa: F401
        import miles101  # noqa: F401
    except ImportError:
        venv_python = ROOT / ".venv" / "bin" / "python"
        if venv_python.is_file() and Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
            os.execv(str(venv_python), [str(venv_python), __file__, *sys.argv[1:]])
        sys.exit("capture/run.py needs the project installed: run `python3 dev.py check`, or "
                 "`pip install -r requirements.txt -e .`.")


def _refuse_another_checkout() -> None:
    """Stop when Python imports the project from another checkout than the one this script is in.

    A venv's editable install points at one tree; run from a second checkout with that venv, this
    script would read the first tree's code and data without a word. It names both instead.
    """
    import capture
    import miles101

    for module in (capture, miles101):
        source = Path(module.__file__).resolve()
        if ROOT not in source.parents:
            sys.exit(f"capture/run.py: this checkout is {ROOT}, but Python imports `{module.__name__}` from "
                     f"{source.parent} (another checkout's editable install?), so it would read that tree's code "
                     f"and data. Fix: run `python3 dev.py check` in {ROOT} (its own .venv), or install this checkout "
                     f"into this Python (`{sys.executable} -m pip install --no-deps -e {ROOT}`), or set "
                     f"PYTHONPATH={ROOT}.")


def main(argv: list[str]) -> int:
    """Dispatch to the sub-command's module; each module owns its own arguments."""
    # Imports deferred on purpose: each sub-command loads only its own module, so `--check` starts
    # without the lab's, and the lab's commands without the extraction's.
    if argv[:1] == ["record"]:
        from capture.lab.record import main as record_main

        return record_main(argv[1:])
    if argv[:1] == ["campaign"]:
        from capture.lab.campaign import main as campaign_main

        return campaign_main(argv[1:])
    if argv[:1] == ["rehearse"]:
        from capture.lab.rehearsal.rehearse import main as rehearse_main

        return rehearse_main(argv[1:])
    if argv[:1] == ["preflight"]:
        from capture.lab.preflight_lab import main as preflight_main

        return preflight_main(argv[1:])
    if argv[:1] == ["crosscheck"]:
        from capture.crosscheck.on_host import main as crosscheck_main

        return crosscheck_main(argv[1:])
    if argv[:1] == ["explain"]:
        from capture.explain import main as explain_main

        return explain_main(argv[1:])
    if argv[:1] == ["diff"]:
        from capture.drift.cli import main as diff_main

        return diff_main(argv[1:])
    if argv[:1] == ["slime"]:
        from capture.extract.slime_gb10 import main as slime_main

        return slime_main(argv[1:])
    if "--check" in argv:
        from capture.check import main as check_main

        return check_main([a for a in argv if a != "--check"])
    from capture.extract.cli import main as collect_main

    return collect_main(argv)


if __name__ == "__main__":
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _reexec_in_venv()
        _refuse_another_checkout()
        sys.exit(main(sys.argv[1:]))
    except Exception as exc:  # Python 3.11 wraps a Ctrl-C met inside a class body's __set_name__ in a RuntimeError
        if not isinstance(exc.__cause__, KeyboardInterrupt):
            raise
        print(f"capture/run.py {' '.join(sys.argv[1:2])}: interrupted (Ctrl-C) while starting: stopped",
              file=sys.stderr)
        sys.exit(130)
    except KeyboardInterrupt:  # a Ctrl-C that no sub-command handles (its start-up): one line, never a traceback
        print(f"capture/run.py {' '.join(sys.argv[1:2])}: interrupted (Ctrl-C) while starting: stopped",
              file=sys.stderr)
        sys.exit(130)
