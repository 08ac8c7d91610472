/**
 * The rules of a `split: markdown` file, as properties over random pages and random histories:
 *
 * - piece ids are unique, and each heading's is the anchor GitHub gives it. The oracle is this
 *   file's own, built from GitHub's documented behaviour (the heading's shown text, lower-cased,
 *   every character but letters, marks, digits, `_`, `-` and spaces removed, each space a `-`; a
 *   repeat numbered `-1`, `-2`, ... to a free id), and headings are built from parts whose shown
 *   text is known, so no Markdown parser is needed to say what GitHub shows;
 * - every byte of the page is in exactly one piece, and code (fenced, nested fences, `#` lines in
 *   it) never starts one;
 * - over random edits, inserts, moves, renames to repeated headings and hand edits of the output,
 *   interleaved with runs: no byte a person wrote is lost unless the plan named it stale (or carried
 *   it into its section's prompt, with carry_edits); no request answered before is sent again (so
 *   a section whose text was accepted before never runs again); every section's text reaches the
 *   assembled output exactly once.
 *
 *   PAIRFLOW_PROPERTY_RUNS=200   histories to try (default 12; pages: 20 times as many)
 *   PAIRFLOW_PROPERTY_SEED=123   another seed (default fixed, so every run tries the same ones)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitText } from "../../src/config/split.js";
import type { Generator } from "../../src/model/ports.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";
import { anchorOf, numbering } from "../helpers/githubAnchor.js";

const RUNS = Number(process.env.PAIRFLOW_PROPERTY_RUNS ?? 12);
const SEED = Number(process.env.PAIRFLOW_PROPERTY_SEED ?? 20260636);

// ---------------------------------------------------------------------------------------------
// The oracle: GitHub's anchors, from the text a heading shows

/** A part of a heading: what is written, and what GitHub shows for it. */
interface Part {
  source: string;
  shown: string;
}

const PARTS: Part[] = [
  ...[
    "Setup",
    "Usage",
    "Straße",
    "Ünïcödé",
    "日本語",
    "v1.2",
    "C++",
    "C#",
    "a/b",
    "it's",
    "my_var",
    "(beta)",
    "100%",
    "🎉",
    "foo-bar",
    "x_y_z",
    "Q&A",
    "--flag",
  ].map((w) => ({ source: w, shown: w })),
  { source: "\\*", shown: "*" },
  { source: "\\_", shown: "_" },
  { source: "\\[", shown: "[" },
  { source: "`code_span`", shown: "code_span" },
  { source: "`a b`", shown: "a b" },
  { source: "**strong**", shown: "strong" },
  { source: "*em*", shown: "em" },
  { source: "_em_", shown: "em" },
  { source: "[link text](https://example.com/a_b#frag)", shown: "link text" },
  { source: "[ref][r1]", shown: "ref" },
  { source: '<sup class="badge" />', shown: "" },
  { source: "<br>", shown: "" },
  { source: "<code>tag</code>", shown: "tag" },
  { source: "&amp;", shown: "&" },
  { source: "&copy;", shown: "©" },
];

/** Headings from real documentation with the anchors github.com gives them (the cases found wrong before). */
const REAL: [string, string][] = [
  ["Eager Watchers \\*", "eager-watchers-"],
  ['Once <sup class="badge" /> new', "once--new"],
  ["my_var", "my_var"],
  ["Fee Fie Fo Fum", "fee-fie-fo-fum"],
  ["`pairflow run` [options](#options)", "pairflow-run-options"],
  ["What's new in v2.0?", "whats-new-in-v20"],
];

// ---------------------------------------------------------------------------------------------
// Pages

interface Section {
  level: number;
  parts: Part[];
  body: string;
}

/** Bodies: plain text, and code that CommonMark keeps code although it holds `#` lines and fences. */
const BODIES = [
  "Text.\n",
  "```sh\n# a comment, not a heading\n```\n",
  "````md\n```js\n# still code: the inner fence does not close the outer\n```\n````\n",
  "~~~\n## not a heading\n~~~\n",
  "####### seven hashes are not a heading\n",
  "#no-space is not a heading\n",
  // HTML blocks that run to their end tag, across blank lines: what they hold is not Markdown.
  "<!--\n\n# commented out, not a heading\n\n-->\n",
  "<pre>\n\n# preformatted, not a heading\n\n</pre>\n",
  "<script>\n\n# a script's line, not a heading\n</script>\n",
];

