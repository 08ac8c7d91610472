/**
 * A real documentation history replayed through pairflow: the pages of chapters 3 and 4 of the
 * Rust book, commit after commit (bench/history/rust-book/), each translated into French by a
 * foreach pair, and a summary of every translation. After each commit's pages are written, one
 * `runTarget` (the application layer, as `pairflow run` drives it), with a stand-in generator
 * whose output is a pure function of its request, and which counts the calls and tokens bought.
 *
 * Against each commit's ideal: one translate call per page whose content changed, plus one summary
 * call when any translation changed, and their input tokens. Beside it, two other references:
 * "new only", the calls and tokens of requests never made before in the replay (what remembering
 * every answer could save, e.g. on reverts), and "sections", the tokens of only the sections (text
 * between Markdown headings) that changed, each sent with the page's prompt: what translating a page
 * section by section could cost.
 *
 * Variants: whole files (as pairflow is); whole files with `fresh: true` (no request reuse) and
 * sections (`split: markdown`), each skipped, with the reason, while pairflow rejects its workflow.
 *
 *   PAIRFLOW_BENCH_ONLY=replay npm run bench
 *   node --import tsx -e 'import("./bench/replay.ts").then((m) => m.benchReplay())'
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { runTarget } from "../src/app/run.js";
import { countO200k, loadTokenizer } from "../src/estimate/tokens.js";
import type { GenerateRequest, Generator } from "../src/model/ports.js";
import { loadWorkflow } from "../src/workspace/load.js";
import { digestOf, loadHistory, replay, sha256, type History, type HistoryCommit, type Pages } from "./history/history.js";
import { benchAnchors } from "./anchors.js";

// ---------------------------------------------------------------------------------------------
// The workflow, as a user translating a book writes it

const PROMPTS = `translate:
  role: You translate technical documentation from English into French.
  constraints: Keep the Markdown structure, the code blocks, the links and the HTML tags as they are; translate the prose only.
  task: Translate the page {file}, given below, into French.
summary:
  task: Write the table of contents of the French translation, one line per page with its title and a link to it.
`;

/** The pages' translations and their summary; `page` is what the generator reads, as a command given {file} would. */
const WHOLE_FILES = `name: book-fr
generator: standin
action_pairs:
  translate:
    description: "{file} in French"
    foreach:
      files: src/*.md
    output: fr/{name}
    generator_config:
      page: "{file}"
  summary:
    requires: [translate]
    output: fr/SUMMARY.md
`;

export interface Variant {
  name: string;
  workflow: string;
  /** The workflow key this variant needs: while pairflow rejects the workflow naming it, the variant is skipped. */
  needs?: string;
  /** Whether each output is the stand-in's translation of its whole page (checked after every run). */
  wholeOutputs: boolean;
  /** Whether the stand-in is given each section's text (generator_config.text) rather than reading the page. */
  sectionText?: boolean;
}

export const VARIANTS: Variant[] = [
  { name: "whole files", workflow: WHOLE_FILES, wholeOutputs: true },
  // The same, every pair answering afresh: no request is reused.
  {
    name: "whole files, fresh: true",
    workflow: WHOLE_FILES.replace("generator: standin\n", "generator: standin\nfresh: true\n"),
    needs: "fresh",
    wholeOutputs: true,
  },
  // One instance per section of each page, given its section's text ({piece}); each page's own
  // instance puts the translated sections back together into fr/{name}.
  {
    name: "sections, split: markdown",
    workflow: WHOLE_FILES.replace("      files: src/*.md\n", "      files: src/*.md\n      split: markdown\n").replace('page: "{file}"', 'text: "{piece}"'),
    needs: "split",
    sectionText: true,
    wholeOutputs: true,
  },
];

// ---------------------------------------------------------------------------------------------
// The stand-in generator

