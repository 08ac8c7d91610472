/** The Markdown of the job summary (src/report/summary.ts), on plans and run reports made here. */
import { beforeAll, describe, expect, it } from "vitest";
import { generateWorkflow, prng } from "../../bench/generate.js";
import type { Plan } from "../../src/model/plan.js";
import { planOf } from "../helpers/state.js";
import {
  failedDetailsMarkdown,
  graphLegend,
  mermaidGraph,
  planSummaryMarkdown,
  planTableMarkdown,
  runSummaryMarkdown,
  STEP_SUMMARY_LIMIT,
  type GraphNode,
  type SummaryRow,
} from "../../src/report/summary.js";
import type { PairOutcome, RunReport } from "../../src/model/run.js";
import { tempRepo } from "../helpers/fixtures.js";
import { checkMermaid, mermaidBlocks } from "./mermaid.js";
import { paragraphs } from "../report/markdown.js";
import { COMMENT_LIMIT, commentMarker, diffMarkdown } from "../../src/report/diffMarkdown.js";
import { GRAPH_NODE_LIMIT } from "../../src/report/impact.js";
import { scaled } from "../helpers/time.js";

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
      reasons: ran ? [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }] : [],
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
    const fresh = (await planOf(generateWorkflow(dir, 2_000).workflowPath, { cwd: dir })).plan;
    // Every pair's own prompt edited (a first run would be one cause: nothing accepted yet).
    const pairs = fresh.pairs.map((p) => ({
      ...p,
      reasons: [{ kind: "prompt" as const, detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }],
    }));
    plan = { ...fresh, pairs, byId: new Map(pairs.map((p) => [p.id, p])) };
  }, scaled(60_000));

  it("stays under the limit with thousands of failed pairs, saying how many it leaves out", async () => {
    const statuses = Object.fromEntries(plan.pairs.map((p) => [p.id, "failed" as const]));
    const markdown = runSummaryMarkdown(plan, report(plan, statuses, "x".repeat(20_000)));
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(markdown).toMatch(/_1,9\d\d more failed pairs not shown: GitHub limits the size of this page._/);
    expect(markdown).toContain("… (12,000 more characters)");
    expect(markdown).toContain("<details><summary>All 2,000 pairs</summary>"); // the table still has room
    // Ten failed pairs one by one, the rest in one collapsed block: the causes are a screen below, not 2,000 lines.
    expect(markdown).toContain("<details><summary>1,990 more failed pairs</summary>");
    expect(markdown.split("\n### What ran, by cause")[0]!.split("<details><summary>✖").length - 1).toBeGreaterThan(10);
    // Every pair failed, each for an edit of its own: the first 50 causes, the rest counted, not 2,000 rows.
    const causes = paragraphs(markdown, "### What ran, by cause");
    expect(causes).toHaveLength(50);
    for (const c of causes) expect(c).toMatch(/^✖ \*\*/);
    expect(markdown).toContain("…and 1,950 more causes");
  });
});

