/** The Markdown of the job summary (src/report/summary.ts), on plans and run reports made here. */
import { beforeAll, describe, expect, it } from "vitest";
import { generateWorkflow } from "../../bench/generate.js";
import type { Plan } from "../../src/model/plan.js";
import { planOf } from "../helpers/state.js";
import {
  failedDetailsMarkdown,
  mermaidGraph,
  planTableMarkdown,
  runSummaryMarkdown,
  STEP_SUMMARY_LIMIT,
  type GraphNode,
  type SummaryRow,
} from "../../src/report/summary.js";
import type { PairOutcome, RunReport } from "../../src/model/run.js";
import { tempRepo } from "../helpers/fixtures.js";
import { checkMermaid, mermaidBlocks } from "./mermaid.js";

/** A run of `plan` in which every pair was reused except the given ones. */
function report(plan: Plan, statuses: Record<string, PairOutcome["status"]>, feedback = "guard said no"): RunReport {
  const pairs: PairOutcome[] = plan.pairs.map((p) => {
    const status = statuses[p.id] ?? "reused";
    const ran = status === "executed" || status === "failed";
    return {
      id: p.id,
      configRef: "ab".repeat(32),
      status,
      attempts: ran
        ? [{ attempt: 1, accepted: status === "executed", feedback: status === "failed" ? feedback : "", tokens: { input: 100, output: 20 }, durationMs: 1500 }]
        : [],
      contentHash: null,
      reasons: ran ? [{ kind: "prompt", detail: "prompt.task changed" }] : [],
      durationMs: ran ? 1500 : 0,
      note: status === "failed" ? `rejected after 1 attempt: ${feedback}` : status === "blocked" ? "blocked by x" : null,
    } as PairOutcome;
  });
  const count = (s: string) => pairs.filter((p) => p.status === s).length;
  return {
    version: 1,
    runId: "20260101T000000000Z-abcd",
    workflowRef: plan.workflowRef,
    status: count("failed") > 0 ? "failed" : "success",
    pairs,
    totals: {
      pairs: pairs.length,
      executed: count("executed"),
      reused: count("reused"),
      failed: count("failed"),
      blocked: count("blocked"),
      tokens: { input: 0, output: 0 },
      durationMs: 60_000,
    },
  } as RunReport;
}

