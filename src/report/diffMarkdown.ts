/**
 * The diff as the pull request comment shows it: a first line naming the commit planned, what
 * merging re-runs and its estimated cost; the totals; what will re-run grouped by root cause (a
 * change and the pairs it cascades to are one entry); the pairs that changed but were already
 * accepted on the branch; added and removed pairs; each changed entry's unified diff (collapsed);
 * and the graph of the affected pairs. A comment holds at most 65,536 characters, so the diffs share
 * what the rest leaves, and a diff that does not fit is cut with a note that points to the job
 * summary, where the whole text goes.
 */
import { withoutCallsText } from "./plan.js";
import { acceptedText, countsOf, ENTRY_WORDS, sinceBaseText } from "./diff.js";
import { causeParagraph, collapsed, graphMarkdown } from "./summary.js";
import { bytes as size, code, longestRun, md } from "./markdown.js";
import { nameFor } from "./names.js";
import { causesOf, changesFor, number, planNodes } from "./causes.js";
import { alreadyAccepted, baseName, willRun, type EntryChange, type PlanDiff } from "../diff/diff.js";
import type { PlannedPair } from "../model/plan.js";

/** GitHub's limit on the body of a comment. */
export const COMMENT_LIMIT = 65_536;

export interface MarkdownOptions {
  /** A hidden first line that identifies the comment (see commentMarker). */
  marker?: string;
  /** Hidden lines after the marker (the comment's stamp of the commit it planned, see ../github/comment.ts). */
  hidden?: string[];
  /** The commit planned, named in the first line: its SHA, and where to see it. */
  commit?: { sha: string; url?: string };
  /** The estimated cost of what will re-run, in the first line, e.g. "$0.42", "cost unknown". */
  cost?: string;
  /** Where the whole diff can be read when this text is cut short: the job summary's address. */
  summaryUrl?: string;
  /** Where the rest can be read, instead of the job summary (for the job summary itself). */
  pointer?: string;
  /** Upper bound on the text's size (counted in UTF-8 bytes, never fewer than characters); Infinity for no bound. */
  limit?: number;
}

/** With a finite limit, at most this many causes, rows and ids are listed; the rest are counted. */
const MAX_CAUSES = 50;
const MAX_ROWS = 100;
const MAX_IDS = 100;
const MAX_CELL = 300;
/** A table of pairs already accepted longer than this is collapsed. */
const MAX_OPEN_ROWS = 10;
/** A cause explained by more entries than this has them in one collapsed block. */
const MAX_OPEN_DIFFS = 3;
/** A comment's graph is kept well below what Mermaid accepts, to leave room for the diffs. */
const MAX_GRAPH_CHARS = 15_000;
/** In a diff that is cut short, longer lines are cut too. */
const MAX_LINE = 1_000;
/** No diff is cut shorter than this (in bytes) to make room for others; later ones are counted instead. */
const MIN_SHARE = 1_500;

/** The hidden marker naming the workflow: one comment per workflow file, found again on every push. */
export function commentMarker(workflowFile: string): string {
  // encodeURI leaves ordinary paths readable and escapes ">", so the path cannot end the comment.
  return `<!-- pairflow:plan ${encodeURI(workflowFile)} -->`;
}

