// Runs the page's log doctor (log-doctor-core.js) over log files, for tests/lab/test_doctor_parity.py.
//   node doctor_parity.mjs CORE RULES GROUPS LOG...   → one JSON document: {LOG: reading}
// GROUPS is read_run.py's --groups N, or "-" for none (then the log's own rollout_batch_size line).
// Each file is read as the page reads a dropped file (readFile: its encoding from a byte-order mark,
// in chunks, line ends of every kind); CHUNK=N in the environment makes the chunks small; ARGS=TEXT is the
// run's argument list, as pasted in the page (read_run.py --run FILE).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [core, rulesPath, groupsArg, ...logs] = process.argv.slice(2);
const groups = groupsArg === "-" ? null : Number(groupsArg);
const { Reading, readFile } = await import(pathToFileURL(core).href);
const rules = JSON.parse(readFileSync(rulesPath, "utf-8"));
// With CHUNK, the file is a stand-in with a Blob's `size` and `slice(start, end).arrayBuffer()` (all readFile
// uses) over the bytes in memory: node's Blob takes about 20 µs a slice, and CHUNK=5 cuts the synthetic logs
// into some 110,000 slices over readFile's two passes (2 s against 0.5 s). The page's real File is read in
// chunks by tests/browser/test_browser_doctor.py.
const inMemory = (bytes) => ({
  size: bytes.length,
  slice: (start, end) => ({
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset + Math.min(start, bytes.length),
                                                bytes.byteOffset + Math.min(Math.max(start, end), bytes.length)),
  }),
});
const chunk = process.env.CHUNK ? Number(process.env.CHUNK) : undefined;
const out = {};
for (const log of logs) {
  const reading = new Reading(rules, 10, groups, process.env.ARGS ? { text: process.env.ARGS, from: "pasted" } : null);
  const bytes = readFileSync(log);
  out[log] = await readFile(reading, chunk ? inMemory(bytes) : new Blob([bytes]), () => {}, chunk);
}
const finite = (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? `float:${v}` : v);
process.stdout.write(JSON.stringify(out, finite));
