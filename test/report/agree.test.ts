/**
 * One set of numbers, over random change sets and runs of them: every cause the terminal (plan,
 * diff, end of a run), the job summaries, the pull request comment and the condensed graph print is
 * one of the model's (src/report/causes.ts), with the model's figures; a run's causes are its
 * plan's, each reaching the same pairs; and every edit is one cause, before and after the run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { causeExtent, causesOf, nameIn, planNodes, plural, reach, runNodes, type Cause } from "../../src/report/causes.js";
import { planText } from "../../src/report/plan.js";
import { runSummary } from "../../src/report/run.js";
import { mermaidGraph, planSummaryMarkdown, runSummaryMarkdown } from "../../src/report/summary.js";
import { diffMarkdown } from "../../src/report/diffMarkdown.js";
import { code, md } from "../../src/report/markdown.js";
import { styleFor } from "../../src/report/color.js";
import { paragraphs } from "./markdown.js";
import { worlds } from "./worlds.js";
import { diffOf } from "../helpers/diff.js";

const plain = styleFor({ isTTY: false });

/** Each paragraph is a cause of the model, with its figures, once. */
function expectParagraphs(found: string[], causes: readonly Cause[]): void {
  const said = found.map((p) => {
    const matches = causes.filter((c) => p.startsWith(`${c.failed > 0 ? "✖ " : ""}**${nameIn(c.name, md, code)}** — ${causeExtent(c, code)}`));
    expect(matches, p).toHaveLength(1);
    return matches[0]!.key;
  });
  expect(new Set(said).size).toBe(said.length);
}

/** Each terminal line under the heading that names a cause gives the model's figures. */
function expectLines(text: string, heading: string, causes: readonly Cause[]): void {
  const lines = text.split("\n");
  const at = lines.indexOf(heading);
  if (at < 0) return;
  for (const line of lines.slice(at + 1)) {
    if (line === "" || !line.startsWith("  ") || line.startsWith("    ") || line.startsWith("  …")) continue;
    const matches = causes.filter((c) => line === `  ${c.why}  ${causeExtent(c)}`);
    expect(matches, line).toHaveLength(1);
  }
}

/** The condensed graph's cause boxes: each a cause of the model, its figure the pairs it reaches. */
function expectGraph(nodes: Parameters<typeof mermaidGraph>[0], causes: readonly Cause[]): void {
  const graph = mermaidGraph(nodes, { maxNodes: 2 });
  if (!graph.condensed) return;
  for (const m of graph.text!.matchAll(/^ {2}c\d+\["(.*)<br\/>(.*)"\]$/gm)) {
    const [, words, count] = m;
    const matches = causes.filter((c) => (c.why.length <= 32 ? c.why === words : words!.endsWith(c.why.slice(-15))) && plural(reach(c), "pair") === count);
    expect(matches.length, m[0]).toBeGreaterThan(0);
  }
}

describe("one set of numbers", () => {
  it("every medium prints the model's causes with the model's figures, and a run's causes reach what its plan's did", () => {
    fc.assert(
      fc.property(worlds, ({ plan, report }) => {
        const planned = causesOf(planNodes(plan));
        const ran = causesOf(runNodes(plan, report));

        // Every edit a cause of both, reaching the same pairs.
        expect(ran.map((c) => c.key).sort()).toEqual(planned.map((c) => c.key).sort());
        for (const c of ran) {
          const before = planned.find((p) => p.key === c.key)!;
          expect(c.roots.map((r) => r.id).sort()).toEqual(before.roots.map((r) => r.id).sort());
          expect(c.downstream).toEqual(before.downstream);
          expect(c.why).toBe(before.why);
          // Outcomes count every pair it reaches, once.
          const counted = [...c.rootStatuses, ...c.downstreamStatuses].reduce((n, s) => n + s.count, 0);
          expect(counted).toBe(reach(c));
        }

        expectParagraphs(paragraphs(planSummaryMarkdown(plan), "### What will run, by cause"), planned);
        expectParagraphs(paragraphs(diffMarkdown(diffOf(plan)), "#### Will re-run, by cause"), planned);
        expectParagraphs(paragraphs(runSummaryMarkdown(plan, report), "### What ran, by cause"), ran);
        expectLines(planText(plan, plain, "/r"), "Will run, by cause", planned);
        expectLines(runSummary(report, plain, { plan }), "Ran, by cause", ran);
        expectGraph(planNodes(plan), planned);
        expectGraph(runNodes(plan, report), ran);
      }),
      { numRuns: 40 },
    );
  });
});
