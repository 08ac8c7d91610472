/**
 * A person's fixes in generated outputs: kept while their sources stand, named stale when their
 * sources change, and carried forward with carry_edits. In a file put together from sections, a
 * fix is its section's own: it survives edits to other sections.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { editedPieces } from "../../src/plan/edits.js";
import type { Generator } from "../../src/model/ports.js";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";
import fc from "fast-check";

const prompts: { id: string; prompt: string }[] = [];
/** Upper-cases the section it was given; with a person's revision, says it kept it. */
const upper: Generator = async ({ pairId, prompt }) => {
  prompts.push({ id: pairId, prompt });
  const piece = /<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? prompt;
  const kept = /# Revision\n\n[^\n]*\n\n`+\n([\s\S]*?)\n`+/.exec(prompt)?.[1];
  return {
    content:
      piece.toUpperCase() +
      (kept
        ? `(kept: ${kept
            .split("\n")
            .find((l) => l.includes("BY HAND"))
            ?.trim()})\n`
        : ""),
  };
};

const workflow = (carry: boolean) => `name: fixes
generator: upper
${carry ? "carry_edits: true\n" : ""}action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
`;
const PROMPTS = 'translate:\n  task: "Translate:\\n<<<\\n{piece}>>>"\n';
const PAGE = "# Page\n\n## A\n\nText a.\n\n## B\n\nText b.\n\n## C\n\nText c.\n";

async function run(dir: string) {
  prompts.length = 0;
  const report = await runOf(dir, { cwd: dir, env: {}, generators: { upper } });
  expect(report.status).toBe("success");
  return report;
}
const out = (dir: string) => readFileSync(path.join(dir, "out/page.md"), "utf8");
const edit = (dir: string, file: string, from: string, to: string) => {
  const text = readFileSync(path.join(dir, file), "utf8");
  expect(text).toContain(from);
  writeFileSync(path.join(dir, file), text.replace(from, to));
};