const FRENCH: Record<string, string> = {
  the: "le",
  a: "un",
  an: "un",
  is: "est",
  are: "sont",
  and: "et",
  or: "ou",
  of: "de",
  to: "à",
  in: "dans",
  on: "sur",
  with: "avec",
  for: "pour",
  this: "ce",
  that: "que",
  we: "nous",
  you: "vous",
  it: "il",
  not: "pas",
  can: "peut",
  will: "va",
  when: "quand",
  value: "valeur",
  values: "valeurs",
  function: "fonction",
  functions: "fonctions",
  variable: "variable",
  type: "type",
  types: "types",
  code: "code",
  string: "chaîne",
  chapter: "chapitre",
  ownership: "possession",
};

const translations = new Map<string, string>();
/** The stand-in's French: prose word by word, code blocks as they are; line by line, so an edit changes only its own lines. */
export function translate(text: string): string {
  const key = sha256(text);
  let french = translations.get(key);
  if (french === undefined) {
    french = frenchOf(text);
    translations.set(key, french);
  }
  return french;
}

function frenchWord(word: string): string {
  const french = FRENCH[word.toLowerCase()];
  if (french === undefined) return word;
  return /^[A-Z]/.test(word) ? french[0]!.toUpperCase() + french.slice(1) : french;
}

