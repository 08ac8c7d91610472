// A split pair whose command names the file being split (`{file}`) has the whole file in every
// piece's reference, so any edit of the file runs every piece again: validate says so at the
// command, naming the file and what to write instead; a command that names only its piece does not.
import { describe, expect, it } from "vitest";
import { validateTarget } from "../../src/app/validate.js";
import { tempRepo } from "../helpers/fixtures.js";

function workflow(generator: string, guard?: string, split = "\n      split: markdown", env = "{}"): string {
  return [
    "name: split",
    "generator: command",
    "action_pairs:",
    "  tr:",
    `    foreach:\n      files: "docs/*.md"${split}`,
    "    output: out/{name}",
    "    generator_config:",
    `      run: ${JSON.stringify(generator)}`,
    `      env: ${env}`,
    ...(guard === undefined ? [] : ["    guard: command", "    guard_config:", `      run: ${JSON.stringify(guard)}`]),
    "",
  ].join("\n");
}

async function warnings(text: string): Promise<string[]> {
  const dir = tempRepo({ "workflow.yml": text, "docs/a.md": "# A\n\none\n\n# B\n\ntwo\n", "docs/b.md": "# C\n\nthree\n", "tr.mjs": "// reads its piece\n" });
  const { problems } = await validateTarget(dir, { cwd: dir, env: {} });
  return problems.filter((p) => p.severity === "warning").map((p) => `${p.file}:${p.line}: ${p.key}: ${p.message}`);
}

describe("a split pair's command that names the whole file", () => {
  it.each([
    ["{file} as an argument", "node tr.mjs {file}"],
    ["{file} piped in", "cat {file} | node tr.mjs"],
    ["{dir}/{name}", "node tr.mjs ./{dir}/{name}"],
    ["{file} redirected in", "node tr.mjs < {file}"],
  ])("is warned about at the command, once for the pair: %s", async (_, run) => {
    const said = await warnings(workflow(run));
    expect(said).toEqual([
      expect.stringMatching(
        /^workflow\.yml:10: action_pairs\.tr\.generator_config\.run: names the whole file being split \(docs\/a\.md for tr\[docs\/a\.md#a\]\): .*every piece of the file runs again on any edit of it; give the command the piece instead \(\{piece\}/,
      ),
    ]);
  });

  it("through a variable its env gives is warned about", async () => {
    const said = await warnings(workflow('node tr.mjs "$IN"', undefined, undefined, '{IN: "{file}"}'));
    expect(said).toEqual([expect.stringMatching(/^workflow\.yml:10: action_pairs\.tr\.generator_config\.run: names the whole file being split/)]);
    expect(await warnings(workflow('node tr.mjs "$OTHER"', undefined, undefined, '{IN: "{file}"}'))).toEqual([]);
  });

  it("in a guard's command is warned about there", async () => {
    expect(await warnings(workflow("node tr.mjs", "grep -q x {file}"))).toEqual([
      expect.stringMatching(/^workflow\.yml:14: action_pairs\.tr\.guard_config\.run: names the whole file being split/),
    ]);
  });

  it("is not warned about where the command names only the piece, or the pair does not split", async () => {
    expect(await warnings(workflow("node tr.mjs --id {piece_id}"))).toEqual([]);
    expect(await warnings(workflow("node tr.mjs docs/a.mdx {file}.bak"))).toEqual([]);
    expect(await warnings(workflow("node tr.mjs {file}", undefined, ""))).toEqual([]);
  });
});
