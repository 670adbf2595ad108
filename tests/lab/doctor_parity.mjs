// Runs the page's log doctor (log-doctor-core.js) over log files, for tests/lab/test_doctor_parity.py.
//   node doctor_parity.mjs CORE RULES GROUPS LOG...   → one JSON document: {LOG: reading}
// GROUPS is read_run.py's --groups N, or "-" for none (then the log's own rollout_batch_size line).
// Bytes are read as read_run.py's main() reads them (UTF-8, undecodable bytes replaced).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [core, rulesPath, groupsArg, ...logs] = process.argv.slice(2);
const groups = groupsArg === "-" ? null : Number(groupsArg);
const { Reading, splitLines } = await import(pathToFileURL(core).href);
const rules = JSON.parse(readFileSync(rulesPath, "utf-8"));
const out = {};
for (const log of logs) {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(readFileSync(log));
  const reading = new Reading(rules, 10, groups);
  for (const line of splitLines(text)) reading.line(line);
  out[log] = reading.finish();
}
const finite = (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? `float:${v}` : v);
process.stdout.write(JSON.stringify(out, finite));
