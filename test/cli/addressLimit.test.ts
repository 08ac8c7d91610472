/**
 * pairflow under an address-space limit (`ulimit -v`, as shared machines and some CI containers
 * set): the installed CLI starts, validates and plans, and still finds what a Node script imports.
 * WebAssembly reserves far more address space than such a limit allows, so nothing pairflow loads
 * may instantiate it on the way.
 */
import { spawn } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Reason } from "../../src/model/plan.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { startBatchService } from "../helpers/batchProviders.js";
import { startModelService } from "../helpers/providers.js";
import { CLI } from "./built.js";

/** 2 GiB of address space, in KiB. */
const LIMIT = 2_097_152;

async function limited(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...extra };
  delete env.PAIRFLOW_STATE_DIR;
  delete env.CI;
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  // Not spawnSync: a test's loopback model service answers from this process while pairflow runs.
  const child = spawn("bash", ["-c", `ulimit -v ${LIMIT} && exec ${quoted}`], { cwd, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { status, stdout, stderr };
}

// Linux: macOS keeps no limit of address space (its ulimit -v cannot be set).
describe.runIf(process.platform === "linux")(`the installed CLI under ulimit -v ${LIMIT}`, () => {
  it("validates and plans the example", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({});
    cpSync(path.join(REPO, "examples/tdd-stack"), path.join(dir, "tdd-stack"), { recursive: true });
    const validate = await limited(["validate", "tdd-stack"], dir);
    expect(validate.stderr).not.toMatch(/Wasm|WebAssembly/);
    expect(validate).toMatchObject({ status: 0, stdout: expect.stringContaining("valid (3 pairs in 3 waves") });
    const plan = await limited(["plan", "tdd-stack", "--json"], dir);
    expect(plan.stderr).not.toMatch(/Wasm|WebAssembly/);
    expect(plan.status).toBe(0);
    expect((JSON.parse(plan.stdout) as { totals: { run: number } }).totals.run).toBe(3);
  });

  it("finds the modules a Node script imports", { timeout: scaled(60_000) }, async () => {
    const dir = tempRepo({
      "workflow.yml": "name: reads\nrmax: 0\ngenerator: command\naction_pairs:\n  imports:\n    generator_config: {run: node gen.mjs}\n",
      "gen.mjs":
        'import { createRequire } from "node:module";\nimport { word } from "./lib/helper.mjs";\nconst require = createRequire(import.meta.url);\nconst { other } = require("./lib/other.cjs");\nconsole.log(word, other);\n',
      "lib/helper.mjs": 'export const word = "one";\n',
      "lib/other.cjs": 'exports.other = "x";\n',
    });
    const plan = async () => {
      const r = await limited(["plan", "--json"], dir);
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { pairs: { id: string; action: string; reasons: Reason[] }[] }).pairs;
    };
    const run = await limited(["run"], dir);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect((await plan()).map((p) => p.action)).toEqual(["skip"]);
    writeFileSync(path.join(dir, "lib/helper.mjs"), 'export const word = "two";\n');
    expect(await plan()).toMatchObject([{ id: "imports", action: "run", reasons: [{ kind: "generator", detail: "lib/helper.mjs changed" }] }]);
    writeFileSync(path.join(dir, "lib/helper.mjs"), 'export const word = "one";\n');
    writeFileSync(path.join(dir, "lib/other.cjs"), 'exports.other = "y";\n');
    expect(await plan()).toMatchObject([{ id: "imports", action: "run", reasons: [{ kind: "generator", detail: "lib/other.cjs changed" }] }]);
  });

  it("runs a pair that calls a model provider", { timeout: scaled(60_000) }, async () => {
    const service = await startModelService({ key: "loopback-key", answer: () => "# Draft\n" });
    try {
      const dir = tempRepo({
        "workflow.yml": `name: model\nrmax: 0\naction_pairs:\n  draft:\n    generator: openai\n    model: gpt-4o-mini\n    generator_config: {base_url: "${service.openaiUrl}", api_key_env: LOOPBACK_KEY, retries: 0}\n    output: out/draft.md\n`,
        "prompts.yml": "draft:\n  task: Write a draft.\n",
      });
      const run = await limited(["run"], dir, { LOOPBACK_KEY: "loopback-key" });
      expect(run.stderr).not.toMatch(/Wasm|WebAssembly/);
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(service.requests).toHaveLength(1);
      expect(readFileSync(path.join(dir, "out/draft.md"), "utf8")).toBe("# Draft\n");
    } finally {
      await service.close();
    }
  });

  it("sends a wave as a batch job, its file uploaded, and collects its answers", { timeout: scaled(60_000) }, async () => {
    const service = await startBatchService({ key: "loopback-key", answer: ({ prompt }) => `answer to ${/Write (\w)\./.exec(prompt)?.[1]}\n` });
    try {
      const dir = tempRepo({
        "workflow.yml": [
          "name: nightly",
          "rmax: 0",
          "model: gpt-4o-mini",
          "generator: openai",
          `generator_config: {base_url: "${service.openaiUrl}", api_key_env: LOOPBACK_KEY, retries: 0, batch: true}`,
          "action_pairs:",
          "  a: {output: out/a.txt}",
          "  b: {output: out/b.txt}",
          "",
        ].join("\n"),
        "prompts.yml": "a:\n  task: Write a.\nb:\n  task: Write b.\n",
      });
      const run = await limited(["run"], dir, { LOOPBACK_KEY: "loopback-key" });
      expect(run.stderr).not.toMatch(/Wasm|WebAssembly/);
      expect(run.status, run.stdout + run.stderr).toBe(0);
      // One upload of both requests, parsed as multipart by the service's own reader.
      expect(service.submitted.map((s) => s.customId)).toHaveLength(2);
      expect(service.batches("openai")).toHaveLength(1);
      expect(readFileSync(path.join(dir, "out/a.txt"), "utf8")).toBe("answer to a\n");
      expect(readFileSync(path.join(dir, "out/b.txt"), "utf8")).toBe("answer to b\n");
    } finally {
      await service.close();
    }
  });
});