export function diffMarkdown(diff: PlanDiff, options: MarkdownOptions = {}): string {
  const limit = options.limit ?? COMMENT_LIMIT;
  const bounded = Number.isFinite(limit);
  const pointer =
    options.pointer ??
    (options.summaryUrl ? `the whole diff is in the [job summary](${options.summaryUrl})` : "the whole diff is in the job summary of this check");
  const { plan, base } = diff;
  const accepted = alreadyAccepted(diff);

  const top: string[] = [];
  if (options.marker) top.push(options.marker);
  top.push(...(options.hidden ?? []));
  top.push(headline(diff, options), "");
  top.push(`${code(diff.workflowFile)} compared with ${baseName(base, code)}`, "");
  if (!base.workflowFound) top.push(`${code(diff.workflowFile)} does not exist at ${code(base.ref)}: every pair is added.`, "");
  top.push(totalsLine(diff));

  // Each cause with the entries of the diff that explain it; an entry goes with the first cause it explains.
  const causes = causesOf(planNodes(plan));
  const shown = bounded ? causes.slice(0, MAX_CAUSES) : causes;
  const templateOf = (id: string) => plan.workflow.pairs?.get(id)?.template;
  const placed = new Set<EntryChange>();
  const slots = shown.map((cause) => changesFor(cause, diff.changes, templateOf).filter((c) => !placed.has(c) && placed.add(c)));
  slots.push(diff.changes.filter((c) => !placed.has(c)));
  const others = slots[slots.length - 1]!;

  const after: string[] = [];
  if (accepted.length > 0) {
    const rows = bounded ? accepted.slice(0, MAX_ROWS) : accepted;
    const table = ["Merging re-runs nothing for these.", "", "| Pair | Wave | What changed | Accepted |", "| --- | ---: | --- | --- |"];
    for (const p of rows) {
      const since = diff.sinceBase.get(p.id)!;
      table.push(`| ${nameFor(p.id, "cell")} | ${p.wave} | ${cell(sinceBaseText(since), bounded)} | ${md(acceptedText(since.accepted!))} |`);
    }
    if (rows.length < accepted.length) table.push("", `…and ${accepted.length - rows.length} more; ${pointer}.`);
    after.push("", "#### Changed in this pull request, already accepted", "");
    // A long list is collapsed: it explains, but asks nothing of the reader.
    if (accepted.length > MAX_OPEN_ROWS) after.push(collapsed(`${count(accepted.length, "pair")} changed and already accepted`, table.join("\n")));
    else after.push(...table);
  }
  if (diff.added.length > 0) after.push("", "#### Added pairs", "", idList(diff.added, bounded, pointer));
  if (diff.removed.length > 0) after.push("", "#### Removed pairs", "", idList(diff.removed, bounded, pointer));

  // Every pair that will re-run, in a collapsed block: a reviewer finds any of them here.
  const running = willRun(diff);
  let list = "";

  /** The text with the blocks of each slot (a cause's, then the other changes'), and the note of what was left out. */
  const assemble = (blocks: (string | null)[][], note: string): string => {
    const firstCut = blocks.findIndex((slot) => slot.some((b) => b === null));
    const slotText = (i: number) => {
      const kept = blocks[i]!.filter((b): b is string => b !== null);
      const left = i === firstCut ? note : "";
      if (kept.length === 0 && !left) return "";
      if (slots[i]!.length <= MAX_OPEN_DIFFS) return `\n${kept.join("\n")}${left}`;
      // Many entries explain it (550 edited prompts): one line here, each diff inside.
      return `\n${collapsed(manyTitle(slots[i]!, kept.length), kept.join("\n") + left)}\n`;
    };
    let text = top.join("\n") + "\n";
    if (shown.length > 0) {
      text += "\n#### Will re-run, by cause\n\n";
      text += shown.map((c, i) => `${causeParagraph(c)}\n${slotText(i)}`).join("\n");
      if (shown.length < causes.length) text += `\n…and ${count(causes.length - shown.length, "more cause")}; ${pointer}.\n`;
    }
    if (list) text += `\n${list}\n`;
    if (after.length > 0) text += after.join("\n") + "\n";
    const other = slotText(slots.length - 1);
    if (other) text += section(shown.some((_, i) => slots[i]!.length > 0) ? "Other changes" : "Changes", "") + other.slice(1);
    return text;
  };

  let graph = section("Graph", diffGraph(diff, bounded));
  const diffsSize = diff.changes.reduce((n, c) => n + size(c.patch), 0);
  const fullList = runList(running, Infinity, pointer);
  if (running.length > 0 && bounded) {
    // The list is cut only where the limit requires it; when the diffs need the room too, it takes half at most.
    const without = assemble(
      slots.map((slot) => slot.map(() => "")),
      "",
    );
    const left = limit - size(without) - size(graph) - 2 * slots.length;
    list =
      size(fullList) + 2 <= left - diffsSize
        ? fullList
        : runList(running, Math.max(left - diffsSize, Math.min(size(fullList), Math.floor(left / 2))) - 2, pointer);
  } else list = fullList;
  const skeleton = assemble(
    slots.map((slot) => slot.map(() => "")),
    "",
  );
  // What the blocks add besides themselves: a line before each slot's first, and the heading of the others.
  const overhead =
    slots.filter((slot) => slot.length > 0).length +
    (others.length > 0 ? size(section("Other changes", "")) : 0) +
    slots.reduce((n, slot) => n + (slot.length > MAX_OPEN_DIFFS ? size(collapsed(manyTitle(slot, slot.length), "")) + 2 : 0), 0);
  let room = limit - size(skeleton) - overhead - size(graph);
  // The graph gives way when the diffs do not fit and would get less room than the graph takes.
  if (bounded && diffsSize > room && room < size(graph)) {
    graph = section("Graph", `Not drawn here, to leave room for the diffs; ${pointer}.`);
    room = limit - size(skeleton) - overhead - size(graph);
  }
  if (room < 0) return cut(skeleton + graph, limit, pointer);
  const ordered = slots.flat();
  const fitted = fitBlocks(ordered, room, pointer);
  let at = 0;
  const text = assemble(
    slots.map((slot) => slot.map(() => fitted.blocks[at++]!)),
    fitted.rest,
  );
  const whole = text + graph;
  return size(whole) <= limit ? whole : cut(whole, limit, pointer);
}

