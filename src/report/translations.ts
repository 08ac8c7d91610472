/**
 * One pull request per value of a foreach over files and values (one per language): for each
 * value, the output files a run changed and a Markdown body for a reviewer. The body says, page
 * by page, which sections were translated and why (the source section changed or is new, a
 * glossary term changed, a person's edit carried forward), the source of each beside the diff the
 * pull request shows, what the language's run cost, and who wrote the language's sections now:
 * machine-written, adopted, edited by hand, and which of a person's sections are stale (kept,
 * though their source changed since). The body fits what GitHub renders for a pull request
 * (65,536 characters): the sources of later pages go first when it would not, then pages, each cut said.
 *
 * Pure: the plan as the run executed it (its lock file as it was before), the run's report.
 */
import type { Plan, PlannedPair, Reason } from "../model/plan.js";
import { lockEntry, type LockFile } from "../model/records.js";
import type { PairOutcome, RunReport } from "../model/run.js";
import type { Pair } from "../model/workflow.js";
import { spendOf } from "../estimate/spend.js";
import { fenceFor } from "../prompt/render.js";
import { nameFor } from "./names.js";
import { spendLine } from "./spend.js";
import { grouped } from "../model/text.js";

/** The most characters GitHub takes in a pull request's body. */
export const PULL_REQUEST_BODY_LIMIT = 65_536;

/** One value's share of a run: its output files that changed, and the pull request body. */
export interface ValueChanges {
  value: string;
  /** Output files the run wrote, as `path` gives them, sorted. */
  files: string[];
  body: string;
}

export interface TranslationsOptions {
  /** The lock file as it was when the plan was made. */
  lock: LockFile | null;
  /** An output file (relative to the workflow's directory) as the body and `files` name it; default: as written. */
  path?: (output: string) => string;
  /** How to see the whole run, said where the body is cut: `pairflow show <run>`. */
  more?: string;
  /** At most this many characters (default PULL_REQUEST_BODY_LIMIT). */
  limit?: number;
  /**
   * The outputs (as pairs write them) whose content the run changed. Default: those of the file
   * instances that executed, though putting a file together again may give back what it held.
   */
  written?: ReadonlySet<string>;
}

/** Who wrote a section (or a whole file, without split) as it is after the run. */
type Author = "machine" | "adopted" | "edited";

interface Unit {
  pair: Pair;
  planned: PlannedPair;
  outcome: PairOutcome | undefined;
  author: Author;
  stale: boolean;
}

interface Page {
  /** The file instance (or, without split, the instance itself). */
  file: Pair;
  output: string;
  source: string;
  units: Unit[];
  /** Sections the lock file had and the source no longer has, by piece id. */
  removed: string[];
  written: boolean;
}

const code = (name: string) => nameFor(name, "code");
const count = (n: number, one: string, many = `${one}s`) => `${grouped(n)} ${n === 1 ? one : many}`;

