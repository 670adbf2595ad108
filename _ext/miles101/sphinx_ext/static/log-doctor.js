// Miles 101 log doctor: paste or drop a Miles log; the page tells which 7.1 entries its lines point
// at and reads its first ten steps, as `read_run.py --diagnose` and `read_run.py` do. Everything
// runs in this page (a worker for big files); nothing is sent anywhere.
import { Reading, readText, readFile, cell, settingsNote, passesArguments } from "./m101-log-doctor-core.js";
import { runInWorker } from "./m101-worker-run.js";

const STEPS = 10;
const WORKER_URL = new URL("./m101-log-doctor-worker.js", import.meta.url);
let instances = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** Read in a module worker (read here where none can start, yielding between chunks); {promise, cancel}. */
function read(rules, input, onProgress) {
  const here = () => {
    const reading = new Reading(rules, STEPS, input.groups ?? null, input.args ?? null);
    return input.file ? readFile(reading, input.file, onProgress) : readText(reading, input.text, onProgress);
  };
  return runInWorker(WORKER_URL, { rules, steps: STEPS, ...input }, here, onProgress);
}

/** How much of a paste a box shows: its first lines, then how many more were taken but not shown. */
export const PREVIEW_LINES = 200;
export const PREVIEW_CHARS = 64 * 1024;

/** The first lines of `text` for a box, and the note of the rest; null when all of it fits. */
export function preview(text) {
  let at = 0;
  let shown = 0;
  while (shown < PREVIEW_LINES && at < text.length && at <= PREVIEW_CHARS) {
    const end = text.indexOf("\n", at);
    if (end < 0) {
      at = text.length;
      break;
    }
    at = end + 1;
    shown++;
  }
  if (at >= text.length && text.length <= PREVIEW_CHARS) return null;
  at = Math.min(at, PREVIEW_CHARS);
  let more = 0;
  for (let i = text.indexOf("\n", at); i >= 0; i = text.indexOf("\n", i + 1)) more++;
  if (!text.endsWith("\n")) more++;
  const chars = text.length.toLocaleString("en");
  return `${text.slice(0, at)}${at && text[at - 1] !== "\n" ? "\n" : ""}[… ${more.toLocaleString("en")} more line${more === 1 ? "" : "s"} `
    + `taken but not shown (${chars} characters in all). Edit this box and only what it shows is read.]`;
}

function entryLink(root, m) {
  const href = `${root.dataset.page}#${m.id}`;
  return el("a", { href, class: "m101-doctor-entry" }, `7.1 ${m.section}: ${m.title}`);
}

/** read_run._how_often: " (seen N times)" for a message; for open timers, how many are still open. */
function howOften(m) {
  if (m.open_timers) return m.count > 1 ? ` (the last of ${m.count} timers still open)` : " (a timer still open)";
  return m.count > 1 ? ` (seen ${m.count} times)` : "";
}

/** One cause of an entry: what it is, what tells it apart, what this log shows, its fixes for this run. */
function causeItem(c) {
  return el("li", { class: "m101-doctor-cause" },
    el("p", { text: c.cause }),
    el("p", {}, el("span", { class: "m101-doctor-label", text: "Tells it apart: " }), c.tells),
    c.why.length ? el("p", {}, el("span", { class: "m101-doctor-label", text: "This log: " }), c.why.join("; ")) : null,
    c.against.length ? el("p", {}, el("span", { class: "m101-doctor-label", text: "Less likely here: " }), c.against.join("; ")) : null,
    ...c.fixes.map((f) => el("p", {}, el("span", { class: "m101-doctor-label", text: "Fix: " }), f)));
}

/** read_run.first_in_log: "comes first in the log" only when its line does. */
function firstInLog(first, second) {
  if (first.line !== null && (second.line === null || first.line < second.line)) {
    return "it comes first in the log (no evidence ranks another higher)";
  }
  return "no evidence ranks another higher";
}

/** The first entry's tie: the log cannot tell these entries apart; each one's check tells. */
function undecidedBlock(root, m) {
  return el("div", { class: "m101-doctor-why" },
    el("p", {}, el("span", { class: "m101-doctor-label", text: "The log cannot tell these apart: " }),
      [m, ...m.undecided].map((u) => u.title).join(" or ")),
    el("ul", {}, ...[m, ...m.undecided].map((u) => el("li", {}, "To tell, ", entryLink(root, u), ": ",
      el("pre", { class: "m101-doctor-check" }, el("code", { text: u.check }))))));
}

