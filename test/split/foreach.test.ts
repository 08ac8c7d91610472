/**
 * A pair over the sections of its files (`foreach: {files, split: markdown}`), run as `pairflow run`
 * runs it (the application layer, real files): an edit re-runs the section it touched and no
 * other, moving sections re-runs none, and the page is always put back together exactly as a run
 * from scratch would.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitText } from "../../src/config/split.js";
import type { Generator } from "../../src/model/ports.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";
import { scaled } from "../helpers/time.js";
import { planListText } from "../../src/report/plan.js";
import { styleFor } from "../../src/report/color.js";

const WORKFLOW = `name: sections
generator: upper
action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
  index:
    requires: [translate]
    output: out/index.md
`;
const PROMPTS = 'translate:\n  task: "Translate {piece_id} of {file}:\\n<<<\\n{piece}>>>"\nindex:\n  task: Index them.\n';

/** The stand-in: the piece it was given, upper-cased; the index, the titles of the pages it got. */
const calls: string[] = [];
const upper: Generator = async ({ pairId, prompt }) => {
  calls.push(pairId);
  const piece = /<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1];
  if (piece !== undefined) return { content: piece.toUpperCase() };
  return { content: `${[...prompt.matchAll(/^## translate\[/gm)].length} pages\n` };
};
const generators = { upper };

/** The page as the stand-in translates it, section by section: what a run from scratch writes. */
const oracle = (page: string) =>
  splitText(page, { kind: "markdown" })
    .map((p) => p.text.toUpperCase())
    .map((t) => (t === "" || t.endsWith("\n") ? t : `${t}\n`))
    .join("");

async function step(dir: string): Promise<{ planned: string[]; executed: string[]; called: string[] }> {
  const { plan } = await planOf(dir, { cwd: dir });
  calls.length = 0;
  const report = await runOf(dir, { cwd: dir, env: {}, generators });
  expect(report.status).toBe("success");
  return {
    planned: plan.pairs
      .filter((p) => p.action === "run")
      .map((p) => p.id)
      .sort(),
    executed: report.pairs
      .filter((p) => p.status === "executed")
      .map((p) => p.id)
      .sort(),
    called: [...calls].sort(),
  };
}

const section = (i: number, words = `Text of section ${i}.`) => `## Section ${i}\n\n${words}\n\n`;

