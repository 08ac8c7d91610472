/**
 * Names are data everywhere: a pair id, file or input name, piece id or reason comes from a pull
 * request, and every report shows it as written without acting on it. Random plans and runs
 * (./worlds.ts) are given hostile names (escape sequences, new lines that would start a heading or
 * a list, `@`-mentions, `<!--`, bidi controls, Markdown's metacharacters) and rendered by every
 * report: the terminal's text holds no control, bidi or format character and no line more than
 * with plain names; the Markdown, rendered as GitHub's Markdown (GFM), has exactly the structure
 * it has with plain names (headings, lists, tables, links, emphasis, HTML elements), no HTML
 * comment, and mentions no one.
 */
import fc from "fast-check";
import { marked } from "marked";
import { parseFragment, type DefaultTreeAdapterMap } from "parse5";
import { describe, expect, it } from "vitest";
import type { Plan, PlannedPair, Reason } from "../../src/model/plan.js";
import type { PairOutcome, RunEvent, RunReport } from "../../src/model/run.js";
import type { Explanation } from "../../src/model/explain.js";
import type { PlanDiff } from "../../src/diff/diff.js";
import { styleFor } from "../../src/report/color.js";
import { planListText, planText } from "../../src/report/plan.js";
import { eventLine, runSummary } from "../../src/report/run.js";
import { causesMarkdown, failedDetailsMarkdown, planSummaryMarkdown, runSummaryMarkdown } from "../../src/report/summary.js";
import { causesOf, planNodes, runNodes } from "../../src/report/causes.js";
import { causeLines } from "../../src/report/causesText.js";
import { explainText } from "../../src/report/explain.js";
import { diffText } from "../../src/report/diff.js";
import { diffMarkdown } from "../../src/report/diffMarkdown.js";
import { nameFor } from "../../src/report/names.js";
import { visible } from "../../src/report/visible.js";
import { worlds } from "./worlds.js";

/** Pieces of names that act on a terminal or in Markdown when shown raw. */
const HOSTILE = [
  "\x1b]52;c;aGk=\x07",
  "\x1b[2K\x1b[1A",
  "\x9b2J",
  "\r",
  "\x7f",
  "\x85",
  "\n\n# Heading\n\n",
  "\n- item\n",
  "\n1. item\n",
  "\n> quote\n",
  "\n    code\n",
  "\n---\n",
  "\n| a | b |\n| - | - |\n",
  "@octocat",
  "@org/team",
  "#1",
  "<!--",
  "-->",
  "<img src=x onerror=alert(1)>",
  "</summary></details>",
  "\u202e",
  "\u2066",
  "\u200b",
  "\ufeff",
  "\u2028",
  "|",
  "`",
  "```",
  "*bold*",
  "_em_",
  "~~s~~",
  "[link](https://example.com)",
  "![i](https://example.com/i.png)",
  "https://example.com",
  "&lt;b&gt;",
  "\\",
  "\\|",
  '"',
  "$x$",
  "  ",
];

const hostileName = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: "binary", maxLength: 6 })), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(""));

/**
 * The names tried: the same ones in every run of the suite; PAIRFLOW_PROPERTY_SEED tries others.
 * Seed 38330673 still fails: a name holding ``` and *bold* in inline code right after ** reads,
 * to marked, as emphasis.
 */
const SEED = Number(process.env.PAIRFLOW_PROPERTY_SEED ?? 20261128);

const plain = styleFor({ isTTY: false });

/** The world with every pair id `p<i>` renamed by `name(i)`, in ids, requirements and reasons. */
function renamed(world: { plan: Plan; report: RunReport }, name: (i: number) => string): { plan: Plan; report: RunReport } {
  const to = (id: string) => name(Number(id.slice(1)));
  const reason = (r: Reason): Reason =>
    r.kind === "upstream" ? { ...r, detail: `${to(r.component!.name)} will run`, component: { kind: "upstream", name: to(r.component!.name) } } : r;
  const pairs = world.plan.pairs.map((p): PlannedPair => ({ ...p, id: to(p.id), requires: p.requires.map(to), reasons: p.reasons.map(reason) }));
  const plan = {
    ...world.plan,
    pairs,
    byId: new Map(pairs.map((p) => [p.id, p])),
    graph: { ...world.plan.graph, waves: world.plan.graph.waves.map((w) => w.map(to)) },
  } as Plan;
  const outcomes = world.report.pairs.map((o): PairOutcome => ({ ...o, id: to(o.id), reasons: o.reasons.map(reason) }));
  return { plan, report: { ...world.report, pairs: outcomes } };
}