/** Another matched entry moves one of this entry's flags the other way: which to try first. */
function oppositeItem(m, o) {
  const then = o.first === m.id ? o.id : m.id;
  return el("p", {}, el("span", { class: "m101-doctor-label", text: "Opposite fixes: " }),
    `this entry says ${o.this} `, el("code", { text: o.flag }), `, ${o.id} says ${o.other} it; try ${o.first}'s fixes `
    + `first (${o.why}), then ${then}'s.`);
}

function matchItem(root, m, rank, matches) {
  const where = m.line ? `Line ${m.line}` : "The step values";
  const seen = howOften(m);
  const total = matches.length;
  let ranked = null;
  if (rank === 0 && m.undecided.length) {
    ranked = undecidedBlock(root, m);
  } else if (rank === 0 && total > 1) {
    ranked = el("p", { class: "m101-doctor-why" }, el("span", { class: "m101-doctor-label", text: "First because: " }),
      m.why.length ? m.why.join("; ") : firstInLog(m, matches[1]));
  } else if (m.against.length) {
    ranked = el("p", { class: "m101-doctor-why" }, el("span", { class: "m101-doctor-label", text: "Less likely: " }), m.against.join("; "));
  }
  return el("li", { class: "m101-doctor-match", "data-id": m.id, "data-line": m.line === null ? "" : String(m.line) },
    el("p", { class: "m101-doctor-where" }, el("strong", { text: `${where}${seen}` }), ": ", el("code", { text: m.text })),
    el("p", {}, "Entry: ", entryLink(root, m)),
    ranked,
    ...m.also_matched.map((a) => el("p", {}, el("span", { class: "m101-doctor-label", text: "Also matched on this line: " }),
      entryLink(root, a))),
    ...m.opposite.map((o) => oppositeItem(m, o)),
    el("p", { class: "m101-doctor-label", text: "Check" }),
    el("pre", { class: "m101-doctor-check" }, el("code", { text: m.check })),
    m.causes.length
      ? el("div", {}, el("p", { class: "m101-doctor-label", text: "Causes, in the order to check" }),
        el("ol", { class: "m101-doctor-causes" }, ...m.causes.map(causeItem)))
      : el("p", {}, el("span", { class: "m101-doctor-label", text: "Fix: " }), m.fix));
}

/** read_run.render_notes: a line healthy runs print too, what it is, and its entry (not named as a cause). */
function noteItem(root, n) {
  return el("li", { class: "m101-doctor-note", "data-id": n.id, "data-line": String(n.line) },
    el("p", { class: "m101-doctor-where" }, el("strong", { text: `Line ${n.line}${howOften(n)}` }), ": ", el("code", { text: n.text })),
    el("p", {}, el("span", { class: "m101-doctor-label", text: "Seen, not a cause on its own: " }), `${n.note} (`,
      entryLink(root, n), ")."));
}

function healthTable(rules, report) {
  const signals = rules.signals;
  const head = el("tr", {}, el("th", { scope: "col", text: "step" }),
    ...signals.map((s) => el("th", { scope: "col", text: s.head })));
  const body = report.steps.map((t) => el("tr", {}, el("th", { scope: "row", text: String(t.step) }),
    ...signals.map((s) => el("td", { class: "m101-doctor-num", text: cell(s, t) }))));
  const table = el("table", { class: "m101-doctor-steps" },
    el("caption", { text: `The first ${report.steps.length} steps (Miles's rollout ids; read_run.py's columns)` }),
    el("thead", {}, head), el("tbody", {}, ...body));
  const verdicts = el("table", { class: "m101-doctor-verdicts" },
    el("caption", { text: "One verdict per signal, against the cut-offs of 1.3's table (ours and Miles's published ones)" }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "signal" }), el("th", { scope: "col", text: "verdict" }),
      el("th", { scope: "col", text: "why" }))),
    el("tbody", {}, ...signals.map((s) => {
      const v = report.verdicts[s.name];
      return el("tr", { "data-verdict": v.verdict }, el("th", { scope: "row", text: s.head }),
        el("td", {}, el("span", { class: "m101-doctor-verdict", text: v.verdict })), el("td", { text: v.reason }));
    })));
  return el("div", { class: "m101-doctor-scroll", tabindex: "0", role: "region",
    "aria-label": "The first ten steps and the verdicts (scrolls sideways)" }, table, verdicts);
}