/** Every value of the plan's foreach pairs over files and values, with its changes; values in the order they first appear. */
export function translationChanges(plan: Plan, report: RunReport, options: TranslationsOptions): ValueChanges[] {
  const workflow = plan.workflow;
  const outcomes = new Map(report.pairs.map((p) => [p.id, p]));
  const shown = options.path ?? ((output: string) => output);
  const pages = new Map<string, Map<string, Page>>();
  for (const planned of plan.pairs) {
    const pair = workflow.pairs.get(planned.id);
    if (pair?.value === undefined) continue;
    const byFile = pages.get(pair.value) ?? new Map<string, Page>();
    pages.set(pair.value, byFile);
    const fileId = pair.piece ? `${pair.template}[${pair.piece.file}]` : pair.id;
    const file = workflow.pairs.get(fileId);
    if (file?.output === undefined) continue;
    let page = byFile.get(fileId);
    if (!page) {
      page = {
        file,
        output: shown(file.output),
        source: file.assembly ? sourceOf(file.assembly.file) : sourceOf(file.item ?? ""),
        units: [],
        removed: (plan.removed ?? []).filter((r) => r.startsWith(`${fileId.slice(0, -1)}#`)).map((r) => r.slice(fileId.length, -1)),
        written: options.written ? options.written.has(file.output) : outcomes.get(fileId)?.status === "executed",
      };
      byFile.set(fileId, page);
    }
    // A split file's sections are its units; a file without split is its own.
    if (pair.assembly) continue;
    const outcome = outcomes.get(pair.id);
    page.units.push({
      pair,
      planned,
      outcome,
      author: authorOf(pair, planned, outcome, options.lock),
      stale: planned.stale === true && outcome?.status !== "executed",
    });
  }
  return [...pages].map(([value, byFile]) => {
    const list = [...byFile.values()];
    const files = [...new Set(list.filter((p) => p.written).map((p) => p.output))].sort();
    const ran = new Set(list.flatMap((p) => p.units.filter((u) => u.outcome?.status === "executed").map((u) => u.pair.id)));
    const spend = spendOf({ pairs: report.pairs.filter((p) => ran.has(p.id)) }, workflow);
    // A command generator buys nothing from a provider: its calls are not spend.
    const cost = spend.bought.calls === 0 ? "nothing bought from a provider" : spendLine(spend);
    return { value, files, body: bodyOf(value, list, cost, options) };
  });
}

/** `docs/a.md` of the item `fr:docs/a.md`. */
function sourceOf(item: string): string {
  return item.slice(item.indexOf(":") + 1);
}

function authorOf(pair: Pair, planned: PlannedPair, outcome: PairOutcome | undefined, lock: LockFile | null): Author {
  if (outcome?.status === "executed") return "machine";
  // A section of a split file a person edited in its output: the plan gives their text as its revision.
  if (pair.piece && planned.revision !== undefined) return "edited";
  if (planned.artifact?.edited) return "edited";
  return lockEntry(lock, pair.id)?.source === "human" ? "adopted" : "machine";
}

/** Why a section (or a page, without split) ran, in a reviewer's words. */
export function whyText(reasons: readonly Reason[], unit: "section" | "page" = "section"): string {
  const why: string[] = [];
  const terms: string[] = [];
  for (const r of reasons) {
    const c = r.component;
    if (r.kind === "new") why.push(r.detail === "never accepted" ? `new ${unit}` : nameFor(r.detail, "markdown"));
    else if (c?.kind === "piece") why.push("its source section changed");
    else if (c?.kind === "prompt" && c.name.startsWith("glossary."))
      terms.push(`${code(c.name.slice("glossary.".length))} ${/ (\w+)$/.exec(r.detail)?.[1] ?? "changed"}`);
    else if (r.kind === "carried") why.push("a person's edit carried forward");
    // The section's text is in its prompt and its settings: said once, by the section.
    else if (reasons.some((x) => x.component?.kind === "piece") && (c?.kind === "prompt" || c?.kind === "generator_config")) continue;
    else why.push(nameFor(r.detail, "markdown"));
  }
  if (terms.length > 0) why.push(`glossary: ${terms.join(", ")}`);
  return [...new Set(why)].join("; ") || "run";
}