describe("the table", () => {
  const row = (id: string, status: string, reasons = "unchanged"): SummaryRow => ({
    id,
    requires: [],
    status,
    reasons,
    why: [],
    configRef: null,
    attempts: null,
    durationMs: null,
    tokens: null,
  });

  it("keeps a cell one line of plain text", async () => {
    const table = planTableMarkdown([row("a", "run", "guard_config.pattern changed: <b>x|y</b>\nsecond line")]);
    expect(table.split("\n")[2]).toBe("| `a` | run | guard_config.pattern changed: &lt;b&gt;x\\|y&lt;/b&gt; second line | ? |");
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
    // Failed and blocked pairs have a shape and a marker of their own, not only a colour.
    expect(text).toContain('p2{{"✖ FAILED say #quot;hi#quot;"}}');
    expect(text).toContain('p3(["⊘ blocked end"])');
    expect(text).toContain('p0["✔ a"]');
    for (const status of ["executed", "reused", "failed", "blocked", "interrupted"])
      expect(text).toMatch(new RegExp(`^ {2}classDef ${status} fill:#[0-9a-f]{6},`, "m"));
    expect(graphLegend(nodes)).toBe("✖ red hexagon: failed · ⊘ orange rounded: blocked · ⏸ yellow rounded: interrupted · ✔ green: executed · grey: reused");
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

  it("draws a long chain condensed: its cause, and the waves it reaches, counted", async () => {
    const nodes = Array.from({ length: 600 }, (_, i) => ({
      id: `n${i}`,
      requires: i > 0 ? [`n${i - 1}`] : [],
      status: "run",
      reasons: [
        i > 0
          ? { kind: "upstream" as const, detail: `n${i - 1} will run`, component: { kind: "upstream" as const, name: `n${i - 1}` } }
          : { kind: "prompt" as const, detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } },
      ],
    }));
    const graph = mermaidGraph(nodes);
    await checkMermaid(graph.text!);
    expect(graph.condensed).toBe(true);
    expect(graph.text).toContain('c0["prompt of n0 (task)<br/>600 pairs"]');
    // 600 waves in 8 groups of 75, each edge counting the pairs of the cause in it.
    expect(graph.text).toContain('g0["waves 1–75<br/>75 run"]');
    expect(graph.text).toContain('g7["waves 526–600<br/>75 run"]');
    expect(graph.text!.match(/^ {2}c0 -->\|75\| g\d$/gm)).toHaveLength(8);
    expect(graph.note).toBe("Condensed: the 600 affected pairs as 1 cause and the groups of pairs they reach, each edge counting pairs.");
  });

  it("draws the affected pairs one by one when they are few and connected, condensed when they are loose boxes", async () => {
    const chain = (n: number, affected: (i: number) => boolean, linked: boolean) =>
      Array.from({ length: n }, (_, i) => ({
        id: `n${i}`,
        requires: linked && i > 0 ? [`n${i - 1}`] : [],
        status: affected(i) ? "run" : "skip",
        reasons: affected(i) ? [{ kind: "prompt" as const, detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }] : [],
      }));
    const connected = mermaidGraph(chain(100, (i) => i >= 80, true));
    expect(connected.condensed).toBeUndefined();
    expect(nodeCount(connected.text!)).toBe(20);
    expect(connected.note).toBe("Drawn: 20 of the 20 affected pairs; not drawn: 80 unchanged pairs.");
    // 20 changed pairs that share no edge: 20 loose boxes would repeat the list of causes.
    const loose = mermaidGraph(chain(100, (i) => i >= 80, false));
    await checkMermaid(loose.text!);
    expect(loose.condensed).toBe(true);
    // Each pair's prompt is an edit of its own: the first causes have boxes, the rest are folded into one.
    expect(loose.text).toContain('c0["prompt of n80 (task)<br/>1 pair"]');
    expect(loose.text).toContain('cx["13 more causes"]');
    // A few loose boxes are still read at a glance.
    expect(mermaidGraph(chain(100, (i) => i >= 95, false)).condensed).toBeUndefined();
  });

  it("draws long ids with short labels: their start and their end", async () => {
    const long = (i: number) => `${"x".repeat(2_000)}${i}`;
    const nodes = Array.from({ length: 30 }, (_, i) => ({ id: long(i), requires: [], status: "run" }));
    const graph = mermaidGraph(nodes);
    await checkMermaid(graph.text!);
    expect(graph.drawn).toHaveLength(30);
    for (const [, label] of graph.text!.matchAll(/\["▶ ([^"]*)"\]/g)) expect(label!.length).toBeLessThanOrEqual(28);
    expect(graph.text).toContain(`["▶ ${"x".repeat(14)}…${"x".repeat(11)}29"]`);
    expect(mermaidGraph([{ id: "y".repeat(60_000), requires: [], status: "run" }]).text).toContain(`"▶ ${"y".repeat(14)}…${"y".repeat(13)}"`);
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
      `<details><summary>✖ <code>p</code>: rejected after 1 attempt: expected:</summary>\n\n\`\`\`\`text\n${feedback}\n\`\`\`\`\n\n</details>\n\n`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// At scale: 10, 200 and 1,000 pairs, a change to two pairs cascading downstream, and a run in
// which three pairs fail. Plans are made here in the planner's own words (`prompt: prompt.task
// changed`, `upstream: X will run`), so each size renders in milliseconds.

/** A layered DAG of n pairs: each pair requires one to three pairs of the layers before it. */
function world(n: number): { plan: Plan; changed: string[]; cascade: Set<string> } {
  const rand = prng(n);
  const ids = Array.from({ length: n }, (_, i) => `pair_${String(i).padStart(4, "0")}`);
  const layers = Math.max(3, Math.round(Math.log2(n)));
  const layerOf = (i: number) => Math.floor((i * layers) / n);
  const requires = ids.map((_, i) => {
    const firstOfLayer = ids.findIndex((_, j) => layerOf(j) === layerOf(i));
    if (firstOfLayer === 0) return [];
    const deps = new Set<number>();
    const want = 1 + Math.floor(rand() * 3);
    while (deps.size < Math.min(want, firstOfLayer)) deps.add(firstOfLayer - 1 - Math.floor(rand() ** 2 * firstOfLayer));
    return [...deps].map((d) => ids[d]!);
  });
  // Two changed pairs in the first layer: everything downstream of them runs.
  const changed = [ids[0]!, ids[1]!];
  const runs = new Set(changed);
  ids.forEach((id, i) => requires[i]!.some((d) => runs.has(d)) && runs.add(id));
  const cascade = new Set([...runs].filter((id) => !changed.includes(id)));
  const waveOf = new Map<string, number>();
  const pairs = ids.map((id, i) => {
    const wave = 1 + Math.max(0, ...requires[i]!.map((d) => waveOf.get(d)!));
    waveOf.set(id, wave);
    const own = changed.includes(id) ? [{ kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt" as const, name: "task" } }] : [];
    const upstream = requires[i]!.filter((d) => runs.has(d)).map((d) => ({
      kind: "upstream",
      detail: `${d} will run`,
      component: { kind: "upstream" as const, name: d },
    }));
    const run = runs.has(id);
    return {
      id,
      wave,
      requires: requires[i]!,
      configRef: run ? null : "cd".repeat(32),
      action: run ? "run" : "skip",
      reasons: run ? [...own, ...upstream] : [],
      artifact: null,
    };
  });
  pairs.sort((a, b) => a.wave - b.wave || ids.indexOf(a.id) - ids.indexOf(b.id));
  const waves = [...new Set(pairs.map((p) => p.wave))].map((w) => pairs.filter((p) => p.wave === w).map((p) => p.id));
  const plan = {
    workflow: { name: `w${n}` },
    graph: { waves },
    workflowRef: "ef".repeat(32),
    selection: {},
    pairs,
    byId: new Map(pairs.map((p) => [p.id, p])),
  };
  return { plan: plan as unknown as Plan, changed, cascade };
}

/** The run of a world's plan: three pairs downstream of the first change fail, what needs them is blocked. */
function worldRun(plan: Plan, cascade: Set<string>): { run: RunReport; failed: string[]; blocked: string[] } {
  const failed = plan.pairs
    .filter((p) => cascade.has(p.id))
    .slice(0, 3)
    .map((p) => p.id);
  const blocked = new Set<string>();
  for (const p of plan.pairs) if (p.requires.some((d) => failed.includes(d) || blocked.has(d))) blocked.add(p.id);
  const statuses = Object.fromEntries(
    plan.pairs.map((p) => [p.id, failed.includes(p.id) ? "failed" : blocked.has(p.id) ? "blocked" : p.action === "run" ? "executed" : "reused"]),
  ) as Record<string, PairOutcome["status"]>;
  const run = report(plan, statuses);
  for (const o of run.pairs) o.reasons = o.status === "reused" ? [] : plan.byId.get(o.id)!.reasons;
  return { run, failed, blocked: [...blocked] };
}

/** The position of each heading in order; fails when one is missing. */
function positions(markdown: string, headings: string[]): number[] {
  return headings.map((h) => {
    const at = markdown.indexOf(h);
    expect(at, `missing: ${h}`).toBeGreaterThanOrEqual(0);
    return at;
  });
}

const estimateTable = (plan: Plan) =>
  ["| pair | tokens | cost |", "| --- | ---: | ---: |", ...plan.pairs.filter((p) => p.action === "run").map((p) => `| \`${p.id}\` | 1,200 | $0.0004 |`)].join(
    "\n",
  );

describe.each([10, 200, 1_000])("a workflow of %i pairs", (n) => {
  const { plan, changed, cascade } = world(n);
  const affected = changed.length + cascade.size;

  it("plan summary: headline, causes, the affected graph, then the long tables collapsed", async () => {
    const markdown = planSummaryMarkdown(plan, {
      cost: "$0.42",
      extra: ["", "GitHub Actions cache: off."],
      collapsed: [{ title: `Estimate: ${affected} pairs to run`, body: estimateTable(plan) }],
    });
    positions(markdown, [
      `## pairflow plan: w${n}`,
      "### What will run, by cause",
      "### Graph",
      `<details><summary>Estimate: ${affected} pairs to run</summary>`,
      `<details><summary>All ${n.toLocaleString("en-US")} pairs</summary>`,
    ]).reduce((a, b) => (expect(b).toBeGreaterThan(a), b));
    expect(markdown.split("\n")[2]).toBe(
      `**${affected} of ${n.toLocaleString("en-US")} pairs to run** · estimated cost $0.42 · ${n - affected} unchanged · ${plan.graph.waves.length} waves`,
    );
    // Each pair's prompt edited is a cause of its own, naming it, the pairs that follow from it counted, never a row per dependent.
    const causes = paragraphs(markdown, "### What will run, by cause");
    expect(causes).toHaveLength(2);
    for (const id of changed) {
      const downstream = [...cascade].filter((c) => reaches(plan, id, c)).length;
      const extent = `1 pair${downstream > 0 ? ` + ${downstream.toLocaleString("en-US")} downstream` : ""} · wave`;
      expect(causes.filter((c) => c.startsWith(`**prompt of \`${id}\` (task)** — ${extent}`))).toHaveLength(1);
    }
    await expectGraph(markdown, n, affected, []);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    // What matters fits on the first screen, whatever the size.
    expect(markdown.indexOf("### Graph")).toBeLessThan(2_000);
    // Everything before the collapsed tables is the same size at 10 pairs as at 1,000.
    expect(markdown.indexOf("<details>")).toBeLessThan(8_000);
  });

  it("run summary: failures and what re-runs first, then causes, the graph, and the long tables collapsed", async () => {
    const { run, failed, blocked } = worldRun(plan, cascade);
    const markdown = runSummaryMarkdown(plan, run, { collapsed: [{ title: "Estimated against actual", body: estimateTable(plan) }] });
    positions(markdown, [
      `## pairflow run: w${n} failed`,
      `### Failed (${failed.length})`,
      "### What ran, by cause",
      "### Graph",
      "<details><summary>Estimated against actual</summary>",
      `<details><summary>All ${n.toLocaleString("en-US")} pairs</summary>`,
    ]).reduce((a, b) => (expect(b).toBeGreaterThan(a), b));
    expect(markdown.indexOf(`### Failed`)).toBeLessThan(600);
    expect(markdown.indexOf("<details><summary>Estimated against actual")).toBeLessThan(10_000);
    expect(markdown).toContain(
      `**The next run re-runs ${failed.length + blocked.length} pairs**: ${failed.length} failed${blocked.length ? `, ${blocked.length} blocked` : ""}.`,
    );
    for (const id of failed) expect(markdown).toMatch(new RegExp(`<details><summary>✖ <code>${id}</code>( \\(blocked \\d+ pairs?\\))?: rejected`));
    const causes = paragraphs(markdown, "### What ran, by cause");
    expect(causes).toHaveLength(2);
    for (const c of causes) expect(c).toMatch(/^\*\*prompt of `pair_\d+` \(task\)\*\* — 1 pair \(1 executed\)/);
    await expectGraph(markdown, n, affected, failed);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
  });

  it("comment: the commit and the cost in its first line, one entry per cause, the affected graph, within GitHub's limit", async () => {
    const diff = {
      plan,
      sinceBase: new Map(plan.pairs.map((p) => [p.id, { changed: p.action === "run", changes: p.reasons, accepted: null }])),
      workflowFile: "flows/w/workflow.yml",
      base: { ref: "main", commit: "1".repeat(40), workflowFound: true },
      added: [],
      removed: [],
      changes: changed.map((id) => ({
        kind: "prompt" as const,
        id,
        change: "changed" as const,
        patch: `--- a/p\n+++ b/p\n@@ -1 +1 @@\n-  task: old ${id}\n+  task: new ${id}\n`,
      })),
    };
    const marker = commentMarker(diff.workflowFile);
    const comment = diffMarkdown(diff, { marker, hidden: ["<!-- stamp -->"], commit: { sha: "abcdef0123456789" }, cost: "$0.42" });
    const lines = comment.split("\n");
    expect(lines.slice(0, 2)).toEqual([marker, "<!-- stamp -->"]);
    expect(lines[2]).toBe(`### pairflow plan of \`w${n}\` at \`abcdef0\`: ${affected} pairs will re-run after merging, estimated cost $0.42`);
    positions(comment, ["#### Will re-run, by cause", "prompt of <code>pair_0000</code>", "#### Graph"]).reduce((a, b) => (expect(b).toBeGreaterThan(a), b));
    // The diffs that explain the cause are right under it: no section of changes apart.
    expect(comment).not.toContain("#### Changes");
    expect(paragraphs(comment, "#### Will re-run, by cause")[0]).toMatch(/^\*\*prompt of `pair_\d+` \(task\)\*\* — 1 pair/);
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const [graph] = mermaidBlocks(comment);
    await checkMermaid(graph!);
    if (n <= GRAPH_NODE_LIMIT) expect(nodeCount(graph!)).toBe(n);
    else expect(graph).toMatch(/^ {2}c0\["prompt of pair_\d+ \(task\)<br\/>[\d,]+ pairs?"\]$/m);
  });
});

describe("a comment for 1,000 pairs each changed on its own", () => {
  it("lists the first 50 causes, counts the rest, and stays within GitHub's limit", () => {
    const { plan } = world(1_000);
    for (const p of plan.pairs)
      Object.assign(p, { action: "run", reasons: [{ kind: "model", detail: `model changed from a very long model name to another one for ${p.id}` }] });
    const diff = {
      plan,
      sinceBase: new Map(),
      workflowFile: "w.yml",
      base: { ref: "main", commit: "1".repeat(40), workflowFound: true },
      added: [],
      removed: [],
      changes: [],
    };
    const comment = diffMarkdown(diff, { marker: commentMarker("w.yml"), cost: "cost unknown" });
    expect(comment.split("\n")[1]).toBe("### pairflow plan of `w1000`: 1,000 pairs will re-run after merging, cost unknown");
    expect(paragraphs(comment, "#### Will re-run, by cause")).toHaveLength(50);
    expect(comment).toContain("…and 950 more causes; the whole diff is in the job summary of this check.");
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
  });
});

function reaches(plan: Plan, from: string, to: string): boolean {
  const p = plan.byId.get(to)!;
  return p.requires.some((d) => d === from || reaches(plan, from, d));
}

function nodeCount(graph: string): number {
  return graph.match(/^ {2}p\d+[[{(]/gm)?.length ?? 0;
}

/**
 * The summary's one graph: Mermaid parses it; a workflow within the node limit is drawn whole, a
 * larger one condensed (its cause, the groups it reaches), every failed pair as a red hexagon
 * (at most 7, the rest counted) with what it blocked.
 */
async function expectGraph(markdown: string, n: number, affected: number, failed: string[]): Promise<void> {
  const [graph, ...more] = mermaidBlocks(markdown);
  expect(more).toEqual([]);
  await checkMermaid(graph!);
  expect(graph).toMatch(failed.length ? /classDef failed fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6},stroke-width:4px/ : /classDef run /);
  if (n <= GRAPH_NODE_LIMIT) {
    expect(nodeCount(graph!)).toBe(n);
    for (const id of failed) expect(graph).toMatch(new RegExp(`^ {2}p\\d+\\{\\{"✖ FAILED ${id}"\\}\\}$`, "m"));
    return;
  }
  expect(graph).toMatch(/^ {2}c0\["prompt of pair_\d+ \(task\)<br\/>[\d,]+ pairs?"\]$/m);
  for (const id of failed) expect(graph).toMatch(new RegExp(`^ {2}f\\d+\\{\\{"✖ FAILED ${id}"\\}\\}$`, "m"));
  expect(markdown).toContain(
    `_Condensed: the ${affected.toLocaleString("en-US")} affected pairs as 2 causes and the groups of pairs they reach, each edge counting pairs` +
      `${failed.length ? "; each failed pair with the pairs it blocked" : ""}; ${(n - affected).toLocaleString("en-US")} unchanged pairs not drawn._`,
  );
}
