// Adopting what people already wrote: an existing translation recorded as accepted for its
// sources, as a person's, with no model call; kept while its sources stand, stale (or carried
// forward with carry_edits) once they change, section by section in a split file.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { adoptPairs } from "../../src/app/adopt.js";
import { planOf } from "../helpers/state.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { PROMPTS, prompts, step, workflowText } from "./world.js";

const SOURCE = "# Intro\n\nHello.\n\n## Install\n\nRun it.\n\n## Use\n\nUse it.\n";
/** What the French translators wrote before the site used pairflow. */
const FRENCH = "# Intro\n\nBonjour.\n\n## Installer\n\nLancez-le.\n\n## Utiliser\n\nUtilisez-le.\n";
const SECTIONS = ["intro", "install", "use"];

function site(extra = ""): string {
  return tempRepo({
    "workflow.yml": workflowText(["fr", "de"], extra),
    "prompts.yml": PROMPTS,
    "docs/intro.md": SOURCE,
    "i18n/fr/intro.md": FRENCH,
  });
}

const adopt = (dir: string, ...ids: string[]) => adoptPairs(dir, { cwd: dir, ids });

describe("pairflow adopt", () => {
  it("records an existing split translation section by section with no model call, and runs only the other languages", async () => {
    const dir = site();
    expect(await adopt(dir, "translate[fr]")).toEqual([{ id: "translate[fr:docs/intro.md]", output: "i18n/fr/intro.md", sections: 3 }]);
    const first = await step(dir);
    expect(first.called).toEqual(SECTIONS.map((s) => `translate[de:docs/intro.md#${s}]`).sort());
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(FRENCH);
    expect(first.after).toEqual([]);
    expect(await adopt(dir, "translate[fr]")).toEqual([{ id: "translate[fr:docs/intro.md]", output: "i18n/fr/intro.md", sections: 3, already: true }]);
  });

  it("keeps every adopted section whose source stands, and names only the changed one stale", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SECTIONS), async (section) => {
        const dir = site();
        await adopt(dir, "translate[fr]");
        await step(dir);
        const edited = SOURCE.replace({ intro: "Hello.", install: "Run it.", use: "Use it." }[section]!, "Changed.");
        writeFiles(dir, { "docs/intro.md": edited });
        const { plan } = await planOf(dir, { cwd: dir });
        const stale = plan.pairs.filter((p) => p.stale).map((p) => p.id);
        expect(stale).toEqual([`translate[fr:docs/intro.md#${section}]`]);
        const after = await step(dir);
        expect(after.called).toEqual([`translate[de:docs/intro.md#${section}]`]);
        expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(FRENCH);
      }),
      { numRuns: 3 },
    );
  });

  it("with carry_edits, re-runs a changed section with the person's text as the revision, and keeps the rest", async () => {
    const dir = site("    carry_edits: true\n");
    await adopt(dir, "translate[fr]");
    await step(dir);
    writeFiles(dir, { "docs/intro.md": SOURCE.replace("Run it.", "Run it twice.") });
    const after = await step(dir);
    expect(after.called).toEqual(["translate[de:docs/intro.md#install]", "translate[fr:docs/intro.md#install]"]);
    expect(prompts.get("translate[fr:docs/intro.md#install]")).toContain("## Installer\n\nLancez-le.\n");
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(
      "# Intro\n\nBonjour.\n\n[fr] ## INSTALL\n\nRUN IT TWICE.\n\n## Utiliser\n\nUtilisez-le.\n",
    );
  });

  it("adopts a whole file of a pair without split, kept until its page changes", async () => {
    const dir = tempRepo({
      "workflow.yml": workflowText(["fr"]).replace("      split: markdown\n", ""),
      "prompts.yml": PROMPTS.replace("{piece}", "{file}"),
      "docs/intro.md": SOURCE,
      "i18n/fr/intro.md": FRENCH,
    });
    expect(await adopt(dir, "translate[fr:docs/intro.md]")).toEqual([{ id: "translate[fr:docs/intro.md]", output: "i18n/fr/intro.md" }]);
    expect((await step(dir)).called).toEqual([]);
    writeFiles(dir, { "docs/intro.md": `${SOURCE}More.\n` });
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.pairs.find((p) => p.id === "translate[fr:docs/intro.md]")).toMatchObject({ action: "skip", stale: true });
    expect((await step(dir)).called).toEqual([]);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(FRENCH);
  });

  it("refuses what it cannot adopt, saying what to do", async () => {
    const dir = site();
    await expect(adopt(dir, "translate[de]")).rejects.toThrow(/adopt translate\[de:docs\/intro\.md\]: its output i18n\/de\/intro\.md does not exist; write it/);
    writeFiles(dir, { "i18n/fr/intro.md": "# Intro\n\nBonjour.\n" });
    await expect(adopt(dir, "translate[fr]")).rejects.toThrow(/has 1 section and its source 3; adopt it when they match section for section/);
    await expect(adopt(dir, "translat")).rejects.toThrow(/no such pair/);
  });
});

describe("adopt_existing", () => {
  const whole = (extra: string) =>
    tempRepo({
      "workflow.yml": workflowText(["fr", "de"]).replace("      split: markdown\n", "") + extra,
      "prompts.yml": PROMPTS.replace("{piece}", "{file}"),
      "docs/intro.md": SOURCE,
      "i18n/fr/intro.md": FRENCH,
    });

  it("adopts an output that exists with no record instead of replacing it, and keeps it while its page stands", async () => {
    const dir = whole("adopt_existing: true\n");
    const { plan } = await planOf(dir, { cwd: dir });
    expect(plan.pairs.find((p) => p.id === "translate[fr:docs/intro.md]")!.action).toBe("skip");
    const first = await step(dir);
    expect(first.called).toEqual(["translate[de:docs/intro.md]"]);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(FRENCH);
    const lock = JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as { pairs: Record<string, { source: string }> };
    expect(lock.pairs["translate[fr:docs/intro.md]"]!.source).toBe("human");
    writeFiles(dir, { "docs/intro.md": `${SOURCE}More.\n` });
    const changed = await step(dir);
    expect(changed.called).toEqual(["translate[de:docs/intro.md]"]);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(FRENCH);
  });

  it("without it, such an output is replaced, as before", async () => {
    const dir = whole("");
    expect((await step(dir)).called).toEqual(["translate[de:docs/intro.md]", "translate[fr:docs/intro.md]"]);
  });

  it("is refused on a pair whose foreach splits its files, saying to adopt them once instead", async () => {
    const dir = site("    adopt_existing: true\n");
    await expect(planOf(dir, { cwd: dir })).rejects.toThrow(
      /adopts whole output files, and this pair's foreach splits its files into sections; .* with pairflow adopt 'translate'/,
    );
  });
});