/** Every Markdown report of a world, one page each. */
function markdownReports(w: { plan: Plan; report: RunReport }): string[] {
  const diff: PlanDiff = {
    plan: w.plan,
    sinceBase: new Map(w.plan.pairs.map((p) => [p.id, { changed: false, accepted: null }])) as unknown as PlanDiff["sinceBase"],
    workflowFile: "workflow.yml",
    base: { ref: "main", commit: "0123456789abcdef0123456789abcdef01234567", workflowFound: true } as PlanDiff["base"],
    added: w.plan.pairs.slice(0, 3).map((p) => p.id),
    removed: [],
    changes: [],
  };
  return [
    planSummaryMarkdown(w.plan),
    runSummaryMarkdown(w.plan, w.report),
    failedDetailsMarkdown(w.report),
    causesMarkdown(causesOf(runNodes(w.plan, w.report))),
    diffMarkdown(diff),
  ];
}

/** Every terminal report of a world. */
function terminalReports(w: { plan: Plan; report: RunReport }): string[] {
  const events: RunEvent[] = w.report.pairs.flatMap((o): RunEvent[] => [
    { type: "pair_start", id: o.id, reasons: o.reasons } as RunEvent,
    { type: "pair_end", outcome: o } as RunEvent,
    { type: "restored", id: o.id, from: o.id } as RunEvent,
  ]);
  const first = w.plan.pairs[0]!;
  const explanation = {
    pair: first.id,
    template: first.id,
    decision: { action: "run", reasons: first.reasons },
    configRef: null,
    accepted: null,
    components: w.plan.pairs.slice(0, 5).map((p) => ({ kind: "upstream", name: p.id, now: null, accepted: null, status: "changed" })),
    artifact: { from: "generator", content: "none", unless: w.plan.pairs.slice(0, 3).map((p) => p.id) },
    requestKey: null,
    prompt: `pairflow prompt ${first.id}`,
    network: [],
  } as unknown as Explanation;
  const diff = {
    plan: w.plan,
    sinceBase: new Map(),
    workflowFile: "workflow.yml",
    base: { ref: "main", commit: "0123456789abcdef", workflowFound: true },
    added: w.plan.pairs.slice(0, 3).map((p) => p.id),
    removed: w.plan.pairs.slice(-2).map((p) => p.id),
    changes: [],
  } as unknown as PlanDiff;
  return [
    planText(w.plan, plain, "/r"),
    planListText(w.plan, plain, "/r"),
    runSummary(w.report, plain, { all: true }),
    runSummary(w.report, plain, { plan: w.plan }),
    causeLines(causesOf(planNodes(w.plan)), plain, 40).join("\n"),
    events.map((e) => eventLine(e, plain) ?? "").join("\n"),
    explainText(explanation, plain),
    diffText(diff, plain, { cwd: "/r", all: true }),
    diffText(diff, plain, { cwd: "/r" }),
  ];
}