function bodyOf(value: string, pages: Page[], spend: string, options: TranslationsOptions): string {
  const limit = options.limit ?? PULL_REQUEST_BODY_LIMIT;
  const units = pages.flatMap((p) => p.units);
  const ran = (p: Page) => p.units.filter((u) => u.outcome?.status === "executed");
  const changed = pages.filter((p) => p.written || ran(p).length > 0 || p.removed.length > 0);
  const translated = units.filter((u) => u.outcome?.status === "executed").length;

  const head = [
    `## Translations: ${code(value)}`,
    "",
    changed.length === 0
      ? "Nothing was translated in this run."
      : `${count(changed.length, "page")} changed, ${count(translated, "section")} translated. Cost: ${spend}.`,
  ];

  const by = (a: Author) => units.filter((u) => u.author === a);
  const stale = units.filter((u) => u.stale);
  const status = [
    "",
    `### Who wrote ${code(value)}`,
    "",
    "| | sections | pages |",
    "| --- | ---: | ---: |",
    ...(
      [
        ["machine-written", by("machine")],
        ["adopted (a person's, taken over)", by("adopted")],
        ["edited by hand", by("edited")],
        ["stale (a person's text kept; its source changed since)", stale],
      ] as const
    ).map(([what, list]) => `| ${what} | ${list.length} | ${new Set(list.map((u) => u.planned.id.replace(/#[^\]]*\]$/, "]"))).size} |`),
  ];
  const staleLines = stale.map(
    (u) =>
      `- ${code(sourceOf(u.pair.piece?.file ?? u.pair.item ?? u.pair.id))}${u.pair.piece ? ` ${code(`#${u.pair.piece.id}`)}` : ""}: ${u.author === "adopted" ? "adopted" : "edited by hand"}; review it against its source (with carry_edits, a run translates it again, the person's text as its revision)`,
  );
  const staleBlock = stale.length === 0 ? [] : ["", `Stale, ${count(stale.length, "section")}:`, ""];

  const pageBlock = (p: Page, sources: boolean): string => {
    const lines = [
      "",
      `### ${code(p.source)} → ${code(p.output)}`,
      "",
      ...(ran(p).length === 0 && p.removed.length === 0
        ? ["Put together again; no section translated."]
        : ran(p).map((u) => `- ${u.pair.piece ? code(`#${u.pair.piece.id}`) : "the page"}: ${whyText(u.outcome!.reasons, u.pair.piece ? "section" : "page")}`)),
      ...p.removed.map((id) => `- ${code(`#${id}`)}: removed, as its source section was`),
    ];
    const withText = ran(p).filter((u) => u.pair.piece);
    if (sources && withText.length > 0) {
      lines.push("", "<details><summary>The source of these sections</summary>", "");
      for (const u of withText) {
        const text = u.pair.piece!.text.replace(/\n+$/, "");
        const fence = fenceFor(text);
        lines.push(`${fence}markdown`, text, fence, "");
      }
      lines.push("</details>");
    }
    return lines.join("\n");
  };

  const fixed = [...head, ...status, ...staleBlock].join("\n").length + 2;
  const cut = (n: number, what: string) =>
    `\n\n… and ${grouped(n)} more ${n === 1 ? what : `${what}s`}${options.more ? `: ${options.more} shows them all` : ""}.`;
  const room = limit - fixed - 200;
  // Every page that fits without its sources, the rest cut; then, page by page, its sources while they fit.
  const blocks: string[] = [];
  let used = 0;
  for (const [i, p] of changed.entries()) {
    const block = pageBlock(p, false);
    if (used + block.length + 1 > room) {
      blocks.push(cut(changed.length - i, "page"));
      break;
    }
    blocks.push(block);
    used += block.length + 1;
  }
  for (const [i, p] of changed.entries()) {
    if (i >= blocks.length || blocks[i]!.startsWith("\n\n…")) break;
    const full = pageBlock(p, true);
    if (used - blocks[i]!.length + full.length > room) continue;
    used += full.length - blocks[i]!.length;
    blocks[i] = full;
  }
  let staleText = "";
  for (const [i, line] of staleLines.entries()) {
    if (used + staleText.length + line.length + 1 > room) {
      staleText += cut(staleLines.length - i, "stale section");
      break;
    }
    staleText += `${i === 0 ? "" : "\n"}${line}`;
  }
  const body = [...head, blocks.join("\n"), ...status, ...staleBlock].join("\n") + staleText + "\n";
  return body.length <= limit ? body : body.slice(0, limit);
}
