// Miles 101 "compare my run": paste or drop a Miles log; the page puts its steps beside a public run's series,
// metric by metric at chosen steps, as `read_run.py LOG --compare --against SERIES --at STEPS` prints them, and
// draws the curves. No verdict: the book has no recorded run of the recipe yet, and a public run is never one.
// The log is read by log-doctor-core.js's reader (read_run.py's step parser, ported); this file holds no rule:
// the metric keys and the sentence that says why there is no verdict come from read_run.py through the page's
// data. Everything runs in this page (a worker for big files); nothing is sent anywhere. The log's text is never
// written as HTML: every node is built with DOM calls and text goes in as text.
// tests/lab/test_compare_run_parity.py runs this file with node and read_run.py over the same logs.
import { compile, StepAssembler, readFile, readText, general, lookup } from "./m101-log-doctor-core.js";
import { runInWorker } from "./m101-worker-run.js";

// ---------------------------------------------------------------- reading (pure: the page, the worker, node)
const isNum = (x) => typeof x === "number";

/** Every step row of a log, kept as one column per metric key (a big log stays a few arrays, not Maps). */
class Collector extends StepAssembler {
  constructor(R, onRow) {
    super(R, 0);
    this.onRow = onRow;
  }

  emit(rows) {
    for (const r of rows) {
      this.total++;
      this.onRow(r);
    }
  }
}

/** What readFile/readText feed: each line to read_run's step assembler; `finish` gives the columns. */
export class CompareReading {
  constructor(rules) {
    this.R = compile(rules);
    this.n = 0;
    this.steps = []; // each step's first row, in the order the rows closed
    this.seen = new Set();
    this.columns = new Map(); // key -> Map(step -> value)
    this.asm = new Collector(this.R, (row) => this.row(row));
  }

  row(r) {
    if (this.seen.has(r.step)) return; // read_run's compare takes a step's first row
    this.seen.add(r.step);
    this.steps.push(r.step);
    for (const section of ["rollout", "perf", "train", "eval", "memory", "lab"]) {
      const part = r[section];
      if (!part) continue;
      for (const key of part.keys()) {
        if (!this.columns.has(key)) this.columns.set(key, new Map());
        const col = this.columns.get(key);
        if (!col.has(r.step)) col.set(r.step, plain(lookup(r, key)));
      }
    }
  }

  line(text) {
    this.n++;
    this.asm.feed(text, this.n);
  }

  finish() {
    this.asm.close();
    const steps = [...this.steps].sort((a, b) => a - b);
    const columns = {};
    for (const [key, col] of [...this.columns].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      columns[key] = steps.map((s) => (col.has(s) ? col.get(s) : null));
    }
    return { steps, columns, lines: this.n, rows: this.asm.total, malformed: this.asm.malformed,
             nonfinite: this.asm.nonfinite };
  }
}

/** A logged value as the table holds it: a number or a word as logged; anything else (a dict, a list) null. */
function plain(v) {
  return isNum(v) || typeof v === "string" || typeof v === "boolean" ? v : null;
}

/** read_run.py's --at: step numbers separated by commas, sorted, each once; an Error naming the input. */
export function parseAt(text) {
  const parts = text.split(",").filter((x) => x.trim());
  if (!parts.every((x) => /^\s*[+-]?\d+\s*$/.test(x))) {
    throw new Error(`--at ${JSON.stringify(text)}: give step numbers separated by commas, e.g. --at 0,5,9`);
  }
  return [...new Set(parts.map((x) => Number(x.trim())))].sort((a, b) => a - b);
}

/** read_run.py's default steps: the log's first `count` steps. */
export const firstSteps = (result, count = 10) => result.steps.slice(0, count);

/** read_run.compare_series: your value and the public run's at each chosen step, no verdict. */
export function compareSeries(result, series, at, keys) {
  const index = new Map(result.steps.map((s, i) => [s, i]));
  const yours = {};
  for (const key of keys.yours) {
    const col = result.columns[key];
    yours[key] = at.map((k) => (col && index.has(k) && isNum(col[index.get(k)]) ? col[index.get(k)] : null));  // `true` is no number
  }
  const theirs = new Map(series.steps.map((s, i) => [s, i]));
  const reference = {};
  for (const key of keys.theirs) {
    if (!(key in series.metrics)) continue;
    reference[key] = at.map((k) => (theirs.has(k) ? series.metrics[key][theirs.get(k)] : null));
  }
  return { against: series.id ?? null, source: (series.source || {}).url ?? null, settings: series.settings ?? null,
           gpu: series.gpu_note ?? null, steps: at, yours, reference, verdict: null, why_no_verdict: keys.why_no_verdict };
}

/** A cell as read_run.render_compare_series writes it: `{:.4g}`, or '-' for no number. */
export const cellText = (v) => (v === null || v === undefined ? "-" : isNum(v) ? general(v, 4) : String(v));