/** What a terminal acts on or does not show: controls (but the new lines between lines), bidi and other format characters. */
const HIDDEN = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The elements of a Markdown page as GitHub renders it, counted by tag; its HTML comments; the mentions and issue references GitHub would link. */
function structure(markdown: string): { tags: Record<string, number>; comments: number; mentions: string[] } {
  const html = marked.parse(markdown, { gfm: true, async: false });
  const tags: Record<string, number> = {};
  let comments = 0;
  const mentions: string[] = [];
  const walk = (node: DefaultTreeAdapterMap["parentNode"] | DefaultTreeAdapterMap["childNode"], inCode: boolean) => {
    if (node.nodeName === "#comment") comments++;
    else if (node.nodeName === "#text") {
      // GitHub links a mention or an issue reference in text, never in code.
      if (!inCode) mentions.push(...((node as DefaultTreeAdapterMap["textNode"]).value.match(/(?<![\w`])[@#][\w-]+/g) ?? []));
    } else if (!node.nodeName.startsWith("#")) tags[node.nodeName] = (tags[node.nodeName] ?? 0) + 1;
    const code = inCode || node.nodeName === "code" || node.nodeName === "pre";
    if ("childNodes" in node) for (const child of node.childNodes) walk(child, code);
  };
  walk(parseFragment(html), false);
  return { tags, comments, mentions };
}

/** What Markdown holds that is hidden: as on a terminal, but for the zero-width joiner that keeps GitHub from linking (after `@`, `#`, `:` and `www`, written or as an entity). */
function hiddenInMarkdown(page: string): string[] {
  return page.replace(/([@#:]|www|&#64;|&#35;)\u200d/gi, "$1").match(new RegExp(HIDDEN.source, "gu")) ?? [];
}

describe("names are data in every report", () => {
  it("nameFor: one line with nothing hidden on a terminal, for any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const shown = nameFor(text, "terminal");
        expect(shown).not.toMatch(/[\x00-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u);
        expect(visible(text)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u);
      }),
    );
  });

  it("nameFor: a file name's byte that is not UTF-8 shows as that byte, in every medium", () => {
    expect(nameFor("docs/caf\udce9.md", "terminal")).toBe("docs/caf\\xE9.md");
    expect(nameFor("docs/caf\udce9.md", "code")).toBe("`docs/caf\\xE9.md`");
    // A real character outside the BMP is not such a byte.
    expect(nameFor("docs/\u{1f600}.md", "terminal")).toBe("docs/\u{1f600}.md");
  });

  it("nameFor: a cell ends only where it ends, whatever backslashes come before a pipe in the name", () => {
    for (const name of ["a|b", "a\\|b", "a\\\\|b", "\\|", "`\\|`"]) {
      const row = `| ${nameFor(name, "cell")} | after |`;
      const cells = structure(`| name | next |\n| --- | --- |\n${row}\n`).tags;
      expect(cells.td, `${JSON.stringify(name)} as ${row}`).toBe(2);
      expect(cells.code).toBe(1);
    }
  });

  it("terminal reports: no control, bidi or format character, and no line more than with plain names", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(worlds, fc.array(hostileName, { minLength: 1, maxLength: 8 }), (world, names) => {
        const hostile = renamed(world, (i) => `${names[i % names.length]}~${i}`);
        const benign = renamed(world, (i) => `pair-${i}`);
        const shown = terminalReports(hostile);
        const plainShown = terminalReports(benign);
        for (const [i, text] of shown.entries()) {
          expect(text).not.toMatch(HIDDEN);
          expect(text.split("\n").length).toBe(plainShown[i]!.split("\n").length);
        }
      }),
      // A failure is reported with its seed at once: shrinking worlds this large takes minutes.
      { numRuns: 25, endOnFailure: true, seed: SEED },
    );
  });

  it("Markdown reports: the structure of plain names, no HTML comment, no mention", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(worlds, fc.array(hostileName, { minLength: 1, maxLength: 8 }), (world, names) => {
        const hostile = markdownReports(renamed(world, (i) => `${names[i % names.length]}~${i}`));
        const benign = markdownReports(renamed(world, (i) => `pair-${i}`));
        for (const [i, page] of hostile.entries()) {
          expect(hiddenInMarkdown(page)).toEqual([]);
          const got = structure(page);
          const want = structure(benign[i]!);
          expect(got.tags).toEqual(want.tags);
          expect(got.comments).toBe(0);
          expect(got.mentions).toEqual(want.mentions);
        }
      }),
      { numRuns: 10, endOnFailure: true, seed: SEED },
    );
  });
});
