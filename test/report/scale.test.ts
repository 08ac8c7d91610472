/**
 * Every report at 10, 200 and 1,000 pairs, in every medium — the terminal (`plan`, `diff`, the end
 * of `run`), the pull request comment and the job summaries — for the workflows of
 * bench/reportScenarios.ts: one cause (the workflow's specification edited: every pair re-runs for
 * it), many causes (more than half the pairs edited in six ways), many failures (a run in which 1 in
 * 4 of the later pairs fails). Made by the planner and the diff themselves, in this process; each is
 * rendered as the CLI and the action render it.
 *
 * What a reader needs comes first at every size and the terminal fits a screen; the Markdown keeps
 * GitHub's limits, with its first cause, its first failure and its graph near the top.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan, PlannedPair, Reason } from "../../src/model/plan.js";
import { failingRun, reportScenario, type Scenario, type ScenarioKind } from "../../bench/reportScenarios.js";
import { styleFor } from "../../src/report/color.js";
import { planText, SCREEN_LINES } from "../../src/report/plan.js";
import { diffText, PATCH_LINES } from "../../src/report/diff.js";
import { runSummary } from "../../src/report/run.js";
import { COMMENT_LIMIT, commentMarker, diffMarkdown } from "../../src/report/diffMarkdown.js";
import { MAX_CAUSES, planSummaryMarkdown, runSummaryMarkdown, STEP_SUMMARY_LIMIT } from "../../src/report/summary.js";
import { estimateHeadline, totalCostText } from "../../src/report/estimate.js";
import { GRAPH_NODE_LIMIT } from "../../src/report/impact.js";
import { checkMermaid, mermaidBlocks } from "../action/mermaid.js";
import { paragraphs } from "./markdown.js";
import { scaled } from "../helpers/time.js";

const plain = styleFor({ isTTY: false });
const SIZES = [10, 200, 1_000];

const scenarios = new Map<string, Promise<Scenario>>();
/** Made once per size and kind, when a test first needs it. */
function scenario(n: number, kind: ScenarioKind): Promise<Scenario> {
  const key = `${n} ${kind}`;
  if (!scenarios.has(key)) scenarios.set(key, reportScenario(n, kind));
  return scenarios.get(key)!;
}

const lines = (text: string) => text.trimEnd().split("\n");
/** The 0-based line of the first line that matches. */
const lineOf = (text: string, pattern: RegExp) => lines(text).findIndex((l) => pattern.test(l));

function comment(s: Scenario): string {
  const sha = s.diff.head!;
  return diffMarkdown(s.diff, {
    marker: commentMarker(s.diff.workflowFile),
    hidden: [`<!-- pairflow:planned ${sha} run 1 attempt 1 -->`],
    commit: { sha, url: `https://github.com/o/r/commit/${sha}` },
    cost: totalCostText(s.diff.planned.estimate),
    summaryUrl: "https://github.com/o/r/actions/runs/1",
  });
}

