// examples/translate runs offline as the README shows, from a copy holding its sources only, so
// running the example by hand changes nothing here.
import { describe, expect, it } from "vitest";
import { scaled } from "../helpers/time.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { copyToTempRepo, REPO, writeFiles } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";

describe("examples/translate", { timeout: scaled(30_000) }, () => {
  it("translates every page, checks each against its page, indexes them all, and then re-runs only what an edit reaches", async () => {
    const dir = copyToTempRepo(path.join(REPO, "examples/translate"));
    const report = await runOf(dir, { cwd: dir, env: process.env });
    expect(report.status).toBe("success");
    expect(report.pairs.map((p) => p.id).sort()).toEqual([
      "check[docs/install.md]",
      "check[docs/intro.md]",
      "check[docs/usage.md]",
      "index",
      "translate[docs/install.md]",
      "translate[docs/intro.md]",
      "translate[docs/usage.md]",
    ]);
    expect(readFileSync(path.join(dir, "out/fr/intro.md"), "utf8")).toMatch(/^# Bienvenue\n\nBonjour monde\./);
    expect(readFileSync(path.join(dir, "out/checks/usage.txt"), "utf8")).toContain("headings: ok");
    expect(readFileSync(path.join(dir, "out/fr/index.md"), "utf8")).toBe(
      "# Index\n\n- [Installer](install.md)\n- [Bienvenue](intro.md)\n- [Usage](usage.md)\n",
    );

    writeFiles(dir, { "docs/install.md": "# Install\n\nInstall the tool with npm.\n\n## Upgrade\n\nRun the install again.\n" });
    const { plan } = await planOf(dir, { cwd: dir });
    const planned = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
    expect(planned).toEqual(["translate[docs/install.md]", "check[docs/install.md]", "index"]);
    const again = await runOf(dir, { cwd: dir, env: process.env });
    expect(again.pairs.filter((p) => p.status === "executed").map((p) => p.id)).toEqual(planned);
    expect(readFileSync(path.join(dir, "out/checks/install.txt"), "utf8")).toContain("2 of 2 headings");
  });
});
