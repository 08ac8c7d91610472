/**
 * Causes by weight, in every medium: over random plans and runs, the first cause the terminal (plan
 * and end of a run), the job summary, the pull request comment and the condensed graph show is one
 * that reaches the most pairs (among those with a failed pair, when a run has any), and the graph
 * keeps the biggest causes as boxes and folds the smallest.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../src/model/plan.js";
import type { RunReport } from "../../src/model/run.js";
import { causesOf, nameIn, planNodes, reach, runNodes, type Cause } from "../../src/report/causes.js";
import { planText } from "../../src/report/plan.js";
import { runSummary } from "../../src/report/run.js";
import { mermaidGraph, planSummaryMarkdown, runSummaryMarkdown } from "../../src/report/summary.js";
import { diffMarkdown } from "../../src/report/diffMarkdown.js";
import { diffText } from "../../src/report/diff.js";
import { code, md } from "../../src/report/markdown.js";
import { styleFor } from "../../src/report/color.js";
import { paragraphs } from "./markdown.js";
import { worlds } from "./worlds.js";
import { diffOf } from "../helpers/diff.js";

const plain = styleFor({ isTTY: false });
/** The weight every medium must lead with: the most any cause reaches, among those with a failure when there are some. */
function heaviest(causes: readonly Cause[]): number {
  const failed = causes.filter((c) => c.failed > 0);
  return Math.max(...(failed.length > 0 ? failed : causes).map(reach));
}

/** The cause a line or paragraph starts with, by its words. */
function causeNamed(causes: readonly Cause[], text: string, words: (why: string, cause: Cause) => string): Cause {
  const found = causes.filter((c) => text.startsWith(words(c.why, c)));
  expect(found).toHaveLength(1);
  return found[0]!;
}

const terminalFirst = (text: string, heading: string) => text.split("\n")[text.split("\n").indexOf(heading) + 1]!;

describe("causes by weight", () => {
  it("the first cause of a plan, in the terminal (plan and diff), the job summary, the comment and the graph, reaches the most pairs", () => {
    fc.assert(
      fc.property(worlds, ({ plan }) => {
        const causes = causesOf(planNodes(plan));
        const most = heaviest(causes);
        expect(reach(causes[0]!)).toBe(most);

        const text = planText(plan, plain, "/r");
        if (text.includes("\nWill run, by cause\n")) {
          const line = terminalFirst(text, "Will run, by cause");
          expect(reach(causeNamed(causes, line, (why) => `  ${why}  `))).toBe(most);
        }
        const diff = diffText(diffOf(plan), plain, { cwd: "/r" });
        if (diff.includes("\nWill re-run, by cause\n")) {
          const line = terminalFirst(diff, "Will re-run, by cause");
          expect(reach(causeNamed(causes, line, (why) => `  ${why}  `))).toBe(most);
        }
        const summary = paragraphs(planSummaryMarkdown(plan), "### What will run, by cause")[0]!;
        expect(reach(causeNamed(causes, summary, (_, c) => `**${nameIn(c.name, md, code)}** — `))).toBe(most);
        const comment = paragraphs(diffMarkdown(diffOf(plan)), "#### Will re-run, by cause")[0]!;
        expect(reach(causeNamed(causes, comment, (_, c) => `**${nameIn(c.name, md, code)}** — `))).toBe(most);
        expectGraphByWeight(plan, causes);
      }),
      { numRuns: 40 },
    );
  });

  it("the first cause of a run, at its end in the terminal, in the job summary and the graph, leads with a failure and reaches the most", () => {
    fc.assert(
      fc.property(worlds, ({ plan, report }) => {
        const nodes = runNodes(plan, report);
        const causes = causesOf(nodes);
        const most = heaviest(causes);
        if (causes.some((c) => c.failed > 0)) expect(causes[0]!.failed).toBeGreaterThan(0);

        const end = runSummary(report, plain, { plan });
        const line = terminalFirst(end, "Ran, by cause");
        expect(reach(causeNamed(causes, line, (why) => `  ${why}  `))).toBe(most);
        const summary = paragraphs(runSummaryMarkdown(plan, report), "### What ran, by cause")[0]!;
        expect(reach(causeNamed(causes, summary, (_, c) => `${c.failed > 0 ? "✖ " : ""}**${nameIn(c.name, md, code)}** — `))).toBe(most);
        expectGraphByWeight(plan, causes, report);
      }),
      { numRuns: 40 },
    );
  });
});

/**
 * The condensed graph (forced with a small node limit): its boxes are the causes that reach the
 * most (its edges count the pairs each reaches; failed pairs have boxes of their own), biggest
 * first, and what is folded into "N more causes" reaches no more than any box.
 */
function expectGraphByWeight(plan: Plan, causes: readonly Cause[], report?: RunReport): void {
  const nodes = (report ? runNodes(plan, report) : planNodes(plan)).map((n) => ({ ...n }));
  const graph = mermaidGraph(nodes, { maxNodes: 2 });
  if (!graph.condensed) return;
  const text = graph.text!;
  const boxes = [...text.matchAll(/^ {2}(c\d+)\["/gm)].map((m) => m[1]!);
  const drawn = boxes.map((box) =>
    [...text.matchAll(new RegExp(`^ {2}${box} -->\\|([\\d,]+)\\|`, "gm"))].reduce((n, m) => n + Number(m[1]!.replace(/,/g, "")), 0),
  );
  const bySize = causes.map(reach).sort((a, b) => b - a);
  expect(drawn).toEqual(bySize.slice(0, boxes.length));
  expect(drawn[0]).toBe(Math.max(...causes.map(reach)));
  const folded = bySize.slice(boxes.length);
  if (folded.length > 0) {
    expect(text).toMatch(/^ {2}cx\["[\d,]+ more causes?"\]/m);
    for (const n of folded) expect(n).toBeLessThanOrEqual(Math.min(...drawn));
  }
}
