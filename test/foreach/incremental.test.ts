import { scaled } from "../helpers/time.js";
// Adding, deleting and editing one page among fifty re-runs exactly that page's instances and
// what depends on them, and the plan says so before the run does it.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { appendPage, deletePage, downstreamOf, pageName, pagesRepo, step, writePage } from "./world.js";
import { planOf } from "../helpers/state.js";
import { readLock } from "../../src/lockfile/lockfile.js";
import { planText } from "../../src/report/plan.js";
import { styleFor } from "../../src/report/color.js";

describe("foreach over fifty pages", () => {
  it("runs every instance once, then re-runs only what an added, edited or deleted page changes", { timeout: scaled(60_000) }, async () => {
    const dir = pagesRepo(50);
    const first = await step(dir);
    expect(first.status).toBe("success");
    expect(first.planned).toHaveLength(101);
    expect(first.executed).toEqual(first.planned);
    expect(first.after).toEqual([]);
    expect(readFileSync(path.join(dir, "out/page-007.fr.md"), "utf8")).toContain("# PAGE 7");

    // Edit one page: its translation, its check and the index run; the other 49 pairs of each stay.
    appendPage(dir, pageName(7), "More text.\n");
    const edited = await step(dir);
    expect(edited.planned).toEqual(downstreamOf(pageName(7)));
    expect(edited.executed).toEqual(edited.planned);
    expect(edited.removed).toEqual([]);
    expect(edited.after).toEqual([]);
    expect(readFileSync(path.join(dir, "out/page-007.fr.md"), "utf8")).toContain("MORE TEXT.");

    // Add one: a new instance of each, and the index.
    writePage(dir, "docs/added.md", "# Added\n");
    const added = await step(dir);
    expect(added.planned).toEqual(downstreamOf("docs/added.md"));
    expect(added.executed).toEqual(added.planned);
    expect(added.after).toEqual([]);

    // Delete one: its instances leave the plan and the lock file, and only the index runs.
    deletePage(dir, pageName(20));
    const deleted = await step(dir);
    expect(deleted.removed).toEqual([`check[${pageName(20)}]`, `translate[${pageName(20)}]`]);
    expect(deleted.planned).toEqual(["index"]);
    expect(deleted.executed).toEqual(["index"]);
    expect(deleted.after).toEqual([]);
    const lock = readLock(path.join(dir, "workflow.lock.json"))!;
    expect(Object.keys(lock.pairs)).toHaveLength(101);
    expect(lock.pairs[`translate[${pageName(20)}]`]).toBeUndefined();
    expect(lock.pairs["translate[docs/added.md]"]).toBeDefined();
  });

  it("says in the human plan how many instances of each foreach pair run, and which pairs a run removes", { timeout: scaled(30_000) }, async () => {
    const dir = pagesRepo(12);
    await step(dir);
    appendPage(dir, pageName(3), "Edited.\n");
    deletePage(dir, pageName(5));
    const { plan } = await planOf(dir, { cwd: dir });
    const text = planText(plan, styleFor({ isTTY: false }), dir);
    expect(text).toContain("translate[*]  1 run, 10 unchanged");
    expect(text).toContain("check[*]  1 run, 10 unchanged");
    expect(text).toMatch(/run +translate\[docs\/page-003\.md\] /);
    expect(text).not.toMatch(/translate\[docs\/page-004\.md\]/);
    expect(text).toContain(`Removed (no longer in the workflow; the run drops them from the lock file): check[${pageName(5)}], translate[${pageName(5)}]`);
    expect(text).toContain("3 to run, 20 unchanged, 2 removed");
  });
});
