/**
 * A documentation site kept in three languages from one declaration, on a real history: the pages
 * of chapters 3 and 4 of the Rust book (bench/history/rust-book/, MIT or Apache-2.0, read with its
 * loader), commit after commit, translated by one foreach over the pages and the languages, section
 * by section (`split: markdown`), each language with its glossary (`glossary: glossary/{lang}.yml`).
 * After each commit's pages are written, one `runTarget` (the application layer, as `pairflow run`
 * drives it) with an in-process stand-in translator that counts its calls and the input tokens of
 * their prompts.
 *
 * Along the history, at commits chosen by their place in it:
 * - glossary edits: a term added to one language's glossary, one changed in another's, one removed
 *   from the third's;
 * - people's translations: two French pages written by translators before the site used pairflow,
 *   adopted at the start (`adoptPairs`, as `pairflow adopt` does); a German page rewritten by a
 *   translator and adopted halfway; a Spanish section fixed by hand in a run's output;
 * - at the end, a fourth language added to `values`.
 *
 * Against the ideal, computed from the pages and glossaries alone: each commit translates every
 * section whose text is new in its page, in every language, and every section whose glossary
 * entries changed, in that glossary's language; sections a person wrote are kept, not translated.
 * Checked after every run: every output is the stand-in's translation of its page's sections with
 * the person's sections in their place (none overwritten); adopting calls nothing; the fourth
 * language runs its own sections and nothing else.
 *
 *   PAIRFLOW_BENCH_ONLY=translate npm run bench
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { stringify } from "yaml";
import { adoptPairs } from "../src/app/adopt.js";
import { runTarget } from "../src/app/run.js";
import { assemble, splitText } from "../src/config/split.js";
import { loadTokenizer } from "../src/estimate/tokens.js";
import type { Generator } from "../src/model/ports.js";
import type { SplitSpec } from "../src/model/workflow.js";
import { loadHistory, replay, sha256, type Pages } from "./history/history.js";
import { tokensOf } from "./replay.js";

const MARKDOWN: SplitSpec = { kind: "markdown" };
const LANGUAGES = ["fr", "de", "es"];
const FOURTH = "it";

type Glossaries = Record<string, Record<string, string>>;

const GLOSSARIES: Glossaries = {
  fr: { ownership: "possession", compiler: "compilateur", heap: "tas", stack: "pile" },
  de: { ownership: "Eigentum", compiler: "Übersetzer", heap: "Halde", stack: "Stapel" },
  es: { ownership: "propiedad", compiler: "compilador", heap: "montón", stack: "pila" },
  it: { ownership: "possesso", compiler: "compilatore", heap: "heap", stack: "stack" },
};

function workflowText(languages: readonly string[]): string {
  return `name: book-i18n
generator: standin
action_pairs:
  translate:
    description: "{file} in {lang}"
    foreach:
      files: src/*.md
      split: markdown
      values: [${languages.join(", ")}]
      as: lang
      glossary: glossary/{lang}.yml
    output: "{lang}/{name}"
    generator_config:
      lang: "{lang}"
      text: "{piece}"
`;
}

const PROMPTS = `translate:
  role: You translate technical documentation from English.
  constraints: Keep the Markdown structure, the code blocks, the links and the HTML tags as they are; translate the prose only.
  task: "Translate this section of {file} into {lang}:\\n\\n{piece}"
`;

// ---------------------------------------------------------------------------------------------
// The stand-in translator, and the people

const WORDS: Record<string, Record<string, string>> = {
  fr: { the: "le", and: "et", of: "de", is: "est", to: "à", value: "valeur", function: "fonction", variable: "variable" },
  de: { the: "der", and: "und", of: "von", is: "ist", to: "zu", value: "Wert", function: "Funktion", variable: "Variable" },
  es: { the: "el", and: "y", of: "de", is: "es", to: "a", value: "valor", function: "función", variable: "variable" },
  it: { the: "il", and: "e", of: "di", is: "è", to: "a", value: "valore", function: "funzione", variable: "variabile" },
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const termPattern = (term: string, flags: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${escape(term.toLowerCase())}(?![\\p{L}\\p{N}_])`, flags);

/** The glossary's entries whose terms occur in text as docs/foreach.md defines it (whole word, either case), by term. */
export function entriesOf(glossary: Record<string, string>, text: string): Record<string, string> {
  const lower = text.toLowerCase();
  return Object.fromEntries(
    Object.keys(glossary)
      .filter((term) => termPattern(term, "u").test(lower))
      .sort()
      .map((t) => [t, glossary[t]!]),
  );
}

