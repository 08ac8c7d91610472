/**
 * Code a model wrote, run by a guard, tries every way to the job's secrets: its own environment,
 * every /proc/<pid>/environ it can read (pairflow's own among them), the runner's file commands,
 * and printing what it found into its feedback, which pairflow sends to the model in the retry
 * prompt, records in its trace and shows in its reports. With the sandbox it finds nothing; without
 * it, it finds them, and nothing it prints leaves pairflow with a secret in it. The CLI is the
 * installed package's, started as a child process, so its own environment holds the secrets.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/processes/sandbox.js";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { startModelService, type ModelService } from "../helpers/providers.js";
import { runAction } from "../action/runner.js";

const SANDBOX = probeSandbox(process.env).available;

/** The job's secrets as a runner and the step's env: give them to pairflow. */
const SECRETS = {
  GITHUB_TOKEN: "ghs_canaryGithubToken0123456789",
  ACTIONS_RUNTIME_TOKEN: "eyJcanaryRuntimeToken.0123456789",
  "INPUT_GITHUB-TOKEN": "ghs_canaryInputToken0123456789",
  OPENAI_API_KEY: "sk-canary-provider-key-0123456789",
  DEPLOY_PASSWORD: "canary-deploy-password-0123",
};
const VALUES = Object.values(SECRETS);

/**
 * The guard: looks everywhere, prints everything it found as they are, broken over lines and in
 * base64, and rejects, so that its output becomes feedback. Also tries to write the runner's file
 * commands and a file outside the repository.
 */
const STEAL = String.raw`import { readdirSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
const wanted = JSON.parse(readFileSync("wanted.json", "utf8"));
const found = new Set();
const look = (text) => { for (const v of wanted) if (text.includes(v)) found.add(v); };
look(JSON.stringify(process.env));
let readable = 0;
for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
  try { look(readFileSync("/proc/" + pid + "/environ", "latin1")); readable++; } catch {}
}
const tried = [];
for (const name of ["GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"]) {
  if (process.env[name]) { try { appendFileSync(process.env[name], "BASH_ENV=/tmp/evil\n"); tried.push(name); } catch {} }
}
try { writeFileSync(process.argv[2], "written by a guard\n"); tried.push("outside"); } catch {}
console.log("environ files read: " + readable);
console.log("wrote: " + (tried.join(",") || "nothing"));
console.log("found: " + (found.size === 0 ? "none" : [...found].join(" ")));
for (const v of found) {
  console.log(v.slice(0, 10) + "\n" + v.slice(10));
  console.log(Buffer.from(v + "\n").toString("base64"));
}
process.exit(1);
`;

/** The repository: the guard, the values it looks for, and the workflow. */
function repository(model: string, outside: string): Record<string, string> {
  return { "steal.mjs": STEAL, "wanted.json": JSON.stringify(VALUES), "workflow.yml": workflow(model, outside) };
}

function workflow(model: string, outside: string): string {
  return [
    "name: hostile",
    "rmax: 1",
    "action_pairs:",
    "  tests:",
    "    generator: openai",
    "    model: gpt-4o-mini",
    `    generator_config: {base_url: "${model}", retries: 0}`,
    "    guard: command",
    `    guard_config: {run: "node steal.mjs ${outside}"}`,
    "",
  ].join("\n");
}

/** Every file under dir, as text. */
function allText(dir: string): string {
  let text = "";
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) text += readFileSync(file, "latin1");
  }
  return text;
}

const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr }),
    );
  });

