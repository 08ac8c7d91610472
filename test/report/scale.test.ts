/**
 * Every report at 10, 200 and 1,000 pairs, in the three situations of test/report/situations.ts —
 * one cause (the workflow's specification edited), twenty different edits, and a run in which 5 %
 * of the pairs fail — in every medium: the terminal (`plan`, `diff`, the end of `run`), the pull
 * request comment, the job summaries of a plan and of a run, their graphs and the run's
 * annotations. Made by the planner and the diff themselves and rendered as the CLI and the action
 * render them.
 *
 * Done when: the cause that reaches the most pairs is the first row and a box of its own in the
 * graph; each edit is exactly one row, naming its pair or file; every figure agrees across plan,
 * run, comment, summary and graph; no table is wider than GitHub's comment column (740 px); the
 * failure that blocked the most is among the annotations; every pair that will run can be found in
 * the comment.
 *
 * Widths are estimated from the text, as GitHub's CSS lays a table out: `width: max-content;
 * max-width: 100%`, so cells wrap at spaces and a table overflows the column only when its
 * columns' longest unbreakable words, with each cell's padding, are wider than it. A headless
 * browser measures the rendered page too, where the machine has one (none in CI: it is skipped).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunReport } from "../../src/model/run.js";
import { styleFor } from "../../src/report/color.js";
import { planText, SCREEN_LINES } from "../../src/report/plan.js";
import { diffText } from "../../src/report/diff.js";
import { columns, fitLines } from "../../src/report/fit.js";
import { runSummary } from "../../src/report/run.js";
import { COMMENT_LIMIT, commentMarker, diffMarkdown } from "../../src/report/diffMarkdown.js";
import { planSummaryMarkdown, runSummaryMarkdown, STEP_SUMMARY_LIMIT } from "../../src/report/summary.js";
import { blockedBy, causeExtent, causesOf, changesFor, nameIn, planNodes, plural, reach, runNodes, type Cause } from "../../src/report/causes.js";
import { code, md } from "../../src/report/markdown.js";
import { GRAPH_NODE_LIMIT } from "../../src/report/impact.js";
import { totalCostText } from "../../src/report/estimate.js";
import { annotateFailedRun, MAX_ERROR_ANNOTATIONS } from "../../src/action/log.js";
import { checkMermaid, mermaidBlocks } from "../action/mermaid.js";
import { paragraphs } from "./markdown.js";
import { failingRun, situation, type Situation } from "./situations.js";
import { scaled } from "../helpers/time.js";

const plain = styleFor({ isTTY: false });
const SIZES = [10, 200, 1_000];
/** GitHub's comment column, and how wide text is set in it: 14 px type, code a little smaller; 8 px a character errs wide. */
const COLUMN_PX = 740;
const CHAR_PX = 8;
/** A cell's padding (6 px 13 px) and border. */
const CELL_PX = 2 * 13 + 1;

const lines = (text: string) => text.trimEnd().split("\n");

function comment(s: Situation): string {
  const sha = s.diff.head!;
  return diffMarkdown(s.diff, {
    marker: commentMarker(s.diff.workflowFile),
    hidden: [`<!-- pairflow:planned ${sha} run 1 attempt 1 -->`],
    commit: { sha, url: `https://github.com/o/r/commit/${sha}` },
    cost: totalCostText(s.diff.planned.estimate),
    summaryUrl: "https://github.com/o/r/actions/runs/1",
  });
}

/** How a cause's paragraph starts in every Markdown report: its name in bold, then how far it reaches. */
const paragraphOf = (c: Cause) => `${c.failed > 0 ? "✖ " : ""}**${nameIn(c.name, md, code)}** — ${causeExtent(c, code)}`;
/** How a cause's line reads on a terminal. */
const lineOf = (c: Cause) => `  ${c.why}  ${causeExtent(c)}`;

