// Miles 101: "Will it fit?" calculator. A small ES module: no framework, no network.
// Every coefficient comes from the JSON the build embeds in the page (capture/computed.json,
// capture/facts.json, flags.json, a run file); the arithmetic mirrors miles101.derive.fit_budget
// line for line, and the tests hold the two against each other.

const VERDICT = {
  "fits": "Fits",
  "tight": "Tight",
  "does-not-fit": "Does not fit",
};
/** calculator.VERDICT_TEXT: the verdict as a word inside a sentence. */
const VERDICT_WORD = { "fits": "fit", "tight": "tight", "does-not-fit": "does not fit" };

/** miles101.derive.micro_batch_tokens: tokens of the largest training micro-batch at full-length sequences. */
export function microBatchTokens(sequenceTokens, microBatchSize, dynamic, maxTokens) {
  if (dynamic && maxTokens) return Math.max(maxTokens, sequenceTokens);
  return microBatchSize * sequenceTokens;
}

const SLOPE = { false: "plain", true: "checkpointed" };

/** The activation slope (bytes per token) a model has for a setting of --gradient-checkpointing, or null. */
export function slopeOf(model, checkpointing) {
  const a = model.activation && model.activation[SLOPE[!!checkpointing]];
  return a ? a.bytes_per_token : null;
}

/** miles101.derive.fit_budget, in the same order of operations (so the doubles agree). */
export function fitBudget(c, model, s) {
  const per = s.fp32_master ? c.bytes_per_param.trainer_fp32_master : c.bytes_per_param.trainer_no_master;
  const trainer = model.params * per;
  const reference = s.reference ? model.params * c.bytes_per_param.reference : 0;
  const weights = model.params * c.bytes_per_param.weights;
  const share = s.fraction * c.pool.bytes;
  const kv = share - weights;
  const rollout = trainer + reference + share;
  const sequenceTokens = (s.prompt_len || 0) + s.response_len;
  const mbs = s.micro_batch_size === undefined ? c.defaults.micro_batch_size : s.micro_batch_size;
  const microTokens = microBatchTokens(sequenceTokens, mbs, !!s.dynamic_batch, s.max_tokens_per_gpu || null);
  const coeff = s.activation_bytes_per_token !== undefined ? s.activation_bytes_per_token : slopeOf(model, s.checkpointing);
  const activations = coeff === null ? null : coeff * microTokens;
  const train = activations === null ? null : trainer + reference + activations;
  const band = c.band || {};
  const high = Math.max(1.0, band.high === undefined ? 1.0 : band.high);
  const low = band.low === undefined ? 1.0 : band.low;
  const trainSafe = train === null ? null : train * high;
  const peak = trainSafe === null ? rollout : Math.max(rollout, trainSafe);
  const limit = c.threshold.value * c.pool.bytes;
  const margin = limit - peak;
  const kvTokens = kv > 0 && model.kv_bytes_per_token ? Math.floor(kv / model.kv_bytes_per_token) : null;
  const sequences = s.prompts * s.samples;
  const held = kvTokens !== null && sequenceTokens > 0 ? Math.floor(kvTokens / sequenceTokens) : null;
  const rounds = held && sequences ? Math.ceil(sequences / held) : null;
  const over = [];
  if (kv <= 0 || held === 0 || rollout > limit) over.push("rollout");
  if (trainSafe !== null && trainSafe > limit) over.push("training");
  const larger = trainSafe !== null && trainSafe > rollout ? "training" : "rollout";
  const phase = over.length === 1 ? over[0] : larger;
  const nearLine = !over.length && phase === "training" && train !== null && margin < (high - low) * train;
  let verdict = "fits";
  if (over.length) verdict = "does-not-fit";
  else if (margin < weights || nearLine) verdict = "tight";
  return {
    trainer, reference, weights, share, kv, rollout, activations, train, peak, limit,
    pool: c.pool.bytes, margin, verdict, kv_tokens: kvTokens,
    step_tokens: s.prompts * s.samples * s.response_len, micro_tokens: microTokens,
    sequence_tokens: sequenceTokens, sequences, held, rounds, over, phase, near_line: nearLine,
  };
}

/** miles101.derive._with_fraction: the combination, then the largest two-decimal SGLang fractions that fit. */
function withFraction(c, model, s, combo, seq) {
  const out = [combo];
  const b = fitBudget(c, model, { ...s, ...combo });
  if (!b.over.includes("rollout")) return out;
  const pool = c.pool.bytes;
  const low = (b.weights + seq * (model.kv_bytes_per_token || 0)) / pool;
  const room = b.limit - b.trainer - b.reference;
  for (const top of [(room - b.weights) / pool, room / pool]) {
    const fraction = Math.floor(top * 100) / 100;
    if (fraction > 0 && fraction < 1 && fraction >= low && fraction !== s.fraction) out.push({ ...combo, fraction });
  }
  return out;
}