const sectionArb: fc.Arbitrary<Section> = fc.record({
  level: fc.integer({ min: 1, max: 3 }),
  parts: fc.array(fc.constantFrom(...PARTS), { minLength: 1, maxLength: 4 }),
  body: fc.constantFrom(...BODIES),
});

const pageArb = fc.record({
  frontMatter: fc.boolean(),
  preamble: fc.constantFrom("", "\n", "Intro text.\n\n"),
  sections: fc.array(sectionArb, { maxLength: 8 }),
});

function pageText(p: { frontMatter: boolean; preamble: string; sections: Section[] }): string {
  const head = p.frontMatter ? "---\ntitle: T\n---\n" : "";
  return (
    head +
    p.preamble +
    p.sections.map((s, i) => `${"#".repeat(s.level)} ${s.parts.map((x) => x.source).join(" ")}\n\n${s.body.replace("Text.", `Text ${i}.`)}\n`).join("") +
    (p.sections.length > 0 ? "\n[r1]: https://example.com/ref\n" : "")
  );
}

function expectedIds(p: { frontMatter: boolean; preamble: string; sections: Section[] }): string[] {
  const ids: string[] = [];
  if (p.frontMatter) ids.push("front-matter");
  // Text before the first heading is a piece when it is more than blank lines, or all there is.
  if (p.preamble.trim() !== "" || (p.sections.length === 0 && p.preamble !== "")) ids.push("preamble");
  const take = numbering(ids);
  for (const s of p.sections) {
    const anchor = anchorOf(s.parts.map((x) => x.shown).join(" "));
    ids.push(take(anchor === "" ? "section" : anchor));
  }
  return ids;
}