describe("a guard running hostile code", () => {
  let service: ModelService;
  beforeAll(async () => {
    service = await startModelService({ key: SECRETS.OPENAI_API_KEY, answer: () => "def test_x(): pass\n" });
  });
  afterAll(() => service.close());

  /** A runner's file commands, as files the test can read afterwards. */
  function runnerFiles(): Record<string, string> {
    const dir = mkdtempSync(path.join(tmpdir(), "pairflow-runner-files-"));
    const files: Record<string, string> = {};
    for (const name of ["GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"]) {
      files[name] = path.join(dir, name.toLowerCase());
      writeFileSync(files[name], "");
    }
    return files;
  }

  async function attack(sandbox: "auto" | "off") {
    const outside = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-outside-")), "planted");
    const dir = tempRepo(repository(service.openaiUrl, outside));
    const files = runnerFiles();
    const before = service.requests.length;
    const result = await run(["run", "--json", "--sandbox", sandbox], dir, { ...process.env, ...SECRETS, ...files, NO_COLOR: "1", CI: "true" });
    const report = JSON.parse(result.stdout);
    const feedback = (report.pairs[0].attempts as { feedback: string }[]).map((a) => a.feedback);
    const prompts = service.requests.slice(before).map((r) => r.prompt);
    return { result, report, feedback, prompts, dir, files, outside };
  }

  it.runIf(SANDBOX)("in the sandbox finds no secret, reads no other process, writes no runner file and nothing outside", async () => {
    const { report, feedback, files, outside } = await attack("auto");
    expect(report.sandbox).toEqual({ mode: "auto", confined: true, by: "bubblewrap" });
    expect(feedback[0]).toContain("found: none");
    expect(feedback[0]).toContain("wrote: nothing");
    // Its own /proc: the sandbox's few processes, none of them pairflow.
    expect(Number(/environ files read: (\d+)/.exec(feedback[0]!)![1])).toBeLessThanOrEqual(4);
    for (const file of Object.values(files)) expect(readFileSync(file, "utf8")).toBe("");
    expect(() => statSync(outside)).toThrow();
  });

  it("unconfined finds them, and none of what it prints reaches the prompt, the trace, the report or the log", async () => {
    const { result, report, feedback, prompts, dir, files } = await attack("off");
    expect(report.sandbox).toEqual({ mode: "off", confined: false, reason: "the sandbox is off" });
    expect(result.code).toBe(1);
    // The threat is real here: it read pairflow's environment...
    expect(feedback[0]).toMatch(/found: \*\*\*/);
    // ...but got no runner file command.
    expect(feedback[0]).toContain("wrote: outside");
    for (const file of Object.values(files)) expect(readFileSync(file, "utf8")).toBe("");
    // Its second attempt's prompt holds the first's feedback, cleaned.
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain("found: ***");
    const everywhere = [result.stdout, result.stderr, ...prompts, ...feedback, allText(path.join(dir, ".pairflow"))].join("\n");
    for (const value of VALUES) {
      expect(everywhere).not.toContain(value);
      expect(everywhere).not.toContain(
        Buffer.from(value + "\n")
          .toString("base64")
          .slice(0, 20),
      );
      expect(everywhere).not.toContain(value.slice(10));
    }
  });

  it("without a working bubblewrap says so once, and with --sandbox required refuses before executing anything", async () => {
    // A bwrap that cannot make its namespaces, as on an Ubuntu 24.04 runner left as it is.
    const bin = mkdtempSync(path.join(tmpdir(), "pairflow-bin-"));
    writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
    chmodSync(path.join(bin, "bwrap"), 0o755);
    const outside = path.join(bin, "planted");
    const dir = tempRepo(repository(service.openaiUrl, outside));
    // Named by whoever starts pairflow (bwrap is never looked up on PATH).
    const env = { ...process.env, ...SECRETS, PAIRFLOW_BWRAP: path.join(bin, "bwrap"), NO_COLOR: "1" };
    const auto = await run(["run"], dir, env);
    const warnings = auto.stdout.split("\n").filter((line) => line.includes("without a sandbox"));
    expect(warnings[0]).toMatch(/^warning {2}commands run without a sandbox \(bwrap does not work here \(bwrap: setting up uid map: Permission denied\)\)/);
    expect(warnings).toHaveLength(2); // once at the start, once in the summary
    const requests = service.requests.length;
    const required = await run(["run", "--sandbox", "required", "--force"], dir, env);
    expect(required.code).toBe(2);
    expect(required.stderr).toMatch(/the sandbox is required and cannot be had here: bwrap does not work here .*nothing was executed/);
    expect(service.requests.length).toBe(requests);
  });

  it("the action's job log, summary and outputs hold no secret either", async () => {
    const outside = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-outside-")), "planted");
    const workspace = tempRepo(repository(service.openaiUrl, outside));
    const result = await runAction({ workspace, with: { cache: "false", sandbox: "off" }, env: { ...SECRETS } });
    expect(result.code).toBe(1);
    expect(result.summary).toContain("Commands ran without a sandbox");
    const everything = [result.stdout.replace(/^::add-mask::.*$/gm, ""), result.stderr, result.summary, ...Object.values(result.outputs)].join("\n");
    expect(everything).toContain("found: ***");
    for (const value of VALUES) expect(everything).not.toContain(value);
  });
});