function render(root, rules, out, result, source) {
  out.replaceChildren();
  if (result.unreadable) {
    out.append(el("p", { class: "m101-doctor-summary m101-doctor-unreadable",
      text: `Could not read ${source}: ${result.unreadable}. read_run.py stops here too ("cannot read", exit 2): nothing was matched against 7.1.` }));
    out.append(el("h4", { class: "m101-doctor-h", text: "What it could not read" }));
    out.append(el("ul", { class: "m101-doctor-problems" }, el("li", { text: `Could not read it: ${result.unreadable}.` })));
    return;
  }
  const steps = result.report ? result.report.steps.length : 0;
  const summary = `Read ${result.lines.toLocaleString("en")} lines of ${source}: ${result.matches.length} `
    + `${result.matches.length === 1 ? "entry" : "entries"} of 7.1, ${result.rows.toLocaleString("en")} step`
    + `${result.rows === 1 ? "" : "s"}.`;
  out.append(el("p", { class: "m101-doctor-summary", text: summary }));

  out.append(el("h4", { class: "m101-doctor-h", text: "What the lines point at" }));
  if (result.matches.length) {
    out.append(el("ol", { class: "m101-doctor-matches" },
      ...result.matches.map((m, i) => matchItem(root, m, i, result.matches))));
    out.append(el("p", { class: "m101-doctor-settings", text: settingsNote(result.settings) }));
  } else out.append(el("p", { class: "m101-doctor-none", text: result.notes.length ? rules.notes_only : rules.no_match }));
  if (result.notes.length) out.append(el("ul", { class: "m101-doctor-notes" }, ...result.notes.map((n) => noteItem(root, n))));

  out.append(el("h4", { class: "m101-doctor-h", text: "The first ten steps" }));
  if (result.report) out.append(healthTable(rules, result.report));
  else out.append(el("p", { text: "No step lines (perf N: {...}, rollout N: {...}, step N: {...}) in what was read, so there is no table: this is not a run log, or the run stopped before its first step." }));

  const problems = [];
  if (result.unreadable) problems.push(`Could not read it: ${result.unreadable}.`);
  if (result.replaced) problems.push(`${result.replaced}.`);
  for (const b of result.malformed) problems.push(`Line ${b.line}: looks like a \`${b.kind} ${b.id}:\` line but its dict does not parse (cut off?): ${b.text}`);
  for (const b of result.nonfinite) problems.push(`Line ${b.line}: ${b.key} is ${b.value}`);
  if (problems.length || steps === 0) {
    out.append(el("h4", { class: "m101-doctor-h", text: "What it could not read" }));
    if (problems.length) out.append(el("ul", { class: "m101-doctor-problems" }, ...problems.map((p) => el("li", { text: p }))));
    else out.append(el("p", { text: "Every line was read; none of them is a step line." }));
  }
}

