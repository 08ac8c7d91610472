/**
 * Reuse follows a section's text, not its number: a section whose text was accepted before never
 * runs again, whatever id a renamed or moved heading before it gives it now.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf } from "../helpers/state.js";
import { SPLIT_PAGES, SPLIT_PROMPTS, splitRuns } from "../helpers/sections.js";
import { pairKey } from "../../src/refs/keys.js";

const runs = splitRuns();

/** Runs, and returns the sections the generator was called for. */
async function run(dir: string) {
  await runs.run(dir);
  return runs.asked.map((id) => id.slice(id.indexOf("#") + 1, -1));
}
const page = (sections: readonly { heading: string; text: string }[]) => sections.map((s) => `## ${s.heading}\n\n${s.text}\n\n`).join("");

describe("reuse of a split file's sections", () => {
  it("does not run the unchanged second of two sections of one name when the first is renamed", async () => {
    const dir = tempRepo({ "workflow.yml": SPLIT_PAGES, "prompts.yml": SPLIT_PROMPTS, "docs/a.md": "## Setup\n\nOne.\n\n## Setup\n\nTwo.\n" });
    expect(await run(dir)).toEqual(["setup", "setup-1"]);
    writeFileSync(path.join(dir, "docs/a.md"), "## Install\n\nOne.\n\n## Setup\n\nTwo.\n");
    expect(await run(dir)).toEqual(["install"]);
    expect(readFileSync(path.join(dir, "out/a.md"), "utf8")).toBe("## INSTALL\n\nONE.\n\n## SETUP\n\nTWO.\n");
    expect(await run(dir)).toEqual([]);
  });

  it("runs neither of two sections of one name when they are swapped", async () => {
    const dir = tempRepo({ "workflow.yml": SPLIT_PAGES, "prompts.yml": SPLIT_PROMPTS, "docs/a.md": "## Setup\n\nOne.\n\n## Setup\n\nTwo.\n\n" });
    await run(dir);
    writeFileSync(path.join(dir, "docs/a.md"), "## Setup\n\nTwo.\n\n## Setup\n\nOne.\n\n");
    expect(await run(dir)).toEqual([]);
    expect(readFileSync(path.join(dir, "out/a.md"), "utf8")).toBe("## SETUP\n\nTWO.\n\n## SETUP\n\nONE.\n\n");
  });

  it("runs exactly the sections whose text was not accepted before, after any renames and moves", async () => {
    const sectionArb = fc.record({ heading: fc.constantFrom("Setup", "Setup", "Usage", "Setup 1"), text: fc.constantFrom("One.", "Two.", "Three.", "Four.") });
    await fc.assert(
      fc.asyncProperty(
        fc.array(sectionArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.record({ at: fc.nat(9), heading: fc.constantFrom("Setup", "Usage", "Setup 1") }), { maxLength: 3 }),
        fc.array(fc.nat(9), { maxLength: 3 }),
        async (sections, renames, moves) => {
          const dir = tempRepo({ "workflow.yml": SPLIT_PAGES, "prompts.yml": SPLIT_PROMPTS, "docs/a.md": page(sections) });
          await run(dir);
          const accepted = new Set(sections.map((s) => `${s.heading}\n${s.text}`));
          const after = sections.map((s) => ({ ...s }));
          for (const r of renames) after[r.at % after.length]!.heading = r.heading;
          for (const m of moves) after.push(...after.splice(m % after.length, 1));
          writeFileSync(path.join(dir, "docs/a.md"), page(after));
          const ran = await run(dir);
          const fresh = new Set(after.filter((s) => !accepted.has(`${s.heading}\n${s.text}`)).map((s) => `${s.heading}\n${s.text}`));
          // Each run is of a section's text not accepted before, and each such text runs (once per id that holds it).
          expect(new Set(ran.length === 0 ? [] : ran).size).toBe(ran.length);
          expect(ran.length).toBeGreaterThanOrEqual(fresh.size);
          expect(ran.length).toBe(after.filter((s) => fresh.has(`${s.heading}\n${s.text}`)).length);
          expect(readFileSync(path.join(dir, "out/a.md"), "utf8")).toBe(page(after).toUpperCase());
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);

  it("runs nothing for a lock file whose pieces have the ids of an earlier slug rule", async () => {
    const dir = tempRepo({ "workflow.yml": SPLIT_PAGES, "prompts.yml": SPLIT_PROMPTS, "docs/a.md": "## my_var\n\nOne.\n\n## Eager Watchers \\*\n\nTwo.\n" });
    expect(await run(dir)).toEqual(["my_var", "eager-watchers-"]);
    // The lock file and the store as the earlier rule left them: `myvar`, `eager-watchers`.
    const renamed: [string, string][] = [
      ["translate[docs/a.md#my_var]", "translate[docs/a.md#myvar]"],
      ["translate[docs/a.md#eager-watchers-]", "translate[docs/a.md#eager-watchers]"],
    ];
    const lockPath = path.join(
      dir,
      readdirSync(dir).find((name) => name.endsWith(".lock.json"))!,
    );
    let lock = readFileSync(lockPath, "utf8");
    for (const [now, before] of renamed) {
      lock = lock.replace(JSON.stringify(now), JSON.stringify(before));
      const records = path.join(dir, ".pairflow/store/pairs");
      expect(existsSync(path.join(records, pairKey(now)))).toBe(true);
      renameSync(path.join(records, pairKey(now)), path.join(records, pairKey(before)));
    }
    writeFileSync(lockPath, lock);
    const { plan } = await planOf(dir, { cwd: dir });
    // No piece runs (the file's instance is put together again where the order of ids changed: no model).
    expect(plan.pairs.filter((p) => p.action === "run" && p.id.includes("#"))).toEqual([]);
    expect(plan.removed).toEqual(renamed.map(([, before]) => before).sort());
    expect(await run(dir)).toEqual([]);
    expect(readFileSync(lockPath, "utf8")).not.toContain("#myvar]");
    expect((await planOf(dir, { cwd: dir })).plan.pairs.filter((p) => p.action === "run")).toEqual([]);
  });
});
