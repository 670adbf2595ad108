// Miles 101 "compare my run": reads one log in chunks off the page's thread and posts progress and the columns.
// The reading is compare-run.js's (log-doctor-core.js's step parser); this file only moves bytes.
import { CompareReading } from "./m101-compare-run.js";
import { readText, readFile } from "./m101-log-doctor-core.js";

self.onmessage = async (event) => {
  const { rules, file, text } = event.data;
  const progress = (done, total) => self.postMessage({ type: "progress", done, total });
  try {
    const reading = new CompareReading(rules);
    const result = file ? await readFile(reading, file, progress) : readText(reading, text, progress);
    self.postMessage({ type: "done", result });
  } catch (err) {
    self.postMessage({ type: "error", message: String(err && err.message ? err.message : err) });
  }
};