describe("on a workflow of 2,000 pairs", () => {
  let plan: Plan;
  beforeAll(async () => {
    const dir = tempRepo();
    plan = (await planOf(generateWorkflow(dir, 2_000).workflowPath, { cwd: dir })).plan;
  });

  it("draws only the pairs that changed when the whole DAG is too large, and Mermaid parses it", async () => {
    // A pair and everything that directly requires it ran; one of those failed, and blocked its own dependents.
    const root = plan.pairs.find((p) => plan.graph.dependents.get(p.id)!.length >= 3)!.id;
    const ran = plan.graph.dependents.get(root)!;
    const blocked = plan.graph.dependents.get(ran[0]!)!;
    const statuses = Object.fromEntries([
      [root, "executed"],
      ...ran.map((id) => [id, "executed"]),
      [ran[0], "failed"],
      ...blocked.map((id) => [id, "blocked"]),
    ]);
    const markdown = runSummaryMarkdown(plan, report(plan, statuses));

    const [graph, ...more] = mermaidBlocks(markdown);
    expect(more).toEqual([]);
    await checkMermaid(graph!);
    const drawn = Object.keys(statuses).length;
    expect(graph!.match(/^ {2}p\d+\["/gm)).toHaveLength(drawn);
    expect(graph).not.toMatch(/ reused$/m);
    expect(markdown).toContain(`only the ${drawn} pairs that are not unchanged are drawn, without the ${(2_000 - drawn).toLocaleString("en-US")} others`);
    expect(markdown).toContain("green: executed · red: failed · orange: blocked");
  });

  it("stays under the limit with thousands of failed pairs, saying how many it leaves out", async () => {
    const statuses = Object.fromEntries(plan.pairs.map((p) => [p.id, "failed" as const]));
    const markdown = runSummaryMarkdown(plan, report(plan, statuses, "x".repeat(20_000)));
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(markdown).toMatch(/_1,9\d\d more failed pairs not shown: GitHub limits the size of this page._/);
    expect(markdown).toContain("… (12,000 more characters)");
    expect(markdown).toContain("### Pairs"); // the table still has room
  });
});

describe("the table", () => {
  const row = (id: string, status: string, reasons = "unchanged"): SummaryRow => ({
    id,
    requires: [],
    status,
    reasons,
    configRef: null,
    attempts: null,
    durationMs: null,
    tokens: null,
  });

  it("keeps a cell one line of plain text", async () => {
    const table = planTableMarkdown([row("a", "run", "guard_config.pattern changed: <b>x|y</b>\nsecond line")]);
    expect(table.split("\n")[2]).toBe("| `a` | run | guard_config.pattern changed: &lt;b&gt;x\\|y&lt;/b&gt; second line | ? | – | – | – |");
  });

  it("when too long, lists the pairs that ran first and says how many unchanged ones it left out", async () => {
    const rows = [...Array.from({ length: 50 }, (_, i) => row(`same_${i}`, "reused")), row("changed", "executed", "prompt: prompt.task changed")];
    const table = planTableMarkdown(rows, 1_500);
    expect(Buffer.byteLength(table)).toBeLessThanOrEqual(1_500);
    expect(table.split("\n")[2]).toContain("`changed` | executed");
    const shown = table.split("\n").filter((l) => l.startsWith("| `same_")).length;
    expect(shown).toBeGreaterThan(5);
    expect(table).toContain(`_${51 - 1 - shown} of 51 pairs not shown (all reused): GitHub limits the size of this page._`);
  });
});

describe("the graph", () => {
  it("colours each status and escapes labels, in text Mermaid parses", async () => {
    const nodes: GraphNode[] = [
      { id: "a", requires: [], status: "executed" },
      { id: "b", requires: ["a"], status: "reused" },
      { id: 'say "hi"', requires: ["a", "b"], status: "failed" },
      { id: "end", requires: ['say "hi"'], status: "blocked" },
      { id: "later", requires: ["end"], status: "interrupted" },
    ];
    const { text, note } = mermaidGraph(nodes);
    expect(note).toBeNull();
    await checkMermaid(text!);
    expect(text).toContain('p2["say #quot;hi#quot;"]');
    for (const status of ["executed", "reused", "failed", "blocked", "interrupted"])
      expect(text).toMatch(new RegExp(`^ {2}classDef ${status} fill:#[0-9a-f]{6},`, "m"));
  });

  it("plans draw run and skip", async () => {
    const { text } = mermaidGraph([
      { id: "a", requires: [], status: "skip" },
      { id: "b", requires: ["a"], status: "run" },
    ]);
    await checkMermaid(text!);
    expect(text).toContain("class p0 skip");
    expect(text).toContain("class p1 run");
  });

  it("is left out, with a note, when even the changed pairs are too many", async () => {
    const nodes = Array.from({ length: 600 }, (_, i) => ({ id: `n${i}`, requires: i > 0 ? [`n${i - 1}`] : [], status: "run" }));
    expect(mermaidGraph(nodes)).toEqual({
      text: null,
      note: "No graph: 600 pairs and 599 dependencies are more than GitHub draws (500 edges, 50,000 characters).",
    });
  });
});

describe("failed pairs", () => {
  it("show their last feedback in a fence no line of it can close", async () => {
    const plan = { pairs: [] } as unknown as Plan;
    const feedback = "expected:\n```\nok\n```";
    const r = report(plan, {});
    r.pairs.push({
      id: "p",
      configRef: null,
      status: "failed",
      attempts: [{ attempt: 1, accepted: false, feedback, tokens: null, durationMs: 1 }],
      contentHash: null,
      reasons: [],
      durationMs: 1,
      note: "rejected after 1 attempt: expected:",
    } as PairOutcome);
    expect(failedDetailsMarkdown(r)).toBe(
      `<details><summary><code>p</code>: rejected after 1 attempt: expected:</summary>\n\n\`\`\`\`text\n${feedback}\n\`\`\`\`\n\n</details>\n\n`,
    );
  });
});