/** A learning rate as a run file writes it (1e-6), as read_run.py's table and the plots' captions do. */
export const rate = (lr) => (isNum(lr) ? general(lr).replace(/e([+-]?)0*(\d)/, (_, s, d) => `e${s.replace("+", "")}${d}`) : String(lr));

/** The rows of the table: [label, cells...], yours first, then the public run's. */
export function tableRows(table) {
  return [
    ...Object.entries(table.yours).map(([k, v]) => [`${k} (yours)`, ...v.map(cellText)]),
    ...Object.entries(table.reference).map(([k, v]) => [`${k} (public ref)`, ...v.map(cellText)]),
  ];
}

// ---------------------------------------------------------------- drawing (SVG through DOM calls)
const SVG = "http://www.w3.org/2000/svg";
const W = 400, H = 220, LEFT = 50, RIGHT = 12, TOP = 12, BOTTOM = 36, FONT = 13, BUCKETS = 150;

/** Unbroken runs of [step, value]: a missing number or a skipped step ends one (no line across a gap). */
export function segments(steps, values) {
  const out = [];
  let cur = [];
  let last = null;
  steps.forEach((s, i) => {
    const v = values[i];
    const ok = isNum(v) && Number.isFinite(v);
    if (!ok || (last !== null && s !== last + 1)) {
      if (cur.length) out.push(cur);
      cur = [];
    }
    if (ok) cur.push([s, v]);
    last = s;
  });
  if (cur.length) out.push(cur);
  return out;
}

/** A long segment thinned to at most four points a bucket (first, lowest, highest, last): bounded drawing. */
export function thin(seg, x0, x1, buckets = BUCKETS) {
  if (seg.length <= buckets * 4) return seg;
  const width = (x1 - x0) / buckets || 1;
  const out = [];
  let bucket = null;
  let pick = [];
  const flush = () => {
    const uniq = [...new Set(pick)].sort((a, b) => a[0] - b[0]);
    out.push(...uniq);
  };
  for (const p of seg) {
    const b = Math.min(buckets - 1, Math.floor((p[0] - x0) / width));
    if (b !== bucket) {
      if (pick.length) flush();
      bucket = b;
      pick = [p, p, p, p];
    } else {
      if (p[1] < pick[1][1]) pick[1] = p;
      if (p[1] > pick[2][1]) pick[2] = p;
      pick[3] = p;
    }
  }
  if (pick.length) flush();
  return out;
}

function ticks(lo, hi, count = 4) {
  if (hi === lo) return [lo - 1, lo, lo + 1];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let t = Math.floor(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  if (out[out.length - 1] < hi) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

function node(name, attrs = {}, text = null) {
  const n = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== null) n.textContent = text;
  return n;
}

/** One metric's curve: axes, its unbroken runs (thinned), single points as dots; colours through classes. */
export function drawCurve(title, steps, values, meaning, dashed) {
  const segs = segments(steps, values);
  const x0 = steps.length ? steps[0] : 0;
  const x1 = steps.length > 1 ? steps[steps.length - 1] : x0 + 1;
  const drawn = segs.map((s) => (s.length > 1 ? thin(s, x0, x1) : s));
  const ys = drawn.flat().map((p) => p[1]);
  const yt = ys.length ? ticks(Math.min(...ys), Math.max(...ys)) : [0, 1];
  const y0 = yt[0], y1 = yt[yt.length - 1];
  const pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
  const px = (s) => (LEFT + ((s - x0) / (x1 - x0 || 1)) * pw).toFixed(1);
  const py = (v) => (TOP + (1 - (v - y0) / (y1 - y0 || 1)) * ph).toFixed(1);
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "font-size": FONT,
                            class: "m101-plot-svg" });
  svg.append(node("title", {}, title));
  const grid = node("g", { class: "m101-plot-grid", stroke: "currentColor", "stroke-opacity": "0.2" });
  const axis = node("g", { class: "m101-plot-axis", fill: "currentColor" });
  for (const t of yt) {
    grid.append(node("line", { x1: LEFT, x2: W - RIGHT, y1: py(t), y2: py(t) }));
    axis.append(node("text", { x: LEFT - 4, y: py(t), "text-anchor": "end", "dominant-baseline": "middle" }, general(t, 4)));
  }
  for (const t of ticks(x0, x1, 4).filter((t) => t >= x0 && t <= x1)) {
    axis.append(node("text", { x: px(t), y: H - BOTTOM + FONT + 3, "text-anchor": "middle" }, general(t, 6)));
  }
  axis.append(node("text", { x: LEFT + pw / 2, y: H - 4, "text-anchor": "middle" }, "step"));
  svg.append(grid, axis);
  for (const seg of drawn) {
    if (seg.length === 1) {
      svg.append(node("circle", { class: `m101-plot-dot m101-plot-${meaning}`, cx: px(seg[0][0]), cy: py(seg[0][1]), r: 2.5 }));
    } else {
      const attrs = { class: `m101-plot-line m101-plot-${meaning}`, fill: "none", stroke: "currentColor", "stroke-width": 2,
                      points: seg.map(([s, v]) => `${px(s)},${py(v)}`).join(" ") };
      if (dashed) attrs["stroke-dasharray"] = "5 3";
      svg.append(node("polyline", attrs));
    }
  }
  svg.append(node("path", { class: "m101-plot-frame", stroke: "currentColor", fill: "none",
                            d: `M${LEFT} ${TOP}V${H - BOTTOM}H${W - RIGHT}` }));
  return svg;
}