function frenchOf(text: string): string {
  let code = false;
  return text
    .split("\n")
    .map((line) => {
      if (/^\s*```/.test(line)) {
        code = !code;
        return line;
      }
      return code ? line : line.replace(/[A-Za-z]+/g, frenchWord);
    })
    .join("\n");
}

/** The summary of the translations: each one's first heading, linked. */
export function summarize(translations: readonly { id: string; content: string }[]): string {
  const lines = [...translations]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map(({ id, content }) => {
      const title = /^#+\s+(.*)$/m.exec(content)?.[1] ?? id;
      return `- [${title}](${path.posix.basename(id.replace(/^[^[]*\[|\]$/g, ""))})`;
    });
  return `# Sommaire\n\n${lines.join("\n")}\n`;
}

const tokenCounts = new Map<string, number>();
/** o200k tokens of a text (loadTokenizer first), remembered: the same request recurs across variants. */
export function tokensOf(text: string): number {
  const key = text.length < 64 ? text : sha256(text);
  let n = tokenCounts.get(key);
  if (n === undefined) {
    n = countO200k(text);
    tokenCounts.set(key, n);
  }
  return n;
}

export interface Tally {
  calls: number;
  input: number;
  output: number;
}

const zero = (): Tally => ({ calls: 0, input: 0, output: 0 });
const add = (a: Tally, b: Tally): Tally => ({ calls: a.calls + b.calls, input: a.input + b.input, output: a.output + b.output });

/** What the stand-in was asked: the calls and tokens of each pair (template) since the last take. */
export class Counter {
  byPair = new Map<string, Tally>();
  /** The input tokens of each translate instance's prompt, without the page: for the references' requests. */
  promptTokens = new Map<string, number>();
  /** Calls given a text (a section's) rather than a page to read. */
  textCalls = 0;

  count(pair: string, input: number, output: number): void {
    const t = this.byPair.get(pair) ?? zero();
    this.byPair.set(pair, add(t, { calls: 1, input, output }));
  }

  take(): Map<string, Tally> {
    const taken = this.byPair;
    this.byPair = new Map();
    return taken;
  }
}

/**
 * The request is the rendered prompt and the text it is about: a section's `text` when the pair
 * gives one, else the page named by `page`, read as a command would read it. The answer depends
 * on nothing else.
 */
export function standin(counter: Counter): Generator {
  return async (request: GenerateRequest) => {
    const { pairId, prompt, config, cwd } = request;
    const template = pairId.replace(/\[.*$/, "");
    const text =
      typeof config.text === "string" ? config.text : typeof config.page === "string" ? readFileSync(path.join(cwd, config.page), "utf8") : undefined;
    const content = text === undefined ? summarize(request.dependencies ?? []) : translate(text);
    const promptTokens = tokensOf(prompt);
    if (typeof config.text === "string") counter.textCalls++;
    else if (typeof config.page === "string") counter.promptTokens.set(config.page, promptTokens);
    const input = promptTokens + (text === undefined ? 0 : tokensOf(text));
    const output = tokensOf(content);
    counter.count(template, input, output);
    return { content, tokens: { input, output } };
  };
}

// ---------------------------------------------------------------------------------------------
// The references

/** Sections of a page: split before each Markdown heading outside code blocks. */
export function sectionsOf(text: string): string[] {
  const sections: string[] = [];
  let current: string[] = [];
  let code = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) code = !code;
    if (!code && /^#{1,6}\s/.test(line) && current.length > 0) {
      sections.push(current.join("\n"));
      current = [];
    }
    current.push(line);
  }
  sections.push(current.join("\n"));
  return sections;
}

export interface CommitFigures {
  commit: HistoryCommit | null;
  /** Pages whose content changed or which appeared, and which were deleted. */
  changed: string[];
  deleted: string[];
  /** Pages that now hold a content they held before, other than just before this commit (a revert). */
  restored: string[];
  /** The ideal's translate calls: one per changed page, its prompt and the page. */
  ideal: Tally;
  /** Translate calls whose request was never made before in the replay. */
  newOnly: Tally;
  /** Translate calls of the changed sections only, each with its page's prompt. */
  sections: Tally;
  /** The summary call, when a translation changed: the ideal and the sections' reference make it. */
  summary: Tally;
  /** The summary call when its request was never made before. */
  newSummary: Tally;
}

/** One digest of the stand-in's translations of the pages: what the summary's request is made of. */
export function translationsDigest(pages: Pages): string {
  return digestOf(Object.fromEntries(Object.entries(pages).map(([p, text]) => [p, translate(text)])));
}

/**
 * The references of each commit, from the pages and what the stand-in saw: the prompt of each page
 * and the summary's request at each state are the ones pairflow sent (`prompts`: tokens of each
 * page's prompt; `summaries`: the summary's input tokens by translationsDigest).
 */
export function referencesOf(
  states: { commit: HistoryCommit | null; pages: Pages }[],
  prompts: ReadonlyMap<string, number>,
  summaries: ReadonlyMap<string, number>,
): CommitFigures[] {
  const figures: CommitFigures[] = [];
  const seenPages = new Map<string, Set<string>>();
  const seenStates = new Set<string>();
  let before: Pages = {};
  let beforeDigest = "";
  for (const { commit, pages } of states) {
    const changed = Object.keys(pages)
      .filter((p) => before[p] !== pages[p])
      .sort();
    const deleted = Object.keys(before)
      .filter((p) => !Object.hasOwn(pages, p))
      .sort();
    const restored = changed.filter((p) => Object.hasOwn(before, p) && seenPages.get(p)!.has(sha256(pages[p]!)));
    const f: CommitFigures = { commit, changed, deleted, restored, ideal: zero(), newOnly: zero(), sections: zero(), summary: zero(), newSummary: zero() };
    for (const p of changed) {
      const request = (prompts.get(p) ?? 0) + tokensOf(pages[p]!);
      f.ideal = add(f.ideal, { calls: 1, input: request, output: 0 });
      const seen = seenPages.get(p) ?? new Set<string>();
      seenPages.set(p, seen);
      if (!seen.has(sha256(pages[p]!))) f.newOnly = add(f.newOnly, { calls: 1, input: request, output: 0 });
      seen.add(sha256(pages[p]!));
      const old = new Set(before[p] === undefined ? [] : sectionsOf(before[p]!));
      for (const s of sectionsOf(pages[p]!)) if (!old.has(s)) f.sections = add(f.sections, { calls: 1, input: (prompts.get(p) ?? 0) + tokensOf(s), output: 0 });
    }
    // The summary runs when a translation changed: a page's edit that the translation does not show ("a" to "an") leaves it as it was.
    const digest = translationsDigest(pages);
    if (digest !== beforeDigest) {
      f.summary = { calls: 1, input: summaries.get(digest) ?? 0, output: 0 };
      if (!seenStates.has(digest)) f.newSummary = f.summary;
    }
    seenStates.add(digest);
    figures.push(f);
    before = pages;
    beforeDigest = digest;
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------
// Replaying

export interface Bought {
  commit: HistoryCommit | null;
  translate: Tally;
  summary: Tally;
}

export type VariantResult = { variant: Variant; skipped: string } | { variant: Variant; bought: Bought[]; ms: number };

function writeState(dir: string, before: Pages, pages: Pages): void {
  for (const p of Object.keys(before)) if (!Object.hasOwn(pages, p)) rmSync(path.join(dir, p));
  for (const [p, text] of Object.entries(pages)) {
    if (before[p] === text) continue;
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
}

/** Whether pairflow takes the variant's workflow; the reason when it rejects the key the variant needs. */
function unsupported(variant: Variant, dir: string): string | null {
  try {
    loadWorkflow(path.join(dir, "workflow.yml"), dir);
    return null;
  } catch (err) {
    // Each problem is a line; what follows "; expected one of" lists the keys pairflow knows.
    const problems = (err as Error).message.split("\n").map((l) => l.replace(/; expected one of: .*/, "").trim());
    const reason = variant.needs === undefined ? undefined : problems.find((l) => l.includes(`"${variant.needs}"`));
    if (reason === undefined) throw err;
    return reason;
  }
}

/**
 * Each state of the history in turn, written into a fresh repository and run. The stand-in's
 * requests feed `prompts` and `summaries` (see referencesOf). Throws when a run fails or leaves
 * an output that is not the stand-in's answer to its page.
 */
export async function replayVariant(
  variant: Variant,
  states: { commit: HistoryCommit | null; pages: Pages }[],
  prompts: Map<string, number>,
  summaries: Map<string, number>,
): Promise<VariantResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pairflow-bench-replay-"));
  try {
    mkdirSync(path.join(dir, ".git"));
    writeFileSync(path.join(dir, "workflow.yml"), variant.workflow);
    writeFileSync(path.join(dir, "prompts.yml"), PROMPTS);
    writeState(dir, {}, states[0]!.pages);
    const reason = unsupported(variant, dir);
    if (reason !== null) return { variant, skipped: reason };

    const counter = new Counter();
    const generators = { standin: standin(counter) };
    const bought: Bought[] = [];
    let before: Pages = {};
    const start = performance.now();
    for (const { commit, pages } of states) {
      writeState(dir, before, pages);
      const report = await runTarget(undefined, { cwd: dir, env: {}, stateDir: path.join(dir, ".pairflow"), sandbox: "off", generators });
      const at = commit ? `commit ${commit.id}` : "the base";
      if (report.status !== "success") {
        const failed = report.pairs.filter((p) => p.status !== "executed" && p.status !== "reused");
        throw new Error(`${variant.name}: the run at ${at} ended ${report.status}: ${failed.map((p) => `${p.id} ${p.status} ${p.note ?? ""}`).join("; ")}`);
      }
      if (variant.sectionText && counter.textCalls === 0)
        throw new Error(
          `${variant.name}: the stand-in was given no section's text; pass it as generator_config.text in the variant's workflow (bench/replay.ts)`,
        );
      const taken = counter.take();
      bought.push({ commit, translate: taken.get("translate") ?? zero(), summary: taken.get("summary") ?? zero() });
      // The ideal's summary request is the first variant's (whole files).
      const key = translationsDigest(pages);
      if (taken.has("summary") && !summaries.has(key)) summaries.set(key, taken.get("summary")!.input);
      if (variant.wholeOutputs) checkOutputs(dir, pages, at, variant);
      before = pages;
    }
    for (const [p, n] of counter.promptTokens) if (!prompts.has(p)) prompts.set(p, n);
    return { variant, bought, ms: performance.now() - start };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every page's translation, and the summary of them all, are the stand-in's answers for this commit's pages. */
function checkOutputs(dir: string, pages: Pages, at: string, variant: Variant): void {
  const translations = Object.keys(pages).map((p) => ({ id: `translate[${p}]`, content: translate(pages[p]!) }));
  for (const { id, content } of translations) {
    const file = path.join(dir, "fr", path.basename(id.slice("translate[".length, -1)));
    if (readFileSync(file, "utf8") !== content) throw new Error(`${variant.name}: at ${at}, ${path.relative(dir, file)} is not the translation of its page`);
  }
  if (readFileSync(path.join(dir, "fr", "SUMMARY.md"), "utf8") !== summarize(translations))
    throw new Error(`${variant.name}: at ${at}, fr/SUMMARY.md is not the summary of the translations`);
}

// ---------------------------------------------------------------------------------------------
// The report

export interface Replayed {
  history: History;
  references: CommitFigures[];
  results: VariantResult[];
}

/** Every available variant over the whole slice (or its first `commits` commits), and the references. */
export async function replayHistory(options: { commits?: number; variants?: Variant[] } = {}): Promise<Replayed> {
  await loadTokenizer();
  const history = loadHistory("rust-book");
  const states = [...replay(history)].slice(0, (options.commits ?? history.commits.length) + 1);
  const prompts = new Map<string, number>();
  const summaries = new Map<string, number>();
  const results: VariantResult[] = [];
  for (const variant of options.variants ?? VARIANTS) results.push(await replayVariant(variant, states, prompts, summaries));
  return { history, references: referencesOf(states, prompts, summaries), results };
}

const fmt = (n: number) => n.toLocaleString("en-US");
const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? "1.00x" : "inf") : `${(a / b).toFixed(2)}x`);
const kTokens = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(0)}k` : fmt(n));

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

/** The report's lines: the history, totals and ratios per variant, and the worst commits. */
export function reportLines({ history, references, results }: Replayed): string[] {
  const [base, ...commits] = references;
  const bytes = Object.values(history.base.pages).reduce((n, t) => n + Buffer.byteLength(t), 0);
  const pageChanges = commits.reduce((n, f) => n + f.changed.length + f.deleted.length, 0);
  const restoring = commits.filter((f) => f.restored.length > 0);
  const out: string[] = [];
  out.push(
    `== replay: ${commits.length} commits of ${history.paths.join(", ")} of ${history.repository} (${history.base.id}..${history.tip.slice(0, 12)}), ` +
      `${Object.keys(history.base.pages).length} pages (${(bytes / 1024).toFixed(0)} KB at the base), each translated by one foreach instance, and a summary of them all`,
  );
  out.push(
    `history: ${pageChanges} page changes; ${restoring.length} commits restore a page to an earlier content (${restoring.reduce((n, f) => n + f.restored.length, 0)} pages), ` +
      `${commits.filter((f) => f.summary.calls > f.newSummary.calls).length} restore every translation to an earlier state; ` +
      `${commits.filter((f) => f.summary.calls === 0).length} change pages but no translation`,
  );
  const all = (t: Tally, summary: Tally) => add(t, summary);
  out.push(
    `cold start at the base: ideal ${all(base!.ideal, base!.summary).calls} calls, ${fmt(all(base!.ideal, base!.summary).input)} input tokens (not in the totals below)`,
  );

  const sum = (f: (c: CommitFigures) => Tally) => commits.reduce((t, c) => add(t, f(c)), zero());
  const ideal = sum((c) => c.ideal);
  const summary = sum((c) => c.summary);
  const idealAll = add(ideal, summary);
  const newAll = add(
    sum((c) => c.newOnly),
    sum((c) => c.newSummary),
  );
  const sections = sum((c) => c.sections);
  out.push(
    `ideal over the ${commits.length} commits: ${fmt(idealAll.calls)} calls, ${kTokens(idealAll.input)} input tokens: translate ${fmt(ideal.calls)} calls, ${kTokens(ideal.input)}; ` +
      `summary ${fmt(summary.calls)} calls, ${kTokens(summary.input)} (it reads every translation). ` +
      `New requests only: ${fmt(newAll.calls)} calls, ${kTokens(newAll.input)}. Changed sections only: translate ${fmt(sections.calls)} calls, ${kTokens(sections.input)}`,
  );
  out.push("");

  const rows: string[][] = [];
  const skipped: string[] = [];
  for (const result of results) {
    if ("skipped" in result) {
      skipped.push(`  ${result.variant.name}: skipped, pairflow does not take its workflow yet (${result.skipped})`);
      continue;
    }
    const bought = result.bought.slice(1);
    const translate = bought.reduce((t, b) => add(t, b.translate), zero());
    const both = bought.reduce((t, b) => add(add(t, b.translate), b.summary), zero());
    rows.push([
      result.variant.name,
      "all",
      fmt(both.calls),
      ratio(both.calls, idealAll.calls),
      ratio(both.calls, newAll.calls),
      kTokens(both.input),
      ratio(both.input, idealAll.input),
      ratio(both.input, newAll.input),
      "",
      kTokens(both.output),
      `${(result.ms / 1000).toFixed(1)} s`,
    ]);
    rows.push([
      "",
      "translate",
      fmt(translate.calls),
      ratio(translate.calls, ideal.calls),
      "",
      kTokens(translate.input),
      ratio(translate.input, ideal.input),
      "",
      ratio(translate.input, sections.input),
      kTokens(translate.output),
      "",
    ]);
  }
  out.push(...table(["variant", "calls of", "bought", "/ideal", "/new", "input tok", "/ideal", "/new", "/sections", "output tok", "replay"], rows));
  out.push(...skipped);

  // The worst commits of each variant run: input tokens bought over the ideal, then translate's over the changed sections.
  for (const result of results) {
    if (!("bought" in result)) continue;
    const worst = result.bought
      .slice(1)
      .map((b, i) => {
        const f = commits[i]!;
        const bought = add(b.translate, b.summary);
        const best = add(f.ideal, f.summary);
        return { b, f, bought, best, overIdeal: bought.input - best.input, overSections: b.translate.input - f.sections.input };
      })
      .sort((x, y) => y.overIdeal - x.overIdeal || y.overSections - x.overSections)
      .slice(0, 5);
    out.push("");
    out.push(`worst commits (${result.variant.name}): input tokens bought over the ideal, then translate's over the changed sections only`);
    out.push(
      ...table(
        ["commit", "date", "pages", "calls/ideal", "input tok", "/ideal", "translate", "/sections", "subject"],
        worst.map(({ b, f, bought, best }) => [
          b.commit!.id.slice(0, 9),
          b.commit!.date,
          String(f.changed.length + f.deleted.length),
          `${bought.calls}/${best.calls}`,
          kTokens(bought.input),
          ratio(bought.input, best.input),
          kTokens(b.translate.input),
          ratio(b.translate.input, f.sections.input),
          (b.commit!.title ?? b.commit!.subject).slice(0, 60),
        ]),
      ),
    );
  }
  return out;
}

/** `npm run bench`'s replay section; false when a run failed or left a wrong output. */
export async function benchReplay(): Promise<boolean> {
  try {
    for (const line of reportLines(await replayHistory())) console.log(line);
    const anchors = benchAnchors();
    for (const line of anchors.lines) console.log(line);
    return anchors.differing === 0;
  } catch (err) {
    console.error(`FAIL: ${(err as Error).message}`);
    return false;
  }
}
