// One foreach over files and values together: every page, section by section, in every language,
// from one declaration. Ids are readable and stable, a language added runs only its instances and
// one removed drops only its, any slice can be selected, and an instance's reference is exactly
// that of the same pair written out for one language by hand.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadWorkflow } from "../../src/workspace/load.js";
import { ConfigError, type ConfigIssue } from "../../src/model/errors.js";
import { planOf } from "../helpers/state.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { PROMPTS, prompts, step, workflowText } from "./world.js";

const PAGES = {
  "docs/intro.md": "# Intro\n\nHello.\n\n## Install\n\nRun it.\n",
  "docs/guide.md": "# Guide\n\nRead on.\n",
};

function site(languages: string[], extra = ""): string {
  return tempRepo({ "workflow.yml": workflowText(languages, extra), "prompts.yml": PROMPTS, ...PAGES });
}

function issuesOf(dir: string): ConfigIssue[] {
  try {
    loadWorkflow(dir, dir);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error("expected the workflow to be rejected");
}

const sectionsOf = (lang: string) => [
  `translate[${lang}:docs/guide.md#guide]`,
  `translate[${lang}:docs/guide.md]`,
  `translate[${lang}:docs/intro.md#install]`,
  `translate[${lang}:docs/intro.md#intro]`,
  `translate[${lang}:docs/intro.md]`,
];

describe("foreach over files and values together", () => {
  it("makes one instance per section, file and language, with readable ids and each language's output", async () => {
    const dir = site(["fr", "de"]);
    const first = await step(dir);
    expect(first.status).toBe("success");
    expect(first.planned).toEqual([...sectionsOf("de"), ...sectionsOf("fr")].sort());
    expect(first.after).toEqual([]);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe("[fr] # INTRO\n\nHELLO.\n\n[fr] ## INSTALL\n\nRUN IT.\n");
    expect(readFileSync(path.join(dir, "i18n/de/guide.md"), "utf8")).toBe("[de] # GUIDE\n\nREAD ON.\n");
    expect(prompts.get("translate[de:docs/intro.md#install]")).toContain("Translate into de:");
  });

  it("adding a language runs only that language's instances; removing one drops only its", async () => {
    const dir = site(["fr", "de"]);
    await step(dir);
    writeFiles(dir, { "workflow.yml": workflowText(["fr", "de", "es"]) });
    const added = await step(dir);
    expect(added.called).toEqual(sectionsOf("es").filter((id) => id.includes("#")));
    expect(added.planned).toEqual(sectionsOf("es"));
    writeFiles(dir, { "workflow.yml": workflowText(["fr", "es"]) });
    const removed = await step(dir);
    expect(removed.called).toEqual([]);
    expect(removed.planned).toEqual([]);
    expect(removed.removed).toEqual(sectionsOf("de"));
  });

  it("an edited section re-runs in every language and nowhere else", async () => {
    const dir = site(["fr", "de"]);
    await step(dir);
    writeFiles(dir, { "docs/intro.md": "# Intro\n\nHello.\n\n## Install\n\nRun it twice.\n" });
    const edited = await step(dir);
    expect(edited.called).toEqual(["translate[de:docs/intro.md#install]", "translate[fr:docs/intro.md#install]"]);
  });

  it("--only and --from take any slice: a language, a page, a section in every language, one section of one language", async () => {
    const dir = site(["fr", "de"]);
    await step(dir);
    const planned = async (only: string) =>
      (await planOf(dir, { cwd: dir, selection: { only: [only] } })).plan.pairs
        .filter((p) => p.action === "run")
        .map((p) => p.id)
        .sort();
    expect(await planned("translate[fr]")).toEqual(sectionsOf("fr"));
    // A page: its put-together file in every language, with the sections it needs.
    expect(await planned("translate[docs/intro.md]")).toEqual(
      ["de", "fr"].flatMap((l) => [`translate[${l}:docs/intro.md#install]`, `translate[${l}:docs/intro.md#intro]`, `translate[${l}:docs/intro.md]`]),
    );
    expect(await planned("translate[docs/intro.md#install]")).toEqual(["translate[de:docs/intro.md#install]", "translate[fr:docs/intro.md#install]"]);
    expect(await planned("translate[fr:docs/intro.md#install]")).toEqual(["translate[fr:docs/intro.md#install]"]);
    const from = (await planOf(dir, { cwd: dir, selection: { from: "translate[de]" } })).plan.pairs.filter((p) => p.reasons.some((r) => r.kind === "forced"));
    expect(from.map((p) => p.id).sort()).toEqual(sectionsOf("de"));
    await expect(planOf(dir, { cwd: dir, selection: { only: ["translate[it]"] } })).rejects.toThrow(/--only translate\[it\]: no such pair/);
  });

  it("takes per-language inputs by placeholder: a language's glossary file re-runs that language only", async () => {
    const dir = site(["fr", "de"], '    inputs: ["glossary/{lang}.yml"]\n');
    writeFiles(dir, { "glossary/fr.yml": "Guide: Guide\n", "glossary/de.yml": "Guide: Anleitung\n" });
    await step(dir);
    writeFiles(dir, { "glossary/de.yml": "Guide: Handbuch\n" });
    const changed = await step(dir);
    expect(changed.called).toEqual(sectionsOf("de").filter((id) => id.includes("#")));
  });

  it("gives an instance exactly the reference of the same pair written out by hand for its language", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.stringMatching(/^[a-z]{2}(-[A-Z]{2})?$/), { minLength: 1, maxLength: 3 }), async (languages) => {
        const dir = tempRepo({
          "workflow.yml": workflowText(languages).replace("      split: markdown\n", ""),
          "prompts.yml": PROMPTS.replace("{piece}", "{file}"),
          ...PAGES,
        });
        const together = (await planOf(dir, { cwd: dir })).plan;
        for (const lang of languages) {
          const byHand = tempRepo({
            "workflow.yml": `name: site\ngenerator: translator\naction_pairs:\n  translate:\n    foreach:\n      files: docs/*.md\n    output: "i18n/${lang}/{name}"\n`,
            "prompts.yml": `translate:\n  task: "Translate into ${lang}:\\n<<<\\n{file}>>>"\n`,
            ...PAGES,
          });
          const alone = (await planOf(byHand, { cwd: byHand })).plan;
          for (const file of Object.keys(PAGES)) {
            const ref = together.pairs.find((p) => p.id === `translate[${lang}:${file}]`)!.configRef;
            expect(ref).toBe(alone.pairs.find((p) => p.id === `translate[${file}]`)!.configRef);
          }
        }
      }),
      { numRuns: 8 },
    );
  });

  it("rejects a foreach over files and values written wrong, at its line, saying what to do", () => {
    const at = (issues: ConfigIssue[]) => issues.map((i) => `${path.basename(i.file)}:${i.line}: ${i.message}`);
    const noValues = tempRepo({
      "workflow.yml":
        "name: t\ngenerator: translator\naction_pairs:\n  t:\n    foreach:\n      files: docs/*.md\n      as: lang\n    output: out/{lang}/{name}\n",
      ...PAGES,
    });
    expect(at(issuesOf(noValues))).toEqual([expect.stringMatching(/^workflow\.yml:7: .*has none; add "values"/)]);
    const oneOutput = tempRepo({
      "workflow.yml":
        "name: t\ngenerator: translator\naction_pairs:\n  t:\n    foreach:\n      files: docs/*.md\n      values: [fr, de]\n    output: out/{name}\n",
      ...PAGES,
    });
    expect(at(issuesOf(oneOutput))).toEqual([expect.stringMatching(/^workflow\.yml:8: "out\/\{name\}" is the same file for every value; put \{value\}/)]);
    const colon = tempRepo({
      "workflow.yml":
        'name: t\ngenerator: translator\naction_pairs:\n  t:\n    foreach:\n      files: docs/*.md\n      values: [fr, "x:y"]\n    output: out/{value}/{name}\n',
      ...PAGES,
    });
    expect(at(issuesOf(colon))).toEqual([expect.stringMatching(/^workflow\.yml:7: "x:y" holds ":"/)]);
    const reserved = tempRepo({
      "workflow.yml": "name: t\ngenerator: translator\naction_pairs:\n  t:\n    foreach:\n      values: [fr]\n      as: file\n    output: out/{value}\n",
    });
    expect(at(issuesOf(reserved))).toEqual([expect.stringMatching(/^workflow\.yml:7: "file" cannot name a placeholder/)]);
    const unnamed = tempRepo({
      "workflow.yml": "name: t\ngenerator: translator\naction_pairs:\n  t:\n    foreach:\n      files: docs/*.md\n    output: out/{stem}.md\n",
      "prompts.yml": "t:\n  task: Translate {file} into {value}.\n",
      ...PAGES,
    });
    expect(at(issuesOf(unnamed))).toEqual([expect.stringMatching(/^prompts\.yml:2: \{value\} is the value .* add values to foreach/)]);
  });
});