/** The stand-in's translation of a section: prose line by line, its glossary's terms first, code blocks as they are. */
export function machine(lang: string, text: string, entries: Record<string, string>): string {
  let code = false;
  const words = WORDS[lang] ?? {};
  return text
    .split("\n")
    .map((line) => {
      if (/^\s*```/.test(line)) {
        code = !code;
        return line;
      }
      if (code) return line;
      let out = line;
      for (const [term, translation] of Object.entries(entries)) out = out.replace(termPattern(term, "giu"), `⟨${translation}⟩`);
      return out.replace(/[A-Za-z]+/g, (w) => words[w.toLowerCase()] ?? w);
    })
    .join("\n");
}

/** A section as a person wrote it: a line of theirs after its first line. */
function human(text: string, note: string): string {
  const eol = text.indexOf("\n");
  return eol === -1 ? `${text}\n\n${note}\n` : `${text.slice(0, eol + 1)}\n${note}\n${text.slice(eol + 1)}`;
}

export interface Call {
  id: string;
  lang: string;
  input: number;
  /** The request: the language, the section and the glossary entries its prompt holds. */
  key: string;
}

/** The glossary entries the prompt holds (its section `# Glossary`: `- term: translation` a line). */
function glossaryOfPrompt(prompt: string): Record<string, string> {
  const section = /^# Glossary\n\n[^\n]*\n\n((?:- [^\n]*(?:\n|$))+)/m.exec(prompt)?.[1] ?? "";
  return Object.fromEntries(
    section
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const [term, ...rest] = l.slice(2).split(": ");
        return [term!, rest.join(": ")];
      }),
  );
}

const requestKey = (lang: string, text: string, entries: Record<string, string>) => sha256(JSON.stringify([lang, text, entries]));

/** The stand-in: translates the section it is given with the glossary entries its prompt holds; counts the call and its prompt's tokens. */
function standin(calls: Call[], sent: Map<string, number>): Generator {
  return async ({ pairId, prompt, config }) => {
    const lang = String(config.lang);
    const text = String(config.text);
    const entries = glossaryOfPrompt(prompt);
    const input = tokensOf(prompt);
    const key = requestKey(lang, text, entries);
    calls.push({ id: pairId, lang, input, key });
    sent.set(key, input);
    const content = machine(lang, text, entries);
    return { content, tokens: { input, output: tokensOf(content) } };
  };
}

// ---------------------------------------------------------------------------------------------
// The replay

/** What happens at a commit (0: the base), by its place in the history. */
interface Scenario {
  glossary: Map<number, { lang: string; edit: string; apply: (g: Record<string, string>) => void }[]>;
  /** Pages (by index in the sorted page list) a translator wrote, adopted before the run of that commit. */
  adopt: Map<number, { lang: string; page: number }[]>;
  /** A section fixed by hand in the output after the run of that commit. */
  edit: Map<number, { lang: string; page: number }[]>;
}

function scenario(commits: number): Scenario {
  const at = (fraction: number) => Math.max(1, Math.min(commits, Math.round(commits * fraction)));
  const push = <T>(m: Map<number, T[]>, i: number, v: T) => m.set(i, [...(m.get(i) ?? []), v]);
  const s: Scenario = { glossary: new Map(), adopt: new Map(), edit: new Map() };
  push(s.glossary, at(0.25), { lang: "fr", edit: 'adds "borrow"', apply: (g) => (g.borrow = "emprunter") });
  push(s.glossary, at(0.5), { lang: "de", edit: 'changes "heap"', apply: (g) => (g.heap = "Heap") });
  push(s.glossary, at(0.75), { lang: "es", edit: 'removes "stack"', apply: (g) => delete g.stack });
  push(s.adopt, 0, { lang: "fr", page: 1 });
  push(s.adopt, 0, { lang: "fr", page: 7 });
  push(s.adopt, at(0.5), { lang: "de", page: 2 });
  push(s.edit, at(0.3), { lang: "es", page: 5 });
  push(s.edit, at(0.3), { lang: "fr", page: 8 });
  return s;
}

export interface TranslateReplay {
  commits: number;
  pages: number;
  sections: number;
  languages: string[];
  /** Over the commits after the base: what the stand-in was asked, and the ideal. */
  bought: { calls: number; input: number };
  ideal: { calls: number; input: number };
  /** Ideal requests the run did not ask (answered by a request made before: a revert); their tokens count when some run asked them. */
  unsent: number;
  /** The cold start at the base, apart from the totals. */
  base: { calls: number; input: number };
  /** A person's section not in its output after a run: `lang:page#id at commit`. */
  overwritten: string[];
  /** Outputs that are not the stand-in's translation with the people's sections in place. */
  wrong: string[];
  /** People's pages and sections taken over, and the calls made for them (by adopting, or by the run after it). */
  adopted: { sections: number; calls: number };
  handEdits: number;
  glossaryEdits: string[];
  /** The fourth language added at the last commit: its calls, the sections it has, and calls for anything else. */
  fourth: { lang: string; calls: number; sections: number; others: string[] };
  ms: number;
}

const pieceKey = (lang: string, page: string, id: string) => `${lang}:${page}#${id}`;

/** Replays the history (or its first `commits` commits) through the translation workflow; throws when a run fails. */
export async function replayTranslations(options: { commits?: number } = {}): Promise<TranslateReplay> {
  await loadTokenizer();
  const history = loadHistory("rust-book");
  const states = [...replay(history)].slice(0, (options.commits ?? history.commits.length) + 1);
  const commits = states.length - 1;
  const plan = scenario(commits);
  const dir = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-translate-"));
  const glossaries: Glossaries = structuredClone(GLOSSARIES);
  const calls: Call[] = [];
  const sent = new Map<string, number>();
  const generators = { standin: standin(calls, sent) };
  /** The people's sections: lang:page#id -> their text. */
  const people = new Map<string, string>();
  const result: TranslateReplay = {
    commits,
    pages: Object.keys(states[0]!.pages).length,
    sections: 0,
    languages: LANGUAGES,
    bought: { calls: 0, input: 0 },
    ideal: { calls: 0, input: 0 },
    unsent: 0,
    base: { calls: 0, input: 0 },
    overwritten: [],
    wrong: [],
    adopted: { sections: 0, calls: 0 },
    handEdits: 0,
    glossaryEdits: [],
    fourth: { lang: FOURTH, calls: 0, sections: 0, others: [] },
    ms: 0,
  };
  const writeGlossaries = (languages: readonly string[]) => {
    for (const lang of languages) writeFileSync(path.join(dir, "glossary", `${lang}.yml`), stringify(glossaries[lang]));
  };
  const run = async (at: string) => {
    const report = await runTarget(undefined, { cwd: dir, env: {}, stateDir: path.join(dir, ".pairflow"), sandbox: "off", generators });
    if (report.status !== "success") {
      const failed = report.pairs.filter((p) => p.status !== "executed" && p.status !== "reused");
      throw new Error(`the run at ${at} ended ${report.status}: ${failed.map((p) => `${p.id} ${p.status} ${p.note ?? ""}`).join("; ")}`);
    }
  };
  const outputOf = (lang: string, page: string) => path.join(dir, lang, path.posix.basename(page));
  /** Every output against the stand-in's translation of its page with the people's sections in place. */
  const check = (pages: Pages, languages: readonly string[], at: string) => {
    for (const lang of languages)
      for (const [page, text] of Object.entries(pages)) {
        const pieces = splitText(text, MARKDOWN);
        const expected = assemble(
          MARKDOWN,
          "",
          pieces.map((p) => people.get(pieceKey(lang, page, p.id)) ?? machine(lang, p.text, entriesOf(glossaries[lang]!, p.text))),
        );
        const actual = readFileSync(outputOf(lang, page), "utf8");
        if (actual === expected) continue;
        const lost = pieces.filter((p) => people.has(pieceKey(lang, page, p.id)) && !actual.includes(people.get(pieceKey(lang, page, p.id))!));
        if (lost.length > 0) result.overwritten.push(...lost.map((p) => `${pieceKey(lang, page, p.id)} at ${at}`));
        else result.wrong.push(`${lang}/${path.posix.basename(page)} at ${at}`);
      }
  };
  /** A translator's page: each section of the source with their line; adopted with no model call. */
  const adopt = async (pages: Pages, lang: string, pageIndex: number, at: string) => {
    const page = Object.keys(pages).sort()[pageIndex]!;
    const pieces = splitText(pages[page]!, MARKDOWN);
    const sections = pieces.map((p) => human(p.text, `Traduction de ${lang} relue à ${at}.`));
    writeFileSync(outputOf(lang, page), assemble(MARKDOWN, "", sections));
    const before = calls.length;
    await adoptPairs(undefined, { cwd: dir, stateDir: path.join(dir, ".pairflow"), ids: [`translate[${lang}:${page}]`] });
    result.adopted.calls += calls.length - before;
    pieces.forEach((p, i) => people.set(pieceKey(lang, page, p.id), sections[i]!));
    result.adopted.sections += pieces.length;
    return pieces.map((p) => `translate[${lang}:${page}#${p.id}]`);
  };
  /** A person's fix of one section in a run's output. */
  const editByHand = (pages: Pages, lang: string, pageIndex: number, at: string) => {
    const page = Object.keys(pages).sort()[pageIndex]!;
    const pieces = splitText(pages[page]!, MARKDOWN);
    const file = outputOf(lang, page);
    const sections = splitText(readFileSync(file, "utf8"), MARKDOWN).map((p) => p.text);
    if (sections.length !== pieces.length) throw new Error(`${file} does not have its page's sections at ${at}`);
    const i = Math.min(pieces.length - 1, Math.max(1, Math.floor(pieces.length / 2)));
    sections[i] = human(sections[i]!, `Corrigé à la main à ${at}.`);
    writeFileSync(file, assemble(MARKDOWN, "", sections));
    people.set(pieceKey(lang, page, pieces[i]!.id), sections[i]!);
    result.handEdits++;
  };

  try {
    mkdirSync(path.join(dir, ".git"));
    mkdirSync(path.join(dir, "glossary"));
    for (const lang of LANGUAGES) mkdirSync(path.join(dir, lang));
    writeFileSync(path.join(dir, "workflow.yml"), workflowText(LANGUAGES));
    writeFileSync(path.join(dir, "prompts.yml"), PROMPTS);
    writeGlossaries(LANGUAGES);
    const start = performance.now();
    let before: Pages = {};
    let beforeGlossaries: Glossaries = structuredClone(glossaries);
    for (let i = 0; i < states.length; i++) {
      const { commit, pages } = states[i]!;
      const at = commit ? `commit ${commit.id}` : "the base";
      for (const p of Object.keys(before)) if (!Object.hasOwn(pages, p)) rmSync(path.join(dir, p));
      for (const [p, text] of Object.entries(pages)) {
        if (before[p] === text) continue;
        mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
        writeFileSync(path.join(dir, p), text);
      }
      for (const g of plan.glossary.get(i) ?? []) {
        g.apply(glossaries[g.lang]!);
        result.glossaryEdits.push(`${g.lang} ${g.edit} at ${at}`);
      }
      writeGlossaries(LANGUAGES);
      // The people's sections whose section is gone go with it; the rest stand, stale or not.
      for (const key of [...people.keys()]) {
        const [, page, id] = /^[^:]+:(.*)#(.*)$/.exec(key)!;
        if (!Object.hasOwn(pages, page!) || !splitText(pages[page!]!, MARKDOWN).some((p) => p.id === id)) people.delete(key);
      }
      const adoptedNow: string[] = [];
      for (const a of plan.adopt.get(i) ?? []) adoptedNow.push(...(await adopt(pages, a.lang, a.page, at)));

      const first = calls.length;
      await run(at);
      const made = calls.slice(first);
      const bought = made.reduce((t, c) => ({ calls: t.calls + 1, input: t.input + c.input }), { calls: 0, input: 0 });
      if (i === 0) result.base = bought;
      else {
        result.bought.calls += bought.calls;
        result.bought.input += bought.input;
      }
      result.adopted.calls += made.filter((c) => adoptedNow.includes(c.id)).length;
      check(pages, LANGUAGES, at);
      if (i > 0) {
        // After the run, so that the requests it sent have their tokens; before this commit's hand edits, which the next run meets.
        const ideal = idealOf(before, pages, beforeGlossaries, glossaries, people, sent, new Set(made.map((c) => c.key)));
        result.ideal.calls += ideal.calls;
        result.ideal.input += ideal.input;
        result.unsent += ideal.unsent;
      }
      for (const e of plan.edit.get(i) ?? []) editByHand(pages, e.lang, e.page, at);
      before = pages;
      beforeGlossaries = structuredClone(glossaries);
    }

    // A fourth language at the last commit: only its sections run.
    const pages = states.at(-1)!.pages;
    glossaries[FOURTH] = structuredClone(GLOSSARIES[FOURTH]!);
    mkdirSync(path.join(dir, FOURTH));
    writeGlossaries([FOURTH]);
    writeFileSync(path.join(dir, "workflow.yml"), workflowText([...LANGUAGES, FOURTH]));
    const first = calls.length;
    await run("the last commit, with a fourth language");
    const made = calls.slice(first);
    result.fourth.calls = made.filter((c) => c.lang === FOURTH).length;
    result.fourth.others = made.filter((c) => c.lang !== FOURTH).map((c) => c.id);
    result.fourth.sections = Object.values(pages).reduce((n, text) => n + splitText(text, MARKDOWN).length, 0);
    result.sections = result.fourth.sections;
    check(pages, [...LANGUAGES, FOURTH], "the last commit, with a fourth language");
    result.ms = performance.now() - start;
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ideal of one commit: sections new to their page in every language, and those whose glossary entries changed, but a person's. */
function idealOf(
  before: Pages,
  pages: Pages,
  beforeGlossaries: Glossaries,
  glossaries: Glossaries,
  people: ReadonlyMap<string, string>,
  sent: ReadonlyMap<string, number>,
  asked: ReadonlySet<string>,
): { calls: number; input: number; unsent: number } {
  const ideal = { calls: 0, input: 0, unsent: 0 };
  for (const lang of LANGUAGES)
    for (const [page, text] of Object.entries(pages)) {
      const old = new Set(before[page] === undefined ? [] : splitText(before[page]!, MARKDOWN).map((p) => p.text));
      for (const p of splitText(text, MARKDOWN)) {
        if (people.has(pieceKey(lang, page, p.id))) continue;
        const entries = entriesOf(glossaries[lang]!, p.text);
        if (old.has(p.text) && JSON.stringify(entries) === JSON.stringify(entriesOf(beforeGlossaries[lang]!, p.text))) continue;
        ideal.calls++;
        const key = requestKey(lang, p.text, entries);
        if (!asked.has(key)) ideal.unsent++;
        ideal.input += sent.get(key) ?? 0;
      }
    }
  return ideal;
}

// ---------------------------------------------------------------------------------------------
// The report

const fmt = (n: number) => n.toLocaleString("en-US");
const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? 1 : Infinity) : a / b);

/** Whether nothing a user would call wrong happened: every output right, no person's section overwritten, adopting free, the fourth language alone. */
export function correct(r: TranslateReplay): boolean {
  return r.wrong.length === 0 && r.overwritten.length === 0 && r.adopted.calls === 0 && r.fourth.others.length === 0 && r.fourth.calls === r.fourth.sections;
}

export function reportLines(r: TranslateReplay): string[] {
  const history = loadHistory("rust-book");
  const input = ratio(r.bought.input, r.ideal.input);
  const out = [
    `== translate: ${r.commits} commits of ${history.paths.join(", ")} of ${history.repository} (${history.license}), ${r.pages} pages, ` +
      `${fmt(r.sections)} sections at the end, into ${r.languages.join(", ")} by one foreach (files x values, split: markdown, a glossary per language)`,
    `along the way: ${r.glossaryEdits.join("; ")}; ${r.adopted.sections} sections adopted (2 French pages at the base, a German page halfway); ${r.handEdits} sections edited by hand`,
    `cold start at the base: ${fmt(r.base.calls)} calls, ${fmt(r.base.input)} input tokens (not in the totals below); replay ${(r.ms / 1000).toFixed(1)} s`,
    `input bought: ${fmt(r.bought.input)} tokens in ${fmt(r.bought.calls)} calls, against the ideal's ${fmt(r.ideal.input)} in ${fmt(r.ideal.calls)} ` +
      `(changed sections x languages, plus the sections holding a changed term; ${r.unsent} of its requests answered without a call, from an earlier run): ` +
      `${input.toFixed(2)}x (goal <= 1.3x: ${input <= 1.3 ? "met" : "NOT met"})`,
    `people's sections overwritten: ${r.overwritten.length} (goal 0)${r.overwritten.length ? `: ${r.overwritten.slice(0, 5).join(", ")}` : ""}`,
    `calls made by adopting: ${r.adopted.calls} (goal 0)`,
    `a fourth language (${r.fourth.lang}) at the last commit: ${fmt(r.fourth.calls)} calls for its ${fmt(r.fourth.sections)} sections, ` +
      `${r.fourth.others.length} for other languages (goal 0)${r.fourth.others.length ? `: ${r.fourth.others.slice(0, 5).join(", ")}` : ""}`,
  ];
  if (r.wrong.length > 0) out.push(`FAIL: ${r.wrong.length} outputs are not their pages' translations: ${r.wrong.slice(0, 5).join(", ")}`);
  return out;
}

/** `npm run bench`'s translate section; false on a correctness failure (never on a ratio or a time). */
export async function benchTranslate(): Promise<boolean> {
  try {
    const r = await replayTranslations();
    for (const line of reportLines(r)) console.log(line);
    if (!correct(r)) console.error("FAIL: see the lines above (an output, a person's section, adopting, or the fourth language)");
    return correct(r);
  } catch (err) {
    console.error(`FAIL: ${(err as Error).message}`);
    return false;
  }
}