describe("the pieces of a Markdown page", () => {
  it("are named by the anchors github.com gives real headings", () => {
    const text = REAL.map(([h], i) => `## ${h}\n\nText ${i}.\n`).join("\n");
    expect(splitText(text, { kind: "markdown" }).map((p) => p.id)).toEqual(REAL.map(([, a]) => a));
  });

  it("are the anchors the links in this project's own documentation name", () => {
    const docs = path.join(REPO, "docs");
    const files = [
      path.join(REPO, "README.md"),
      ...readdirSync(docs)
        .filter((f) => f.endsWith(".md"))
        .map((f) => path.join(docs, f)),
    ];
    const links: [string, string][] = [];
    for (const file of files) {
      for (const m of readFileSync(file, "utf8").matchAll(/\]\(([\w./-]*\.md)?#([^)\s]+)\)/g)) {
        const target = m[1] ? path.resolve(path.dirname(file), m[1]) : file;
        links.push([path.relative(REPO, target), m[2]!]);
      }
    }
    expect(links.length).toBeGreaterThan(10);
    for (const [target, anchor] of links) {
      const ids = splitText(readFileSync(path.join(REPO, target), "utf8"), { kind: "markdown" }).map((p) => p.id);
      expect(ids, `${target}#${anchor}`).toContain(decodeURIComponent(anchor));
    }
  });

  it("do not start at a `#` line inside an HTML comment or a <pre> block, which GitHub gives no anchor", () => {
    const ids = (text: string) => splitText(text, { kind: "markdown" }).map((p) => p.id);
    expect(ids("# A\n\n<!--\n\n# B\n\n-->\n\n# C\n")).toEqual(["a", "c"]);
    expect(ids("# A\n\n<PRE class=x>\n\n# B\n</pre>\n# C\n")).toEqual(["a", "c"]);
    expect(ids("# A\n\n<!-- one line -->\n# B\n")).toEqual(["a", "b"]);
  });

  it("are unique, are GitHub's anchors, hold every byte once, and never start in code", () => {
    fc.assert(
      fc.property(pageArb, (page) => {
        const text = pageText(page);
        const pieces = splitText(text, { kind: "markdown" });
        expect(pieces.map((p) => p.text).join("")).toBe(text);
        expect(pieces.map((p) => p.id)).toEqual(expectedIds(page));
        expect(new Set(pieces.map((p) => p.id)).size).toBe(pieces.length);
      }),
      { numRuns: RUNS * 20, seed: SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Histories

const WORKFLOW = (carry: boolean) => `name: pages
generator: upper
${carry ? "carry_edits: true\n" : ""}action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
`;
const PROMPTS = 'translate:\n  task: "Translate:\\n<<<\\n{piece}>>>"\n';

/** What one run asked: each prompt once, by the instance that asked. */
interface Asked {
  id: string;
  prompt: string;
}

function upper(asked: Asked[]): Generator {
  return async ({ pairId, prompt }) => {
    asked.push({ id: pairId, prompt });
    const piece = /<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? prompt;
    // With a person's revision, the lines they fixed are kept (a translator keeping their changes).
    const revision = /# Revision\n\n[^\n]*\n\n`+\n([\s\S]*?)\n`+/.exec(prompt)?.[1] ?? "";
    const kept = revision.split("\n").filter((l) => l.includes("BY HAND"));
    return { content: piece.toUpperCase() + kept.map((l) => `(kept: ${l.trim()})\n`).join("") };
  };
}

/** A prompt's piece, blank lines and the blanks at its ends dropped. */
function pieceOf(prompt: string): string {
  const piece = /<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? prompt;
  return piece
    .split("\n")
    .filter((l) => l.trim() !== "")
    .join("\n");
}

type Step =
  | { kind: "edit" | "remove" | "move"; at: number }
  | { kind: "insert"; at: number; text: number }
  | { kind: "rename"; at: number; heading: string }
  | { kind: "hand"; at: number }
  | { kind: "run" };

const HEADINGS = ["Setup", "Setup", "Setup 1", "Usage", "Preamble", "my_var", "Eager Watchers \\*"];

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("edit" as const), at: fc.nat(9) }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat(9) }),
  fc.record({ kind: fc.constant("move" as const), at: fc.nat(9) }),
  // Inserted text is one of few, so a section can come back with a text accepted before.
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(9), text: fc.nat(3) }),
  fc.record({ kind: fc.constant("rename" as const), at: fc.nat(9), heading: fc.constantFrom(...HEADINGS) }),
  fc.record({ kind: fc.constant("hand" as const), at: fc.nat(30) }),
  fc.constant<Step>({ kind: "run" }),
);

const historyArb = fc.record({
  carry: fc.boolean(),
  preamble: fc.boolean(),
  sections: fc.array(fc.record({ heading: fc.constantFrom(...HEADINGS), text: fc.nat(3) }), { minLength: 1, maxLength: 5 }),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 10 }),
});

