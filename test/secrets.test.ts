/**
 * What a run hands out and where it writes: no runner credentials to the processes it starts,
 * no provider keys to guards, and no output outside the repository.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo, UNCONFINED } from "./helpers/fixtures.js";
import { runOf } from "./helpers/state.js";

const DUMP = `import { writeFileSync } from "node:fs";
writeFileSync(process.argv[2], JSON.stringify(Object.keys(process.env).sort()));
process.stdout.write("ok\\n");
`;

describe("the environment of generator and guard commands", () => {
  it("a guard's command (which runs model-written code) gets no credential; a generator's keeps provider keys only", async () => {
    const dir = tempRepo({
      "dump.mjs": DUMP,
      "workflow.yml": `name: env
generator: command
generator_config: {run: node dump.mjs generator.json, api_key_env: MY_KEY}
action_pairs:
  a:
    guard: command
    guard_config: {run: node dump.mjs guard.json}
`,
    });
    const env = {
      ...process.env,
      ACTIONS_RUNTIME_TOKEN: "runtime-secret",
      ACTIONS_CACHE_URL: "http://127.0.0.1:1/",
      "INPUT_GITHUB-TOKEN": "ghs_secret",
      GITHUB_TOKEN: "ghs_secret",
      OPENAI_API_KEY: "sk-openai",
      MY_KEY: "sk-mine",
      HARMLESS: "yes",
    };
    const report = await runOf(dir, { cwd: dir, env: { ...env, ...UNCONFINED } });
    expect(report.status).toBe("success");
    const generator = JSON.parse(readFileSync(path.join(dir, "generator.json"), "utf8")) as string[];
    const guard = JSON.parse(readFileSync(path.join(dir, "guard.json"), "utf8")) as string[];
    for (const runnerSecret of ["ACTIONS_RUNTIME_TOKEN", "ACTIONS_CACHE_URL", "INPUT_GITHUB-TOKEN", "GITHUB_TOKEN"]) {
      expect(generator).not.toContain(runnerSecret);
      expect(guard).not.toContain(runnerSecret);
    }
    expect(generator).toEqual(expect.arrayContaining(["OPENAI_API_KEY", "MY_KEY", "HARMLESS"]));
    expect(guard).not.toContain("OPENAI_API_KEY");
    expect(guard).not.toContain("MY_KEY");
    expect(guard).toContain("HARMLESS");
  });
});

describe("credentials beyond the runner's", () => {
  it("no variable named like a credential reaches a generator unless PAIRFLOW_PASS_ENV names it, nor a guard unless PAIRFLOW_PASS_ENV_GUARDS names it too", async () => {
    const dir = tempRepo({
      "dump.mjs": DUMP,
      "workflow.yml": `name: env
generator: command
generator_config: {run: node dump.mjs generator.json}
action_pairs:
  a:
    guard: command
    guard_config: {run: node dump.mjs guard.json}
`,
    });
    const secrets = ["NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_PASSWORD", "ACTIONS_RESULTS_URL", "TWINE_PASSWORD", "SOME_API_KEY"];
    const env = {
      ...process.env,
      ...Object.fromEntries(secrets.map((name) => [name, "hush"])),
      PAIRFLOW_PASS_ENV: "TWINE_PASSWORD, SOME_API_KEY",
      PAIRFLOW_PASS_ENV_GUARDS: "SOME_API_KEY, NPM_TOKEN",
      LANG: "C.UTF-8",
    };
    const report = await runOf(dir, { cwd: dir, env: { ...env, ...UNCONFINED } });
    expect(report.status).toBe("success");
    const names = (file: string) => JSON.parse(readFileSync(path.join(dir, file), "utf8")) as string[];
    for (const file of ["generator.json", "guard.json"]) {
      // NPM_TOKEN: named for guards, but not let through at all.
      for (const name of ["NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_PASSWORD", "ACTIONS_RESULTS_URL"]) expect(names(file), file).not.toContain(name);
      expect(names(file), file).toEqual(expect.arrayContaining(["SOME_API_KEY", "PATH", "LANG"]));
    }
    expect(names("generator.json")).toContain("TWINE_PASSWORD");
    expect(names("guard.json")).not.toContain("TWINE_PASSWORD");
  });
});

describe("where outputs are written", () => {
  it("never follows a symlinked directory out of the repository: the workflow is refused at the output, nothing runs or is written outside", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
    const dir = tempRepo({
      "gen.mjs": 'process.stdout.write("content\\n");\n',
      "workflow.yml":
        "name: links\ngenerator: command\ngenerator_config: {run: node gen.mjs}\naction_pairs:\n  a: {output: linkdir/a.txt}\n  b: {output: own/b.txt}\n",
    });
    symlinkSync(outside, path.join(dir, "linkdir"));
    await expect(runOf(dir, { cwd: dir })).rejects.toThrow(
      /workflow\.yml:5:15: action_pairs\.a\.output: "linkdir\/a\.txt" would be written outside the repository/,
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(dir, "own/b.txt"))).toBe(false);
  });
});