describe("a person's fix in one section of a file put together from sections", () => {
  it("survives edits to other sections, and is named stale every time once its own section changes", async () => {
    const dir = tempRepo({ "workflow.yml": workflow(false), "prompts.yml": PROMPTS, "docs/page.md": PAGE });
    await run(dir);
    edit(dir, "out/page.md", "TEXT B.", "TEXT B, FIXED BY HAND.");
    // Another section changes: it alone runs, and the page keeps the fix.
    edit(dir, "docs/page.md", "Text c.", "Text c, longer.");
    await run(dir);
    expect(prompts.map((p) => p.id)).toEqual(["translate[docs/page.md#c]"]);
    expect(out(dir)).toBe("# PAGE\n\n## A\n\nTEXT A.\n\n## B\n\nTEXT B, FIXED BY HAND.\n\n## C\n\nTEXT C, LONGER.\n");
    // Its own section changes: without carry_edits the fix stays, and every plan says it is stale.
    edit(dir, "docs/page.md", "Text b.", "Text b, revised.");
    for (let i = 0; i < 2; i++) {
      const { plan } = await planOf(dir, { cwd: dir });
      expect(plan.byId.get("translate[docs/page.md#b]")).toMatchObject({ action: "skip", stale: true });
      const report = await run(dir);
      expect(prompts).toEqual([]);
      expect(report.pairs.find((p) => p.id === "translate[docs/page.md#b]")!.note).toMatch(/a person's edit kept, though its sources changed since/);
      expect(out(dir)).toContain("TEXT B, FIXED BY HAND.");
    }
  });

  it("is kept once a run has recorded the file as a person's, through later edits of any section", async () => {
    for (const carry of [false, true]) {
      const dir = tempRepo({ "workflow.yml": workflow(carry), "prompts.yml": PROMPTS, "docs/page.md": PAGE });
      await run(dir);
      edit(dir, "out/page.md", "TEXT B.", "TEXT B, FIXED BY HAND.");
      // A run with nothing to do records the file as a person's.
      await run(dir);
      expect(prompts).toEqual([]);
      // Another section changes: it alone runs, and the page keeps the fix.
      edit(dir, "docs/page.md", "Text c.", "Text c, longer.");
      await run(dir);
      expect(prompts.map((p) => p.id)).toEqual(["translate[docs/page.md#c]"]);
      expect(out(dir)).toBe("# PAGE\n\n## A\n\nTEXT A.\n\n## B\n\nTEXT B, FIXED BY HAND.\n\n## C\n\nTEXT C, LONGER.\n");
      await run(dir);
      expect(prompts).toEqual([]);
      // Its own section changes: stale, kept; or carried forward with carry_edits.
      edit(dir, "docs/page.md", "Text b.", "Text b, revised.");
      const { plan } = await planOf(dir, { cwd: dir });
      const b = plan.byId.get("translate[docs/page.md#b]")!;
      if (!carry) {
        expect(b).toMatchObject({ action: "skip", stale: true });
        await run(dir);
        expect(prompts).toEqual([]);
        expect(out(dir)).toContain("TEXT B, FIXED BY HAND.");
      } else {
        expect(b.action).toBe("run");
        await run(dir);
        expect(prompts.map((p) => p.id)).toEqual(["translate[docs/page.md#b]"]);
        expect(out(dir)).toContain("## B\n\nTEXT B, REVISED.\n\n(kept: TEXT B, FIXED BY HAND.)\n");
      }
    }
  });

  it("is carried forward with carry_edits: its section runs with the person's version in its prompt", async () => {
    const dir = tempRepo({ "workflow.yml": workflow(true), "prompts.yml": PROMPTS, "docs/page.md": PAGE });
    await run(dir);
    edit(dir, "out/page.md", "TEXT B.", "TEXT B, FIXED BY HAND.");
    edit(dir, "docs/page.md", "Text b.", "Text b, revised.");
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.byId.get("translate[docs/page.md#b]")!.reasons).toContainEqual({
      kind: "carried",
      detail: expect.stringMatching(/^a person's edit of its output is carried forward/),
    });
    await run(dir);
    expect(prompts.map((p) => p.id)).toEqual(["translate[docs/page.md#b]"]);
    expect(prompts[0]!.prompt).toContain("A person revised the previous output like this; keep their changes where they still apply:");
    expect(prompts[0]!.prompt).toContain("TEXT B, FIXED BY HAND.");
    expect(out(dir)).toContain("## B\n\nTEXT B, REVISED.\n\n(kept: TEXT B, FIXED BY HAND.)\n");
    // Carried, it is pairflow's again: the next plan has nothing to do.
    expect((await planOf(dir, { cwd: dir })).plan.pairs.filter((p) => p.action === "run")).toEqual([]);
  });
});

describe("a person's edits of a file put together from sections, over any sequence of changes", () => {
  it("moves with its section, and stays when sections are added", async () => {
    const dir = tempRepo({ "workflow.yml": workflow(false), "prompts.yml": PROMPTS, "docs/page.md": PAGE });
    await run(dir);
    edit(dir, "out/page.md", "TEXT B.", "TEXT B, FIXED BY HAND.");
    await run(dir);
    edit(dir, "docs/page.md", "## A\n\nText a.\n\n## B\n\nText b.\n\n", "## B\n\nText b.\n\n## New\n\nText new.\n\n## A\n\nText a.\n\n");
    await run(dir);
    expect(prompts.map((p) => p.id)).toEqual(["translate[docs/page.md#new]"]);
    expect(out(dir)).toBe("# PAGE\n\n## B\n\nTEXT B, FIXED BY HAND.\n\n## NEW\n\nTEXT NEW.\n\n## A\n\nTEXT A.\n\n## C\n\nTEXT C.\n");
    await run(dir);
    expect(prompts).toEqual([]);
    expect(out(dir)).toContain("TEXT B, FIXED BY HAND.");
  });

  it("stays with its section's text when sections of one name are swapped or renumbered", async () => {
    const twin = "# Page\n\n## Setup\n\nOne.\n\n## Setup\n\nTwo.\n\n";
    const dir = tempRepo({ "workflow.yml": workflow(false), "prompts.yml": PROMPTS, "docs/page.md": twin });
    await run(dir);
    edit(dir, "out/page.md", "ONE.", "ONE, FIXED BY HAND.");
    await run(dir);
    writeFileSync(path.join(dir, "docs/page.md"), "# Page\n\n## Setup\n\nTwo.\n\n## Setup\n\nOne.\n\n");
    await run(dir);
    expect(prompts).toEqual([]);
    expect(out(dir)).toBe("# PAGE\n\n## SETUP\n\nTWO.\n\n## SETUP\n\nONE, FIXED BY HAND.\n\n");
    // The first renamed: the second, renumbered, keeps its text and its fix.
    writeFileSync(path.join(dir, "docs/page.md"), "# Page\n\n## Install\n\nTwo.\n\n## Setup\n\nOne.\n\n");
    await run(dir);
    expect(prompts.map((p) => p.id)).toEqual(["translate[docs/page.md#install]"]);
    expect(out(dir)).toBe("# PAGE\n\n## INSTALL\n\nTWO.\n\n## SETUP\n\nONE, FIXED BY HAND.\n\n");
  });

  it("keeps the whole file, named stale, when the section it was in is removed", async () => {
    const dir = tempRepo({ "workflow.yml": workflow(false), "prompts.yml": PROMPTS, "docs/page.md": PAGE });
    await run(dir);
    edit(dir, "out/page.md", "TEXT B.", "TEXT B, FIXED BY HAND.");
    await run(dir);
    edit(dir, "docs/page.md", "## B\n\nText b.\n\n", "");
    // As a plain pair's edit: named stale by the plan after the change, and kept by every run.
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.byId.get("translate[docs/page.md]")).toMatchObject({ action: "skip", stale: true });
    for (let i = 0; i < 2; i++) {
      await run(dir);
      expect(prompts).toEqual([]);
      expect(out(dir)).toContain("TEXT B, FIXED BY HAND.");
    }
  });

  /** A step: a section's text edited, sections swapped, added, removed or renamed, a line of the output fixed by hand, or a run. */
  type Step = { kind: "source" | "move" | "insert" | "remove" | "rename"; at: number } | { kind: "hand"; at: number } | { kind: "run" };
  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant("rename" as const), at: fc.nat(9) }),
    fc.record({ kind: fc.constant("source" as const), at: fc.nat(9) }),
    fc.record({ kind: fc.constant("move" as const), at: fc.nat(9) }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(9) }),
    fc.record({ kind: fc.constant("remove" as const), at: fc.nat(9) }),
    fc.record({ kind: fc.constant("hand" as const), at: fc.nat(30) }),
    fc.constant<Step>({ kind: "run" }),
  );

  it("never loses a byte a person wrote: each fix stays in the output, or (carry_edits) reaches the prompt of its section's run", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(stepArb, { minLength: 2, maxLength: 8 }), async (carry, steps) => {
        const sections = ["A", "B", "C", "D"].map((h) => ({ heading: h, text: `Text ${h.toLowerCase()}.` }));
        const page = () => `# Page\n\n${sections.map((s) => `## ${s.heading}\n\n${s.text}\n`).join("\n")}`;
        const dir = tempRepo({ "workflow.yml": workflow(carry), "prompts.yml": PROMPTS, "docs/page.md": page() });
        await run(dir);
        const fixes: string[] = [];
        let n = 0;
        for (const step of [...steps, { kind: "run" } as Step]) {
          if (step.kind === "source") sections[step.at % sections.length]!.text += " More.";
          else if (step.kind === "insert") sections.splice(step.at % (sections.length + 1), 0, { heading: `N${n}`, text: `Text n${n++}.` });
          else if (step.kind === "remove" && sections.length > 1) sections.splice(step.at % sections.length, 1);
          // Renamed to a heading others have too: the sections after it are renumbered.
          else if (step.kind === "rename") sections[step.at % sections.length]!.heading = "Setup";
          else if (step.kind === "move") {
            const i = step.at % sections.length;
            const j = (i + 1) % sections.length;
            [sections[i], sections[j]] = [sections[j]!, sections[i]!];
          } else if (step.kind === "hand") {
            const lines = out(dir).split("\n");
            const text = lines.map((l, i) => [l, i] as const).filter(([l]) => /^TEXT /.test(l));
            const [, line] = text[step.at % text.length]!;
            const fix = `FIXED BY HAND ${n++}`;
            lines[line] += ` ${fix}`;
            fixes.push(fix);
            writeFileSync(path.join(dir, "out/page.md"), lines.join("\n"));
          } else {
            await run(dir);
            runs++;
            for (const fix of fixes) {
              const carried = carry && prompts.some((p) => p.prompt.includes(fix));
              if (!carried) expect(out(dir)).toContain(fix);
            }
            // No section's text is put in twice (each section's text is its own).
            const texts = out(dir)
              .split("\n")
              .filter((l) => l.startsWith("TEXT "))
              .map((l) => l.replace(/ FIXED BY HAND \d+/g, ""));
            expect(new Set(texts).size).toBe(texts.length);
            // A fix carried forward into a prompt is pairflow's again: it is no longer the person's to
            // keep, whether or not the answer kept it (a later change of its section asks anew).
            for (let i = fixes.length - 1; i >= 0; i--) {
              const fix = fixes[i]!;
              if (!out(dir).includes(fix) || (carry && prompts.some((p) => p.prompt.includes(fix)))) fixes.splice(i, 1);
            }
          }
          if (step.kind !== "hand" && step.kind !== "run") writeFileSync(path.join(dir, "docs/page.md"), page());
        }
      }),
      { numRuns: 20 },
    );
    expect(runs).toBeGreaterThan(12);
  }, 120_000);
});