/** calculator.master_required: Miles refuses --no-keep-fp32-master (true on-policy mode, Qwen3 dense contract). */
export function masterRequired(model, s) {
  return !!s.true_on_policy && model.qwen3_dense !== false;
}

/** miles101.derive.fit_lever: the fewest setting changes on this page that make the run fit, or null; the free
 * levers first, --no-keep-fp32-master (it costs learning) only after them and never where Miles refuses it. */
export function fitLever(c, model, s) {
  const seq = (s.prompt_len || 0) + s.response_len;
  const options = [];
  if (!s.checkpointing && slopeOf(model, true) !== null) options.push([{}, { checkpointing: true }]);
  if (s.dynamic_batch && s.max_tokens_per_gpu && s.max_tokens_per_gpu > seq) options.push([{}, { max_tokens_per_gpu: seq }]);
  else if (!s.dynamic_batch && (s.micro_batch_size || 1) > 1) options.push([{}, { micro_batch_size: 1 }]);
  if (s.fp32_master !== false && !masterRequired(model, s)) options.push([{}, { fp32_master: false }]);
  let combos = [{}];
  for (const choice of options) combos = choice.flatMap((o) => combos.map((cb) => ({ ...cb, ...o })));
  combos.sort((a, b) => Object.keys(a).length - Object.keys(b).length);
  const found = {};
  for (const costly of [false, true]) {
    for (const combo of combos.filter((cb) => ("fp32_master" in cb) === costly)) {
      for (const changes of withFraction(c, model, s, combo, seq)) {
        const b = fitBudget(c, model, { ...s, ...changes });
        if (b.verdict !== "does-not-fit" && !(b.verdict in found)) found[b.verdict] = { changes, budget: b };
      }
      if ("fits" in found) break;
    }
    if (Object.keys(found).length) break;
  }
  return found.fits || found.tight || null;
}

/** calculator.lever_flags: a lever's changes as the flags that make them; `n` writes each value. */
export function leverFlags(c, changes, n = String) {
  const F = c.flags;
  const out = [];
  if (changes.checkpointing) out.push(F.checkpointing);
  if ("micro_batch_size" in changes) out.push(`${F.micro_batch} ${n(changes.micro_batch_size)}`);
  if ("max_tokens_per_gpu" in changes) out.push(`${F.max_tokens} ${n(changes.max_tokens_per_gpu)}`);
  if (changes.fp32_master === false) out.push(F.no_master);
  if ("fraction" in changes) out.push(`${F.fraction} ${n(changes.fraction)}`);
  return out;
}

/** calculator._master_cost: what dropping the master copy costs in learning, with the measured figure. */
export function masterCost(c, model, n = String) {
  const F = c.flags;
  const figures = c.master_copy || {};
  const head = ` ${F.no_master} comes last because it costs learning: without the fp32 master copy the weights and`
    + " AdamW's state stay bf16 (the checkpoint's dtype, as the transformers Miles pins loads it), and an update"
    + " smaller than half a bf16 step rounds away";
  const names = Object.keys(figures).sort();
  if (!names.length) return `${head} (not measured yet).`;
  const name = model.name && model.name in figures ? model.name : names[0];
  const f = figures[name];
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  return `${head}: after ${n(f.steps)} optimizer steps at --lr ${n(f.lr_text)}, ${n(pct(f.no_master))}`
    + ` of ${name}'s bf16 weights had changed without it, against ${n(pct(f.master))} with it`
    + ` (${n(f.gpu)}; bf16 rounding is the same on every GPU).`;
}

/** calculator._refused_note: why the master copy was not offered. */
export function refusedNote(c, model, s) {
  if (!masterRequired(model, s)) return "";
  return ` ${c.flags.no_master} is not offered: Miles refuses it under ${c.flags.true_on_policy} with the Qwen3 dense contract.`;
}

/** calculator.allocator_sentence: near the line in the training phase, the allocator setting (trainer only). */
export function allocatorSentence(c, b) {
  if (!b.near_line) return "";
  return " Training is near the line, within the estimate's error band: fragmentation can still run it out of"
    + ` memory. Give the trainer PyTorch's expandable segments with ${c.flags.train_env}`
    + ` '${c.allocator_env}' (the trainer only; not for Megatron with --offload-train).`;
}

