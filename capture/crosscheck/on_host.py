"""`python3 capture/run.py crosscheck [--image IMAGE] [--host NAME] [-- driver args]`.

Runs the cross-check on this GPU host and writes capture/crosscheck/results/<host>.json. With
`--image` it runs inside that image (the Miles image on a DGX Spark brings its own torch and
transformers: `docker run --gpus all`, the project mounted at /work); without, it runs here and
needs torch with a GPU. Afterwards `python3 capture/run.py --check` holds the file against
computed.json.
"""
from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def command(host: str, image: str | None, extra: list[str]) -> list[str]:
    """The command that runs the driver, in the image when one is named."""
    inner = ["python3", "-m", "capture.crosscheck", "--out", f"capture/crosscheck/results/{host}.json", *extra]
    if image is None:
        return [sys.executable, *inner[1:]]
    return ["docker", "run", "--rm", "--gpus", "all", "--ipc", "host", "-v", f"{ROOT}:/work", "-w", "/work",
            "--label", "miles101.crosscheck_results=1", image, *inner]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="capture/run.py crosscheck", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="gb10", help="the results file's name: capture/crosscheck/results/<host>.json")
    parser.add_argument("--image", default=None, help="run inside this docker image (e.g. radixark/miles:latest)")
    parser.add_argument("--dry-run", action="store_true", help="print the command, run nothing")
    args, extra = parser.parse_known_args(argv)
    extra = [a for a in extra if a != "--"]
    cmd = command(args.host, args.image, extra)
    print("+", shlex.join(cmd), flush=True)
    if args.dry_run:
        return 0
    if args.image and shutil.which("docker") is None:
        print("crosscheck: docker is not installed here. Fix: run it on the GPU host, or drop --image and run it "
              "in an environment with torch and a GPU.", file=sys.stderr)
        return 2
    return subprocess.run(cmd, cwd=ROOT).returncode
