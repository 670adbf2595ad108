"""Extract public per-step series (verl's GSM8K console logs) into capture/series/<id>.json.

    python3 -m capture.extract.series            write every series from its excerpt
    python3 -m capture.extract.series --check    exit 1 when a committed series differs from its excerpt

Each series is read from an excerpt of the public log kept under capture/series/sources/ (the exact
lines read, each after its line number in the public file, or after `@W` where the file was read in
windows of 16,000 characters rather than whole; see `miles101.series`). The excerpt was
taken from the public repository at the commit named below; the build and the tests never use the
network. Only `step:` lines give numbers; the config dump and the command give the run's settings.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from capture.extract.writeout import dumps, write_json
from miles101.series import parse_lines, read_excerpt, rederive, series_document

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA_VERSION = 1

#: The public logs the book keeps a series of: where each was read, and what the log itself does not say.
SOURCES: dict[str, dict[str, Any]] = {
    "verl-gsm8k-qwen2.5-0.5b-ppo": {
        "title": "verl PPO, Qwen2.5-0.5B-Instruct on GSM8K (public console log)",
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "source": {
            "repository": "eric-haibin-lin/verl-data",
            "branch": "experiments",
            "path": "gsm8k/Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log",
            "commit": "a7e3f99db92f556e79628385dcd4c71d567a6c58",
            "blob": "47ddd762db3547456afdac1cb156186f9fa15741",
            "url": "https://github.com/eric-haibin-lin/verl-data/blob/a7e3f99db92f556e79628385dcd4c71d567a6c58/"
                   "gsm8k/Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log",
            "linked_from": "https://github.com/volcengine/verl/blob/b178a3cd56f58b2d502255daba591e92833930a7/"
                           "docs/algo/baseline.md",
            "read": "2026-12-07",
        },
        "gpu_note": "The log does not state the GPU type; it ran on one GPU (trainer.n_gpus_per_node=1).",
        "rounding": "verl's console logger prints each value rounded to 3 decimals.",
        "excerpt": "capture/series/sources/verl-gsm8k-qwen2.5-0.5b-ppo.log.gz",
    },
    "verl-gsm8k-qwen2.5-0.5b-grpo-lora": {
        "title": "verl GRPO-LoRA, Qwen2.5-0.5B-Instruct on GSM8K (public console log, part of its step lines)",
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "source": {
            "repository": "eric-haibin-lin/verl-data",
            "branch": "experiments",
            "path": "gsm8k/Qwen2.5-0.5B-bsz64_2-prompt512-resp1024-lorarank32-score0.543.log",
            "commit": "bf76dddc4e0119693632a147abab27f303dd2c13",
            "blob": None,
            "chars": 2031054,
            "url": "https://github.com/eric-haibin-lin/verl-data/blob/bf76dddc4e0119693632a147abab27f303dd2c13/"
                   "gsm8k/Qwen2.5-0.5B-bsz64_2-prompt512-resp1024-lorarank32-score0.543.log",
            "linked_from": "https://verl.readthedocs.io/en/latest/algo/baseline.html",
            "read": "2026-12-07",
        },
        "partial": "Only part of the log was read (in windows of 16,000 characters, not whole): the step lines "
                   "of steps 0-2, 20-23, 70-72 and 116, of a run of 116 training steps (the log's own count); "
                   "the steps between are not in this series.",
        "gpu_note": "The log does not state the GPU type; it ran on two GPUs (trainer.n_gpus_per_node=2).",
        "rounding": "verl's console logger prints each value rounded to 3 decimals.",
        "excerpt": "capture/series/sources/verl-gsm8k-qwen2.5-0.5b-grpo-lora.log.gz",
    },
}


def build(series_id: str, root: Path = ROOT) -> dict[str, Any]:
    """The series file of `series_id`, parsed from its excerpt."""
    meta = {"schema_version": SCHEMA_VERSION, "id": series_id, **SOURCES[series_id]}
    return series_document(meta, parse_lines(read_excerpt(root / meta["excerpt"])))


def main(argv: list[str]) -> int:
    check = "--check" in argv
    bad = 0
    for series_id in SOURCES:
        path = ROOT / "capture" / "series" / f"{series_id}.json"
        doc = build(series_id)
        if check:
            committed = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            problems = rederive(ROOT, f"capture/series/{series_id}.json", committed) if committed else ["missing"]
            if problems or dumps(committed) != dumps(doc):
                print(f"capture/series/{series_id}.json: {'; '.join(problems) or 'differs'}", file=sys.stderr)
                bad += 1
        elif write_json(path, doc):
            print(f"wrote {path.relative_to(ROOT)} ({len(doc['steps'])} steps, {len(doc['metrics'])} metrics)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