describe("a split page over random histories of edits and runs", () => {
  it("loses no byte a person wrote unless the plan named it, answers no request twice, and puts each section in once", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(historyArb, async (history) => {
        // Section texts are numbered so each is told apart in the output; edits append to them.
        const sections = history.sections.map((s, i) => ({ heading: s.heading, text: `Text ${s.text}.${" Edited.".repeat(i % 2)}` }));
        const page = () => (history.preamble ? "Intro.\n\n" : "") + sections.map((s) => `## ${s.heading}\n\n${s.text}\n\n`).join("");
        const dir = tempRepo({ "workflow.yml": WORKFLOW(history.carry), "prompts.yml": PROMPTS, "docs/page.md": page() });
        const out = () => readFileSync(path.join(dir, "out/page.md"), "utf8");
        const answered = new Set<string>();
        /** The sections' texts the lock file holds accepted after the last run. */
        let inLock = new Set<string>();
        const fixes: string[] = [];
        let n = 0;

        const run = async () => {
          const { plan } = await planOf(dir, { cwd: dir });
          // The ids the plan gives this page's sections are the anchors of its headings.
          const take = numbering(history.preamble ? ["preamble"] : []);
          const ids = sections.map((s) => `translate[docs/page.md#${take(anchorOf(s.heading.replace("\\*", "*")))}]`);
          const pieces = plan.pairs.filter((p) => p.id.includes("#") && !(history.preamble && p.id === "translate[docs/page.md#preamble]"));
          expect(pieces.map((p) => p.id).sort()).toEqual([...ids].sort());
          const named = plan.pairs.some((p) => p.stale === true || p.reasons.some((r) => r.kind === "carried"));
          const textLines = () =>
            out()
              .split("\n")
              .filter((l) => l.startsWith("TEXT "))
              .map((l) => l.replace(/ FIXED BY HAND \d+/g, ""));
          const before = existsSync(path.join(dir, "out/page.md")) ? textLines() : [];
          const asked: Asked[] = [];
          const report = await runOf(dir, { cwd: dir, env: {}, generators: { upper: upper(asked) } });
          runs++;
          expect(report.status).toBe("success");
          // No request answered by an earlier run is sent again (two sections of one text in one run may both ask).
          // The generator is told the instance's id, so a request is the id and the prompt.
          for (const { id, prompt } of asked)
            expect(answered.has(`${id}\n${prompt}`), `${id} was asked again what was answered before:\n${prompt}`).toBe(false);
          // And a section whose text the lock file holds accepted runs under no id again, however renamed or moved.
          for (const { id, prompt } of asked) expect(inLock.has(pieceOf(prompt)), `${id} ran again for a text accepted before:\n${prompt}`).toBe(false);
          for (const { id, prompt } of asked) answered.add(`${id}\n${prompt}`);
          const accepted = new Set([...inLock, ...asked.map((a) => pieceOf(a.prompt))]);
          inLock = new Set(sections.map((s) => pieceOf(`<<<\n## ${s.heading}\n\n${s.text}\n\n>>>`)).filter((t) => accepted.has(t) || !named));
          // Every fix is still in the output, or the plan named its section and the fix reached the section's prompt.
          // A fix carried into a prompt is pairflow's from then on, though the answer kept it: no longer the person's to keep.
          for (const fix of [...fixes]) {
            const carried = named && asked.some((a) => a.prompt.includes(fix));
            if (!carried) expect(out().includes(fix), `lost without the plan naming it: ${fix}`).toBe(true);
            else fixes.splice(fixes.indexOf(fix), 1);
          }
          // Each section's text is in the output once; exactly once unless the plan named a person's edit,
          // which holds old texts (another section's of today, maybe): then at most as often as the
          // sections and the output before the run hold it together.
          const lines = textLines();
          for (const s of sections) {
            const count = lines.filter((l) => l === s.text.toUpperCase()).length;
            const times = sections.filter((x) => x.text === s.text).length;
            if (named) expect(count).toBeLessThanOrEqual(times + before.filter((l) => l === s.text.toUpperCase()).length);
            else expect(count, `${s.text} in the output ${count} times:\n${out()}`).toBe(times);
          }
          // A second run right after has nothing to ask.
          const again: Asked[] = [];
          await runOf(dir, { cwd: dir, env: {}, generators: { upper: upper(again) } });
          expect(again).toEqual([]);
        };

        await run();
        for (const step of [...history.steps, { kind: "run" } as Step]) {
          const at = (k: number) => k % sections.length;
          if (step.kind === "edit") sections[at(step.at)]!.text += " Edited.";
          else if (step.kind === "insert") sections.splice(step.at % (sections.length + 1), 0, { heading: "Setup", text: `Text ${step.text}.` });
          else if (step.kind === "remove" && sections.length > 1) sections.splice(at(step.at), 1);
          else if (step.kind === "rename") sections[at(step.at)]!.heading = step.heading;
          else if (step.kind === "move" && sections.length > 1) sections.push(...sections.splice(at(step.at), 1));
          else if (step.kind === "hand") {
            const lines = out().split("\n");
            const text = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith("TEXT "));
            if (text.length === 0) continue;
            const fix = `FIXED BY HAND ${n++}`;
            lines[text[step.at % text.length]![1]] += ` ${fix}`;
            fixes.push(fix);
            writeFileSync(path.join(dir, "out/page.md"), lines.join("\n"));
            continue;
          } else if (step.kind === "run") {
            await run();
            continue;
          }
          writeFileSync(path.join(dir, "docs/page.md"), page());
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(runs).toBeGreaterThan(RUNS);
  }, 600_000);
});
