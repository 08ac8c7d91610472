/**
 * What users install and what runners start, tried as they use them: the tarball `npm pack` makes,
 * installed offline into a scratch project, and the bundled action in its checkout. Both are built
 * from the sources before the tests (test/setup/package.ts); nothing here runs the sources.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyToTempRepo, REPO, tempRepo } from "../helpers/fixtures.js";
import { shipped } from "../helpers/package.js";
import { startModelService, type ModelService } from "../helpers/providers.js";
import { runAction } from "../action/runner.js";
import { EVERY_KIND_PAIRS, everyKindFiles, MODEL_KEY, modelAnswer } from "./everyKind.js";

const installed = shipped.installed;
const BIN = path.join(shipped.user, "node_modules", ".bin", "pairflow");

/**
 * `pairflow ARGS` as a user of the scratch project starts it: the bin link npm made, no color.
 * Asynchronous, so that a service in this process answers the child meanwhile.
 */
async function pairflow(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  try {
    const r = await promisify(execFile)(BIN, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", CI: "", ...env } });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw err;
    return { status: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const tarballFiles = () =>
  execFileSync("tar", ["-tzf", shipped.tarball], { encoding: "utf8" })
    .split("\n")
    .filter((f) => f !== "" && !f.endsWith("/"))
    .map((f) => f.replace(/^package\//, ""))
    .sort();

describe("the packed tarball", () => {
  it("holds the CLI with its chunks and token table, the schemas, docs, examples, README and LICENSE, and depends on nothing", () => {
    const files = tarballFiles();
    const dist = files.filter((f) => f.startsWith("dist/"));
    // The CLI and the chunks it loads on demand (scripts/build.mjs splits the commands off); nothing of the action.
    expect(dist).toContain("dist/cli.js");
    expect(dist).toContain("dist/o200k_base.bin");
    expect(dist.every((f) => /^dist\/cli(-[\w-]+)?\.js$|^dist\/o200k_base\.bin$/.test(f))).toBe(true);
    for (const f of ["LICENSE", "README.md", "package.json", "schemas/workflow.schema.json", "schemas/prompts.schema.json", "docs/security.md"])
      expect(files).toContain(f);
    expect(files.filter((f) => f.startsWith("examples/tdd-stack/"))).toEqual([
      "examples/tdd-stack/model.mjs",
      "examples/tdd-stack/prompts.yml",
      "examples/tdd-stack/workflow.yml",
    ]);
    // Nothing a run of an example writes, whatever this checkout holds.
    expect(files.filter((f) => /(^|\/)out\/|\.lock\.json$|\.pairflow\//.test(f))).toEqual([]);
    // Every file a chunk imports is in the package.
    for (const file of dist.filter((f) => f.endsWith(".js"))) {
      for (const [, imported] of readFileSync(path.join(installed, file), "utf8").matchAll(/(?:\bimport\(?|\bfrom)\s*"\.\/([^"]+)"/g))
        expect(files).toContain(`dist/${imported}`);
    }
    const pkg = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ pairflow: "dist/cli.js" });
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(path.join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License/);
    expect(readFileSync(path.join(installed, "dist/cli.js"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("has a README and docs whose every relative link resolves inside the installed package", () => {
    const pages = ["README.md", ...readdirSync(path.join(installed, "docs")).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    let links = 0;
    for (const page of pages) {
      const text = readFileSync(path.join(installed, page), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target!)) continue;
        links += 1;
        const file = path.resolve(path.dirname(path.join(installed, page)), target!.split("#")[0]!);
        if (!existsSync(file)) broken.push(`${page}: ${target}`);
      }
    }
    expect(links).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it("asks for the Node.js the README names, which every locked dependency runs on", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8"));
    expect(pkg.engines.node).toBe(">=20");
    expect(readFileSync(path.join(REPO, "README.md"), "utf8")).toContain("Node 20+");
    // The locked tree, development tools included: none asks for a newer Node than engines allows
    // (npm ci warns otherwise).
    const lock = JSON.parse(readFileSync(path.join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, { engines?: { node?: string } }> };
    const floor = (range: string) => Math.min(...range.split("||").map((r) => Number(/(\d+)/.exec(r)?.[1] ?? 0)));
    const newer = Object.entries(lock.packages)
      .filter(([, p]) => typeof p.engines?.node === "string" && floor(p.engines.node) > 20)
      .map(([name, p]) => `${name} ${p.engines!.node}`);
    expect(newer).toEqual([]);
  });
});

describe("the installed package", () => {
  it("installed offline, and answers --version through npx and --help for every command", async () => {
    expect(existsSync(path.join(installed, "dist/cli.js"))).toBe(true);
    const npx = execFileSync("npm", ["exec", "--offline", "--", "pairflow", "--version"], { cwd: shipped.user, encoding: "utf8" });
    expect(npx.trim()).toBe(JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")).version);
    const help = await pairflow(["--help"], shipped.user);
    expect(help.status).toBe(0);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!).filter((c) => c !== "help");
    expect(commands).toEqual(
      expect.arrayContaining(["init", "validate", "plan", "diff", "run", "resume", "prompt", "runs", "show", "prune", "merge", "merge-lock"]),
    );
    const helps = await Promise.all(commands.map((command) => pairflow([command, "--help"], shipped.user)));
    helps.forEach((r, i) => {
      const command = commands[i]!;
      expect({ command, status: r.status, stderr: r.stderr }).toEqual({ command, status: 0, stderr: "" });
      expect(r.stdout).toMatch(new RegExp(`^Usage: pairflow ${command} `));
    });
  });

  describe("with a model service on loopback", () => {
    let service: ModelService;
    beforeAll(async () => {
      service = await startModelService({ key: MODEL_KEY, answer: modelAnswer });
    });
    afterAll(() => service.close());

    it("validates and runs a workflow using every guard and generator, each guard rejecting once and accepting, then reuses it all", async () => {
      const dir = tempRepo(everyKindFiles(service));
      const env = { LOOPBACK_KEY: MODEL_KEY };
      expect(await pairflow(["validate", "--strict"], dir, env)).toMatchObject({ status: 0, stderr: "" });
      const first = await pairflow(["run", "--json"], dir, env);
      expect(first.stderr).not.toMatch(/error/i);
      expect(first.status).toBe(0);
      const report = JSON.parse(first.stdout) as { pairs: { id: string; status: string; attempts: { accepted: boolean; tokens: unknown }[] }[] };
      const byId = new Map(report.pairs.map((p) => [p.id, [p.status, p.attempts.map((a) => a.accepted)]]));
      expect(new Map([...byId].sort())).toEqual(new Map(EVERY_KIND_PAIRS.map((id) => [id, ["executed", [false, true]]] as const).sort()));
      // The providers' usage reached the report.
      expect(report.pairs.find((p) => p.id === "by_anthropic")!.attempts[1]!.tokens).toMatchObject({ input: expect.any(Number) });
      expect(service.requests.map((r) => r.provider)).toEqual(["openai", "openai", "anthropic", "anthropic"]);
      expect(service.requests[2]!.prompt).toContain('{"from":"openai","model":"gpt-4o-mini"}');
      expect(JSON.parse(readFileSync(path.join(dir, "out/by_anthropic.json"), "utf8"))).toEqual({ from: "anthropic", model: "claude-haiku-4-5" });

      const again = await pairflow(["run", "--json"], dir, env);
      expect(again.status).toBe(0);
      expect((JSON.parse(again.stdout) as typeof report).pairs.every((p) => p.status === "reused")).toBe(true);
      expect(service.requests).toHaveLength(4);
    });
  });

  it("runs the tdd-stack example on a terminal without asking anything: it costs nothing", async () => {
    // As the README's first command, in a pseudo-terminal with nobody to answer (script(1)).
    const dir = copyToTempRepo(path.join(installed, "examples", "tdd-stack"));
    const child = spawn("script", ["-qec", `${BIN} run`, "/dev/null"], { cwd: dir, env: { ...process.env, CI: "" }, stdio: ["ignore", "pipe", "inherit"] });
    let shown = "";
    child.stdout.on("data", (d: Buffer) => (shown += d.toString("utf8")));
    const status = await new Promise((resolve) => child.on("close", resolve));
    expect(shown).not.toMatch(/\[y\/N\]/);
    expect(shown).toMatch(/3 executed, 0 reused, 0 failed, 0 blocked/);
    expect(status).toBe(0);
  });

  it.each(["tdd-stack", "translate"])("runs the example %s it ships: everything, then nothing", async (example) => {
    const dir = copyToTempRepo(path.join(installed, "examples", example));
    const first = await pairflow(["run"], dir);
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^\d+ executed, 0 reused, 0 failed, 0 blocked/m);
    const second = await pairflow(["run"], dir);
    expect(second.stdout).toMatch(/^0 executed, \d+ reused, 0 failed, 0 blocked/m);
  });
});

describe("the bundled action", () => {
  let service: ModelService;
  beforeAll(async () => {
    service = await startModelService({ key: MODEL_KEY, answer: modelAnswer });
  });
  afterAll(() => service.close());

  it("runs the workflow using every guard and generator as a runner starts it", async () => {
    const workspace = tempRepo(everyKindFiles(service));
    const result = await runAction({ workspace, with: { cache: "false" }, env: { LOOPBACK_KEY: MODEL_KEY } });
    expect(result.errors).toEqual([]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.outputs.executed!).sort()).toEqual([...EVERY_KIND_PAIRS].sort());
    expect(JSON.parse(readFileSync(path.join(workspace, "out/schema_file.json"), "utf8"))).toEqual({ name: "cmd", n: 1 });
  });

  it.each(["tdd-stack", "translate"])("runs the example %s", async (example) => {
    const workspace = copyToTempRepo(path.join(REPO, "examples", example));
    const result = await runAction({ workspace, with: { cache: "false" } });
    expect(result.errors).toEqual([]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.outputs.failed!)).toEqual([]);
  });
});
