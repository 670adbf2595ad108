// Runs the page's "compare my run" (compare-run.js over log-doctor-core.js) over logs, for
// tests/lab/test_compare_run_parity.py.
//   node compare_run.mjs DIR RULES SERIES AT LOG...   → {LOG: {table, rows}}
// DIR holds the modules under the names the build serves them (m101-...); AT is read_run.py's --at, or "-"
// for its default (your first 10 steps). Each log is read as the page reads a dropped file (readFile, in chunks;
// CHUNK=N in the environment makes them small).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, rulesPath, seriesPath, atArg, ...logs] = process.argv.slice(2);
const page = await import(pathToFileURL(join(dir, "m101-compare-run.js")).href);
const { readFile } = await import(pathToFileURL(join(dir, "m101-log-doctor-core.js")).href);
const rules = JSON.parse(readFileSync(rulesPath, "utf-8"));
const data = JSON.parse(readFileSync(seriesPath, "utf-8"));
const chunk = process.env.CHUNK ? Number(process.env.CHUNK) : undefined;
const out = {};
for (const log of logs) {
  const reading = new page.CompareReading(rules);
  const result = await readFile(reading, new Blob([readFileSync(log)]), () => {}, chunk);
  const at = atArg === "-" ? page.firstSteps(result) : page.parseAt(atArg);
  const table = page.compareSeries(result, data.series, at, data.keys);
  out[log] = { table, rows: page.tableRows(table), lr: page.rate((table.settings || {}).lr), steps: result.steps.length };
}
const finite = (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? `float:${v}` : v);
process.stdout.write(JSON.stringify(out, finite));
