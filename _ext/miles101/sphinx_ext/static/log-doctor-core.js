// Miles 101 log doctor: the matching of _ext/miles101/tools/read_run.py, ported line for line.
// No rule lives here: every pattern, key, threshold and symptom comes from the rule set the build
// writes (_ext/miles101/doctor_rules.py: capture/symptoms.json, capture/references/reader.json and
// read_run.py's own patterns). tests/lab/test_doctor_parity.py runs this file with node and
// read_run.py over every fixture log and asserts the same answers, line by line.
// Pure functions only: the page, the worker and node all import it.

// ---------------------------------------------------------------- Python's formatting, mirrored
const cps = (s, n) => {
  // s[:n] by code point, as Python slices a str.
  let out = "";
  let i = 0;
  for (const ch of s) {
    if (i++ >= n) break;
    out += ch;
  }
  return out;
};

/** Python's `{:.Nf}`: round half to even on exact ties, where JavaScript rounds them up. */
function fixed(x, n) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const scaled = x * 10 ** n;
  if (Number.isInteger(scaled * 2) && !Number.isInteger(scaled)) {
    const down = Math.floor(scaled);
    const even = down % 2 === 0 ? down : down + 1;
    const text = (Math.abs(even) / 10 ** n).toFixed(n);
    return (even < 0 || (even === 0 && x < 0) ? "-" : "") + text;
  }
  const text = x.toFixed(n);
  return text;
}