/** calculator._band_sentence: how far the training term may be off. */
export function bandSentence(c, n = String) {
  const band = c.band;
  if (!band) return "The training term has no error band yet: no cross-check sweep holds enough points.";
  return `How far the training term may be off: measured over estimated bytes from ${n(band.low.toFixed(2))}`
    + ` to ${n(band.high.toFixed(2))} over ${n(band.checks)} checks of ${n(band.models)} models`
    + ` (${n(band.gpus.join(", "))}, not a GB10), each activation-bound point predicted from a slope fitted without it, the others from the whole slope.`
    + " A band, not a promise: the allocator's fragmentation is not in it. The sum counts training at"
    + " the estimate or the band's top, whichever is larger, and calls it tight when the room left is"
    + " smaller than the band's width times the training term.";
}

const group = (text) => text.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const gib = (c, bytes) => {
  const [whole, frac] = (Math.abs(bytes) / c.gib).toFixed(1).split(".");
  return `${bytes < 0 ? "−" : ""}${group(whole)}.${frac} GiB`;
};
const count = (n) => group(String(n));

// calculator.num, plain and marked_html: around each number the widget computes, the markup the build's
// worked sum writes (a `m101-value-cell` span), so the live sum's numbers read as cited values too.
const OPEN = "\x01";
const CLOSE = "\x02";
const num = (v) => `${OPEN}${v}${CLOSE}`;
const plain = (text) => text.replace(/[\x01\x02]/g, "");
/** Marked text as nodes: its words, and each number a `m101-value-cell` span. */
function marked(text) {
  return text.split(/\x01([^\x02]*)\x02/).map((part, i) => (i % 2 ? el("span", { class: "m101-value-cell", text: part }) : part))
    .filter((part) => part !== "");
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

let instances = 0;

function field(id, label, input, hint) {
  const wrap = el("div", { class: "m101-fit-field" }, el("label", { for: id, text: label }), input);
  const described = [];
  if (hint) {
    described.push(`${id}-hint`);
    wrap.append(el("span", { class: "m101-fit-hint", id: `${id}-hint`, text: hint }));
  }
  if (input.tagName === "INPUT") {
    described.push(`${id}-error`);
    wrap.append(el("span", { class: "m101-fit-error", id: `${id}-error`, role: "alert" }));
  }
  if (described.length) input.setAttribute("aria-describedby", described.join(" "));
  return wrap;
}

/** A field's value, or null with the field marked invalid and the reason beside it. */
function valid(input, ok, message) {
  const value = asNumber(input);
  const good = !input.disabled ? Number.isFinite(value) && ok(value) : true;
  const error = document.getElementById(`${input.id}-error`);
  if (good) input.removeAttribute("aria-invalid");
  else input.setAttribute("aria-invalid", "true");
  if (error) error.textContent = good ? "" : message;
  return good ? value : null;
}
/** What a number field holds, as the browser reads it (`1e3` is 1000, `1e-1` is 0.1); NaN when it is not a number. */
const asNumber = (input) => {
  const t = input.value.trim();
  if (t === "") return NaN;
  const v = typeof input.valueAsNumber === "number" && !Number.isNaN(input.valueAsNumber) ? input.valueAsNumber : Number(t);
  return Number.isFinite(v) ? v : NaN;
};
/** A flag's value as Miles's argparse reads it: an integer in plain decimal, never e-notation. */
const flagValue = (v) => (Number.isInteger(v) ? v.toLocaleString("en-US", { useGrouping: false }) : String(v));

function check(id, label, checked, hint) {
  const input = el("input", { type: "checkbox", id, checked });
  const wrap = el("div", { class: "m101-fit-check" }, input, el("label", { for: id, text: label }));
  if (hint) {
    input.setAttribute("aria-describedby", `${id}-hint`);
    wrap.append(el("span", { class: "m101-fit-hint", id: `${id}-hint`, text: hint }));
  }
  return wrap;
}

function number(id, value, min, max, step) {
  return el("input", { type: "number", id, value: String(value), min, max, step, inputmode: "decimal", required: true });
}

function mount(root) {
  const script = root.querySelector("script.m101-fit-data");
  const app = root.querySelector(".m101-fit-app");
  if (!script || !app) return;
  const c = JSON.parse(script.textContent);
  const start = c.start;
  const p = `m101-fit-${++instances}`;
  const F = c.flags;

  const select = el("select", { id: `${p}-model` });
  for (const m of c.models) {
    const active = m.params_active ? `, ${(m.params_active / 1e9).toFixed(1)} B active` : "";
    select.append(el("option", { value: m.name, text: `${m.name} (${(m.params / 1e9).toFixed(2)} B parameters${active})`,
      selected: m.name === start.model }));
  }
  select.append(el("option", { value: "", text: "Another model: type its parameter count" }));
  const params = number(`${p}-params`, (c.models.find((m) => m.name === start.model).params / 1e9).toFixed(2), "0.01", "2000", "0.01");
  params.disabled = true;
  const master = check(`${p}-master`, `fp32 master copy (${F.master}, on by default)`, start.fp32_master);
  const offload = check(`${p}-offload`, `FSDP CPU offload (${F.cpu_offload})`, start.cpu_offload,
    "On one unified pool this moves the trainer's state without freeing it.");
  const kl = check(`${p}-kl`, `KL reference model (${F.kl})`, start.reference);
  const ckpt = check(`${p}-ckpt`, `Gradient checkpointing (${F.checkpointing}, FSDP)`, !!start.checkpointing,
    "Keeps fewer activations in the forward pass and recomputes them in the backward pass.");
  const top = check(`${p}-top`, `True on-policy mode (${F.true_on_policy})`, !!start.true_on_policy,
    `With it, Miles refuses ${F.no_master} on a Qwen3 dense model (its Qwen3 dense contract).`);
  const L = c.limits;
  const micro = number(`${p}-micro`, start.micro_batch_size, "1", String(L.micro_batch_size), "1");
  const dynamic = check(`${p}-dynamic`, `Dynamic batch size (${F.dynamic})`, !!start.dynamic_batch,
    `Packs samples into micro-batches of about ${F.max_tokens} tokens at most (a longer sample goes alone); ${F.micro_batch} is then ignored.`);
  const maxTokens = number(`${p}-maxtok`, start.max_tokens_per_gpu || start.prompt_len + start.response_len, "1",
    String(L.max_tokens_per_gpu), "1");
  const globalBatch = number(`${p}-gbs`, start.global_batch, "1", String(L.global_batch), "1");
  // The global batch follows prompts × samples (one optimizer step per rollout) until the reader types one.
  let globalChosen = start.global_batch !== start.prompts * start.samples;
  globalBatch.addEventListener("input", () => { globalChosen = true; });
  const fraction = number(`${p}-fraction`, start.fraction, "0.01", "0.99", "0.01");
  const response = number(`${p}-response`, start.response_len, "1", String(L.response_len), "1");
  const prompts = number(`${p}-prompts`, start.prompts, "1", String(L.prompts), "1");
  const samples = number(`${p}-samples`, start.samples, "1", String(L.samples), "1");
  const promptLen = number(`${p}-prompt`, start.prompt_len, "1", String(L.prompt_len), "1");
  const promptHint = start.prompt_assumed
    ? "Assumed as long as the response cap (it follows that field until you type a value): the run file sets no"
      + ` ${F.prompt_len}. Type your data's longest prompt.`
    : `From the run file's ${F.prompt_len}.`;
  // The assumed prompt follows the response cap, as the hint says, until the reader types one.
  let promptChosen = !start.prompt_assumed;
  promptLen.addEventListener("input", () => {
    promptChosen = true;
    const hint = document.getElementById(`${promptLen.id}-hint`);
    if (hint) hint.textContent = "Your data's longest prompt, in tokens.";
  });

  const form = el("form", { class: "m101-fit-form", novalidate: true, "aria-label": "Will it fit? settings" },
    el("fieldset", {}, el("legend", { text: "Model" }),
      field(`${p}-model`, "Model (shapes Miles ships in scripts/models)", select),
      field(`${p}-params`, "Parameters, in billions (for another model)", params,
        "Without a shape the KV cache's tokens cannot be counted.")),
    el("fieldset", {}, el("legend", { text: "Trainer" }), master, offload, kl, ckpt, top),
    el("fieldset", {}, el("legend", { text: "Training batches" }),
      field(`${p}-micro`, `Samples per micro-batch (${F.micro_batch})`, micro),
      dynamic,
      field(`${p}-maxtok`, `Most tokens per micro-batch (${F.max_tokens})`, maxTokens),
      field(`${p}-gbs`, `Samples per optimizer step (${F.global_batch})`, globalBatch,
        "Follows prompts × samples, one optimizer step per rollout, until you type another value.")),
    el("fieldset", {}, el("legend", { text: "SGLang and the rollout" }),
      field(`${p}-fraction`, `SGLang's share of the pool (${F.fraction})`, fraction),
      field(`${p}-response`, `Response length in tokens (${F.response_len})`, response),
      field(`${p}-prompt`, "Longest prompt, in tokens", promptLen, promptHint),
      field(`${p}-prompts`, `Prompts per step (${F.prompts})`, prompts),
      field(`${p}-samples`, `Samples per prompt (${F.samples})`, samples)));
  form.addEventListener("submit", (e) => e.preventDefault());

  const verdict = el("p", { class: "m101-fit-verdict", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const bar = el("div", { class: "m101-fit-bar", role: "img" });
  const legend = el("ul", { class: "m101-fit-legend" });
  const kvLine = el("p", { class: "m101-fit-kvline" });
  const actLine = el("p", { class: "m101-fit-act" });
  const offloadLine = el("p", { class: "m101-fit-offload", hidden: true });
  const code = el("code", {});
  const copy = el("button", { type: "button", class: "m101-fit-copy", text: "Copy the flags" });
  const copied = el("span", { class: "m101-fit-copied", role: "status", "aria-live": "polite" });
  const flagsNote = el("p", { class: "m101-fit-hint m101-fit-flags-note", hidden: true });
  const title = el("h3", { class: "m101-fit-title", text: "The pool during rollout" });
  const out = el("div", { class: "m101-fit-out" },
    title, verdict, bar, legend, kvLine, actLine,
    offloadLine,
    el("p", { class: "m101-fit-inference" }, ...marked("Inference from Miles's and SGLang's code, not measured on a GB10: "
      + `the pool is the total CUDA reports on a GB10, ${num(`${c.pool.value} ${c.pool.unit} (public reference: ${c.pool.label})`)}, and SGLang's share is `
      + "at most its fraction of it (SGLang measures the memory free when it starts).")),
    el("div", { class: "m101-fit-flags" }, el("p", { class: "m101-fit-flags-title", text: "Flags to paste" }),
      el("pre", {}, code), copy, copied, flagsNote));
  app.replaceChildren(form, out);

  copy.addEventListener("click", () => {
    const done = (text) => { copied.textContent = text; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(code.textContent).then(() => done("Copied."),
        () => done("Select the flags and copy them."));
    } else {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      done("Selected: copy them with your keyboard.");
    }
  });

  const atLeastOne = (what) => `Enter a whole number of at least 1: ${what}.`;
  const upTo = (name, max, what) => `${name}: enter a whole number from 1 to ${count(max)} (its most; the calculator takes no more): ${what}.`;
  const notWhole = (name, v) => `${name}: ${v} is not a whole number; enter a whole number of at least 1.`;
  const nameOf = (input) => (document.querySelector(`label[for="${input.id}"]`) || {}).textContent || input.id;
  /** A whole-number field: a finite integer from 1 to its own `max`, else null and a message naming the field. */
  const whole = (input, max, what) => {
    const v = asNumber(input);
    const message = v > max ? upTo(nameOf(input), max, what)
      : Number.isFinite(v) && !Number.isInteger(v) ? notWhole(nameOf(input), input.value.trim()) : atLeastOne(what);
    return valid(input, (x) => Number.isInteger(x) && x >= 1 && x <= max, message);
  };

  /** The settings, or null when a field holds a value the calculator refuses (each says why). */
  function settings() {
    const s = {
      fraction: valid(fraction, (v) => v > 0 && v < 1,
        "Enter a number greater than 0 and less than 1: it is SGLang's share of the pool, so 0 leaves no room for its weights and 1 none for the trainer."),
      fp32_master: master.querySelector("input").checked,
      cpu_offload: offload.querySelector("input").checked,
      reference: kl.querySelector("input").checked,
      true_on_policy: top.querySelector("input").checked,
      response_len: whole(response, L.response_len, "the most tokens one response may have"),
      prompt_len: whole(promptLen, L.prompt_len, "a prompt has at least one token"),
      prompts: whole(prompts, L.prompts, "a step rolls out at least one prompt"),
      samples: whole(samples, L.samples, "each prompt is sampled at least once"),
      checkpointing: ckpt.querySelector("input").checked,
      dynamic_batch: dynamic.querySelector("input").checked,
    };
    if (!promptChosen && s.response_len !== null) {
      promptLen.value = String(s.response_len);
      s.prompt_len = whole(promptLen, L.prompt_len, "a prompt has at least one token");
    }
    micro.disabled = s.dynamic_batch;
    maxTokens.disabled = !s.dynamic_batch;
    s.micro_batch_size = whole(micro, L.micro_batch_size, "a micro-batch holds at least one sample");
    s.max_tokens_per_gpu = s.dynamic_batch ? whole(maxTokens, L.max_tokens_per_gpu, "the most tokens one micro-batch may hold") : null;
    if (!s.dynamic_batch) valid(maxTokens, () => true, "");
    const perRollout = s.prompts !== null && s.samples !== null ? s.prompts * s.samples : null;
    if (!globalChosen && perRollout !== null && perRollout <= L.global_batch) globalBatch.value = String(perRollout);
    s.global_batch = whole(globalBatch, L.global_batch, "an optimizer step takes at least one sample");
    if (s.global_batch !== null && perRollout !== null && s.global_batch > perRollout) {
      globalBatch.setAttribute("aria-invalid", "true");
      document.getElementById(`${globalBatch.id}-error`).textContent = `Enter at most prompts × samples, `
        + `${count(perRollout)}: with a larger ${F.global_batch} a rollout holds no whole optimizer step, and the FSDP trainer stops on an assertion.`;
      s.global_batch = null;
    }
    const bad = Object.entries(s).some(([k, v]) => v === null && !(k === "max_tokens_per_gpu" && !s.dynamic_batch));
    return bad ? null : s;
  }

  /** The model, or null when the typed parameter count is refused. */
  function model() {
    const chosen = c.models.find((m) => m.name === select.value);
    params.disabled = !!chosen;
    const b = valid(params, (v) => v > 0,
      "Enter a number of billions greater than 0: the model's parameter count.");
    if (chosen) return chosen;
    if (b === null) return null;
    return { name: "", params: Math.round(b * 1e9), params_active: null, kv_bytes_per_token: null, activation: null };
  }

  function segment(cls, bytes, scale, label) {
    if (!(bytes > 0)) return null;
    return el("span", { class: `m101-fit-seg m101-fit-${cls}`, style: `width:${(100 * bytes / scale).toFixed(3)}%`,
      title: `${label}: ${gib(c, bytes)}` });
  }

  function item(cls, label, bytes, extra = "", swatch = cls) {
    return el("li", { class: `m101-fit-item m101-fit-item-${cls}`, "data-term": cls, "data-bytes": String(bytes),
      "data-swatch": swatch },
      el("span", { class: `m101-fit-swatch m101-fit-${swatch}`, "aria-hidden": "true" }),
      el("span", { class: "m101-fit-label", text: label }),
      el("span", { class: "m101-fit-num m101-value-cell", text: `${gib(c, bytes)}${extra}` }));
  }

  const staticVerdict = root.querySelector(".m101-fit-sum-verdict");
  if (staticVerdict) staticVerdict.hidden = true; // one verdict on the page: the live one below
  const staticBand = root.querySelector(".m101-fit-band");
  if (staticBand) staticBand.hidden = true; // the live activation line says it

  function render() {
    const m = model();
    const s = settings();
    const refused = m === null || s === null;
    for (const part of [bar, legend, kvLine, actLine]) part.hidden = refused;
    if (refused) {
      root.dataset.verdict = "";
      verdict.dataset.verdict = "none";
      delete verdict.dataset.marginBytes;
      verdict.replaceChildren(el("strong", { text: "No verdict: " }),
        "a field above holds a value the calculator cannot use; the message beside it says what it takes.");
      offloadLine.hidden = true;
      code.textContent = "";
      return;
    }
    const b = fitBudget(c, m, s);
    root.dataset.verdict = b.verdict;
    const name = m.name || `${num((m.params / 1e9).toFixed(2))} B parameters`;
    const gap = b.margin >= 0 ? `${num(gib(c, b.margin))} under Ray's kill line` : `${num(gib(c, -b.margin))} over Ray's kill line`;
    let why = "";
    if (b.kv <= 0) why = " SGLang's share does not hold its bf16 weights: it would stop at start-up.";
    else if (b.held === 0) why = ` Its KV cache cannot hold one sequence at full length: the longest prompt plus ${F.response_len}, ${num(count(b.sequence_tokens))} tokens.`;
    else if (b.verdict === "tight") why = " The room left is less than one more bf16 copy of the weights, about what reading the checkpoint leaves in the page cache.";
    let lever = "";
    if (b.verdict === "does-not-fit") {
      const phases = b.over.length > 1 ? `The ${b.over.join(" and ")} phases do not` : `The ${b.over[0]} phase does not`;
      const found = fitLever(c, m, s);
      lever = found
        ? ` ${phases} fit; ${leverFlags(c, found.changes, num).join(", ")} would make it ${VERDICT_WORD[found.budget.verdict]}.`
          + (found.changes.fp32_master === false ? masterCost(c, m, num) : "")
        : ` ${phases} fit, and neither gradient checkpointing, a smaller micro-batch, dropping the fp32 master copy nor SGLang's share makes it fit: pick a smaller model or a shorter response.${refusedNote(c, m, s)}`;
    }
    if (b.verdict === "tight" && b.near_line) why = "";
    const allocator = allocatorSentence(c, b);
    verdict.replaceChildren(el("strong", { text: `${VERDICT[b.verdict]}: ` }),
      ...marked(`${name}, ${b.phase} phase: ${gap} (${num(gib(c, b.peak))} of ${num(gib(c, b.limit))}).${why}${lever}${allocator}`));
    if (allocator && c.train_env_href) {
      verdict.append(" ", el("a", { href: c.train_env_href, text: `What ${F.train_env} sets.` }));
    }
    verdict.dataset.phase = b.phase;
    verdict.dataset.lever = plain(lever);
    verdict.dataset.allocator = plain(allocator);
    title.textContent = b.over.length > 1
      ? `The pool during ${b.phase}, the larger of the two phases over the line`
      : `The pool during ${b.phase}`;
    verdict.dataset.verdict = b.verdict;
    verdict.dataset.marginBytes = String(b.margin);

    const training = b.phase === "training";
    const total = training ? b.train : b.rollout;
    const scale = Math.max(b.pool, total);
    const rest = b.pool - total;
    const kvShown = Math.max(b.kv, 0);
    const weightsShown = b.share - kvShown;
    bar.replaceChildren(...[
      segment("trainer", b.trainer, scale, "FSDP trainer state"),
      segment("reference", b.reference, scale, "KL reference model"),
      training ? segment("activations", b.activations, scale, "activations of one micro-batch") : null,
      training ? null : segment("weights", weightsShown, scale, "SGLang weights"),
      training ? null : segment("kv", kvShown, scale, "SGLang KV cache"),
      segment("rest", rest, scale, "unused"),
      segment("over", total - b.pool, scale, "over the pool"),
    ].filter(Boolean));
    bar.append(el("span", { class: "m101-fit-line m101-fit-line-limit", style: `left:${(100 * b.limit / scale).toFixed(3)}%`,
      title: `Ray's kill line: ${gib(c, b.limit)}` }, el("span", { class: "m101-fit-line-label", text: "Ray kills here" })));
    if (total > b.pool) {
      bar.append(el("span", { class: "m101-fit-line m101-fit-line-pool", style: `left:${(100 * b.pool / scale).toFixed(3)}%`,
        title: `The pool: ${gib(c, b.pool)}` }));
    }
    const parts = training
      ? `activations ${gib(c, b.activations)}`
      : `SGLang weights ${gib(c, b.weights)}, KV cache ${gib(c, kvShown)}`;
    bar.setAttribute("aria-label", `Pool of ${gib(c, b.pool)} during ${b.phase}: trainer state ${gib(c, b.trainer)}, `
      + `reference model ${gib(c, b.reference)}, ${parts}, unused ${gib(c, Math.max(rest, 0))}; `
      + `Ray's kill line at ${gib(c, b.limit)}.`);
    bar.dataset.phase = b.phase;

    legend.replaceChildren(...[
      item("trainer", "FSDP trainer state", b.trainer),
      s.reference ? item("reference", "KL reference model (bf16, CPU-offloaded: same pool)", b.reference) : null,
      training ? item("activations", "Activations of one micro-batch", b.activations) : null,
      item("weights", training ? "SGLang weights (bf16; released while training)" : "SGLang weights (bf16)", b.weights),
      item("kv", training ? "SGLang KV cache (released while training)" : "SGLang KV cache (its share less the weights)", b.kv),
      item("rest", "Unused: the OS, Ray, the page cache and /dev/shm take theirs from it (not estimated)", Math.max(rest, 0)),
      item("limit", "Ray's kill line", b.limit),
      item("margin", b.margin >= 0 ? "Room under the kill line" : "Over the kill line", b.margin, "",
        b.margin >= 0 ? "margin" : "over"),
    ].filter(Boolean));

    if (b.kv_tokens === null) {
      kvLine.textContent = m.kv_bytes_per_token
        ? "KV cache: none left for tokens."
        : "KV cache tokens: need a model's shape (pick a model above).";
    } else {
      const seq = `${num(count(b.sequence_tokens))} tokens per sequence (longest prompt + response cap)`;
      let held;
      if (b.held === 0) held = `It cannot hold one sequence at full length, ${seq}: does not fit.`;
      else if (b.held >= b.sequences) held = `At ${seq} it holds all ${num(count(b.sequences))} sequences of a step at once.`;
      else {
        held = `At ${seq} it holds ${num(count(b.held))} of a step's ${num(count(b.sequences))} sequences at once. SGLang queues `
          + `the rest, so at worst, with every response at the cap (${num(count(b.step_tokens))} response tokens a step), the step `
          + `runs in about ${num(count(b.rounds))} rounds of up to ${num(count(b.held))} sequences: slower, not killed.`;
      }
      kvLine.replaceChildren(...marked(`KV cache: about ${num(count(b.kv_tokens))} tokens at ${num(count(m.kv_bytes_per_token))} bytes each. ${held}`));
    }
    kvLine.dataset.kvTokens = b.kv_tokens === null ? "" : String(b.kv_tokens);
    kvLine.dataset.stepTokens = String(b.step_tokens);
    kvLine.dataset.held = b.held === null ? "" : String(b.held);
    kvLine.dataset.rounds = b.rounds === null ? "" : String(b.rounds);
    kvLine.dataset.sequences = String(b.sequences);

    const slope = m.activation && m.activation[s.checkpointing ? "checkpointed" : "plain"];
    const how = s.checkpointing ? "with" : "without";
    if (b.activations === null) {
      actLine.textContent = `Activations while training: not estimated: no measured slope ${how} gradient `
        + "checkpointing for this model (SGLang has released its share then, under the offload a colocated run does by default).";
    } else {
      actLine.replaceChildren(...marked(`Activations while training: about ${num(gib(c, b.activations))}, `
        + `${num((slope.bytes_per_token / 1e6).toFixed(2))} MB per token ${how} gradient checkpointing (the slope of the `
        + `forward/backward peak over ${num(slope.points)} token counts, ${num(c.crosschecks[slope.host].label)}) × `
        + `${num(count(b.micro_tokens))} tokens in the largest micro-batch; training peak ${num(gib(c, b.train))}.`));
    }
    if (b.activations !== null) actLine.append(" ", ...marked(bandSentence(c, num)));
    actLine.dataset.microTokens = String(b.micro_tokens);
    actLine.dataset.activations = b.activations === null ? "" : String(b.activations);

    offloadLine.hidden = !s.cpu_offload;
    offloadLine.textContent = `${F.cpu_offload} moves the trainer's state to host memory. On a unified pool that is the `
      + "same memory, so the sum does not change (inference; 2.2 explains).";

    const lines = [`${F.fraction} ${flagValue(s.fraction)}`];
    if (!s.fp32_master) lines.push(F.no_master);
    if (s.true_on_policy) lines.push(F.true_on_policy);
    if (s.cpu_offload) lines.push(F.cpu_offload);
    if (s.reference) lines.push(F.kl);
    if (s.checkpointing) lines.push(F.checkpointing);
    lines.push(`${F.response_len} ${flagValue(s.response_len)}`,
      `${F.prompts} ${flagValue(s.prompts)}`, `${F.samples} ${flagValue(s.samples)}`, `${F.global_batch} ${flagValue(s.global_batch)}`);
    if (s.dynamic_batch) lines.push(F.dynamic, `${F.max_tokens} ${flagValue(s.max_tokens_per_gpu)}`);
    else lines.push(`${F.micro_batch} ${flagValue(s.micro_batch_size)}`);
    code.textContent = lines.join(" \\\n");
    const steps = Math.floor(s.prompts * s.samples / s.global_batch);
    const notes = [`${num(count(steps))} optimizer step${steps === 1 ? "" : "s"} per rollout: ${num(count(s.prompts * s.samples))} samples `
      + `÷ ${F.global_batch} ${num(count(s.global_batch))}, rounded down.`];
    if (s.reference) notes.push(`${F.kl} builds the reference model; set ${F.kl_coef} to the KL weight you want.`);
    notes.push(`The longest prompt is an assumption of the sum, not a flag: ${F.prompt_len} filters long prompts at`
      + " load and tokenizes the whole dataset to do so, and the GSM8K recipe leaves it alone.");
    if (!s.fp32_master) notes.push(masterCost(c, m, num).trim());
    if (!s.fp32_master && masterRequired(m, s)) notes.push(refusedNote(c, m, s).trim().replace("is not offered", "fails at start-up here"));
    flagsNote.hidden = false;
    flagsNote.replaceChildren(...marked(notes.join(" ")));
    flagsNote.dataset.steps = String(steps);
    copied.textContent = "";
  }

  form.addEventListener("input", render);
  form.addEventListener("change", render);
  root.classList.add("m101-fit-js");
  app.hidden = false;
  render();
}

// In a task of its own, after the module is evaluated: run inside the module's evaluation, the mount joined
// the theme's DOMContentLoaded work in one long task (Chromium's trace of 2.1, issue 61).
setTimeout(() => { for (const root of document.querySelectorAll(".m101-fit")) mount(root); }, 0);