/** Words for what a curve lacks: the steps without a number (never bridged by a line). */
export function gapWords(steps, values) {
  const missing = steps.filter((s, i) => !(isNum(values[i]) && Number.isFinite(values[i])));
  if (!missing.length) return "";
  const shown = missing.slice(0, 8).join(", ");
  return `No number at ${missing.length} of ${steps.length} steps (${shown}${missing.length > 8 ? ", …" : ""}); the line breaks there.`;
}

// ---------------------------------------------------------------- the component (browser only)
function el(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") n.className = v;
    else if (k === "text") n.textContent = v;
    else n.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) n.append(c);
  return n;
}

const WORKER_URL = typeof document !== "undefined" ? new URL("./m101-compare-run-worker.js", import.meta.url) : null;

/** Read in a module worker (read here where none can start; readFile yields between its chunks); {promise, cancel}. */
function read(rules, input, onProgress) {
  const here = () => {
    const reading = new CompareReading(rules);
    return input.file ? readFile(reading, input.file, onProgress) : readText(reading, input.text, onProgress);
  };
  return runInWorker(WORKER_URL, { rules, ...input }, here, onProgress);
}

function settingsLine(table) {
  const s = table.settings || {};
  const n = s.samples_per_prompt, g = s.gpus;
  return `Your steps beside the public run ${table.against}: ${s.method}, actor learning rate ${rate(s.lr)}, `
    + `${n} sample${n === 1 ? "" : "s"} per prompt, ${g} GPU${g === 1 ? "" : "s"}. ${table.gpu}`;
}

function renderTable(table) {
  const head = el("tr", {}, el("th", { scope: "col", text: "metric" }),
    ...table.steps.map((k) => el("th", { scope: "col", text: `step ${k}` })));
  const body = tableRows(table).map(([label, ...cells]) => el("tr", {}, el("th", { scope: "row", text: label }),
    ...cells.map((c) => el("td", { class: "m101-compare-num", text: c }))));
  return el("div", { class: "m101-compare-scroll", tabindex: "0", role: "region", "aria-label": "The table (scrolls sideways)" },
    el("table", { class: "m101-compare-table" },
      el("caption", { text: "Each metric at the chosen steps; '-' where that step has no number" }),
      el("thead", {}, head), el("tbody", {}, ...body)));
}

function figure(title, steps, values, meaning, dashed) {
  const gaps = gapWords(steps, values);
  return el("figure", { class: "m101-plot m101-compare-curve" },
    el("figcaption", { text: title }),
    el("div", { class: "m101-plot-drawing" }, drawCurve(title, steps, values, meaning, dashed)),
    gaps ? el("p", { class: "m101-plot-gaps", text: gaps }) : null);
}

function render(out, data, result, series, at, source) {
  out.replaceChildren();
  if (result.unreadable) {
    out.append(el("p", { text: `Could not read ${source}: ${result.unreadable}.` }));
    return;
  }
  out.append(el("p", { text: `Read ${result.lines.toLocaleString("en")} lines of ${source}: ${result.steps.length.toLocaleString("en")} steps.` }));
  if (!result.steps.length) {
    out.append(el("p", { text: "No step lines (perf N: {...}, rollout N: {...}, step N: {...}) in what was read: nothing to compare." }));
    return;
  }
  const table = compareSeries(result, series, at, data.keys);
  out.append(el("p", { text: settingsLine(table) }));
  out.append(el("p", {}, "Source: ", el("a", { href: table.source || "", text: table.source || "" })));
  out.append(renderTable(table));
  out.append(el("p", { class: "m101-compare-verdict", text: data.no_verdict }));
  out.append(el("h4", { text: "The curves" }));
  const grid = el("div", { class: "m101-compare-curves" });
  for (const key of data.keys.yours) {
    if (result.columns[key]) grid.append(figure(`${key}, your run`, result.steps, result.columns[key], "data", false));
  }
  for (const key of data.keys.theirs) {
    if (series.metrics[key]) grid.append(figure(`${key}, public run ${series.id} (verl's key)`, series.steps, series.metrics[key], "outside", true));
  }
  out.append(grid);
  const others = Object.keys(result.columns).filter((k) => !data.keys.yours.includes(k)
    && result.columns[k].some((v) => isNum(v)));
  if (others.length) {
    const pick = el("select", { class: "m101-compare-pick", "aria-label": "Another metric of your log to draw" },
      el("option", { value: "", text: `Draw another of your log's ${others.length} metrics…` }),
      ...others.map((k) => el("option", { value: k, text: k })));
    const more = el("div", { class: "m101-compare-curves" });
    pick.addEventListener("change", () => {
      if (pick.value) more.replaceChildren(figure(`${pick.value}, your run`, result.steps, result.columns[pick.value], "data", false));
    });
    out.append(el("p", {}, el("label", {}, pick)), more);
  }
}

