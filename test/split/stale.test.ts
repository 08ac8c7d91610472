/**
 * A person's edit whose sources changed is named stale by every plan until its sources stand
 * again (docs/foreach.md, "A person's edits, carried forward"): a run that keeps it does not make
 * it current, for a plain pair, a split file kept whole, or a section of one.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { planOf } from "../helpers/state.js";
import { SPLIT_PAGES, SPLIT_PROMPTS, splitRuns } from "../helpers/sections.js";

const { asked, run } = splitRuns();

/** The ids the plan names stale. */
async function staleIds(dir: string): Promise<string[]> {
  const { plan } = await planOf(dir, { cwd: dir });
  return plan.pairs.filter((p) => p.stale === true).map((p) => p.id);
}

describe("a stale hand edit", () => {
  it("of a split file kept whole is named stale by every plan, not only the first", async () => {
    const dir = tempRepo({ "workflow.yml": SPLIT_PAGES, "prompts.yml": SPLIT_PROMPTS, "docs/page.md": "## Setup\n\nText 0.\n\n" });
    await run(dir);
    writeFileSync(path.join(dir, "out/page.md"), "## SETUP\n\nTEXT 0. FIXED BY HAND\n\n");
    // The section's heading changes: the edit is in the region of a section no longer there.
    writeFileSync(path.join(dir, "docs/page.md"), "## Usage\n\nText 0.\n\n");
    for (let i = 0; i < 3; i++) {
      expect(await staleIds(dir), `plan ${i + 1}`).toEqual(["translate[docs/page.md]"]);
      const report = await run(dir);
      expect(report.pairs.find((p) => p.id === "translate[docs/page.md]")!.note).toMatch(/a person's edit kept, though its sources changed since/);
      expect(readFileSync(path.join(dir, "out/page.md"), "utf8")).toBe("## SETUP\n\nTEXT 0. FIXED BY HAND\n\n");
    }
    // Deleting the file puts it together again from the sections of today.
    rmSync(path.join(dir, "out/page.md"));
    await run(dir);
    expect(readFileSync(path.join(dir, "out/page.md"), "utf8")).toBe("## USAGE\n\nTEXT 0.\n\n");
    expect(await staleIds(dir)).toEqual([]);
  });

  it("of a plain pair's output is named stale by every plan, not only the first", async () => {
    const dir = tempRepo({
      "workflow.yml": "name: one\ngenerator: upper\naction_pairs:\n  a: {output: out/a.txt}\n",
      "prompts.yml": 'a: {task: "<<<\\nhello\\n>>>"}\n',
    });
    await run(dir);
    writeFileSync(path.join(dir, "out/a.txt"), "HELLO, FIXED BY HAND\n");
    const prompts = readFileSync(path.join(dir, "prompts.yml"), "utf8");
    writeFileSync(path.join(dir, "prompts.yml"), prompts.replace("hello", "hello world"));
    for (let i = 0; i < 3; i++) {
      expect(await staleIds(dir), `plan ${i + 1}`).toEqual(["a"]);
      await run(dir);
      expect(asked).toEqual([]);
      expect(readFileSync(path.join(dir, "out/a.txt"), "utf8")).toBe("HELLO, FIXED BY HAND\n");
    }
    // Its sources as they were when the person edited it: current again, recorded as theirs.
    writeFileSync(path.join(dir, "prompts.yml"), prompts);
    expect(await staleIds(dir)).toEqual([]);
    await run(dir);
    expect(await staleIds(dir)).toEqual([]);
  });

  it("of a section whose text becomes its twin's is named stale, not answered by the twin's accepted text", async () => {
    const dir = tempRepo({
      "workflow.yml": SPLIT_PAGES,
      "prompts.yml": SPLIT_PROMPTS,
      "docs/page.md": "## Setup\n\nText 0.\n\n## Setup\n\nText 0. Edited.\n\n",
    });
    await run(dir);
    writeFileSync(path.join(dir, "out/page.md"), "## SETUP\n\nTEXT 0. FIXED BY HAND\n\n## SETUP\n\nTEXT 0. EDITED.\n\n");
    // The first section's text becomes the second's: the fix was of a text that is no longer there.
    writeFileSync(path.join(dir, "docs/page.md"), "## Setup\n\nText 0. Edited.\n\n## Setup\n\nText 0. Edited.\n\n");
    for (let i = 0; i < 2; i++) {
      expect(await staleIds(dir), `plan ${i + 1}`).toEqual(["translate[docs/page.md#setup]"]);
      await run(dir);
      expect(asked).toEqual([]);
      expect(readFileSync(path.join(dir, "out/page.md"), "utf8")).toBe("## SETUP\n\nTEXT 0. FIXED BY HAND\n\n## SETUP\n\nTEXT 0. EDITED.\n\n");
    }
  });
});