/** Python's `{:.Pg}` (general format, trailing zeros removed). */
export function general(x, p = 6) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [mant, ex] = x.toExponential(p - 1).split("e");
  const exp = Number(ex);
  const strip = (t) => (t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t);
  if (exp < -4 || exp >= p) {
    const sign = exp < 0 ? "-" : "+";
    return `${strip(mant)}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return strip(fixed(x, p - 1 - exp));
}

const percent = (x, n = 0) => `${fixed(x * 100, n)}%`;

/** Python's max()/min(): the first of equals, and NaN kept or passed over as Python's `>` does. */
const pyMax = (v) => v.reduce((a, b) => (b > a ? b : a));
const pyMin = (v) => v.reduce((a, b) => (b < a ? b : a));

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// ---------------------------------------------------------------- a logged dict's Python repr
const NAMES = { nan: NaN, inf: Infinity, True: true, False: false, None: null };
const ELLIPSIS = Object.freeze({ ellipsis: true });
const MAX_NESTING = 200; // CPython's tokenizer refuses deeper brackets (a SyntaxError there)

class ReprError extends Error {}

function pyFloat(text) {
  const t = text.trim().replace(/_/g, "");
  if (/^[+-]?(nan)$/i.test(t)) return NaN;
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
  throw new ReprError("float() of a non-number");
}

/** ast.literal-style reader for the subset read_run's _value accepts. */
class ReprParser {
  constructor(text) {
    this.s = text;
    this.i = 0;
    this.depth = 0;
  }

  ws() {
    while (this.i < this.s.length && " \t\f".includes(this.s[this.i])) this.i++;
    if (this.s[this.i] === "#") this.i = this.s.length;
  }

  peek() {
    this.ws();
    return this.s[this.i];
  }

  eat(ch) {
    if (this.peek() !== ch) throw new ReprError(`expected ${ch}`);
    this.i++;
  }

  open(ch) {
    this.eat(ch);
    if (++this.depth > MAX_NESTING) throw new ReprError("too deep");
  }

  close(ch) {
    this.eat(ch);
    this.depth--;
  }

  whole() {
    const v = this.expr();
    this.ws();
    if (this.i !== this.s.length) throw new ReprError("trailing text");
    return v;
  }

  expr() {
    const c = this.peek();
    if (c === "-" || c === "+") {
      this.i++;
      const inner = this.expr();
      if (typeof inner === "boolean") return c === "-" ? -Number(inner) : Number(inner);
      if (typeof inner !== "number") throw new ReprError("sign on a non-number");
      return c === "-" ? -inner : inner;
    }
    let node = this.atom();
    for (;;) {
      const t = this.peek();
      if (t === ".") {
        if (!/[A-Za-z_]/.test(this.s[this.i + 1] || "")) break;
        this.i++;
        this.name();
        node = { attribute: true };
      } else if (t === "(") {
        node = this.call();
      } else break;
    }
    if (node && node.name !== undefined) {
      if (Object.hasOwn(NAMES, node.name)) return NAMES[node.name];
      throw new ReprError(`name ${node.name}`);
    }
    if (node && node.attribute) throw new ReprError("attribute");
    return node && node.value !== undefined ? node.value : node;
  }

  call() {
    this.open("(");
    const args = [];
    let kwargs = 0;
    while (this.peek() !== ")") {
      const save = this.i;
      const m = /^[A-Za-z_]\w*\s*=(?!=)/.exec(this.s.slice(this.i));
      if (m) {
        this.i += m[0].length;
        this.expr();
        kwargs++;
      } else {
        if (kwargs) throw new ReprError("positional after keyword");
        args.push(this.expr());
      }
      if (this.peek() === ",") this.i++;
      else if (this.peek() !== ")") {
        this.i = save;
        throw new ReprError("bad call");
      }
    }
    this.close(")");
    if (args.length !== 1) throw new ReprError("call without one argument");
    const arg = args[0];
    return { value: typeof arg === "string" ? pyFloat(arg) : arg };
  }

  name() {
    const m = /^[A-Za-z_]\w*/.exec(this.s.slice(this.i, this.i + 256));
    if (!m) throw new ReprError("name");
    this.i += m[0].length;
    return m[0];
  }

  atom() {
    const c = this.peek();
    if (c === undefined) throw new ReprError("end of text");
    if (c === "{") return { value: this.dict() };
    if (c === "[") return { value: this.seq("[", "]") };
    if (c === "(") return { value: this.paren() };
    if (c === "." && this.s.startsWith("...", this.i)) {
      this.i += 3;
      return { value: ELLIPSIS };
    }
    if (/[0-9.]/.test(c)) return { value: this.number() };
    const str = /^([rRbBuU]{0,2})(['"])/.exec(this.s.slice(this.i, this.i + 3));
    if (str && !/[fF]/.test(str[1])) return { value: this.strings() };
    if (/[A-Za-z_]/.test(c)) return { name: this.name() };
    throw new ReprError(`unexpected ${c}`);
  }

  number() {
    const rest = this.s.slice(this.i, this.i + 400);
    let m = /^0[xX](?:_?[0-9a-fA-F])+/.exec(rest);
    if (m) {
      this.i += m[0].length;
      return Number.parseInt(m[0].replace(/_/g, "").slice(2), 16);
    }
    m = /^(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?/.exec(rest);
    if (!m) throw new ReprError("number");
    this.i += m[0].length;
    if (/[jJ]$/.test(m[0])) return { complex: true };
    if (/[A-Za-z_]/.test(this.s[this.i] || "")) throw new ReprError("number followed by a name");
    return Number(m[0].replace(/_/g, ""));
  }

  strings() {
    let out = null;
    let bytes = null;
    for (;;) {
      const m = /^([rRbBuU]{0,2})('''|"""|'|")/.exec(this.s.slice(this.i, this.i + 5));
      if (!m || /[fF]/.test(m[1])) break;
      this.ws();
      const isBytes = /[bB]/.test(m[1]);
      if (bytes !== null && bytes !== isBytes) throw new ReprError("bytes and str mixed");
      bytes = isBytes;
      this.i += m[0].length;
      const raw = /[rR]/.test(m[1]);
      const q = m[2];
      let text = "";
      for (;;) {
        if (this.i >= this.s.length) throw new ReprError("unterminated string");
        if (this.s.startsWith(q, this.i)) {
          this.i += q.length;
          break;
        }
        const ch = this.s[this.i];
        if (ch === "\\") {
          const [piece, len] = raw ? [this.s.slice(this.i, this.i + 2), 2] : this.escape();
          text += piece;
          this.i += len;
        } else {
          text += ch;
          this.i++;
        }
      }
      out = (out || "") + text;
      this.ws();
    }
    if (out === null) throw new ReprError("string");
    return bytes ? { bytes: out } : out;
  }

  escape() {
    const s = this.s;
    const n = s[this.i + 1];
    const simple = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", v: "\v", 0: "\0" };
    if (n === "x") {
      const h = s.slice(this.i + 2, this.i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(h)) throw new ReprError("bad \\x escape");
      return [String.fromCharCode(parseInt(h, 16)), 4];
    }
    if (n === "u" || n === "U") {
      const w = n === "u" ? 4 : 8;
      const h = s.slice(this.i + 2, this.i + 2 + w);
      if (!new RegExp(`^[0-9a-fA-F]{${w}}$`).test(h)) throw new ReprError("bad \\u escape");
      return [String.fromCodePoint(parseInt(h, 16)), 2 + w];
    }
    const oct = /^[0-7]{1,3}/.exec(s.slice(this.i + 1, this.i + 4));
    if (oct) return [String.fromCharCode(parseInt(oct[0], 8)), 1 + oct[0].length];
    if (n !== undefined && Object.hasOwn(simple, n)) return [simple[n], 2];
    if (n === "N") throw new ReprError("named escape");
    return [s.slice(this.i, this.i + 2), 2];
  }

  dict() {
    this.open("{");
    const out = new Map();
    if (this.peek() === "}") {
      this.close("}");
      return out;
    }
    for (;;) {
      const k = this.expr();
      if (this.peek() !== ":") throw new ReprError("not a dict");
      this.i++;
      const v = this.expr();
      if (k instanceof Map || Array.isArray(k)) throw new ReprError("unhashable key");
      out.set(typeof k === "number" || typeof k === "boolean" ? String(Number(k)) : k, v);
      if (this.peek() === ",") {
        this.i++;
        if (this.peek() === "}") break;
      } else break;
    }
    this.close("}");
    return out;
  }

  seq(a, b) {
    this.open(a);
    const out = [];
    while (this.peek() !== b) {
      out.push(this.expr());
      if (this.peek() === ",") this.i++;
      else break;
    }
    this.close(b);
    return out;
  }

  paren() {
    this.open("(");
    if (this.peek() === ")") {
      this.close(")");
      return [];
    }
    const first = this.expr();
    if (this.peek() === ")") {
      this.close(")");
      return first;
    }
    const out = [first];
    while (this.peek() === ",") {
      this.i++;
      if (this.peek() === ")") break;
      out.push(this.expr());
    }
    this.close(")");
    return out;
  }
}

/** read_run.parse_dict: a Map, or null when the text is not one logged dict. */
export function parseDict(body) {
  try {
    const v = new ReprParser(body).whole();
    return v instanceof Map ? v : null;
  } catch (e) {
    if (e instanceof ReprError || e instanceof RangeError) return null;
    throw e;
  }
}

// ---------------------------------------------------------------- the rule set, compiled
export function compile(rules) {
  const p = rules.patterns;
  const rx = (name) => new RegExp(p[name]);
  return {
    rules,
    LINE: rx("LINE_RE"),
    LOOKS: rx("LOOKS_LIKE_RE"),
    ANSI: new RegExp(p.ANSI_RE, "g"),
    REPEATED: rx("REPEATED_RE"),
    MEMORY: rx("MEMORY_RE"),
    ENGINE: rx("ENGINE_RE"),
    TIMER: rx("TIMER_RE"),
    BATCH_DUMP: rx("BATCH_DUMP_RE"),
    WANT: rx("WANT_RE"),
    UNALLOC: rx("UNALLOC_RE"),
    RESERVED_OLD: rx("RESERVED_OLD_RE"),
    MARGIN: rx("MARGIN_RE"),
    SAMPLE: rx("SAMPLE_RE"),
    MOVE: new RegExp(p.MOVE_RE, "g"),
    SETTING_DUMP: rx("SETTING_DUMP_RE"),
    E: rules.evidence,
    cut: rules.cutoffs,
    symptoms: rules.symptoms.map((s) => ({ ...s, parts: s.grep.map((g) => g.split(" ... ")) })),
  };
}

/** read_run.clean: no ANSI colours, no Ray dedup suffix, no trailing newline. */
export function clean(R, line) {
  const text = line.replace(/[\r\n]+$/, "").replace(R.ANSI, "");
  const kept = text.replace(R.REPEATED, "");
  return kept.length === text.length ? text : kept.trimEnd();
}

/** str.splitlines(): every line end Python knows, the last line without its end. */
export function splitLines(text) {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const isNum = (x) => typeof x === "number";

export function parseLine(R, raw) {
  const line = clean(R, raw);
  let m = R.LINE.exec(line);
  if (m) {
    const data = parseDict(m.groups.body);
    if (data === null) return null;
    let kind = m.groups.kind;
    if (kind === "perf") kind = data.has(R.rules.rollout_side_key) ? "perf_rollout" : "perf_train";
    else if (kind === "step") kind = "train";
    return [kind, Number(m.groups.id), data];
  }
  m = R.MEMORY.exec(line);
  if (m) {
    const data = parseDict(m.groups.body);
    if (data === null) return null;
    const slug = m.groups.msg.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
    const fields = new Map();
    for (const [k, v] of data) if (R.rules.memory_fields.includes(k)) fields.set(`memory/${slug}/${k}`, v);
    return ["memory", null, fields];
  }
  m = R.ENGINE.exec(line);
  if (m) return ["engine", null, new Map([["addr", m.groups.addr]])];
  return null;
}

function pyRepr(v) {
  if (Number.isNaN(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

const newRow = (rid) => ({ step: rid, rollout: new Map(), perf: new Map(), train: new Map(), eval: new Map() });

/** read_run.StepAssembler, keeping only the first `keep` closed rows (a big log stays small). */
export class StepAssembler {
  constructor(R, keep = Infinity) {
    this.R = R;
    this.keep = keep;
    this.rows = new Map();
    this.current = null;
    this.anchored = false;
    this.firstTrainLine = null; // the trainer's first `step N:` line: a step has trained
    this.lineno = 0;
    this.malformed = [];
    this.nonfinite = [];
    this.engineAddr = null;
    this.out = [];
    this.total = 0;
  }

  emit(rows) {
    for (const r of rows) {
      this.total++;
      if (this.out.length < this.keep) this.out.push(r);
    }
  }

  row(rid) {
    if (!this.rows.has(rid)) this.rows.set(rid, newRow(rid));
    return this.rows.get(rid);
  }

  feed(line, lineno) {
    this.lineno = lineno ?? this.lineno + 1;
    let parsed;
    try {
      parsed = parseLine(this.R, line);
    } catch {
      parsed = null;
    }
    if (parsed === null) {
      const c = clean(this.R, line);
      const m = this.R.LOOKS.exec(c);
      if (m) {
        this.malformed.push({ line: this.lineno, kind: m.groups.kind, id: Number(m.groups.id),
                              text: cps(c.slice(m.index), 160) });
      }
      return;
    }
    let [kind, rid, data] = parsed;
    if (kind === "engine") {
      this.engineAddr = this.engineAddr || data.get("addr");
      return;
    }
    for (const [key, value] of data) {
      if (isNum(value) && !Number.isFinite(value)) this.nonfinite.push({ line: this.lineno, key, value: pyRepr(value) });
    }
    if (kind === "memory") {
      const row = this.row(this.current !== null ? this.current : 0);
      if (!row.memory) row.memory = new Map();
      for (const [k, v] of data) row.memory.set(k, v);
      return;
    }
    if (kind === "train" && this.firstTrainLine === null) this.firstTrainLine = this.lineno;
    if (kind === "train" && this.anchored && this.current !== null) rid = this.current;
    else if (kind !== "train") this.anchored = true;
    const keys = [...this.rows.keys()].sort((a, b) => a - b).filter((k) => k < rid);
    const closed = keys.map((k) => {
      const r = this.rows.get(k);
      this.rows.delete(k);
      return r;
    });
    const fresh = !this.rows.has(rid);
    const row = this.row(rid);
    (row.lines ||= []).push(this.lineno);
    this.current = rid;
    if (kind === "eval") {
      const before = fresh || !(row.rollout.size || row.perf.size || row.train.size);
      const target = before ? (row.eval_before ||= new Map()) : row.eval;
      for (const [k, v] of data) target.set(k, v);
    } else if (kind === "train") {
      const same = row.train.size && eq(row.train.get("train/step"), data.get("train/step"));
      if (!same) row.train_steps = (row.train_steps || 0) + 1;
      row.train = data;
    } else if (kind === "rollout") {
      for (const [k, v] of data) row.rollout.set(k, v);
    } else {
      for (const [k, v] of data) row.perf.set(k, v);
    }
    this.emit(closed);
  }

  close() {
    const keys = [...this.rows.keys()].sort((a, b) => a - b);
    this.emit(keys.map((k) => this.rows.get(k)));
    this.rows = new Map();
    return this.out;
  }
}

const eq = (a, b) => (a === undefined ? null : a) === (b === undefined ? null : b);

export function lookup(row, key) {
  for (const section of ["rollout", "perf", "train", "eval", "memory", "lab"]) {
    const part = row[section];
    if (part && part.has(key)) return part.get(key);
  }
  return null;
}

const num = (x) => (isNum(x) ? x : null);

/** read_run.zero_std_counts: the step's groups without spread by reward key suffix. */
function zeroStdCounts(R, row) {
  const prefix = R.rules.zero_std_count;
  const out = new Map();
  for (const section of ["rollout", "perf"]) {
    const part = row[section];
    if (!part) continue;
    for (const [key, value] of part) if (key.startsWith(prefix) && isNum(value)) out.set(key.slice(prefix.length), value);
  }
  return out;
}

/** read_run.zero_std_step: count, share (null when unknown) and how, or null when not logged. */
function zeroStdStep(R, row, groups) {
  const counts = zeroStdCounts(R, row);
  const shares = R.rules.zero_std_shares.map((k) => num(lookup(row, k)));
  if (!counts.size && shares.every((x) => x === null)) return null;
  const n = [...counts.values()].reduce((a, v) => a + v, 0);
  if (groups) return { count: n, share: n / groups, how: "counts" };
  if (!counts.size) return { count: 0, share: 0.0, how: "counts" };
  const uncovered = [...counts.keys()].filter((r) => !R.rules.zero_std_shared_rewards.includes(r)).sort();
  if (!uncovered.length && shares.some((x) => x !== null)) {
    return { count: n, share: shares.reduce((a, x) => a + (x === null ? 0 : x), 0), how: "shares" };
  }
  return { count: n, share: null, how: "counts", uncovered };
}

function signalValue(R, row, keys, groups) {
  for (const key of keys) {
    if (key === R.rules.zero_std_signal) {
      const z = zeroStdStep(R, row, groups);
      return z === null ? null : z.share;
    }
    const v = num(lookup(row, key));
    if (v !== null) return v;
  }
  return null;
}

// ---------------------------------------------------------------- the judges (read_run.judge_*)
function grade(m, badAt, watchAt, bad, watch, ok) {
  if (m >= badAt) return ["bad", bad];
  if (m >= watchAt) return ["watch", watch];
  return ["ok", ok];
}

const JUDGES = {
  reward(v) {
    if (v.every((x) => x === 0)) {
      const read = v.length === 1 ? "the one step read" : `all ${v.length} steps read`;
      return ["bad", `raw reward is 0 in ${read}: no sample earned a reward (check the label key, the answer format, --rm-type)`];
    }
    if (v.length > 1 && pyMax(v) - pyMin(v) === 0) return ["watch", "raw reward does not move at all"];
    return ["ok", `raw reward ${general(v[0], 3)} → ${general(v.at(-1), 3)}`];
  },
  response_length(v, C) {
    if (v.at(-1) < C["reader.length_shrink"] * v[0]) return ["watch", `responses shrank from ${fixed(v[0], 0)} to ${fixed(v.at(-1), 0)} tokens`];
    if (v.at(-1) > C["reader.length_grow"] * v[0]) return ["watch", `responses grew from ${fixed(v[0], 0)} to ${fixed(v.at(-1), 0)} tokens`];
    return ["ok", `mean length ${fixed(v[0], 0)} → ${fixed(v.at(-1), 0)} tokens`];
  },
  truncation(v, C) {
    const m = median(v);
    return grade(m, C["reader.truncation_bad"], C["reader.truncation_watch"],
      `median ${percent(m)} of responses hit the length cap (raise --rollout-max-response-len or shorten answers)`,
      `median ${percent(m)} of responses hit the length cap`, `median ${percent(m)} truncated`);
  },
  zero_std(v, C) {
    const m = median(v);
    return grade(m, C["reader.zero_std_bad"], C["reader.zero_std_watch"],
      `median ${percent(m)} of groups have one reward for every sample: GRPO learns nothing from them`,
      `median ${percent(m)} of groups carry no signal (all samples scored alike)`,
      `median ${percent(m)} of groups without signal`);
  },
  logprob_gap(v, C) {
    const m = median(v);
    if (m >= C["reader.logprob_gap_bad"]) {
      return ["bad", `median gap ${general(m, 3)} between trainer and rollout log-probs: the two sides compute different models`];
    }
    const grows = v.length > 2 && v.at(-1) > C["reader.logprob_gap_growth"] * v[0] && v.at(-1) > C["reader.logprob_gap_floor"];
    if (m >= C["reader.logprob_gap_watch"] || grows) return ["watch", `gap ${general(v[0], 3)} → ${general(v.at(-1), 3)} (small and stable is healthy)`];
    return ["ok", `median gap ${general(m, 3)}`];
  },
  clip_fraction(v, C) {  // read_run.judge_clipfrac: bad above (not at) the guide's red flag
    const m = pyMax(v);
    if (m > C["reader.clipfrac_bad"]) {
      return ["bad", `up to ${percent(m)} of tokens clipped: the policy moves too fast (lower --lr)`];
    }
    if (m >= C["reader.clipfrac_watch"]) return ["watch", `up to ${percent(m)} of tokens clipped`];
    return ["ok", `at most ${percent(m)} clipped`];
  },
  grad_norm(v, C) {
    if (v.some((x) => !Number.isFinite(x))) return ["bad", "gradient norm is NaN or infinite"];
    const clip = C["reader.grad_norm_clip"];
    const over = v.filter((x) => x >= clip).length;
    const tail = `${over} of ${v.length} steps at or above the default clip of ${general(clip)} (max ${general(pyMax(v), 3)})`;
    if (over > v.length / 2) return ["bad", tail];
    if (over) return ["watch", tail];
    return ["ok", `max ${general(pyMax(v), 3)}`];
  },
  step_time(v, C) {
    const rest = v.length > 1 ? v.slice(1) : v;
    const m = median(rest);
    if (rest.length > 2 && pyMax(rest) > C["reader.step_time_spike"] * m) {
      return ["watch", `a step took ${fixed(pyMax(rest), 0)} s against a median of ${fixed(m, 0)} s`];
    }
    return ["ok", `median ${fixed(m, 1)} s after the first step`];
  },
};

/** read_run.judge_zero_std_steps: from the shares when every step's is known, else unknown. */
function judgeZeroStdSteps(zs, C) {
  if (zs.some((z) => z.share === null)) {
    const counts = zs.map((z) => general(z.count)).join(", ");
    const uncovered = [...new Set(zs.flatMap((z) => z.uncovered || []))].sort();
    const why = uncovered.length
      ? `the logged all_zero/all_one shares count rewards 0.0 and 1.0 only, not count_${uncovered.join(", count_")}`
      : "the log gives no all_zero/all_one shares";
    return ["unknown", `groups without spread per step: ${counts}; ${why}, so the share needs the number of `
      + "groups: pass --groups N (your --rollout-batch-size) or --run FILE"];
  }
  if (zs.some((z) => z.share > 1)) {
    const most = pyMax(zs.map((z) => z.count));
    return ["unknown", `${general(most)} groups without spread in one step, more than the number of groups given: `
      + "pass the run's --rollout-batch-size as --groups N"];
  }
  return JUDGES.zero_std(zs.map((z) => z.share), C);
}

/** read_run.read_run: the table of the first `steps` rows and one verdict per signal. */
export function readRun(R, rows, steps = 10, groups = null) {
  rows = rows.slice(0, steps);
  const signals = R.rules.signals;
  const table = rows.map((r) => {
    const t = { step: r.step };
    for (const s of signals) t[s.name] = signalValue(R, r, s.keys, groups);
    return t;
  });
  const zs = rows.map((r) => zeroStdStep(R, r, groups));
  table.forEach((t, i) => { t.zero_std_groups = zs[i] === null ? null : zs[i].count; });
  const verdicts = {};
  for (const s of signals) {
    const values = table.map((t) => t[s.name]).filter((x) => x !== null);
    const judge = JUDGES[s.name];
    let verdict;
    let reason;
    if (s.name === "zero_std" && zs.some((z) => z !== null)) [verdict, reason] = judgeZeroStdSteps(zs.filter((z) => z !== null), R.cut);
    else if (!judge) [verdict, reason] = ["n/a", `this page does not judge ${s.name} yet`];
    else if (values.length) [verdict, reason] = judge(values, R.cut);
    else [verdict, reason] = ["n/a", `not in the log (${s.keys.join(", ")})`];
    verdicts[s.name] = { verdict, reason };
  }
  return { steps: table, verdicts, groups };
}

/** read_run._cell: a table cell; an unknown zero-std share shows its count as `N of ?`. */
export function cell(signal, t) {
  const v = t[signal.name];
  if (v !== null && v !== undefined) return formatValue(signal.format, v);
  if (signal.name === "zero_std" && t.zero_std_groups !== null && t.zero_std_groups !== undefined) return `${general(t.zero_std_groups)} of ?`;
  return "-";
}

/** A signal's value as read_run's table prints it (`{:.3f}`, `{:.0%}`, ...). */
export function formatValue(fmt, x) {
  if (x === null || x === undefined) return "-";
  const m = /^\{:\.(\d+)([f%g])\}$/.exec(fmt);
  if (!m) return String(x);
  const n = Number(m[1]);
  return m[2] === "f" ? fixed(x, n) : m[2] === "%" ? percent(x, n) : general(x, n);
}

// ---------------------------------------------------------------- --diagnose
function finds(line, parts) {
  let pos = 0;
  for (const part of parts) {
    const i = line.indexOf(part, pos);
    if (i < 0) return false;
    pos = i + part.length;
  }
  return true;
}

const plain = (title) => title.replace(/\{[a-z-]+\}`([^`]*)`/g, "$1").replaceAll("`", "");

/** Python's str.strip() over the whitespace str.isspace() knows. */
const PY_SPACE = "[\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, "g");
const pyStrip = (s) => s.replace(PY_STRIP, "");

// ---------------------------------------------------------------- the run's arguments, read as bash reads them
// read_run.py's argument reader, line for line; the page has no files, so a `base:` is never read.
const BACKEND_FLAG = "--train-backend";
const DYNAMIC_FLAG = "--use-dynamic-batch-size";
const SHELL_BREAKS = " \t\n;&|()<>";
const RUN_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** read_run.FLAG_WORD_RE: `--name` or `--name=value`. */
/** read_run.OOM_LINE: the characters (code points) of a line the out-of-memory figures are read from. */
const OOM_LINE = 16384;
const FLAG_WORD_RE = /^--[A-Za-z0-9][A-Za-z0-9_.-]*(?:=|$)/;
const isAsciiAlpha = (c) => /^[A-Za-z]$/.test(c);
const isAsciiAlnum = (c) => /^[A-Za-z0-9]$/.test(c);

/** read_run._expansion_end. */
function expansionEnd(text, i) {
  const n = text.length;
  if (text[i] === "`") {
    const j = text.indexOf("`", i + 1);
    return j < 0 ? n : j + 1;
  }
  const nxt = i + 1 < n ? text[i + 1] : "";
  if (nxt === "{" || nxt === "(") {
    const close = nxt === "{" ? "}" : ")";
    let depth = 0;
    for (let j = i + 1; j < n; j++) {
      if (text[j] === nxt) depth += 1;
      else if (text[j] === close) {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
    }
    return n;
  }
  if (isAsciiAlpha(nxt) || nxt === "_") {
    let j = i + 2;
    while (j < n && (isAsciiAlnum(text[j]) || text[j] === "_")) j += 1;
    return j;
  }
  if (nxt !== "" && "0123456789@*#?$!-".includes(nxt)) return i + 2;
  return -1;
}

/** read_run._take: push the character or expansion at i onto cur; [next index, the expansion or null]. */
function take(text, i, cur) {
  const j = text[i] === "$" || text[i] === "`" ? expansionEnd(text, i) : -1;
  if (j < 0) {
    cur.push(text[i]);
    return [i + 1, null];
  }
  cur.push(text.slice(i, j));
  return [j, text.slice(i, j)];
}

/** read_run._heredoc_end: the index of the line break after a here-document's delimiter line, or the end. */
function heredocEnd(text, i, delim, tabs) {
  const n = text.length;
  while (i < n) {
    const j = text.indexOf("\n", i);
    const e = j < 0 ? n : j;
    const line = text.slice(i, e);
    if ((tabs ? line.replace(/^\t+/, "") : line) === delim) return e;
    i = e + 1;
  }
  return n;
}

/** read_run.shell_words: [word, its first unexpanded expansion or null]; a here-document's body is no words. */
export function shellWords(text) {
  const words = [];
  let cur = null;
  let exp = null;
  let heredocs = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === "<" && text.startsWith("<<", i) && !text.startsWith("<<<", i)) {
      if (cur !== null) words.push([cur.join(""), exp]);
      cur = null;
      exp = null;
      let j = i + 2;
      const tabs = text.startsWith("-", j);
      if (tabs) j += 1;
      while (j < n && " \t".includes(text[j])) j += 1;
      let k = j;
      while (k < n && !SHELL_BREAKS.includes(text[k])) k += 1;
      const delim = text.slice(j, k).replace(/[\\'"]/g, "");
      if (delim) heredocs.push([delim, tabs]);
      i = k;
      continue;
    }
    if (c === "\n" && heredocs.length) {
      if (cur !== null) words.push([cur.join(""), exp]);
      cur = null;
      exp = null;
      for (const [delim, tabs] of heredocs) i = i < n ? heredocEnd(text, i + 1, delim, tabs) : n;
      heredocs = [];
      continue;
    }
    if (c === "\\") {
      if (i + 1 < n && text[i + 1] === "\n") {
        i += 2;
        continue;
      }
      cur = cur ?? [];
      cur.push(i + 1 < n ? text[i + 1] : "\\");
      i += 2;
      continue;
    }
    if (SHELL_BREAKS.includes(c)) {
      if (cur !== null) words.push([cur.join(""), exp]);
      cur = null;
      exp = null;
      i += 1;
      continue;
    }
    if (c === "#" && cur === null) {
      const j = text.indexOf("\n", i);
      i = j < 0 ? n : j;
      continue;
    }
    cur = cur ?? [];
    if (c === "'") {
      let j = text.indexOf("'", i + 1);
      j = j < 0 ? n : j;
      cur.push(text.slice(i + 1, j));
      i = j + 1;
      continue;
    }
    if (c === '"') {
      i += 1;
      while (i < n && text[i] !== '"') {
        const d = text[i];
        if (d === "\\" && i + 1 < n && '$`"\\\n'.includes(text[i + 1])) {
          if (text[i + 1] !== "\n") cur.push(text[i + 1]);
          i += 2;
          continue;
        }
        const [next, e] = take(text, i, cur);
        exp = exp ?? e;
        i = next;
      }
      i += 1;
      continue;
    }
    const [next, e] = take(text, i, cur);
    exp = exp ?? e;
    i = next;
  }
  if (cur !== null) words.push([cur.join(""), exp]);
  return words;
}

/** read_run._yaml_scalar. */
function yamlScalar(s) {
  s = pyStrip(s);
  if (s.startsWith('"')) {
    const out = [];
    let i = 1;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === "\\" && i + 1 < s.length) i += 1;
      out.push(s[i]);
      i += 1;
    }
    return out.join("");
  }
  if (s.startsWith("'")) {
    const out = [];
    let i = 1;
    while (i < s.length) {
      if (s[i] === "'") {
        if (s.slice(i + 1, i + 2) !== "'") break;
        i += 1;
      }
      out.push(s[i]);
      i += 1;
    }
    return out.join("");
  }
  const j = s.indexOf(" #");
  return pyStrip(j < 0 ? s : s.slice(0, j));
}

/** read_run._flow_items: a one-line YAML flow list's items, or null. */
function flowItems(s) {
  s = pyStrip(s);
  if (!s.startsWith("[")) return null;
  const items = [];
  let cur = [];
  let quote = "";
  let i = 1;
  while (i < s.length) {
    const c = s[i];
    if (quote) {
      if (c === "\\" && quote === '"' && i + 1 < s.length) {
        cur.push(s.slice(i, i + 2));
        i += 2;
        continue;
      }
      if (c === quote) quote = "";
      cur.push(c);
    } else if (c === "'" || c === '"') {
      quote = c;
      cur.push(c);
    } else if (c === "," || c === "]") {
      items.push(cur.join(""));
      cur = [];
      if (c === "]") return items.filter((x) => pyStrip(x)).map(yamlScalar);
    } else cur.push(c);
    i += 1;
  }
  return null;
}

/** read_run.run_file_args: a run file's args list, base and dropped flags; null for shell text. */
export function runFileArgs(text) {
  const lines = text.split("\n").map(pyStrip).filter((ln) => ln && !ln.startsWith("#"));
  if (lines.length && lines.every((ln) => ln === "-" || ln.startsWith("- "))) text = "args:\n" + text; // a run file's args list alone
  else if (!/(?:^|\n)args:/.test(text)) return null;
  const args = [];
  let base = null;
  const drop = [];
  let key = "";
  for (const line of text.split("\n")) {
    if (!["", " ", "\t", "#", "-"].includes(line.slice(0, 1))) {
      const at = line.indexOf(":");
      key = pyStrip(at < 0 ? line : line.slice(0, at));
      const rest = at < 0 ? "" : line.slice(at + 1);
      if (key === "base") base = yamlScalar(rest) || null;
      else if (key === "args") args.push(...(flowItems(rest) ?? [])); // `args: [--a, b]` on one line
      continue;
    }
    const item = pyStrip(line);
    if (key === "args" && (item === "-" || item.startsWith("- "))) args.push(yamlScalar(item.slice(1)));
    else if (key === "drop") {
      const m = /^["']?(--[A-Za-z0-9][A-Za-z0-9_-]*)["']?[ \t]*:/.exec(item);
      if (m) drop.push(m[1]);
    }
  }
  return { words: args.map((a) => [a, null]), base, drop };
}

/** read_run.read_arguments. */
export function readArguments(text) {
  text = text.replaceAll("\r\n", "\n");
  return runFileArgs(text) ?? { words: shellWords(text), base: null, drop: [] };
}

/** read_run.passes_arguments: a --flag word or a base; else the text is refused. */
export function passesArguments(text) {
  const args = readArguments(text);
  return Boolean(args.base) || args.words.some(([w]) => FLAG_WORD_RE.test(w));
}

/** read_run.shown. */
function shown(text) {
  const s = pyStrip(text.replace(/[\x00-\x20\x7f]+/g, " "));
  const chars = [...s];
  return chars.length <= 40 ? s : chars.slice(0, 40).join("") + "...";
}

/** read_run._own_settings. */
function ownSettings(R, words) {
  const got = { backend: null, backend_unknown: null, dynamic_batch: null };
  const backends = R.rules.backends;
  words.forEach(([w, exp], k) => {
    if (w === DYNAMIC_FLAG) got.dynamic_batch = "on";
    let value = null;
    if (w === BACKEND_FLAG) value = k + 1 < words.length ? words[k + 1] : ["", null];
    else if (w.startsWith(BACKEND_FLAG + "=")) value = [w.slice(BACKEND_FLAG.length + 1), exp];
    if (value === null) return;
    const [v, vexp] = value;
    got.backend = null;
    got.backend_unknown = null;
    if (vexp !== null) got.backend_unknown = shown(vexp);
    else if (backends.includes(v)) got.backend = v;
    else if (v === "") got.backend_unknown = "no value after it";
    else got.backend_unknown = `${shown(v)}, not a choice: ${backends.join(" or ")}`;
  });
  return got;
}

/** read_run.settings_of_args, with no base reader (the page reads no file a `base:` names). */
export function settingsOfArgs(R, text, source) {
  const args = readArguments(text);
  const own = ownSettings(R, args.words);
  const out = { from: source, line: null, backend: own.backend, dynamic_batch: own.dynamic_batch, unknown: {} };
  if (own.backend_unknown !== null) out.unknown.backend = own.backend_unknown;
  const base = args.base;
  if (base) {
    let why = `from base: ${shown(base)}, not read`;
    if (!RUN_ID_RE.test(base)) why = `from base: ${shown(base)}, not a run id`;
    for (const [name, flag] of [["backend", BACKEND_FLAG], ["dynamic_batch", DYNAMIC_FLAG]]) {
      if (out[name] !== null || name in out.unknown || args.drop.includes(flag)) continue;
      out.unknown[name] = why;
    }
  }
  if (out.backend === null && !("backend" in out.unknown)) out.backend = R.rules.default_backend;
  if (out.dynamic_batch === null && !("dynamic_batch" in out.unknown)) out.dynamic_batch = "off";
  return out;
}

/** read_run._dump_settings: Megatron's argument dump, or unknown. */
function dumpSettings(R, seen, first) {
  if (first === null) return { from: null, line: null, backend: null, dynamic_batch: null };
  const dyn = { True: "on", False: "off" }[seen.get("use_dynamic_batch_size") ?? ""] ?? null;
  return { from: "dump", line: first, backend: seen.get("train_backend") ?? R.rules.default_backend, dynamic_batch: dyn };
}

/** read_run.settings_note. */
export function settingsNote(s) {
  s = s || {};
  if (!s.from) {
    return "Run settings: unknown (no --run FILE, and no Megatron argument dump in the log; FSDP prints none). "
      + "Fixes that need a backend or a setting name it.";
  }
  const where = { run: "the run file", dump: `Megatron's argument dump (line ${s.line})`, pasted: "the pasted arguments" }[s.from] ?? s.from;
  const unknown = s.unknown || {};
  let dyn = { on: "with", off: "without" }[s.dynamic_batch || ""] ?? "unknown";
  dyn = dyn === "unknown" ? dyn : `${dyn} --use-dynamic-batch-size`;
  if ("dynamic_batch" in unknown) dyn = `--use-dynamic-batch-size unknown (${unknown.dynamic_batch})`;
  let backend = s.backend || "unknown";
  if ("backend" in unknown) backend = `unknown (${unknown.backend})`;
  const tail = Object.keys(unknown).length ? " Fixes that need an unknown setting name it." : "";
  return `Run settings, from ${where}: --train-backend ${backend}, ${dyn}.${tail}`;
}

function fill(text, params) {
  for (const [k, v] of params) text = text.replaceAll(`{${k}}`, String(v));
  return text;
}

function says(E, fact, value, params) {
  if (fact === "phase") {
    for (const ph of E.phases) if (ph.id === value) return fill(ph.says, params);
  }
  const t = (E.facts[fact] || {})[value];
  return fill(t === undefined ? `${fact} is ${value}` : t, params);
}

/** read_run._weigh: +1 per agreeing condition, -1 per contradicting one, the sentences, any unknown. */
function weigh(E, when, facts, params) {
  let score = 0;
  let unknown = false;
  const why = [];
  const against = [];
  for (const c of when) {
    const v = facts[c.fact];
    if (v === undefined || v === null) unknown = true;
    else if (c.in.includes(v)) {
      score++;
      why.push(says(E, c.fact, v, params));
    } else {
      score--;
      against.push(says(E, c.fact, v, params));
    }
  }
  return [score, why, against, unknown];
}

/** read_run._context_facts: the phase and the sizes, from the lines around an entry's first line. */
function contextFacts(R, before, hit, after, timer, facts, params) {
  const ctx = [...before, hit, ...after];
  for (const ph of R.E.phases) {
    const marker = ph.markers.find((mk) => ctx.some((ln) => ln.includes(mk)));
    if (marker !== undefined) {
      facts.phase = ph.id;
      params.set("marker", marker);
      break;
    }
  }
  if (facts.phase === undefined && timer !== null) {
    for (const ph of R.E.phases) {
      if (ph.timers.includes(timer)) {
        facts.phase = ph.id;
        params.set("marker", `Timer ${timer} start`);
        break;
      }
    }
  }
  factsAlloc(R, [hit, ...after, ...before], facts, params);
  if (ctx.some((ln) => ln.includes("undefined symbol"))) facts.abi = "mismatch";
}

const gib = (R, n) => `${fixed(n / R.rules.units.GiB, 2)} GiB`;

/** read_run.facts_alloc: torch_memory_saver's margin refused the request, or what PyTorch held reserved but
 * unallocated is at least the request (fragmented) or less (whole). */
function factsAlloc(R, ctx, facts, params) {
  const u = R.rules.units;
  for (const ln of ctx) {
    const m = R.MARGIN.exec(ln);
    if (m) {
      facts.alloc = "margin";
      params.set("want", gib(R, Number(m.groups.size)));
      params.set("free", gib(R, Number(m.groups.free)));
      params.set("margin", gib(R, Number(m.groups.margin)));
      return;
    }
  }
  for (let ln of ctx) {
    if (ln.length > OOM_LINE) ln = Array.from(ln.slice(0, 2 * OOM_LINE)).slice(0, OOM_LINE).join(""); // ln[:OOM_LINE]
    const w = R.WANT.exec(ln);
    if (!w) continue;
    const want = Number(w.groups.want) * u[w.groups.wu];
    let unalloc;
    let said;
    const r = R.UNALLOC.exec(ln);
    if (r) {
      unalloc = Number(r.groups.res) * u[r.groups.ru];
      said = `${r.groups.res} ${r.groups.ru}`;
    } else {
      const o = R.RESERVED_OLD.exec(ln);
      if (!o) continue;
      unalloc = Math.max(0, Number(o.groups.res) * u[o.groups.ru] - Number(o.groups.alloc) * u[o.groups.au]);
      said = gib(R, unalloc);
    }
    facts.alloc = unalloc >= want ? "fragmented" : "whole";
    params.set("want", `${w.groups.want} ${w.groups.wu}`);
    params.set("unalloc", said);
    return;
  }
}

/** read_run._report_facts: how many steps show the signal, the truncation verdict, the gradient norm. */
function reportFacts(report, signal, facts, params) {
  if (!report) return;
  if (signal) {
    const n = report.steps.filter((t) => t[signal] !== null && t[signal] !== undefined).length;
    facts.steps = n === 1 ? "one" : "several";
    params.set("steps", n);
  }
  const v = report.verdicts.truncation;
  if (v && ["ok", "watch", "bad"].includes(v.verdict)) {
    facts.truncation = v.verdict;
    params.set("reason", v.reason);
  }
  const grads = report.steps.map((t) => t.grad_norm).filter((g) => g !== null && g !== undefined);
  if (grads.length) {
    const bad = (report.verdicts.grad_norm || {}).verdict === "bad";
    facts.grad = grads.some((g) => !Number.isFinite(g)) ? "nonfinite" : bad ? "large" : "ok";
  }
}

/** read_run._causes: the causes in the order to check (shown up, contradicted down), with their fixes for this run. */
function causesOf(E, sym, facts, params) {
  const out = (sym.causes || []).map((c, i) => {
    const [score, why, against] = weigh(E, c.when || [], facts, params);
    const fixes = [];
    for (const f of c.fixes) {
      const [, , against, unknown] = weigh(E, f.when || [], facts, params);
      if (against.length) continue;
      fixes.push(unknown && f.needs ? `${f.needs}: ${f.fix}` : f.fix);
    }
    return [{ cause: c.cause, tells: c.tells, why, against, fixes }, score, i];
  });
  out.sort(([, a, i], [, b, j]) => b - a || i - j);
  return out.map(([c]) => c);
}

/** The line-by-line half of read_run.diagnose: feed lines, then finish() with the report. */
export class Diagnoser {
  constructor(R) {
    this.R = R;
    this.found = new Map();
    this.notes = []; // lines healthy runs print too (read_run.examine), filled by finish()
    this.later = new Map(); // after_step entries: every matching line, judged at finish()
    this.openTimers = new Map();
    this.window = R.E.window;
    this.before = [];
    this.pending = [];
    this.readyLine = null;
    this.labels = []; // the label= of each sample line (read_run.diagnose's `labels`)
    this.timerPhase = new Set(R.E.phases.flatMap((ph) => ph.timers));
  }

  feed(raw, n) {
    const line = clean(this.R, raw);
    if (line.includes("label=")) {
      const sample = this.R.SAMPLE.exec(line);
      if (sample) this.labels.push(sample.groups.label);
    }
    const timer = this.R.TIMER.exec(line);
    if (timer) {
      if (timer.groups.what === "start") this.openTimers.set(timer.groups.name, [n, cps(pyStrip(line), 200)]);
      else this.openTimers.delete(timer.groups.name);
    }
    if (this.readyLine === null && this.R.E.ready.some((r) => line.includes(r))) this.readyLine = n;
    for (const p of this.pending) {
      p[1]._after.push(line);
      p[0]--;
    }
    this.pending = this.pending.filter((p) => p[0] > 0);
    for (const sym of this.R.symptoms) {
      if (sym.parts.some((p) => finds(line, p))) {
        if (sym.after_step) {
          if (!this.later.has(sym.id)) this.later.set(sym.id, []);
          this.later.get(sym.id).push([n, line]);
          continue;
        }
        const hit = this.found.get(sym.id);
        if (hit === undefined) {
          const h = { id: sym.id, line: n, count: 1, text: cps(pyStrip(line), 200) };
          let inner = null;
          for (const [k, v] of this.openTimers) {
            if (this.timerPhase.has(k) && (inner === null || v[0] > inner[0] || (v[0] === inner[0] && k > inner[1]))) inner = [v[0], k];
          }
          Object.assign(h, { _before: this.window ? this.before.slice(-this.window) : [], _hit: line, _after: [],
                             _timer: inner ? inner[1] : null });
          if (this.window) this.pending.push([this.window, h]);
          this.found.set(sym.id, h);
        } else hit.count++;
      }
    }
    if (this.window) {
      this.before.push(line);
      if (this.before.length > this.window) this.before.shift();
    }
  }

  finish(report, settings = null) {
    // Python fills `found` in line order; rebuild that order with the after_step hits put back in.
    const firstStep = report ? report.first_train_line ?? null : null;
    const found = new Map();
    const byLine = [...this.found.values()].map((h) => [h.line, h]);
    for (const [id, hits] of this.later) {
      const kept = firstStep === null ? [] : hits.filter(([n]) => n > firstStep);
      if (kept.length) byLine.push([kept[0][0], { id, line: kept[0][0], count: kept.length, text: cps(pyStrip(kept[0][1]), 200) }]);
    }
    const order = new Map(this.R.symptoms.map((s, i) => [s.id, i]));
    byLine.sort(([a, x], [b, y]) => a - b || order.get(x.id) - order.get(y.id));
    for (const [, h] of byLine) found.set(h.id, h);
    for (const sym of this.R.symptoms) {
      const ignore = sym.open_timer ? sym.open_timer.ignore : null;
      const still = ignore ? [...this.openTimers].filter(([k]) => !ignore.includes(k)).map(([, v]) => v) : [];
      if (still.length && !found.has(sym.id)) {
        const last = still.reduce((a, v) => (v[0] > a[0] || (v[0] === a[0] && v[1] > a[1]) ? v : a));
        found.set(sym.id, { id: sym.id, line: last[0], count: still.length, open_timers: true, text: last[1] });
      }
    }
    if (report) {
      for (const sym of this.R.symptoms) {
        const name = sym.signal;
        const v = name ? report.verdicts[name] : undefined;
        if (v && v.verdict === "bad" && !found.has(sym.id)) {
          found.set(sym.id, { id: sym.id, line: report.first_line ?? null, count: 1, signal: name, text: `${name}: ${v.reason}` });
        }
      }
    }
    const stepsAt = report ? report.first_line ?? null : null;
    const marks = [this.readyLine, stepsAt].filter((x) => x !== null);
    const readyAt = marks.length ? Math.min(...marks) : null;
    const run = settings || {};
    const E = this.R.E;
    const byId = new Map(this.R.symptoms.map((s) => [s.id, s]));
    const hits = [...found.values()].map((h, i) => [h, i]);
    hits.sort(([a, i], [b, j]) => (a.line === null) - (b.line === null) || (a.line || 0) - (b.line || 0) || i - j);
    // read_run.examine: a line healthy runs print too is a note, never an entry; the fact it shows is evidence
    this.notes = [];
    const seen = new Map();
    for (const [hit] of hits) {
      const sym = byId.get(hit.id);
      if (!sym.healthy_too) continue;
      this.notes.push({ id: hit.id, line: hit.line, count: hit.count, text: hit.text, title: plain(sym.title),
                        section: sym.section, url: `${this.R.rules.page_path}#${sym.id}`, note: sym.healthy_too.note });
      const sets = sym.healthy_too.sets;
      if (sets && !seen.has(sets.fact)) seen.set(sets.fact, [sets.value, hit.line]);
    }
    // read_run.examine: the lines of entries that name an error of their own (not a report of another: rank asks `others`)
    const asks = (sym, fact) => (sym.rank || []).some((c) => c.fact === fact);
    const specific = [...found.values()].filter((h) => h.line !== null && h.signal === undefined && !h.open_timers
      && !byId.get(h.id).healthy_too && !asks(byId.get(h.id), "others")).map((h) => h.line);
    const out = hits.filter(([hit]) => !byId.get(hit.id).healthy_too).map(([hit]) => {
      const sym = byId.get(hit.id);
      const facts = {};
      for (const k of ["backend", "dynamic_batch"]) if (run[k] !== null && run[k] !== undefined) facts[k] = run[k];
      const params = new Map([["line", hit.line]]);
      for (const [fact, [value, at]] of seen) {
        facts[fact] = value;
        params.set("seen_line", at);
      }
      if (asks(sym, "others")) {
        facts.others = specific.length ? "matched" : "none";
        if (specific.length) params.set("other_line", Math.min(...specific));
      }
      if (this.labels.length) {
        facts.label = this.labels.includes("None") ? "none" : "set";
        params.set("labels", this.labels.length);
      }
      const { _before, _hit, _after, _timer, ...clean } = hit;
      if (_hit !== undefined) contextFacts(this.R, _before, _hit, _after, _timer, facts, params);
      if (clean.signal === undefined && clean.line !== null) facts.ready = readyAt !== null && readyAt < clean.line ? "after" : "before";
      reportFacts(report, clean.signal, facts, params);
      const [score, why, against] = weigh(E, sym.rank || [], facts, params);
      return { ...clean, title: plain(sym.title), section: sym.section, url: `${this.R.rules.page_path}#${sym.id}`,
               check: sym.check, fix: sym.fix, facts, score, why, against, causes: causesOf(E, sym, facts, params) };
    });
    const ranked = out.map((m, i) => [m, i]);
    ranked.sort(([a, i], [b, j]) => b.score - a.score || i - j);
    return arrange(this.R, ranked.map(([m]) => m));
  }
}

/** read_run._moves: the flags an entry's fixes move, and which way. */
function moves(R, m) {
  const out = new Map();
  // the causes this log argues against are left out (read_run._moves)
  for (const t of [m.fix, ...m.causes.filter((c) => !c.against.length).flatMap((c) => c.fixes)]) {
    for (const x of t.matchAll(R.MOVE)) if (!out.has(x.groups.flag)) out.set(x.groups.flag, x.groups.how.toLowerCase());
  }
  return out;
}

/** read_run._same_line: two matches on one log line (signals are on none). */
const sameLine = (a, b) => a.line !== null && a.line === b.line && a.signal === undefined && b.signal === undefined;

/** read_run.arrange: one entry per line and section (others `also_matched`), the tie said (`undecided`), and
 * fixes that move one flag both ways (`opposite`). */
function arrange(R, ranked) {
  const kept = [];
  for (const m of ranked) {
    const home = kept.find((k) => sameLine(k, m) && k.section === m.section);
    if (home === undefined) kept.push({ ...m, also_matched: [], undecided: [], opposite: [] });
    else home.also_matched.push({ id: m.id, title: m.title, section: m.section, url: m.url, score: m.score, check: m.check });
  }
  if (kept.length) {
    const top = kept[0];
    const tied = [...top.also_matched.filter((a) => a.score === top.score),
                  ...kept.slice(1).filter((m) => sameLine(m, top) && m.score === top.score)];
    top.undecided = tied.map((t) => ({ id: t.id, title: t.title, section: t.section, url: t.url, check: t.check }));
  }
  const mv = kept.map((m) => [m, moves(R, m)]);
  for (const [m, mine] of mv) {
    for (const [other, theirs] of mv) {
      if (other === m) continue;
      for (const [flag, how] of mine) {
        if ((theirs.get(flag) ?? how) !== how) {
          const stops = [m, other].filter((x) => x.signal === undefined && x.line !== null);
          let first;
          let why;
          if (stops.length === 1) [first, why] = [stops[0], "what stops the run before what its steps show"];
          else if (stops.length) [first, why] = [stops.reduce((a, x) => (x.line < a.line ? x : a)), "the earlier error line first"];
          else [first, why] = [kept.indexOf(m) < kept.indexOf(other) ? m : other, "the entry ranked higher first"];
          m.opposite.push({ flag, this: how, id: other.id, title: other.title, other: theirs.get(flag), first: first.id, why });
        }
      }
    }
  }
  return kept;
}

// ---------------------------------------------------------------- the whole reading, streamed
/** One pass over a log's lines: the diagnosis, the first-steps report, what could not be read. */
export class Reading {
  constructor(rules, steps = 10, groups = null, args = null) {
    this.R = compile(rules);
    this.steps = steps;
    this.groups = groups; // --groups N; null: the rollout_batch_size line of a Megatron log (groups_in_log)
    this.groupsInLog = null;
    // the run's arguments ({text, from}: read_run.py --run FILE, or pasted); else Megatron's argument dump
    this.settings = args && args.text ? settingsOfArgs(this.R, args.text, args.from || "pasted") : null;
    this.dumpSeen = new Map();
    this.dumpFirst = null;
    this.asm = new StepAssembler(this.R, steps);
    this.diag = new Diagnoser(this.R);
    this.n = 0;
    this.longest = 0;
  }

  line(text) {
    this.n++;
    if (text.length > this.longest) this.longest = text.length;
    this.asm.feed(text, this.n);
    this.diag.feed(text, this.n);
    const c = clean(this.R, text);
    if (this.groupsInLog === null) {
      const m = this.R.BATCH_DUMP.exec(c);
      if (m) this.groupsInLog = Number(m.groups.n);
    }
    const d = this.R.SETTING_DUMP.exec(c);
    if (d && !this.dumpSeen.has(d.groups.name)) {
      this.dumpSeen.set(d.groups.name, d.groups.v);
      this.dumpFirst = this.dumpFirst || this.n;
    }
  }

  finish() {
    const rows = this.asm.close();
    let report = null;
    if (rows.length) {
      report = readRun(this.R, rows, this.steps, this.groups ?? this.groupsInLog);
      report.malformed = this.asm.malformed;
      report.nonfinite = this.asm.nonfinite;
      report.first_line = rows[0].lines ? rows[0].lines[0] : null;
      report.first_train_line = this.asm.firstTrainLine;
    }
    const settings = this.settings ?? dumpSettings(this.R, this.dumpSeen, this.dumpFirst);
    const matches = this.diag.finish(report, settings);
    return { matches, notes: this.diag.notes, settings, malformed: this.asm.malformed, nonfinite: this.asm.nonfinite,
             report, lines: this.n, rows: this.asm.total };
  }
}

// ---------------------------------------------------------------- bytes to text (read_run.decode_log)
/** Byte-order marks, longest first (UTF-32's LE mark starts with UTF-16's), as read_run.BOMS. */
const BOMS = [[[0xff, 0xfe, 0x00, 0x00], "utf-32le"], [[0x00, 0x00, 0xfe, 0xff], "utf-32be"], [[0xef, 0xbb, 0xbf], "utf-8"],
              [[0xff, 0xfe], "utf-16le"], [[0xfe, 0xff], "utf-16be"]];

/** The encoding a file's first bytes name by a byte-order mark, and the mark's length; else null. */
export function sniff(bytes) {
  for (const [mark, codec] of BOMS) if (mark.every((b, i) => bytes[i] === b)) return { codec, skip: mark.length };
  return null;
}

class UndecodableError extends Error {}

/** UTF-32, which TextDecoder lacks: strict, streaming over chunks of any length. */
class Utf32Decoder {
  constructor(little) {
    this.little = little;
    this.rest = new Uint8Array(0);
  }

  decode(bytes, { stream = false } = {}) {
    const all = new Uint8Array(this.rest.length + bytes.length);
    all.set(this.rest);
    all.set(bytes, this.rest.length);
    const whole = all.length - (all.length % 4);
    let out = "";
    const view = new DataView(all.buffer, all.byteOffset, whole);
    for (let i = 0; i < whole; i += 4) {
      const cp = view.getUint32(i, this.little);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new UndecodableError("not UTF-32");
      out += String.fromCodePoint(cp);
    }
    this.rest = all.slice(whole);
    if (!stream && this.rest.length) throw new UndecodableError("truncated UTF-32");
    return out;
  }
}

/** A strict decoder (throws on bytes the codec cannot read), or a replacing one for UTF-8. */
export function decoder(codec, strict = true) {
  if (codec === "utf-32le" || codec === "utf-32be") return new Utf32Decoder(codec === "utf-32le");
  return new TextDecoder(codec, { fatal: strict, ignoreBOM: true });
}

const NAMES_OF = { "utf-8": "UTF-8", "utf-16le": "UTF-16-LE", "utf-16be": "UTF-16-BE", "utf-32le": "UTF-32-LE", "utf-32be": "UTF-32-BE" };
export const TRIED = "UTF-8, a UTF-16/UTF-32 byte-order mark and UTF-16 without one";

async function* chunks(file, chunk, from = 0) {
  for (let at = from; at < file.size; at += chunk) {
    yield [at, new Uint8Array(await file.slice(at, Math.min(at + chunk, file.size)).arrayBuffer())];
  }
}

/** Does the whole file decode strictly in `codec` (from byte `from`)? */
async function decodes(file, codec, chunk, from = 0) {
  const dec = decoder(codec);
  try {
    for await (const [at, bytes] of chunks(file, chunk, from)) dec.decode(bytes, { stream: at + chunk < file.size });
    if (file.size <= from) dec.decode(new Uint8Array(0));
    return true;
  } catch {
    return false;
  }
}

/**
 * read_run.decode_log's choice over a file read in chunks: {codec, skip, strict} to read it with, or
 * {unreadable} with what was tried. One pass counts NUL bytes and undecodable UTF-8; a second
 * checks UTF-16 without a mark only where the counts point at it.
 */
export async function chooseEncoding(file, chunk = CHUNK) {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  const bom = sniff(head);
  if (bom) return { codec: bom.codec, skip: bom.skip, strict: true, bom: true };
  let nulOdd = 0;
  let nulEven = 0;
  let replaced = 0;
  let valid = true;
  const strict = decoder("utf-8");
  const loose = decoder("utf-8", false);
  for await (const [at, bytes] of chunks(file, chunk)) {
    const more = at + chunk < file.size;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0) {
        if ((at + i) % 2) nulOdd++;
        else nulEven++;
      }
    }
    if (valid) {
      try {
        strict.decode(bytes, { stream: more });
      } catch {
        valid = false;
      }
    }
    const text = loose.decode(bytes, { stream: more });
    for (let i = text.indexOf("\ufffd"); i >= 0; i = text.indexOf("\ufffd", i + 1)) replaced++;
  }
  const n = file.size;
  for (const [codec, nuls, others] of [["utf-16le", nulOdd, nulEven], ["utf-16be", nulEven, nulOdd]]) {
    if (n >= 4 && n % 2 === 0 && nuls > Math.floor(n / 4) && !others && await decodes(file, codec, chunk)) {
      return { codec, skip: 0, strict: true };
    }
  }
  if (valid) return { codec: "utf-8", skip: 0, strict: true };
  if (nulOdd + nulEven === 0 && replaced <= Math.max(8, Math.floor(n / 1000))) {
    return { codec: "utf-8", skip: 0, strict: false, replaced };
  }
  return { unreadable: `not text the reader knows: tried UTF-8 (${replaced} undecodable byte(s)), a UTF-16/UTF-32 `
    + "byte-order mark (none) and UTF-16 without one; save the log as UTF-8 (PowerShell: `| Out-File -Encoding utf8`)" };
}

