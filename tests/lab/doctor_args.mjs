// Runs the page's argument reader (log-doctor-core.js) over texts, for tests/lab/test_doctor_parity.py.
//   node doctor_args.mjs CORE RULES < texts.json   → [{words, passes, settings, note}] in the same order
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [core, rulesPath] = process.argv.slice(2);
const { compile, shellWords, passesArguments, settingsOfArgs, settingsNote } = await import(pathToFileURL(core).href);
const R = compile(JSON.parse(readFileSync(rulesPath, "utf-8")));
const texts = JSON.parse(readFileSync(0, "utf-8"));
const out = texts.map((text) => {
  const settings = settingsOfArgs(R, text, "pasted");
  return { words: shellWords(text), passes: passesArguments(text), settings, note: settingsNote(settings) };
});
process.stdout.write(JSON.stringify(out));