/** The Markdown tables of a report, each a list of rows of cells as written. */
function tables(markdown: string): string[][][] {
  const found: string[][][] = [];
  let table: string[][] | null = null;
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("|")) {
      table = null;
      continue;
    }
    if (!table) found.push((table = []));
    if (/^\|( *:?-+:? *\|)+$/.test(line)) continue;
    table.push(line.slice(1, -1).split(/(?<!\\)\|/));
  }
  return found;
}

/** The least width a table takes: each column as wide as its longest word, with the cells' padding and borders. */
function minWidth(table: string[][]): number {
  const columns = Math.max(...table.map((row) => row.length));
  let width = 1;
  for (let i = 0; i < columns; i++) {
    const words = table.flatMap((row) => (row[i] ?? "").replace(/\\(.)/g, "$1").replace(/`/g, "").trim().split(/\s+/));
    width += Math.max(...words.map((w) => [...w].length)) * CHAR_PX + CELL_PX;
  }
  return width;
}

function expectTablesFit(markdown: string): void {
  for (const table of tables(markdown)) {
    expect(table[0]!.length, table[0]!.join("|")).toBeLessThanOrEqual(4);
    expect(minWidth(table), table[0]!.join("|")).toBeLessThanOrEqual(COLUMN_PX);
  }
}

/**
 * The report's one graph: Mermaid parses it, top to bottom, with short labels. Condensed (a large
 * workflow), its first box is the cause that reaches the most, with that figure, and every cause's
 * box counts the pairs it reaches; drawn whole, the first cause's pairs have boxes of their own.
 */
async function expectGraph(markdown: string, causes: readonly Cause[], n: number): Promise<void> {
  const [graph, ...more] = mermaidBlocks(markdown);
  expect(more).toEqual([]);
  await checkMermaid(graph!);
  expect(graph).toMatch(/^flowchart TD$/m);
  for (const m of graph!.matchAll(/"([^"]*)"/g)) for (const part of m[1]!.split("<br/>")) expect([...part].length, part).toBeLessThanOrEqual(40);
  const biggest = causes.reduce((a, b) => (reach(b) > reach(a) ? b : a));
  const boxes = [...graph!.matchAll(/^ {2}c\d+\["(.*)<br\/>(.*)"\]$/gm)];
  if (n > GRAPH_NODE_LIMIT) {
    expect(boxes.length).toBeGreaterThan(0);
    expect(boxes[0]![2]).toBe(plural(reach(biggest), "pair"));
    expect(biggest.why.startsWith(boxes[0]![1]!.replace(/….*$/, ""))).toBe(true);
    for (const [, words, count] of boxes) {
      if (/^[\d,]+ more causes?$/.test(words!)) continue;
      const named = causes.filter((c) => c.why.startsWith(words!.replace(/….*$/, "")) && plural(reach(c), "pair") === count);
      expect(named.length, `${words} ${count}`).toBeGreaterThan(0);
    }
  } else {
    for (const r of biggest.roots) expect(graph).toMatch(new RegExp(`^ {2}p\\d+\\S*"[^"]*${r.id}"`, "m"));
  }
}

/** What annotateFailedRun writes: GitHub's workflow commands, one line each. */
function annotations(s: Situation, report: RunReport): string[] {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
  const exitCode = process.exitCode;
  try {
    const { plan, loaded, workflow } = s.diff.planned;
    annotateFailedRun(
      report,
      { failure: `${report.totals.failed} pairs failed`, blocked: blockedBy(runNodes(plan, report)) },
      loaded.sources.workflow,
      workflow,
      s.dir,
    );
  } finally {
    spy.mockRestore();
    process.exitCode = exitCode;
  }
  return written
    .join("")
    .split("\n")
    .filter((l) => l.startsWith("::error"));
}

afterEach(() => vi.restoreAllMocks());

describe.each(SIZES)("at %i pairs", (n) => {
  const timeout = scaled(120_000);

  it.each(["one-cause", "twenty-edits"] as const)(
    "%s: the cause that reaches the most pairs leads every medium and has a box of its own in the graph",
    { timeout },
    async (kind) => {
      const s = await situation(n, kind);
      const { plan } = s.diff.planned;
      const causes = causesOf(planNodes(plan));
      const first = causes[0]!;
      expect(reach(first)).toBe(Math.max(...causes.map(reach)));

      const text = planText(plan, plain, s.dir, s.diff.planned.estimate);
      expect(lines(text).length).toBeLessThanOrEqual(SCREEN_LINES);
      if (text.includes("\nWill run, by cause\n")) expect(lines(text)[lines(text).indexOf("Will run, by cause") + 1]).toBe(lineOf(first));
      const diff = diffText(s.diff, plain, { cwd: s.dir });
      if (diff.includes("\nWill re-run, by cause\n")) expect(lines(diff)[lines(diff).indexOf("Will re-run, by cause") + 1]).toBe(lineOf(first));

      const body = comment(s);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(COMMENT_LIMIT);
      expect(paragraphs(body, "#### Will re-run, by cause")[0]!.startsWith(paragraphOf(first))).toBe(true);
      // Within the first screen of the comment.
      expect(body.indexOf(paragraphOf(first))).toBeLessThan(1_000);
      await expectGraph(body, causes, n);

      const summary = planSummaryMarkdown(plan, { cost: totalCostText(s.diff.planned.estimate) });
      expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
      expect(paragraphs(summary, "### What will run, by cause")[0]!.startsWith(paragraphOf(first))).toBe(true);
      await expectGraph(summary, causes, n);
    },
  );

  it("twenty edits: each edit is exactly one row, naming its pair or file, in the terminal, the comment and the summary", { timeout }, async () => {
    const s = await situation(n, "twenty-edits");
    const { plan } = s.diff.planned;
    const causes = causesOf(planNodes(plan));
    expect(s.edits.length).toBe(20);
    expect(causes.map((c) => c.why).sort()).toEqual([...s.edits].sort());
    const rows = (markdown: string, heading: string) => paragraphs(markdown, heading);
    const body = rows(comment(s), "#### Will re-run, by cause");
    const summary = rows(planSummaryMarkdown(plan), "### What will run, by cause");
    for (const found of [body, summary]) {
      expect(found).toHaveLength(20);
      for (const c of causes) expect(found.filter((p) => p.startsWith(`**${nameIn(c.name, md, code)}** — `))).toHaveLength(1);
    }
    // Each names its pair or its file, as code, with the diff of its edit under it in the comment.
    const full = comment(s);
    const templateOf = (id: string) => plan.workflow.pairs.get(id)?.template;
    for (const c of causes) {
      expect(c.name.some((p) => typeof p !== "string")).toBe(true);
      const diffs = changesFor(c, s.diff.changes, templateOf);
      expect(diffs.length, c.why).toBeGreaterThan(0);
      // Under it, or under an earlier cause the same entry explains (a pair's model and its requires are one entry).
      const at = full.indexOf(paragraphOf(c));
      const upTo = full.slice(0, at + full.slice(at).split("\n\n**")[0]!.length);
      for (const d of diffs) expect(upTo, c.why).toContain(`<code>${d.id}</code> (${d.change})</summary>`);
    }
    if (s.edits.includes("input src/app/models.py"))
      expect(full).toContain("<details><summary>file <code>src/app/models.py</code> (changed)</summary>\n\n```diff\n--- a/src/app/models.py\n");
    const text = planText(plan, plain, s.dir);
    if (text.includes("\nWill run, by cause\n")) for (const c of causes) expect(lines(text).filter((l) => l === lineOf(c))).toHaveLength(1);
  });

  it("twenty edits, run with 5 % failing: every figure agrees across plan, run, comment, summary and graph", { timeout }, async () => {
    const s = await situation(n, "twenty-edits");
    const { plan } = s.diff.planned;
    const report = failingRun(s.diff);
    const planned = causesOf(planNodes(plan));
    const ran = causesOf(runNodes(plan, report));

    // On a terminal of 72 columns, the end of the run and what re-runs fit it; the entries' diffs are left whole.
    const summaryLines = runSummary(report, plain, { plan, columns: 72 }).split("\n");
    for (const line of summaryLines) expect(columns(line)).toBeLessThan(72);
    expect(
      runSummary(report, plain, { plan })
        .split("\n")
        .some((line) => columns(line) >= 72),
    ).toBe(true);
    expect(runSummary(report, plain, { plan, columns: 72 })).toBe(fitLines(runSummary(report, plain, { plan }), 72));
    const whole = diffText(s.diff, plain, { cwd: s.dir });
    const fitted = diffText(s.diff, plain, { cwd: s.dir, columns: 72 });
    const patches = whole.indexOf("\n\n", whole.lastIndexOf("Will re-run"));
    expect(fitted.endsWith(whole.slice(patches))).toBe(true);
    for (const line of fitted.slice(0, fitted.length - (whole.length - patches)).split("\n")) expect(columns(line)).toBeLessThan(72);

    // The same causes before and after the run, each reaching the same pairs.
    expect(ran.map((c) => c.key).sort()).toEqual(planned.map((c) => c.key).sort());
    for (const c of ran) {
      const before = planned.find((p) => p.key === c.key)!;
      expect([c.roots.length, c.downstream.length]).toEqual([before.roots.length, before.downstream.length]);
      expect([...c.rootStatuses, ...c.downstreamStatuses].reduce((k, x) => k + x.count, 0)).toBe(reach(c));
    }
    // Each medium prints the model's figures for every cause it shows.
    const planMedia = [paragraphs(comment(s), "#### Will re-run, by cause"), paragraphs(planSummaryMarkdown(plan), "### What will run, by cause")];
    for (const found of planMedia) expect(found.map((p) => planned.find((c) => p.startsWith(paragraphOf(c)))?.key)).toEqual(planned.map((c) => c.key));
    const runMarkdown = runSummaryMarkdown(plan, report);
    const runFound = paragraphs(runMarkdown, "### What ran, by cause");
    expect(runFound.map((p) => ran.find((c) => p.startsWith(paragraphOf(c)))?.key)).toEqual(ran.map((c) => c.key));
    const end = runSummary(report, plain, { plan });
    if (end.includes("\nRan, by cause\n"))
      for (const line of lines(end).slice(lines(end).indexOf("Ran, by cause") + 1)) {
        if (!line.startsWith("  ") || line.startsWith("    ") || line.startsWith("  …")) break;
        expect(ran.filter((c) => line === lineOf(c))).toHaveLength(1);
      }
    await expectGraph(runMarkdown, ran, n);
    // Blocked pairs are counted as a set: no figure is more than there are, and the totals agree.
    expect(runMarkdown).toContain(`${report.totals.failed.toLocaleString("en-US")} failed, ${report.totals.blocked.toLocaleString("en-US")} blocked`);
    for (const m of runMarkdown.matchAll(/⊘ ([\d,]+) blocked/g)) expect(Number(m[1]!.replace(/,/g, ""))).toBeLessThanOrEqual(report.totals.blocked);
  });

  it("5 % failing: the failure that blocked the most is annotated, after the run's own error, within GitHub's ten", { timeout }, async () => {
    const s = await situation(n, "one-cause");
    const report = failingRun(s.diff);
    const blocked = blockedBy(runNodes(s.diff.planned.plan, report));
    const most = [...blocked].reduce((a, b) => (b[1] > a[1] ? b : a));
    const written = annotations(s, report);
    expect(written.length).toBeLessThanOrEqual(MAX_ERROR_ANNOTATIONS);
    expect(written[0]).toBe(`::error::${report.totals.failed} pairs failed`);
    // Workflow command properties escape ":" and ",".
    const titles = written.map((l) => /title=([^,:]*)/.exec(l)?.[1]?.replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%25/g, "%"));
    expect(titles).toContain(`pairflow: ${most[0]} failed`);

    // The job summary and the end of the run lead with it.
    const markdown = runSummaryMarkdown(s.diff.planned.plan, report);
    expect(markdown.indexOf("### Failed (")).toBeLessThan(600);
    expect(markdown.slice(markdown.indexOf("### Failed (")).match(/<summary>✖ <code>([^<]+)<\/code>/)![1]).toBe(most[0]);
    const end = runSummary(report, plain, { plan: s.diff.planned.plan });
    if (report.pairs.length > 30) expect(lines(end)[lines(end).findIndex((l) => l.startsWith("Failed (")) + 1]).toContain(`✖ ${most[0]}`);
    await expectGraph(markdown, causesOf(runNodes(s.diff.planned.plan, report)), n);
  });

  it.each(["one-cause", "twenty-edits"] as const)(
    "%s: every pair that will run can be found in the comment, and no table is wider than the column",
    { timeout },
    async (kind) => {
      const s = await situation(n, kind);
      const { plan } = s.diff.planned;
      const body = comment(s);
      for (const p of plan.pairs.filter((p) => p.action === "run")) expect(body).toContain(code(p.id));
      const report = failingRun(s.diff);
      for (const markdown of [body, planSummaryMarkdown(plan, { cost: totalCostText(s.diff.planned.estimate) }), runSummaryMarkdown(plan, report)])
        expectTablesFit(markdown);
    },
  );

  it.skipIf(!browser())(
    "twenty-edits: no table of the comment or the summaries, rendered in a headless browser, is wider than the column",
    { timeout },
    async () => {
      const s = await situation(n, "twenty-edits");
      const { plan } = s.diff.planned;
      const media = [
        comment(s),
        planSummaryMarkdown(plan, { cost: totalCostText(s.diff.planned.estimate) }),
        runSummaryMarkdown(plan, failingRun(s.diff)),
      ].join("\n\n");
      const widths = await renderedWidths(media);
      // Every table the Markdown has was rendered and measured: none is left out of the check.
      expect(widths).toHaveLength(tables(media).length);
      expect(widths.length).toBeGreaterThan(0);
      for (const w of widths) expect(w).toBeLessThanOrEqual(COLUMN_PX);
    },
  );
});

