/**
 * The pull request body of each language (src/report/translations.ts), from a run in-process: who
 * wrote the language's sections (adopted ones included), and a body that always fits its limit,
 * saying how much it left out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adoptPairs } from "../../src/app/adopt.js";
import type { Planned } from "../../src/app/plan.js";
import { PULL_REQUEST_BODY_LIMIT, translationChanges, whyText } from "../../src/report/translations.js";
import { runOf } from "../helpers/state.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { generators, PROMPTS, workflowText } from "./world.js";

const page = (n: number, sections: number, size: number) =>
  `# Page ${n}\n\nIntro.\n\n` + Array.from({ length: sections }, (_, i) => `## Part ${i}\n\n${"Words of the part. ".repeat(size)}\n\n`).join("");

async function ran(dir: string) {
  let planned: Planned | undefined;
  const report = await runOf(dir, { cwd: dir, env: {}, generators, onPlanned: (p) => (planned = p) });
  return { planned: planned!, report };
}

describe("a language's pull request body", () => {
  it("counts adopted sections apart from machine-written ones, per language", async () => {
    const dir = tempRepo({
      "workflow.yml": workflowText(["fr", "de"]),
      "prompts.yml": PROMPTS,
      "docs/intro.md": "# Intro\n\nHello.\n\n## Install\n\nRun it.\n",
      "i18n/fr/intro.md": "# Intro\n\nBonjour.\n\n## Installer\n\nLancez-le.\n",
    });
    await adoptPairs(dir, { cwd: dir, ids: ["translate[fr]"] });
    const { planned, report } = await ran(dir);
    const [fr, de] = ["fr", "de"].map((lang) => translationChanges(planned.plan, report, { lock: planned.lock }).find((c) => c.value === lang)!);
    expect(fr!.files).toEqual([]);
    expect(fr!.body).toContain("Nothing was translated in this run.");
    expect(fr!.body).toMatch(/\| adopted \(a person's, taken over\) \| 2 \| 1 \|/);
    expect(fr!.body).toMatch(/\| machine-written \| 0 \| 0 \|/);
    expect(de!.files).toEqual(["i18n/de/intro.md"]);
    expect(de!.body).toMatch(/\| machine-written \| 2 \| 1 \|/);
    expect(de!.body).toContain("- `#install`: new section");
  });

  it("names a section removed with its source, and the page it was in as changed", async () => {
    const dir = tempRepo({
      "workflow.yml": workflowText(["fr"]),
      "prompts.yml": PROMPTS,
      "docs/intro.md": "# Intro\n\nHello.\n\n## Install\n\nRun it.\n\n## Use\n\nUse it.\n",
    });
    await ran(dir);
    writeFiles(dir, { "docs/intro.md": "# Intro\n\nHello.\n\n## Use\n\nUse it.\n" });
    const { planned, report } = await ran(dir);
    const [fr] = translationChanges(planned.plan, report, { lock: planned.lock });
    expect(fr!.files).toEqual(["i18n/fr/intro.md"]);
    expect(fr!.body).toContain("1 page changed, 0 sections translated.");
    expect(fr!.body).toContain("- `#install`: removed, as its source section was");
  });

  it("says why in a reviewer's words, a reason's text from the repository shown as data", () => {
    expect(whyText([{ kind: "new", detail: "never accepted" }])).toBe("new section");
    expect(
      whyText([
        { kind: "inputs", detail: "piece changed", component: { kind: "piece", name: "" } },
        { kind: "prompt", detail: "prompt.task changed", component: { kind: "prompt", name: "task" } },
      ]),
    ).toBe("its source section changed");
    expect(whyText([{ kind: "prompt", detail: "prompt.glossary.pull request removed", component: { kind: "prompt", name: "glossary.pull request" } }])).toBe(
      "glossary: `pull request` removed",
    );
    fc.assert(
      fc.property(fc.string(), (detail) => {
        expect(whyText([{ kind: "inputs", detail, component: { kind: "input", name: detail } }])).not.toMatch(/[<>\n]/);
      }),
    );
  });

  it("fits any limit, sources left out first, then pages, each cut said", async () => {
    const files: Record<string, string> = { "workflow.yml": workflowText(["fr", "de", "es"]), "prompts.yml": PROMPTS };
    for (let n = 0; n < 30; n++) files[`docs/p${String(n).padStart(2, "0")}.md`] = page(n, 12, 40);
    const dir = tempRepo(files);
    const { planned, report } = await ran(dir);
    const full = translationChanges(planned.plan, report, { lock: planned.lock, more: "`pairflow show run`" });
    for (const c of full) {
      // Every page with its sources would be larger than GitHub takes: the sources go first.
      expect(c.body.length).toBeLessThanOrEqual(PULL_REQUEST_BODY_LIMIT);
      expect(c.files).toHaveLength(30);
      for (let n = 0; n < 30; n++) expect(c.body).toContain(`### \`docs/p${String(n).padStart(2, "0")}.md\``);
    }
    fc.assert(
      fc.property(fc.integer({ min: 2_000, max: 80_000 }), (limit) => {
        for (const c of translationChanges(planned.plan, report, { lock: planned.lock, limit, more: "`pairflow show run`" })) {
          expect(c.body.length).toBeLessThanOrEqual(limit);
          expect(c.body).toContain(`### Who wrote \`${c.value}\``);
          const shown = (c.body.match(/^### `docs\//gm) ?? []).length;
          if (shown < 30) expect(c.body).toContain(`… and ${30 - shown} more page${30 - shown === 1 ? "" : "s"}: \`pairflow show run\` shows them all.`);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