/**
 * Every pair that will re-run, by wave, in a collapsed block of at most `room` bytes (a list of
 * ids, not a table: at 1,000 pairs some 15 KB); when they do not all fit, the rest are counted;
 * "" when nothing will re-run or not even the count fits.
 */
export function runList(running: readonly PlannedPair[], room: number, pointer: string): string {
  if (running.length === 0) return "";
  const open = `<details><summary>All ${count(running.length, "pair")} that will re-run, by wave</summary>\n\n`;
  const close = "\n\n</details>";
  const note = (n: number) => `\n\n…and ${count(n, "more pair")}; ${pointer}.`;
  const waves = new Map<number, PlannedPair[]>();
  for (const p of running) {
    const wave = waves.get(p.wave);
    if (wave) wave.push(p);
    else waves.set(p.wave, [p]);
  }
  let body = "";
  let used = size(open) + size(close) + size(note(running.length));
  if (used > room) return "";
  let listed = 0;
  outer: for (const [wave, pairs] of [...waves].sort(([a], [b]) => a - b)) {
    const head = `${body ? "\n" : ""}- wave ${wave} (${number(pairs.length)}): `;
    if (used + size(head) > room) break;
    let line = head;
    for (const [i, p] of pairs.entries()) {
      const item = `${i > 0 ? ", " : ""}${code(p.id)}`;
      if (used + size(line) + size(item) > room) {
        if (i > 0) body += line;
        break outer;
      }
      line += item;
      listed++;
    }
    body += line;
    used += size(line);
  }
  return open + body + (listed < running.length ? note(running.length - listed) : "") + close;
}

/** The pairs that will re-run, drawn as the job summary draws them. */
function diffGraph(diff: PlanDiff, bounded: boolean): string {
  return graphMarkdown(planNodes(diff.plan), bounded ? { maxChars: MAX_GRAPH_CHARS } : {});
}

/**
 * The first line a reader sees: the commit planned, what merging re-runs and what it costs, e.g.
 * "pairflow plan at 1a2b3c4: 2 pairs will re-run after merging, estimated cost $0.42".
 */
function headline(diff: PlanDiff, options: MarkdownOptions): string {
  const at = options.commit
    ? ` at ${options.commit.url ? `[\`${options.commit.sha.slice(0, 7)}\`](${options.commit.url})` : code(options.commit.sha.slice(0, 7))}`
    : "";
  const { run } = countsOf(diff);
  const what = run === 0 ? "nothing will re-run after merging" : `${count(run, "pair")} will re-run after merging${withoutCallsText(diff.plan)}`;
  const cost = options.cost === undefined ? "" : run === 0 ? ", no cost" : `, ${costPhrase(options.cost)}`;
  return `### pairflow plan of ${code(diff.plan.workflow.name)}${at}: ${what}${cost}`;
}

/** "estimated cost $0.42", or "cost unknown" as it is. */
export function costPhrase(cost: string): string {
  return cost.startsWith("$") ? `estimated cost ${cost}` : cost;
}

/** "The 547 changed entries: prompts of 547 pairs (53 shown here)". */
function manyTitle(changes: EntryChange[], shown: number): string {
  const kinds = new Map<string, number>();
  for (const c of changes) {
    const what = c.kind === "workflow" ? "workflow settings" : { pair: "configurations", prompt: "prompts", file: "files", section: "sections" }[c.kind];
    kinds.set(what, (kinds.get(what) ?? 0) + 1);
  }
  const parts = [...kinds].map(([what, n]) => (what === "workflow settings" ? what : `${n} ${what}`));
  return `The diffs of ${parts.join(", ")}${shown < changes.length ? ` (${shown} shown here)` : ""}`;
}

function section(title: string, body: string): string {
  return `\n#### ${title}\n\n${body}${body ? "\n" : ""}`;
}

function totalsLine(diff: PlanDiff): string {
  const { run, accepted, unchanged } = countsOf(diff);
  const rest = accepted > 0 ? `${accepted} changed and already accepted, ${unchanged} unchanged` : `${unchanged} unchanged`;
  const head =
    run === 0
      ? `**Nothing will re-run after merging**: ${accepted > 0 ? rest : `all ${count(unchanged, "pair")} unchanged`}.`
      : `**${count(run, "pair")} will re-run after merging**, ${rest}.`;
  return `${head} ${count(diff.added.length, "pair")} added, ${diff.removed.length} removed.`;
}