function mount(root, rulesReady) {
  const n = ++instances;
  const id = (s) => `m101-doctor-${n}-${s}`;
  const app = root.querySelector(".m101-doctor-app");
  const area = el("textarea", { id: id("text"), rows: "8", spellcheck: "false", autocomplete: "off", autocapitalize: "off",
    "aria-describedby": id("hint"), class: "m101-doctor-text" });
  const file = el("input", { type: "file", id: id("file"), accept: ".log,.txt,.out,.err,text/plain", class: "m101-doctor-file" });
  const go = el("button", { type: "button", class: "m101-doctor-go", text: "Read the pasted log" });
  const groups = el("input", { type: "number", id: id("groups"), min: "1", max: "1000000", step: "1", inputmode: "numeric",
    class: "m101-doctor-groups", "aria-describedby": `${id("groups-hint")} ${id("groups-error")}` });
  const groupsError = el("span", { id: id("groups-error"), class: "m101-doctor-error", role: "alert" });
  const args = el("textarea", { id: id("args"), rows: "3", spellcheck: "false", autocomplete: "off", autocapitalize: "off",
    "aria-describedby": id("args-hint"), class: "m101-doctor-text m101-doctor-args" });
  const clear = el("button", { type: "button", class: "m101-doctor-clear", text: "Clear" });
  const bar = el("progress", { max: "100", value: "0", id: id("bar"), "aria-label": "Reading the log" });
  const status = el("p", { role: "status", "aria-live": "polite", class: "m101-doctor-status" });
  const out = el("div", { class: "m101-doctor-out", tabindex: "-1", role: "region", "aria-label": "What the log doctor found" });
  const barWrap = el("div", { class: "m101-doctor-progress", hidden: true }, bar);
  app.append(
    el("label", { for: id("text"), class: "m101-doctor-lbl", text: "Paste a Miles log, or part of one" }), area,
    el("p", { id: id("hint"), class: "m101-doctor-hint",
      text: "Read in this page, offline: nothing is uploaded. Drop a file on this box, or choose one (any size; a big file is read in chunks)." }),
    el("div", { class: "m101-doctor-actions" }, go, clear,
      el("label", { for: id("file"), class: "m101-doctor-lbl", text: "Log file:" }), file),
    el("div", { class: "m101-doctor-field" },
      el("label", { for: id("groups"), class: "m101-doctor-lbl", text: "Prompt groups per step (optional)" }), groups,
      el("span", { id: id("groups-hint"), class: "m101-doctor-hint",
        text: "Your --rollout-batch-size (read_run.py's --groups N). With an integer reward the logged shares of groups without spread stay 0 and only their counts tell, so the share needs it; a Megatron log prints it itself." }),
      groupsError),
    el("div", { class: "m101-doctor-field" },
      el("label", { for: id("args"), class: "m101-doctor-lbl", text: "Your run's arguments (optional)" }), args,
      el("span", { id: id("args-hint"), class: "m101-doctor-hint",
        text: "Paste the launch command or $RUN.args (read_run.py's --run FILE). The fixes are then picked for its --train-backend and --use-dynamic-batch-size; without it a Megatron log's argument dump is read, and otherwise each fix says what it needs." })),
    barWrap, status, out);
  root.classList.add("m101-doctor-js");
  app.hidden = false;

  let current = null; // the reading under way: {cancel, source}
  let queued = null; // the one input waiting for it to end: {input, source}
  let pastedLog = null; // a paste too big to show: the box holds its preview, this the whole text
  let pastedArgs = null;
  const groupsValue = () => {
    const t = groups.value.trim();
    const v = t === "" ? null : !Number.isNaN(groups.valueAsNumber) ? groups.valueAsNumber : Number(t);
    const max = Number(groups.max);
    let why = "";
    if (v !== null && !Number.isFinite(v)) why = "Prompt groups per step: enter a whole number of at least 1 (the run's --rollout-batch-size), or leave it empty.";
    else if (v !== null && v > max) why = `Prompt groups per step: enter a whole number from 1 to ${max.toLocaleString("en")} (its most), or leave it empty.`;
    else if (v !== null && !Number.isInteger(v)) why = `Prompt groups per step: ${t} is not a whole number; enter the run's --rollout-batch-size, or leave it empty.`;
    else if (v !== null && v < 1) why = "Prompt groups per step: enter a whole number of at least 1 (the run's --rollout-batch-size), or leave it empty.";
    if (why) groups.setAttribute("aria-invalid", "true");
    else groups.removeAttribute("aria-invalid");
    groupsError.textContent = why;
    return why ? undefined : v;
  };
  const finish = () => {
    current = null;
    go.disabled = false;
    barWrap.hidden = true;
    if (queued) {
      const next = queued;
      queued = null;
      run(next.input, next.source);
    }
  };
  const run = async (input, source) => {
    if (current) {
      queued = { input, source };
      status.textContent = `Reading ${current.source}… Queued: ${source}, read when this reading ends (Clear stops both).`;
      return;
    }
    const g = groupsValue();
    if (g === undefined) {
      status.textContent = "Fix the number of prompt groups first, or leave it empty.";
      groups.focus();
      return;
    }
    const argsText = pastedArgs ?? args.value;
    if (argsText.trim() && !passesArguments(argsText)) { // else its settings would read as Miles's defaults
      status.textContent = "The pasted arguments pass no argument (no --flag in them, outside comments): paste the "
        + "run's launch command, run file or 7.1's $RUN.args, or empty that box.";
      args.focus();
      return;
    }
    input = { ...input, groups: g, args: argsText.trim() ? { text: argsText, from: "pasted" } : null };
    const me = { source, cancel: () => {} };
    current = me;
    go.disabled = true;
    barWrap.hidden = false;
    bar.value = 0;
    status.textContent = `Reading ${source}…`;
    const onProgress = (done, total) => {
      if (current === me) bar.value = total ? Math.round((100 * done) / total) : 100;
    };
    let rules;
    try {
      rules = await rulesReady;
    } catch {
      if (current === me) status.textContent = `Could not read ${source}: the doctor's rules did not load; use read_run.py --diagnose instead.`;
      if (current === me) finish();
      return;
    }
    if (current !== me) return; // cleared while the rules loaded
    const job = read(rules, input, onProgress);
    me.cancel = job.cancel;
    try {
      const result = await job.promise;
      if (current !== me) return;
      render(root, rules, out, result, source);
      status.textContent = result.unreadable ? `Could not read ${source}: ${result.unreadable}.`
        : result.matches.length
          ? `Done: ${result.matches.length} ${result.matches.length === 1 ? "entry" : "entries"} of 7.1 found.`
          : "Done: no line matches a symptom of 7.1.";
    } catch (err) {
      if (current !== me) return; // cancelled by Clear: its answer never comes
      status.textContent = `Could not read ${source}: ${err.message}`;
    }
    finish();
  };
  go.addEventListener("click", () => {
    const text = pastedLog ?? area.value;
    if (!text.trim()) {
      status.textContent = "Paste a log into the box first, or choose a file.";
      area.focus();
      return;
    }
    run({ text }, "the pasted text");
  });
  clear.addEventListener("click", () => {
    const stopped = current;
    queued = null;
    current = null;
    if (stopped) stopped.cancel();
    go.disabled = false;
    barWrap.hidden = true;
    area.value = "";
    args.value = "";
    pastedLog = null;
    pastedArgs = null;
    file.value = "";
    out.replaceChildren();
    status.textContent = stopped ? `Cleared: the reading of ${stopped.source} was stopped.` : "";
    area.focus();
  });
  /** A paste straight from the event: a big one goes to the reader whole and into the box as a preview. */
  const takePaste = (box, e) => {
    const text = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
    if (!text) return null;
    e.preventDefault();
    const shown = preview(text);
    if (shown === null) { // small: into the box where the caret is, as a paste would put it
      box.setRangeText(text, box.selectionStart, box.selectionEnd, "end");
      return "";
    }
    box.value = shown;
    return text;
  };
  area.addEventListener("paste", (e) => {
    const big = takePaste(area, e);
    pastedLog = big || null;
    if (big === null) setTimeout(() => run({ text: area.value }, "the pasted text"), 0);
    else run({ text: pastedLog ?? area.value }, "the pasted text");
  });
  area.addEventListener("input", () => { pastedLog = null; });
  args.addEventListener("paste", (e) => {
    const big = takePaste(args, e);
    pastedArgs = big || null;
    if (big) {
      const n = big.length.toLocaleString("en");
      if (!current) status.textContent = `Took ${n} characters of arguments; they pick the fixes of the next reading.`;
    }
  });
  args.addEventListener("input", () => { pastedArgs = null; });
  file.addEventListener("change", () => {
    if (file.files && file.files[0]) run({ file: file.files[0] }, file.files[0].name);
  });
  for (const target of [area, app]) {
    target.addEventListener("dragover", (e) => {
      e.preventDefault();
      app.classList.add("m101-doctor-over");
    });
    target.addEventListener("dragleave", () => app.classList.remove("m101-doctor-over"));
    target.addEventListener("drop", (e) => {
      e.preventDefault();
      app.classList.remove("m101-doctor-over");
      const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (f) run({ file: f }, f.name);
    });
  }
}

/** Mount every doctor at once (a paste is taken from then on); a reading waits for the rules. */
function start() {
  const roots = [...document.querySelectorAll(".m101-doctor")];
  if (!roots.length) return;
  const rulesReady = fetch(roots[0].dataset.rules).then((res) => {
    if (!res.ok) throw new Error(String(res.status));
    return res.json();
  });
  rulesReady.catch(() => {
    for (const root of roots) {
      root.querySelector(".m101-doctor-nojs").textContent = "The log doctor could not load its rules (open the page from a web server, not a file); use read_run.py --diagnose instead.";
      root.classList.remove("m101-doctor-js");
      root.querySelector(".m101-doctor-app").hidden = true;
    }
  });
  for (const root of roots) mount(root, rulesReady);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
