"""The page's one worker runner (static/worker-run.js), which the log doctor and "compare my run" both use.

It runs under node with a stand-in Worker (node has no global Worker, so without one the runner reads here, as a
browser without workers does): the worker's progress reaches the bar, its answer or error ends the reading, a
worker that cannot start or fails to load falls back to reading on the page's thread, and cancel stops it.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

STATIC = Path(__file__).resolve().parents[2] / "_ext" / "miles101" / "sphinx_ext" / "static"
NODE = shutil.which("node")

SCRIPT = """
const { runInWorker } = await import(%(module)s);
const made = [];
class Fake {  // posts what `script` says once the message arrives
  constructor(url, options) {
    if (globalThis.refuse) throw new Error("blocked");
    this.url = String(url); this.options = options; this.terminated = false; made.push(this);
  }
  postMessage(message) {
    this.message = message;
    setTimeout(() => {
      for (const m of globalThis.script) {
        if (this.terminated) return;
        if (m === "fail") { let prevented = false; this.onerror({ preventDefault: () => { prevented = true; } });
                            this.prevented = prevented; }
        else this.onmessage({ data: m });
      }
    }, 0);
  }
  terminate() { this.terminated = true; }
}
const out = {};
const go = async (name, { script = [], worker = true, refuse = false, here = () => "here", cancel = false } = {}) => {
  globalThis.Worker = worker ? Fake : undefined;
  if (!worker) delete globalThis.Worker;
  globalThis.script = script; globalThis.refuse = refuse;
  const progress = [];
  made.length = 0;
  const job = runInWorker("w.js", { text: "log" }, here, (d, t) => progress.push([d, t]));
  if (cancel) job.cancel();
  let result, error;
  try { result = await job.promise; } catch (e) { error = e.message; }
  const w = made[0];
  out[name] = { result, error, progress, worker: w ? { url: w.url, options: w.options, message: w.message ?? null,
                terminated: w.terminated, prevented: w.prevented ?? null } : null };
};
await go("done", { script: [{ type: "progress", done: 1, total: 4 }, { type: "progress", done: 4, total: 4 },
                            { type: "done", result: { steps: 3 } }] });
await go("error", { script: [{ type: "error", message: "bad bytes" }] });
await go("no-worker", { worker: false, here: () => Promise.resolve("read here") });
await go("refused", { refuse: true });
await go("failed-to-load", { script: ["fail"], here: async () => "after the worker failed" });
await go("here-throws", { worker: false, here: () => { throw new Error("unreadable"); } });
await go("cancelled", { script: [{ type: "done", result: "late" }], cancel: true });
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_runner_reads_in_a_worker_and_falls_back_here() -> None:
    module = json.dumps((STATIC / "worker-run.js").as_uri())
    res = subprocess.run([NODE, "--input-type=module", "-e", SCRIPT % {"module": module}], capture_output=True,
                         text=True, timeout=60, check=False)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    done = got["done"]
    assert done["result"] == {"steps": 3} and done["progress"] == [[1, 4], [4, 4]]
    assert done["worker"] == {"url": "w.js", "options": {"type": "module"}, "message": {"text": "log"},
                              "terminated": True, "prevented": None}
    assert got["error"]["error"] == "bad bytes" and got["error"]["worker"]["terminated"]
    assert got["no-worker"]["result"] == "read here" and got["no-worker"]["worker"] is None
    assert got["refused"]["result"] == "here" and got["refused"]["worker"] is None
    failed = got["failed-to-load"]
    assert failed["result"] == "after the worker failed" and failed["worker"]["terminated"] and failed["worker"]["prevented"]
    assert got["here-throws"]["error"] == "unreadable"
    assert got["cancelled"]["error"] == "cancelled" and got["cancelled"]["worker"]["terminated"]


def test_one_runner_starts_the_pages_workers() -> None:
    """The doctor and the comparison start their workers through worker-run.js, and no other file starts one."""
    starting = sorted(p.name for p in STATIC.glob("*.js") if "new Worker(" in p.read_text(encoding="utf-8"))
    assert starting == ["worker-run.js"]
    for name in ("log-doctor.js", "compare-run.js"):
        text = (STATIC / name).read_text(encoding="utf-8")
        assert re.search(r'import \{ runInWorker \} from "\./m101-worker-run\.js"', text), name
        assert "runInWorker(WORKER_URL," in text, name