function mount(root, rulesReady) {
  const data = JSON.parse(root.querySelector(".m101-compare-data").textContent);
  const app = root.querySelector(".m101-compare-app");
  const uid = `m101-compare-${Math.random().toString(36).slice(2, 8)}`;
  const area = el("textarea", { id: `${uid}-text`, rows: "6", spellcheck: "false", autocomplete: "off", class: "m101-compare-text" });
  const file = el("input", { type: "file", id: `${uid}-file`, accept: ".log,.txt,.out,.err,text/plain" });
  const steps = el("input", { type: "text", id: `${uid}-at`, inputmode: "numeric", placeholder: "your first 10 steps",
                              "aria-describedby": `${uid}-at-hint` });
  const pick = el("select", { id: `${uid}-series` },
    ...data.series.map((s, i) => el("option", { value: String(i), text: s.title })));
  const go = el("button", { type: "button", text: "Compare the pasted log" });
  const stop = el("button", { type: "button", text: "Stop", hidden: true });
  const bar = el("progress", { max: "100", value: "0", "aria-label": "Reading the log" });
  const status = el("p", { role: "status", "aria-live": "polite" });
  const out = el("div", { class: "m101-compare-out" });
  app.append(
    el("p", {}, el("label", { for: area.id, text: "Paste a Miles log" }), area),
    el("p", {}, el("label", { for: file.id, text: "or choose (or drop here) a log file " }), file),
    el("p", {}, el("label", { for: pick.id, text: "Public run " }), pick),
    el("p", {}, el("label", { for: steps.id, text: "Steps (comma-separated) " }), steps,
      el("span", { id: `${uid}-at-hint`, class: "m101-compare-hint", text: " as read_run.py's --at; empty: your first 10 steps" })),
    el("p", {}, go, " ", stop), bar, status, out);
  app.hidden = false;
  root.querySelector(".m101-compare-nojs").hidden = true;

  let job = null;
  const run = async (input, source) => {
    let at = null;
    if (steps.value.trim()) {
      try {
        at = parseAt(steps.value);
      } catch (err) {
        status.textContent = err.message;
        return;
      }
    }
    if (job) job.cancel();
    status.textContent = `Reading ${source}…`;
    bar.value = 0;
    stop.hidden = false;
    let rules;
    try {
      rules = await rulesReady;
    } catch {
      status.textContent = "The reader's rules did not load; use read_run.py --compare --against instead.";
      return;
    }
    const me = read(rules, input, (done, total) => {
      bar.value = total ? Math.round((100 * done) / total) : 100;
      status.textContent = `Reading ${source}: ${bar.value}%`;
    });
    job = me;
    try {
      const result = await me.promise;
      if (job !== me) return;
      const series = data.series[Number(pick.value) || 0];
      render(out, data, result, series, at ?? firstSteps(result), source);
      status.textContent = `Read ${source}.`;
    } catch (err) {
      if (job === me) status.textContent = err.message === "cancelled" ? "Stopped." : `Could not read ${source}: ${err.message}`;
    } finally {
      if (job === me) {
        stop.hidden = true;
        bar.value = 100;
        job = null;
      }
    }
  };
  go.addEventListener("click", () => run({ text: area.value }, "the pasted log"));
  file.addEventListener("change", () => file.files[0] && run({ file: file.files[0] }, file.files[0].name));
  stop.addEventListener("click", () => job && job.cancel());
  root.addEventListener("dragover", (e) => e.preventDefault());
  root.addEventListener("drop", (e) => {
    e.preventDefault();
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) run({ file: f }, f.name);
  });
}

function start() {
  const roots = [...document.querySelectorAll(".m101-compare")];
  if (!roots.length) return;
  const rulesReady = fetch(roots[0].dataset.rules).then((res) => {
    if (!res.ok) throw new Error(String(res.status));
    return res.json();
  });
  rulesReady.catch(() => {});
  for (const root of roots) mount(root, rulesReady);
}

if (typeof document !== "undefined") start();