/**
 * Each change as a collapsed block. When they do not all fit in `room`, each gets an equal share of
 * it (what a smaller one leaves goes to the others, and no share is below MIN_SHARE), a diff longer
 * than its share is cut with a note, and once room runs out the rest are left out (null) and
 * counted in `rest`.
 */
function fitBlocks(changes: EntryChange[], room: number, pointer: string): { blocks: (string | null)[]; rest: string } {
  const lines = changes.map((c) => c.patch.trimEnd().split("\n"));
  const whole = changes.map((c, i) => block(c, lines[i]!, ""));
  const sizes = whole.map((b) => size(b) + 1);
  if (sizes.reduce((a, b) => a + b, 0) <= room) return { blocks: whole, rest: "" };

  const rest = (n: number) => (n > 0 ? `\n…and ${count(n, "more changed entry", "more changed entries")} not shown here; ${pointer}.\n` : "");
  let left = room - size(rest(changes.length));
  const share = Math.max(fairShare(sizes, left), MIN_SHARE);
  const out: (string | null)[] = [];
  for (const [i, c] of changes.entries()) {
    const budget = Math.min(share, left);
    if (sizes[i]! <= budget) {
      out.push(whole[i]!);
    } else {
      const all = lines[i]!.map(shortLine);
      const fits = (n: number) => size(block(c, all.slice(0, n), truncationNote(all.length - n, pointer))) + 1 <= budget;
      let n = 0;
      for (let hi = all.length - 1; n < hi;) {
        const mid = Math.ceil((n + hi) / 2);
        if (fits(mid)) n = mid;
        else hi = mid - 1;
      }
      // Cut before its first added or removed line, a diff is no help.
      if (!all.slice(2, n).some((l) => l.startsWith("+") || l.startsWith("-"))) break;
      out.push(block(c, all.slice(0, n), truncationNote(all.length - n, pointer)));
    }
    left -= size(out[out.length - 1]!) + 1;
  }
  const dropped = changes.length - out.length;
  return { blocks: [...out, ...Array<null>(dropped).fill(null)], rest: rest(dropped) };
}

/** The largest share s such that giving every block min(its size, s) fits in room. */
function fairShare(sizes: number[], room: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = room;
  for (const [k, s] of sorted.entries()) {
    const level = left / (sorted.length - k);
    if (s > level) return Math.floor(level);
    left -= s;
  }
  return Infinity;
}

/** A line of a diff that is being cut anyway, itself cut when very long. */
function shortLine(line: string): string {
  return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE)} …(${line.length - MAX_LINE} more characters)`;
}

function truncationNote(hidden: number, pointer: string): string {
  return `Cut short: ${count(hidden, "more line")} not shown, to keep the comment under GitHub's limit of 65,536 characters; ${pointer}.`;
}

function block(change: EntryChange, lines: string[], note: string): string {
  const what = change.kind === "workflow" ? "workflow settings" : `${ENTRY_WORDS[change.kind]} <code>${nameFor(change.id ?? "", "html")}</code>`;
  const out = [`<details><summary>${what} (${change.change})</summary>`, ""];
  const fence = "`".repeat(Math.max(3, longestRun(lines, "`") + 1));
  out.push(fence + "diff", ...lines, fence, "");
  if (note) out.push(note, "");
  out.push("</details>", "");
  return out.join("\n");
}

/** Last resort, for a text too long even without its diffs: cut at a line and say so. */
function cut(text: string, limit: number, pointer: string): string {
  const note = `\n…cut short to keep the comment under GitHub's limit; ${pointer}.\n`;
  let out = "";
  let used = size(note);
  for (const line of text.split("\n")) {
    used += size(line) + 1;
    if (used > limit) break;
    out += line + "\n";
  }
  return out + note;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${number(n)} ${n === 1 ? one : many}`;
}

function idList(ids: string[], bounded: boolean, pointer: string): string {
  const shown = bounded ? ids.slice(0, MAX_IDS) : ids;
  const more = ids.length - shown.length;
  return shown.map(code).join(", ") + (more > 0 ? `, and ${more} more; ${pointer}.` : "");
}

function cell(text: string, bounded: boolean): string {
  const short = bounded && text.length > MAX_CELL ? text.slice(0, MAX_CELL - 1) + "…" : text;
  return md(short.replace(/\s*\n\s*/g, " "));
}
