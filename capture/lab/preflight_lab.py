"""`python3 capture/run.py preflight [<id>] [--json]`: can this host record the run? The reader's preflight, fed a run file.

The checks are those of _ext/miles101/tools/preflight.py, the file section 1.1 serves to readers; this
module only loads the run file (YAML, checked against the schema and the extraction) and passes its
settings in, with the check for containers an earlier recording left running.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from miles101.catalog import Catalog
from miles101.tools.preflight import add_common_options, run_checks
from miles101.runcheck import RunFileError, load_run
from miles101.strict import run_id_problem

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    """Exit 0 every check passed (warnings allowed), 1 a check failed, 2 a bad run file."""
    ap = argparse.ArgumentParser(prog="capture/run.py preflight", description="Check that this host can record a run.")
    ap.add_argument("id", nargs="?", default="first-grpo", help="run id: capture/runs/<id>.yaml (default first-grpo)")
    ap.add_argument("--runs-dir", type=Path, default=ROOT / "capture" / "runs")
    ap.add_argument("--gpu-dir", type=Path, default=ROOT / "capture" / "gpu", help="where recordings go (its disk is checked)")
    ap.add_argument("--flags", type=Path, default=ROOT / "capture" / "miles" / "flags.json")
    ap.add_argument("--metrics", type=Path, default=ROOT / "capture" / "miles" / "metrics.json")
    add_common_options(ap)
    args = ap.parse_args(argv)
    why = run_id_problem(args.id)
    if why:
        print(f"preflight: {why}", file=sys.stderr)
        return 2
    try:
        run = load_run(args.runs_dir / f"{args.id}.yaml", Catalog.load(args.flags, args.metrics))
    except RunFileError as e:
        print("preflight: the run file is refused:", *e.errors, sep="\n  ", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError) as e:
        print(f"preflight: cannot read the extraction: {e}", file=sys.stderr)
        return 2
    return run_checks(run, args, args.gpu_dir, lab=True)
