import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/program.js";
import { acceptAll } from "./helpers/state.js";
import { copyToTempRepo, REPO, tempRepo } from "./helpers/fixtures.js";
import { CLI } from "./helpers/package.js";

interface Result {
  status: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], options: { cwd?: string; tty?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.tty },
    cwd: options.cwd ?? REPO,
    env: options.env ?? {},
  });
  return { status, stdout, stderr };
}

const EXAMPLE = path.join(REPO, "examples/tdd-stack");
const ANSI = /\x1b\[/;

describe("pairflow plan", () => {
  it("prints the plan by wave with actions, short references, reasons and totals", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    const r = await cli(["plan"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe('Plan for "tdd-stack" (workflow.yml): 3 pairs in 3 waves');
    expect(lines).toContain("Wave 1");
    expect(r.stdout).toMatch(/^ {2}run {3}g_test {4}[0-9a-f]{12} {2}new: never accepted$/m);
    expect(r.stdout).toMatch(/^ {2}run {3}g_impl {4}\? {13}new: never accepted; upstream: g_test will run$/m);
    expect(r.stdout).toMatch(/^3 to run, 0 unchanged$/m);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it("says everything is unchanged once accepted", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    await acceptAll(dir);
    const r = await cli(["plan", dir]);
    expect(r.stdout).toMatch(/^ {2}skip {2}g_review {2}[0-9a-f]{12} {2}unchanged$/m);
    expect(r.stdout).toMatch(/^0 to run, 3 unchanged$/m);
  });

  it("writes only the versioned JSON contract to stdout with --json", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    const r = await cli(["plan", "--json"], { cwd: dir, tty: true });
    const json = JSON.parse(r.stdout);
    expect(Object.keys(json)).toEqual(["version", "workflow", "waves", "pairs", "totals"]);
    expect(json.version).toBe(1);
    expect(json.workflow).toEqual({ name: "tdd-stack", path: "workflow.yml", workflowRef: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(json.waves).toEqual([["g_test"], ["g_impl"], ["g_review"]]);
    expect(json.pairs[2]).toEqual({
      id: "g_review",
      wave: 3,
      requires: ["g_test", "g_impl"],
      configRef: null,
      action: "run",
      reasons: [
        { kind: "new", detail: "never accepted" },
        { kind: "upstream", detail: "g_test will run", component: { kind: "upstream", name: "g_test" } },
        { kind: "upstream", detail: "g_impl will run", component: { kind: "upstream", name: "g_impl" } },
      ],
      estimate: expect.objectContaining({ model: "stand-in-1", cost: 0 }), // docs/cost.md
    });
    expect(json.totals).toEqual({ pairs: 3, run: 3, skip: 0, estimate: expect.objectContaining({ pairs: 3, cost: 0 }) });
  });

  it("colors only on a terminal, and never with NO_COLOR", async () => {
    expect((await cli(["plan", EXAMPLE], { tty: true })).stdout).toMatch(ANSI);
    expect((await cli(["plan", EXAMPLE], { tty: true, env: { NO_COLOR: "1" } })).stdout).not.toMatch(ANSI);
    expect((await cli(["plan", EXAMPLE], { tty: false })).stdout).not.toMatch(ANSI);
  });

  it("with --check, exits 3 while a run would change anything (pairs to run, a stale output), 0 once nothing would", async () => {
    const dir = copyToTempRepo(EXAMPLE);
    const fresh = await cli(["plan", "--check"], { cwd: dir });
    expect(fresh.status).toBe(3);
    expect(fresh.stdout).toMatch(/\n\ncheck: 3 pairs would run; exit status 3\n$/);

    await acceptAll(dir);
    const current = await cli(["plan", "--check"], { cwd: dir });
    expect(current.status).toBe(0);
    expect(current.stdout).toMatch(/^0 to run, 3 unchanged\n\ncheck: nothing would run, and every output is current\n$/m);

    // Nothing would run, but a run would write the accepted output back: the committed one is stale.
    rmSync(path.join(dir, "out/stack.py"));
    const stale = await cli(["plan", "--check"], { cwd: dir });
    expect(stale.status).toBe(3);
    expect(stale.stdout).toMatch(/^0 to run, 3 unchanged$/m);
    expect(stale.stdout).toContain("check: 1 pair would write its stale output (g_impl); exit status 3\n");

    // With --json, stdout is the JSON alone; the verdict is on stderr.
    const json = await cli(["plan", "--check", "--json"], { cwd: dir });
    expect(json.status).toBe(3);
    expect(JSON.parse(json.stdout).totals).toMatchObject({ run: 0, skip: 3 });
    expect(json.stderr).toBe("check: 1 pair would write its stale output (g_impl); exit status 3\n");
    // Without --check, the plan is only shown.
    expect((await cli(["plan"], { cwd: dir })).status).toBe(0);
  });

  it("exits 2 with every problem at file:line:column for bad configuration", async () => {
    const dir = tempRepo({ "workflow.yml": "name: n\naction_pairs:\n  a: {requires: [b]}\n  b: {requires: [a], gaurd: x}\n" });
    const r = await cli(["plan"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "error workflow.yml:3:18: action_pairs.a.requires.0: dependency cycle: a -> b -> a (each pair requires the next); remove one of these requires entries\n" +
        'error workflow.yml:4:22: action_pairs.b.gaurd: unknown key "gaurd"; did you mean "guard"?; expected one of: description, requires, guard, guard_config, guards, generator, generator_config, model, rmax, fresh, output, inputs, foreach, assembled_guard, carry_edits, adopt_existing, human_prompt_title (or an "x-" key for notes of your own)\n' +
        "2 problems in 1 file\n",
    );
  });

  it("exits 2 for a path with no workflow, and for unknown options", async () => {
    const empty = tempRepo();
    const r = await cli(["plan", empty]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no workflow file here; expected one of workflow.yml, workflow.yaml, workflow.json");
    const bad = await cli(["plan", "--jsn"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("unknown option '--jsn'");
  });
});

describe("pairflow validate", () => {
  it("confirms a valid workflow and its prompts file", async () => {
    const r = await cli(["validate", "examples/tdd-stack"]);
    expect(r).toEqual({
      status: 0,
      stdout: "examples/tdd-stack/workflow.yml: valid (3 pairs in 3 waves, prompts examples/tdd-stack/prompts.yml)\n",
      stderr: "",
    });
  });

  it("notes each file an inputs glob matches that pairflow writes, and so leaves out", async () => {
    const dir = tempRepo({
      "workflow.yml": [
        "name: n",
        "generator: command",
        "generator_config: {run: cat}",
        "action_pairs:",
        "  a:",
        "    output: out/a.md",
        "    inputs: ['**/*.md', '*.json']",
        "  b:",
        "    requires: [a]",
        "    output: out/b.md",
        "    inputs: [out/a.md]",
        "  c:",
        "    inputs: ['out/*']",
        "",
      ].join("\n"),
      "workflow.lock.json": "{}",
      "out/a.md": "a\n",
      "out/b.md": "b\n",
      "notes.md": "an input\n",
    });
    const r = await cli(["validate"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("workflow.yml: valid (3 pairs in 2 waves, no prompts file)\n");
    const lead = "which pairflow writes and so never takes as an input:";
    expect(r.stderr.split("\n")).toEqual([
      `note workflow.yml:7:14: action_pairs.a.inputs.0: "**/*.md" matches out/a.md, this pair's own output, ${lead} the pair's reference would change on every run`,
      `note workflow.yml:7:14: action_pairs.a.inputs.0: "**/*.md" matches out/b.md, the output of pair "b", ${lead} "b" depends on this pair, so this pair's reference would change on every run`,
      `note workflow.yml:7:25: action_pairs.a.inputs.1: "*.json" matches workflow.lock.json, the lock file, ${lead} it records the references, so none can include it`,
      `note workflow.yml:11:14: action_pairs.b.inputs.0: "out/a.md" matches out/a.md, the output of pair "a", ${lead} its accepted content is part of this pair's reference through requires already`,
      `note workflow.yml:13:14: action_pairs.c.inputs.0: "out/*" matches out/a.md, the output of pair "a", ${lead} add "a" to requires if this pair reads it, which makes its accepted content part of the reference`,
      `note workflow.yml:13:14: action_pairs.c.inputs.0: "out/*" matches out/b.md, the output of pair "b", ${lead} add "b" to requires if this pair reads it, which makes its accepted content part of the reference`,
      "",
    ]);
  });

  it("exits 2 and names the prompts entry that names no pair", async () => {
    const dir = tempRepo({ "workflow.yml": "name: n\naction_pairs:\n  a: {}\n", "prompts.yml": "b: {task: x}\n" });
    const r = await cli(["validate"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('error prompts.yml:1:1: b: prompts entry "b" names no pair of workflow.yml; pairs are: a');
  });
});

describe("help", () => {
  it.each([["validate"], ["plan"]])("%s --help explains the command with examples", async (command) => {
    const r = await cli([command, "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Usage: pairflow ${command} [options] [path]`);
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain(`$ pairflow ${command} examples/tdd-stack`);
  });

  it.each([
    ["init", "Usage: pairflow init [options] [dir]", "$ pairflow init pairflow"],
    ["prompt", "Usage: pairflow prompt [options] <pair> [path]", "$ pairflow prompt g_impl examples/tdd-stack"],
    ["explain", "Usage: pairflow explain [options] <pair> [path]", "$ pairflow explain g_impl examples/tdd-stack"],
    ["run", "Usage: pairflow run [options] [path]", "$ pairflow run --only g_impl examples/tdd-stack"],
    ["runs", "Usage: pairflow runs [options] [path]", "$ pairflow runs examples/tdd-stack"],
  ])("%s --help shows its usage and examples", async (command, usage, example) => {
    const r = await cli([command, "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(usage);
    expect(r.stdout).toContain(example);
  });

  it("lists the commands", async () => {
    const r = await cli(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^  init \[dir\] /m);
    expect(r.stdout).toMatch(/prompt \[options\] <pair> \[path\]/);
    expect(r.stdout).toMatch(/validate \[options\] \[path\]/);
    expect(r.stdout).toMatch(/plan \[options\] \[path\]/);
  });
});

describe("the built CLI", () => {
  it("runs from dist/ with nothing but Node", async () => {
    const r = spawnSync(process.execPath, [CLI, "plan", "examples/tdd-stack", "--json"], { cwd: REPO, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).totals.pairs).toBe(3);
  });
});
