/** What `npm install pairflow` gets: the bundled CLI and the schemas, and nothing to install beside them. */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/fixtures.js";

describe("the published package", () => {
  it("holds dist/cli.js, its token table and the schemas, and depends on nothing", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const [packed] = JSON.parse(out) as { files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path).sort();
    // The CLI and the chunks it loads on demand (scripts/build.mjs splits the commands off), nothing of the action.
    const chunks = readdirSync(path.join(REPO, "dist"))
      .filter((f) => /^cli-.*\.js$/.test(f))
      .map((f) => `dist/${f}`);
    // The token table the estimate reads beside the bundle (src/workspace/tokenTable.ts).
    expect(files).toEqual(
      ["README.md", "dist/cli.js", ...chunks, "dist/o200k_base.bin", "package.json", "schemas/prompts.schema.json", "schemas/workflow.schema.json"].sort(),
    );
    // Every file the CLI imports is in the package.
    for (const file of files.filter((f) => f.startsWith("dist/"))) {
      for (const [, imported] of readFileSync(path.join(REPO, file), "utf8").matchAll(/(?:\bimport\(?|\bfrom)\s*"\.\/([^"]+)"/g))
        expect(files).toContain(`dist/${imported}`);
    }
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ pairflow: "dist/cli.js" });
    // dist/ is bundled (scripts/build.mjs): every library is inside it, so none is a dependency.
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(readFileSync(path.join(REPO, "dist/cli.js"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });
});