describe("foreach split: markdown", () => {
  it("re-runs one section of a 40-section page, and rewrites the page with every other section byte for byte", async () => {
    const sections = Array.from({ length: 40 }, (_, i) => section(i));
    const page = `# Guide\n\nIntro.\n\n${sections.join("")}`;
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "docs/guide.md": page });
    const first = await step(dir);
    expect(first.called.filter((c) => c.startsWith("translate["))).toHaveLength(41); // the intro with its title, and 40 sections
    const before = readFileSync(path.join(dir, "out/guide.md"), "utf8");
    expect(before).toBe(oracle(page));

    sections[17] = section(17, "Text of section 17, edited.");
    writeFiles(dir, { "docs/guide.md": `# Guide\n\nIntro.\n\n${sections.join("")}` });
    const edited = await step(dir);
    expect(edited.called).toEqual(["index", "translate[docs/guide.md#section-17]"]);
    expect(edited.executed).toEqual(["index", "translate[docs/guide.md#section-17]", "translate[docs/guide.md]"]);
    const after = readFileSync(path.join(dir, "out/guide.md"), "utf8");
    const changed = after.split("## ").filter((s, i) => s !== before.split("## ")[i]);
    expect(changed).toEqual(["SECTION 17\n\nTEXT OF SECTION 17, EDITED.\n\n"]);

    // Moving sections re-runs none: the page is put back together in its new order.
    [sections[3], sections[30]] = [sections[30]!, sections[3]!];
    const moved = `# Guide\n\nIntro.\n\n${sections.join("")}`;
    writeFiles(dir, { "docs/guide.md": moved });
    const reorder = await step(dir);
    expect(reorder.called).toEqual(["index"]); // the page changed: its order
    expect(reorder.executed).toEqual(["index", "translate[docs/guide.md]"]);
    expect(readFileSync(path.join(dir, "out/guide.md"), "utf8")).toBe(oracle(moved));
  });

  it("shows the pieces that run of each file under the file, counted: 1 of 14 sections to run", async () => {
    const page = (edited: number) => `# Guide\n\nIntro.\n\n${Array.from({ length: 13 }, (_, i) => section(i, i === edited ? "Edited." : undefined)).join("")}`;
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "docs/a.md": page(-1), "docs/b.md": page(-1), "docs/c.md": page(-1) });
    await step(dir);
    writeFiles(dir, { "docs/a.md": page(4), "docs/c.md": page(7) });
    const { plan } = await planOf(dir, { cwd: dir });
    const text = planListText(plan, styleFor({ isTTY: false }), dir);
    const wave1 = text.slice(text.indexOf("Wave 1"), text.indexOf("Wave 2")).trimEnd().split("\n");
    expect(wave1).toEqual([
      "Wave 1",
      "  translate[*]  2 run, 40 unchanged",
      "    translate[docs/a.md]  1 of 14 sections to run",
      expect.stringMatching(/^      run {3}translate\[docs\/a\.md#section-4\] .* inputs: its piece of the file changed$/),
      "    translate[docs/c.md]  1 of 14 sections to run",
      expect.stringMatching(/^      run {3}translate\[docs\/c\.md#section-7\] /),
    ]);
  });

  it("gives a pair requiring it the pages put together, not the pieces", async () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "docs/a.md": "# A\n\ntext\n", "docs/b.md": "# B\n\nmore\n" });
    await step(dir);
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.workflow.pairs.get("index")!.requires).toEqual(["translate[docs/a.md]", "translate[docs/b.md]"]);
    expect(readFileSync(path.join(dir, "out/index.md"), "utf8")).toBe("2 pages\n");
  });

  it(
    "under random edits, moves, additions and deletions of sections: plan = run, only changed sections call, the page as from scratch",
    { timeout: scaled(120_000) },
    async () => {
      const stepArb = fc.oneof(
        fc.record({ kind: fc.constant("edit" as const), at: fc.nat(), words: fc.constantFrom("New words.", "Other words!", "Ünïcode words.") }),
        fc.record({ kind: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
        fc.record({ kind: fc.constant("add" as const), at: fc.nat(), heading: fc.constantFrom("Added", "Section 1", "FAQ") }),
        fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
      );
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(stepArb, { minLength: 1, maxLength: 5 }), async (n, steps) => {
          let sections = Array.from({ length: n }, (_, i) => section(i));
          const page = () => `# Page\n\n${sections.join("")}`;
          const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "docs/p.md": page() });
          await step(dir);
          // Every section asked for so far, by id and text: asked again, it is answered with no call.
          const asked = new Set(splitText(page(), { kind: "markdown" }).map((p) => `${p.id}\0${p.text}`));
          for (const s of steps) {
            const before = new Map(splitText(page(), { kind: "markdown" }).map((p) => [p.id, p.text]));
            if (s.kind === "edit" && sections.length > 0) sections[s.at % sections.length] = section(s.at, s.words);
            if (s.kind === "move" && sections.length > 1) {
              const [moved] = sections.splice(s.at % sections.length, 1);
              sections.splice(s.to % (sections.length + 1), 0, moved!);
            }
            if (s.kind === "add") sections.splice(s.at % (sections.length + 1), 0, `## ${s.heading}\n\nAdded text.\n\n`);
            if (s.kind === "delete" && sections.length > 0) sections = sections.filter((_, i) => i !== s.at % sections.length);
            writeFiles(dir, { "docs/p.md": page() });
            const after = splitText(page(), { kind: "markdown" });
            // A section runs when its id is new or its text changed; it calls the generator unless it
            // was asked the very same before (request reuse); nothing else does either.
            const changed = after.filter((p) => before.get(p.id) !== p.text).map((p) => `translate[docs/p.md#${p.id}]`);
            const fresh = after.filter((p) => before.get(p.id) !== p.text && !asked.has(`${p.id}\0${p.text}`)).map((p) => `translate[docs/p.md#${p.id}]`);
            for (const p of after) asked.add(`${p.id}\0${p.text}`);
            const { planned, executed, called } = await step(dir);
            expect(called.filter((c) => c.startsWith("translate[")).sort()).toEqual(fresh.sort());
            // plan = run for the sections; a section the store has under its reference already is reused.
            const plannedPieces = planned.filter((id) => id.includes("#"));
            expect(executed.filter((id) => id.includes("#"))).toEqual(plannedPieces);
            expect(changed).toEqual(expect.arrayContaining(plannedPieces));
            expect(plannedPieces).toEqual(expect.arrayContaining(fresh));
            expect(readFileSync(path.join(dir, "out/p.md"), "utf8")).toBe(oracle(page()));
          }
          rmSync(dir, { recursive: true, force: true });
        }),
        { numRuns: 25, seed: 20261126 },
      );
    },
  );

  it("keeps catalogue structure: one instance per text of a JSON file, the file rebuilt with the results", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: i18n
generator: upper
action_pairs:
  translate:
    foreach: {files: "locales/en.json", split: json}
    output: "locales/fr/{name}"
`,
      "prompts.yml": 'translate:\n  task: "Translate {piece_id}:\\n<<<\\n{piece}>>>"\n',
      "locales/en.json": '{\n  "menu": {"open": "Open", "close": "Close"},\n  "count": 2\n}\n',
    });
    await step(dir);
    expect(JSON.parse(readFileSync(path.join(dir, "locales/fr/en.json"), "utf8"))).toEqual({ menu: { open: "OPEN", close: "CLOSE" }, count: 2 });
    writeFileSync(path.join(dir, "locales/en.json"), '{\n  "menu": {"open": "Open", "close": "Shut"},\n  "count": 2\n}\n');
    expect((await step(dir)).called).toEqual(["translate[locales/en.json#menu.close]"]);
    expect(JSON.parse(readFileSync(path.join(dir, "locales/fr/en.json"), "utf8")).menu).toEqual({ open: "OPEN", close: "SHUT" });
  });
});