/** The graph of a Markdown report: Mermaid parses it; a large workflow's is condensed to a few boxes. */
async function expectGraph(markdown: string, n: number): Promise<string> {
  const [graph, ...more] = mermaidBlocks(markdown);
  expect(more).toEqual([]);
  await checkMermaid(graph!);
  const boxes = graph!.match(/^ {2}\w+(\[|\{\{|\(\[)"/gm)!.length;
  if (n > GRAPH_NODE_LIMIT) {
    expect(graph).toMatch(/^ {2}c0\["/m);
    expect(boxes).toBeLessThanOrEqual(34);
  } else expect(boxes).toBe(n);
  return graph!;
}

describe.each(SIZES)("at %i pairs", (n) => {
  const big = n > GRAPH_NODE_LIMIT;

  describe("one cause: the workflow's specification edited", () => {
    it("the terminal's plan and diff put the one cause first, and fit a screen", { timeout: scaled(60_000) }, async () => {
      const s = await scenario(n, "one-cause");
      const plan = planText(s.diff.planned.plan, plain, s.dir, s.diff.planned.estimate);
      expect(lines(plan).length).toBeLessThanOrEqual(SCREEN_LINES);
      expect(plan).toMatch(new RegExp(`^Estimate for ${n.toLocaleString("en-US")} pairs to run: [\\d,]+ tokens, `, "m"));
      if (big) {
        expect(lineOf(plan, /^Will run, by cause$/)).toBe(2);
        expect(lines(plan)[3]).toBe(
          `  prompt: workflow specification changed  ${n.toLocaleString("en-US")} pairs · waves 1–${s.diff.planned.plan.graph.waves.length}`,
        );
        expect(lines(plan).at(-1)).toBe("pairflow plan --all lists every pair, by wave.");
        // --all: every pair, by wave.
        const all = planText(s.diff.planned.plan, plain, s.dir, s.diff.planned.estimate, { all: true });
        expect(lines(all).filter((l) => /^ {2}run /.test(l))).toHaveLength(n);
      } else expect(lines(plan).filter((l) => /^ {2}run /.test(l))).toHaveLength(n);

      const diff = diffText(s.diff, plain, { cwd: s.dir });
      expect(lineOf(diff, /^workflow settings \(changed\)$/)).toBeLessThan(SCREEN_LINES);
      expect(lines(diff)[1]).toBe(`${n.toLocaleString("en-US")} to re-run after merging, 0 unchanged; 0 added, 0 removed`);
      expect(diff).toContain("+  Every module logs what it refuses, and why.");
      expect(lines(diff).length).toBeLessThanOrEqual(SCREEN_LINES + PATCH_LINES);
    });

    it("the comment is one cause with the diff that explains it under it, near the top", { timeout: scaled(60_000) }, async () => {
      const s = await scenario(n, "one-cause");
      const text = comment(s);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(COMMENT_LIMIT);
      const causes = paragraphs(text, "#### Will re-run, by cause");
      expect(causes).toHaveLength(1);
      expect(causes[0]).toMatch(new RegExp(`^\\*\\*prompt: workflow specification changed\\*\\* — ${n.toLocaleString("en-US")} pairs · waves? 1`));
      expect(text).toContain(`\n**${n.toLocaleString("en-US")} pairs will re-run after merging**, 0 unchanged.`);
      // The one-line diff that explains it is right under it: in the first 1,500 characters, not 7,400 px down.
      const at = text.indexOf("<details><summary>workflow settings (changed)</summary>");
      expect(at).toBeGreaterThan(text.indexOf(causes[0]!));
      expect(at).toBeLessThan(1_500);
      expect(lines(text).length).toBeLessThan(100);
      await expectGraph(text, n);

      // The job summary of the same plan: one cause with its count, near the top.
      const summary = planSummaryMarkdown(s.diff.planned.plan, { cost: totalCostText(s.diff.planned.estimate) });
      expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
      const inSummary = paragraphs(summary, "### What will run, by cause");
      expect(inSummary).toHaveLength(1);
      expect(inSummary[0]!.split(" — ")[0]).toBe(causes[0]!.split(" — ")[0]);
      expect(summary.indexOf("### What will run, by cause")).toBeLessThan(800);
      for (const report of [text, summary]) expect(report).not.toMatch(/\b0 tokens\b|Estimate: 0 pairs/);
    });
  });

  describe("many causes: more than half the pairs edited in six ways", () => {
    it("the terminal's plan lists the causes first, each with the pairs that reach the most, within a screen", { timeout: scaled(60_000) }, async () => {
      const s = await scenario(n, "many-causes");
      const plan = planText(s.diff.planned.plan, plain, s.dir, s.diff.planned.estimate);
      expect(lines(plan).length).toBeLessThanOrEqual(SCREEN_LINES);
      if (!big) return;
      expect(lineOf(plan, /^Will run, by cause$/)).toBe(2);
      expect(lines(plan)[3]).toMatch(/^ {2}\S.* {2}[\d,]+ pairs \+ [\d,]+ downstream · waves \d+–\d+$/);
      // Not one line per pair: the unchanged and the downstream pairs are counted.
      expect(lines(plan).filter((l) => /^ {2}(run|skip) /.test(l))).toEqual([]);
      const diff = diffText(s.diff, plain, { cwd: s.dir });
      expect(lineOf(diff, /^Will re-run, by cause$/)).toBe(3);
      expect(diff).toMatch(/… and \d+ more changed entries \(\d+ lines\): pairflow diff --all shows every one\.\n$/);
      expect(lines(diff).length).toBeLessThanOrEqual(SCREEN_LINES + PATCH_LINES);
    });

    it("the comment and the job summary give each cause once, with a count, and stay within GitHub's limits", { timeout: scaled(60_000) }, async () => {
      const s = await scenario(n, "many-causes");
      const text = comment(s);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(COMMENT_LIMIT);
      const causes = paragraphs(text, "#### Will re-run, by cause");
      expect(causes.length).toBeGreaterThanOrEqual(n === 10 ? 1 : 5);
      expect(causes.length).toBeLessThanOrEqual(MAX_CAUSES);
      expect(new Set(causes.map((c) => c.split(" — ")[0])).size).toBe(causes.length);
      expect(text.indexOf("#### Will re-run, by cause")).toBeLessThan(800);
      // A cause explained by many diffs has them in one collapsed block: its paragraph, then one line.
      if (big) expect(text).toMatch(/\n\n<details><summary>The diffs of \d+ prompts( \(\d+ shown here\))?<\/summary>\n/);
      await expectGraph(text, n);

      const summary = planSummaryMarkdown(s.diff.planned.plan, { cost: totalCostText(s.diff.planned.estimate) });
      expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
      expect(paragraphs(summary, "### What will run, by cause").map((c) => c.split(" — ")[0])).toEqual(causes.map((c) => c.split(" — ")[0]));
      // Everything before the table of all pairs is some 30 lines, whatever the size.
      expect(lines(summary.slice(0, summary.indexOf("<details><summary>All "))).length).toBeLessThan(120);
      await expectGraph(summary, n);
    });
  });

  describe("many failures: 1 in 4 of the later pairs fails", () => {
    it("the end of the run says why each failed in a line, those that blocked the most first, within a screen", { timeout: scaled(60_000) }, async () => {
      const s = await scenario(n, "one-cause");
      const report = failingRun(s.diff, n);
      const text = runSummary(report, plain, { plan: s.diff.planned.plan });
      const failed = report.pairs.filter((p) => p.status === "failed");
      expect(failed.length).toBeGreaterThan(0);
      if (report.pairs.length > 30) {
        expect(lines(text).length).toBeLessThanOrEqual(SCREEN_LINES);
        expect(lineOf(text, /^Failed \(/)).toBeLessThanOrEqual(4);
        expect(lines(text)[lineOf(text, /^Failed \(/) + 1]).toMatch(
          /^ {2}✖ \S+( \(blocked [\d,]+ pairs?\))?: rejected after 2 attempts: … → expected \[ 1, 2, \d+ \] to deeply equal/,
        );
        expect(text).toContain(`pairflow show ${report.runId}`);
      } else {
        expect(text).toMatch(
          /^ {2}\S+: rejected after 2 attempts: … → expected \[ 1, 2, \d+ \] to deeply equal .* … \d+ lines … Tests 1 failed \| 18 passed \(19\)$/m,
        );
      }
      expect(text).not.toMatch(/: rejected after 2 attempts: \[earlier output omitted\]$/m);
      expect(text).not.toMatch(/\b0 tokens\b/);
    });

    it("the job summary starts with the failures, says why in each headline, and says tokens were not reported", { timeout: scaled(60_000) }, async () => {
      const s = await scenario(n, "one-cause");
      const report = failingRun(s.diff, n);
      const markdown = runSummaryMarkdown(s.diff.planned.plan, report);
      expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
      expect(markdown).toContain(" · tokens not reported · ");
      expect(markdown.indexOf("### Failed (")).toBeLessThan(600);
      const headlines = [...markdown.matchAll(/<details><summary>✖ <code>[^<]+<\/code>[^:]*: (.*)<\/summary>/g)].map((m) => m[1]!);
      expect(headlines.length).toBe(report.totals.failed);
      for (const h of headlines)
        expect(h).toMatch(
          /^rejected after 2 attempts: … → expected \[ 1, 2, \d+ \] to deeply equal \[ 1, 2, \d+ \] … 13 lines … Tests 1 failed \| 18 passed \(19\)$/,
        );
      // Ten open, the rest in one block: the causes follow within a screen of Markdown lines.
      const rest = markdown.indexOf(`<details><summary>${report.totals.failed - 10} more failed pair`);
      const open = markdown.slice(0, rest > 0 ? rest : markdown.indexOf("### What ran, by cause"));
      expect(open.split("\n<details><summary>✖").length - 1).toBe(Math.min(10, report.totals.failed));
      expect(paragraphs(markdown, "### What ran, by cause")[0]).toMatch(
        /^✖ \*\*prompt: workflow specification changed\*\* — [\d,]+ pairs \([\d,]+ failed, [\d,]+ executed\)/,
      );
      const graph = await expectGraph(markdown, n);
      if (big) expect(graph.match(/\{\{"✖ /g)!.length).toBe(Math.min(report.totals.failed, 8));
    });
  });
});

/** The ways a pair changes on its own; what depends on a changed pair re-runs because of it. */
const OWN: Reason[] = [
  { kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } },
  { kind: "prompt", detail: "prompt.role changed", component: { kind: "prompt" as const, name: "role" } },
  { kind: "prompt", detail: "workflow specification changed", component: { kind: "context" as const, name: "specification" } },
  { kind: "model", detail: "model changed (was gpt-4o)" },
  { kind: "inputs", detail: "inputs changed: src/app.ts" },
  { kind: "new", detail: "never accepted" },
];

/** The 1,000-pair workflow's plan with these pairs changed (each one way), and what follows from them run. */
function changed(plan: Plan, edits: ReadonlyMap<string, Reason>): Plan {
  const byId = new Map<string, PlannedPair>();
  const pairs = plan.pairs.map((p) => {
    const upstream = p.requires
      .filter((d) => byId.get(d)!.action === "run")
      .map((d): Reason => ({ kind: "upstream", detail: `${d} will run`, component: { kind: "upstream" as const, name: d } }));
    const reasons = [...(edits.has(p.id) ? [edits.get(p.id)!] : []), ...upstream];
    const pair: PlannedPair = { ...p, action: reasons.length > 0 ? "run" : "skip", reasons };
    byId.set(p.id, pair);
    return pair;
  });
  return { ...plan, pairs, byId };
}

describe("at 1,000 pairs, whatever changed", () => {
  const edits = (ids: string[]) =>
    fc
      .array(fc.tuple(fc.nat({ max: ids.length - 1 }), fc.nat({ max: OWN.length - 1 })), { minLength: 1, maxLength: 700 })
      .map((list) => new Map(list.map(([i, how]) => [ids[i]!, OWN[how]!])));

  it(
    "the terminal's plan and run put causes and failures first and fit a screen; the job summaries keep GitHub's limits",
    { timeout: scaled(60_000) },
    async () => {
      const s = await scenario(1_000, "many-causes");
      const ids = s.diff.planned.plan.pairs.map((p) => p.id);
      fc.assert(
        fc.property(edits(ids), (edited) => {
          const plan = changed(s.diff.planned.plan, edited);
          const run = plan.pairs.filter((p) => p.action === "run").length;

          const text = planText(plan, plain, s.dir);
          expect(lines(text).length).toBeLessThanOrEqual(SCREEN_LINES);
          expect(lines(text)[2]).toBe("Will run, by cause");
          expect(lines(text).at(-2)).toBe(`${run.toLocaleString("en-US")} to run, ${(1_000 - run).toLocaleString("en-US")} unchanged`);
          expect(lines(text).at(-1)).toBe("pairflow plan --all lists every pair, by wave.");

          const summary = planSummaryMarkdown(plan);
          expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
          expect(summary).toContain(`**${run.toLocaleString("en-US")} of 1,000 pairs to run**`);
          const causes = paragraphs(summary, "### What will run, by cause");
          expect(causes.length).toBeGreaterThanOrEqual(Math.min(new Set(edited.values()).size, MAX_CAUSES - 1));
          expect(causes.length).toBeLessThanOrEqual(MAX_CAUSES);
          expect(summary.indexOf("### What will run, by cause")).toBeLessThan(800);

          // The same change, run: 1 in 4 of the later pairs fails.
          const report = failingRun({ ...s.diff, planned: { ...s.diff.planned, plan } }, run);
          if (report.totals.failed === 0) return;
          const end = runSummary(report, plain, { plan });
          expect(lines(end).length).toBeLessThanOrEqual(SCREEN_LINES);
          expect(lineOf(end, /^Failed \(/)).toBeLessThanOrEqual(4);
          const markdown = runSummaryMarkdown(plan, report);
          expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
          expect(markdown.indexOf("### Failed (")).toBeLessThan(600);
          for (const report of [end, markdown]) expect(report).not.toMatch(/\b0 tokens\b/);
        }),
        { numRuns: 8 },
      );
    },
  );

  it("the estimate names the pairs it leaves out, never '0 pairs to run' under a count of pairs to run", async () => {
    const s = await scenario(1_000, "many-causes");
    const { estimate } = s.diff.planned;
    const running = s.diff.planned.plan.pairs.filter((p) => p.action === "run").length;
    fc.assert(
      fc.property(fc.nat({ max: estimate.pairs.length }), (k) => {
        const pairs = estimate.pairs.slice(0, k);
        const part = { ...estimate, pairs, totals: { ...estimate.totals, pairs: k } };
        const headline = estimateHeadline(part, running);
        expect(headline).not.toMatch(/^0 pairs/);
        if (k === 0) expect(headline).toBe(`none of the ${running.toLocaleString("en-US")} pairs to run calls a model: no cost`);
        else if (k < running)
          expect(headline).toMatch(new RegExp(`^the ${k.toLocaleString("en-US")} of ${running.toLocaleString("en-US")} pairs to run that call a model: `));
        else expect(headline).toMatch(new RegExp(`^${running.toLocaleString("en-US")} pairs to run: `));
      }),
      { numRuns: 30 },
    );
  });
});
