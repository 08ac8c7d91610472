/**
 * The full list of the pairs that will re-run, in the pull request comment and the job summary of a
 * pull request: collapsed, every pair named while it fits, and cut with a count only where the
 * comment's limit of 65,536 characters requires.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan, PlannedPair, Reason } from "../../src/model/plan.js";
import { COMMENT_LIMIT, diffMarkdown } from "../../src/report/diffMarkdown.js";
import { STEP_SUMMARY_LIMIT } from "../../src/report/summary.js";
import { worlds } from "../report/worlds.js";
import { diffOf } from "../helpers/diff.js";

/** The block that lists them: its title, the ids it names, and the count of those it leaves out. */
function listed(markdown: string): { title: string; ids: string[]; more: number } | null {
  const m = /<details><summary>(All [\d,]+ pairs? that will re-run, by wave)<\/summary>\n\n([\s\S]*?)\n\n<\/details>/.exec(markdown);
  if (!m) return null;
  const ids = [...m[2]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!);
  const more = /…and ([\d,]+) more pairs?;/.exec(m[2]!);
  return { title: m[1]!, ids, more: more ? Number(more[1]!.replace(/,/g, "")) : 0 };
}

/** n pairs in chains of five, with ids of about `width` characters, all of them changed. */
function wide(n: number, width: number): Plan {
  const reason: Reason = { kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } };
  const pairs = Array.from({ length: n }, (_, i): PlannedPair => {
    const id = `pair_${String(i).padStart(5, "0")}_${"x".repeat(Math.max(0, width - 11))}`;
    return { id, wave: 1 + (i % 5), requires: [], configRef: null, action: "run", reasons: [reason], artifact: null } as unknown as PlannedPair;
  });
  return {
    workflow: { name: "w", path: "/r/workflow.yml", pairs: new Map() },
    workflowRef: "ab".repeat(32),
    graph: { waves: [1, 2, 3, 4, 5].map((w) => pairs.filter((p) => p.wave === w).map((p) => p.id)) },
    pairs,
    byId: new Map(pairs.map((p) => [p.id, p])),
  } as unknown as Plan;
}

describe("the pairs that will re-run", () => {
  it("are every one in the comment, collapsed, when they fit", () => {
    fc.assert(
      fc.property(worlds, ({ plan }) => {
        const text = diffMarkdown(diffOf(plan));
        const running = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
        const list = listed(text)!;
        expect(list.title).toBe(`All ${running.length} ${running.length === 1 ? "pair" : "pairs"} that will re-run, by wave`);
        expect(list.more).toBe(0);
        expect([...list.ids].sort()).toEqual([...running].sort());
      }),
      { numRuns: 30 },
    );
  });

  it("are cut with a count only where the comment's limit requires, and never in the job summary's room", () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 4_000 }), fc.integer({ min: 12, max: 60 }), (n, width) => {
        const plan = wide(n, width);
        const comment = diffMarkdown(diffOf(plan));
        expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
        const list = listed(comment)!;
        // Each named at most once, in plan order within a wave; the rest counted.
        expect(new Set(list.ids).size).toBe(list.ids.length);
        expect(list.ids.length + list.more).toBe(n);
        const all = diffMarkdown(diffOf(plan), { limit: STEP_SUMMARY_LIMIT });
        expect(listed(all)!.ids).toHaveLength(n);
        // Cut only when the whole list would not fit: then the comment is near its limit.
        if (list.more > 0) expect(comment.length).toBeGreaterThan(COMMENT_LIMIT / 2);
        else expect(list.ids).toEqual(listed(all)!.ids);
      }),
      { numRuns: 15 },
    );
  });
});
