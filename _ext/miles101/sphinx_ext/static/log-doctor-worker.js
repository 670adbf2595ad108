// Miles 101 log doctor: reads one log in chunks off the page's thread and posts progress and the
// answer. The matching is log-doctor-core.js's (read_run.py's, ported); this file only moves bytes.
import { Reading, readText, readFile } from "./m101-log-doctor-core.js";

self.onmessage = async (event) => {
  const { rules, file, text, steps, groups, args } = event.data;
  const progress = (done, total) => self.postMessage({ type: "progress", done, total });
  try {
    const reading = new Reading(rules, steps, groups ?? null, args ?? null);
    const result = file ? await readFile(reading, file, progress) : readText(reading, text, progress);
    self.postMessage({ type: "done", result });
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });
  }
};