/** Line splitting over chunks: a line end cut between two chunks (\r | \n) is kept whole. */
export class LineSplitter {
  constructor(onLine) {
    this.rest = "";
    this.onLine = onLine;
  }

  push(text) {
    let s = this.rest + text;
    // keep a trailing \r: its \n may be in the next chunk
    let keep = "";
    if (s.endsWith("\r")) {
      keep = "\r";
      s = s.slice(0, -1);
    }
    const parts = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
    this.rest = parts.pop() + keep;
    for (const p of parts) this.onLine(p);
  }

  end() {
    const last = this.rest;
    this.rest = "";
    if (last === "") return;
    for (const p of splitLines(last)) this.onLine(p);
  }
}

// ---------------------------------------------------------------- reading a file or a paste
export const CHUNK = 4 * 1024 * 1024;

/** Read pasted text (already decoded) line by line. */
export function readText(reading, text, progress = () => {}) {
  const split = new LineSplitter((line) => reading.line(line));
  for (let i = 0; i < text.length; i += CHUNK) {
    split.push(text.slice(i, i + CHUNK));
    progress(Math.min(i + CHUNK, text.length), text.length);
  }
  split.end();
  return { ...reading.finish(), encoding: "text", unreadable: null };
}

/** Read a File or Blob in chunks, decoded as read_run.decode_log decodes it, line by line. */
export async function readFile(reading, file, progress = () => {}, chunk = CHUNK) {
  const how = await chooseEncoding(file, chunk);
  if (how.unreadable) return { ...reading.finish(), encoding: null, unreadable: how.unreadable };
  const dec = decoder(how.codec, how.strict);
  const split = new LineSplitter((line) => reading.line(line));
  try {
    for await (const [at, bytes] of chunks(file, chunk, how.skip)) {
      split.push(dec.decode(bytes, { stream: at + chunk < file.size }));
      progress(Math.min(at + chunk, file.size), file.size);
    }
    if (file.size <= how.skip) {
      dec.decode(new Uint8Array(0));
      progress(file.size, file.size);
    }
  } catch {
    split.end();
    const name = NAMES_OF[how.codec];
    return { ...reading.finish(), encoding: how.codec,
             unreadable: `it starts with a ${name} byte-order mark but is not ${name} after line ${reading.n}; save it again as UTF-8` };
  }
  split.end();
  const note = how.replaced ? `${how.replaced} undecodable byte(s) read as \ufffd (read_run.py does the same)` : null;
  return { ...reading.finish(), encoding: how.codec, unreadable: null, replaced: note };
}