describe("a person's edit of a whole output", () => {
  const single = (carry: boolean) =>
    tempRepo({
      "workflow.yml": `name: one\ngenerator: upper\n${carry ? "carry_edits: true\n" : ""}action_pairs:\n  a: {output: out/a.txt}\n`,
      "prompts.yml": 'a: {task: "<<<\\nhello\\n>>>"}\n',
    });
  it("is kept, named stale when the prompt changes, and carried forward with carry_edits", async () => {
    for (const carry of [false, true]) {
      const dir = single(carry);
      await run(dir);
      writeFileSync(path.join(dir, "out/a.txt"), "HELLO, FIXED BY HAND\n");
      edit(dir, "prompts.yml", "hello", "hello world");
      const { plan } = await planOf(dir, { cwd: dir });
      if (!carry) {
        expect(plan.byId.get("a")).toMatchObject({ action: "skip", stale: true });
        await run(dir);
        expect(readFileSync(path.join(dir, "out/a.txt"), "utf8")).toBe("HELLO, FIXED BY HAND\n");
      } else {
        expect(plan.byId.get("a")!.action).toBe("run");
        await run(dir);
        expect(prompts[0]!.prompt).toContain("HELLO, FIXED BY HAND");
        expect(readFileSync(path.join(dir, "out/a.txt"), "utf8")).toBe("HELLO WORLD\n(kept: HELLO, FIXED BY HAND)\n");
      }
    }
  });
});

describe("mapping an edit to pieces", () => {
  it("finds each piece's text in the edited file, and only the pieces whose lines changed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom("alpha", "beta", "gamma", "## Head", ""), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.constantFrom("x", "delta delta"),
        (raw, pick, added) => {
          const pieces = raw.map((lines) => lines.join("\n") + "\n");
          const n = pick % pieces.length;
          const lines = pieces[n]!.split("\n");
          lines.splice(1, 0, added);
          const editedPiece = lines.join("\n");
          const edited = pieces.map((p, i) => (i === n ? editedPiece : p)).join("");
          const found = editedPieces(pieces, edited);
          expect(found.map((t, i) => t ?? pieces[i]).join("")).toBe(edited);
          for (const [i, t] of found.entries()) if (i !== n) expect(t).toBeUndefined();
        },
      ),
    );
  });
});