/** A Chromium on this machine, if there is one. */
function browser(): string | null {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || null;
    } catch {
      // not installed
    }
  }
  return null;
}

/** The scroll width of each table of the Markdown, rendered (marked) in a 740 px column with GitHub's table rules. */
async function renderedWidths(markdown: string): Promise<number[]> {
  const { marked } = (await import("marked" as string)) as { marked: { parse: (s: string) => string } };
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-render-"));
  const page = path.join(dir, "page.html");
  writeFileSync(
    page,
    `<!doctype html><html><head><style>
body{margin:0;font:14px -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;line-height:1.5}
main{width:${COLUMN_PX}px}
table{display:block;width:max-content;max-width:100%;overflow:auto;border-spacing:0;border-collapse:collapse}
td,th{padding:6px 13px;border:1px solid #d1d9e0}
code{font:85% ui-monospace,SFMono-Regular,Menlo,monospace;white-space:break-spaces}
</style></head><body><main>${marked.parse(markdown)}</main>
<script>document.title=JSON.stringify([...document.querySelectorAll("table")].map((t)=>t.scrollWidth))</script></body></html>`,
  );
  // Nothing of the network (this machine has none) and a profile of its own; the launcher's chatter is not ours to show.
  const flags = [
    "--headless",
    "--disable-gpu",
    "--no-sandbox",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ];
  const dom = execFileSync(browser()!, [...flags, `--user-data-dir=${path.join(dir, "profile")}`, "--dump-dom", `file://${page}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return JSON.parse(/<title>(.*)<\/title>/.exec(dom)![1]!) as number[];
}
