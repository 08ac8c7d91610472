/**
 * What a hostile repository (a pull request's files) can make pairflow do on disk: fail with a
 * clear error, but never write, delete or read outside the repository. Each scenario commits
 * symbolic links to an "outside" directory holding canary files where pairflow keeps its state,
 * then runs the commands a user or CI runs (plan, run, resume, prune), and checks that every
 * canary is still there, unchanged, that nothing new appeared outside, and that the refusal names
 * the link and what to do.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Generator } from "../../src/model/ports.js";
import { cli } from "../pr/repo.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";

const SEED = Number(process.env.PAIRFLOW_FUZZ_SEED ?? 25);

const HASH = "ab".padEnd(64, "0");

/** A directory outside any repository, holding canaries two levels down, where a store's walk would find them. */
function outside(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
  writeFiles(dir, {
    ".ssh/id_ed25519": "PRIVATE KEY\n",
    "project/package.json": '{"name": "victim"}\n',
    [`ab/${HASH}`]: "not an object\n",
    [`a/${"1".repeat(64)}.json`]: "{}\n",
    "runs/20240101T000000000Z-deadbeef/plan.json": "{}\n",
    "notes.txt": "keep me\n",
  });
  return dir;
}

/** Every entry under dir (links not followed), with each file's content: to see that nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const seen: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const file = path.join(d, name);
      const rel = path.relative(dir, file);
      const stat = lstatSync(file);
      if (stat.isDirectory()) {
        seen[rel + "/"] = "";
        walk(file);
      } else seen[rel] = stat.isSymbolicLink() ? "link" : readFileSync(file, "utf8");
    }
  };
  walk(dir);
  return seen;
}

const WORKFLOW = `name: plain
generator: command
generator_config: {run: 'echo "text of $PAIRFLOW_PAIR"'}
action_pairs:
  a: {output: out/a.txt}
  b: {requires: [a], output: out/b.txt}
`;

function repo(files: Record<string, string> = {}): string {
  return tempRepo({ "workflow.yml": WORKFLOW, ...files });
}

/** A symbolic link at `rel` in the repository (its parents made as real directories), to `target`. */
function link(dir: string, rel: string, target: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  symlinkSync(target, path.join(dir, rel));
}

describe("a symbolic link where pairflow keeps its state", () => {
  it("makes prune fail and delete nothing outside: store/objects and store/pairs linked out", async () => {
    const dir = repo();
    expect((await cli(["run"], dir)).status).toBe(0);
    const out = outside();
    const before = snapshot(out);
    for (const sub of ["objects", "pairs"]) {
      // The repository's own store directory is replaced by a committed link.
      renameSync(path.join(dir, ".pairflow/store", sub), path.join(dir, ".pairflow/store", `${sub}.old`));
      link(dir, `.pairflow/store/${sub}`, out);
    }
    const r = await cli(["prune", "--older-than", "0s"], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/\.pairflow\/store\/objects is a symbolic link .*remove the link/);
    expect(snapshot(out)).toEqual(before);
  });

  const places = [
    ".pairflow",
    ".pairflow/store",
    ".pairflow/store/objects",
    ".pairflow/store/pairs",
    ".pairflow/store/objects/ab",
    ".pairflow/store/pairs/a",
    ".pairflow/runs",
  ];
  for (const place of places) {
    it(`refuses plan, run, resume and prune, writing nothing: ${place} linked out`, async () => {
      const dir = repo();
      const out = outside();
      const before = snapshot(out);
      link(dir, place, place.endsWith("/ab") ? path.join(out, "ab") : out);
      for (const command of [["plan"], ["run"], ["resume"], ["prune", "--older-than", "0s"], ["runs"]]) {
        const r = await cli(command, dir);
        expect(r.status, `${command.join(" ")}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`${place} is a symbolic link`);
        expect(r.stderr).toContain("remove the link");
      }
      expect(snapshot(out)).toEqual(before);
      // Nothing was written in the repository either: no output, no lock file.
      expect(existsSync(path.join(dir, "out"))).toBe(false);
      expect(existsSync(path.join(dir, "workflow.lock.json"))).toBe(false);
    });
  }

  it("never follows a link below: a record or object file linked out is neither read as the store's nor deleted", async () => {
    const dir = repo();
    expect((await cli(["run"], dir)).status).toBe(0);
    const out = outside();
    const before = snapshot(out);
    // Links at file level, and inside a run's folder: below what is checked up front.
    link(dir, `.pairflow/store/objects/ab/${HASH}`, path.join(out, `ab/${HASH}`));
    link(dir, `.pairflow/store/pairs/a/${"1".repeat(64)}.json`, path.join(out, `a/${"1".repeat(64)}.json`));
    const runs = readdirSync(path.join(dir, ".pairflow/runs"));
    link(dir, `.pairflow/runs/${runs[0]}/outside`, out);
    const r = await cli(["prune", "--older-than", "0s"], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(snapshot(out)).toEqual(before);
    expect(existsSync(path.join(dir, ".pairflow/runs", runs[0]!))).toBe(false);
  });

  it("never reads an object through a link: a deleted output is made again, not restored from a file outside", async () => {
    const dir = repo();
    expect((await cli(["run"], dir)).status).toBe(0);
    const out = outside();
    // The object the lock file names is a link to a file outside holding exactly that content (a
    // file whose content an attacker knows): restoring from it would copy it into the repository.
    const objects = path.join(dir, ".pairflow/store/objects");
    for (const shard of readdirSync(objects)) {
      for (const name of readdirSync(path.join(objects, shard))) {
        const file = path.join(objects, shard, name);
        writeFiles(out, { [`copies/${name}`]: readFileSync(file, "utf8") });
        rmSync(file);
        symlinkSync(path.join(out, "copies", name), file);
      }
    }
    rmSync(path.join(dir, "out"), { recursive: true });
    const r = await cli(["run"], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("restored");
    expect(r.stdout).toMatch(/^a +executed/m);
  });

  it("allows a state directory given explicitly outside the repository, and writes only there and in the repository", async () => {
    const dir = repo();
    const out = outside();
    const state = mkdtempSync(path.join(tmpdir(), "pairflow-state-"));
    const before = snapshot(out);
    const r = await cli(["run", "--state-dir", state], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(path.join(state, "store"))).toEqual(expect.arrayContaining(["objects", "pairs"]));
    expect(existsSync(path.join(dir, ".pairflow"))).toBe(false);
    expect(snapshot(out)).toEqual(before);
    // Given through a link of the user's own: still their choice.
    const viaLink = path.join(mkdtempSync(path.join(tmpdir(), "pairflow-link-")), "state");
    symlinkSync(state, viaLink);
    expect((await cli(["run", "--state-dir", viaLink, "--force"], dir)).status).toBe(0);
    // A link inside it is refused all the same.
    link(state, "runs.new", out);
    renameSync(path.join(state, "runs"), path.join(state, "runs.old"));
    renameSync(path.join(state, "runs.new"), path.join(state, "runs"));
    const refused = await cli(["prune", "--older-than", "0s", "--state-dir", state], dir);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("is a symbolic link");
    expect(snapshot(out)).toEqual(before);
  });
});

describe("an output where git or pairflow keep their own files", () => {
  const reserved = [
    [".git/config", /inside a \.git directory/],
    ["vendor/lib/.git/hooks/pre-commit", /inside a \.git directory/],
    [".GIT/config", /inside a \.git directory/],
    ["workflow.lock.json", /is the workflow's lock file/],
    [".workflow.lock.json.mutex", /journal, run mutex and temporary files/],
    [".workflow.lock.json.journal", /journal, run mutex and temporary files/],
    [".workflow.lock.json.123.abcdef01.tmp", /journal, run mutex and temporary files/],
    [".pairflow/store/objects/x", /inside pairflow's state directory/],
  ] as const;
  for (const [output, message] of reserved) {
    it(`is refused at its output key before anything runs: ${output}`, async () => {
      const dir = tempRepo({
        "workflow.yml": `name: hostile\ngenerator: command\ngenerator_config: {run: 'echo "[core] hooksPath = /tmp"'}\naction_pairs:\n  a:\n    output: "${output}"\n`,
      });
      const before = snapshot(dir);
      for (const command of ["validate", "plan", "run"]) {
        const r = await cli([command], dir);
        expect(r.status, `${command}: ${r.stderr}`).toBe(2);
        // file:line:column of the output key, then what to do.
        expect(r.stderr).toMatch(new RegExp(`workflow\\.yml:6:\\d+: action_pairs\\.a\\.output: "${output.replace(/\./g, "\\.")}" .*${message.source}.*give`));
      }
      expect(snapshot(dir)).toEqual(before);
    });
  }

  it("is refused through a link inside the repository that leads to .git", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: hostile\ngenerator: command\ngenerator_config: {run: 'echo x'}\naction_pairs:\n  a: {output: docs/config}\n`,
    });
    writeFiles(dir, { ".git/config": "[core]\n" });
    symlinkSync(".git", path.join(dir, "docs"));
    const r = await cli(["run"], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/action_pairs\.a\.output: "docs\/config" \(\.git\/config\) is inside a \.git directory/);
    expect(readFileSync(path.join(dir, ".git/config"), "utf8")).toBe("[core]\n");
  });

  it("is refused inside a state directory given explicitly", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: hostile\ngenerator: command\ngenerator_config: {run: 'echo x'}\naction_pairs:\n  a: {output: state/runs/x}\n`,
    });
    const r = await cli(["run", "--state-dir", "state"], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/action_pairs\.a\.output: "state\/runs\/x" is inside pairflow's state directory \(state\)/);
    expect(existsSync(path.join(dir, "state/runs/x"))).toBe(false);
  });
});

describe("foreach over files with hostile names", () => {
  /** Characters globs give meaning to, and others that have tripped path handling. */
  const hostile = fc.constantFrom(..."\\*?[]{}()!@+ é#%-a".split(""));
  // Short names, and long ones: up to 241 bytes (é is two), as long as a file system allows.
  const fileName = fc
    .tuple(fc.boolean(), fc.oneof(fc.array(hostile, { minLength: 1, maxLength: 24 }), fc.array(hostile, { minLength: 100, maxLength: 120 })))
    .map(([dash, chars]) => (dash ? "-" : "") + chars.join(""))
    .filter((n) => !n.startsWith("."));
  const echo: Generator = async ({ config, cwd }) => ({ content: readFileSync(path.join(cwd, String(config.file)), "utf8") });

  it("re-runs exactly the instance of the file edited, whatever its name", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fileName, { minLength: 1, maxLength: 5 }), fc.nat(), async (names, pick) => {
        const files: Record<string, string> = {
          "workflow.yml": `name: hostile\ngenerator: echo\naction_pairs:\n  t:\n    foreach: {files: "docs/*"}\n    generator_config: {file: "{file}"}\n`,
        };
        for (const name of names) files[`docs/${name}`] = `text of ${name}\n`;
        const dir = tempRepo(files);
        const first = await runOf(dir, { cwd: dir, env: {}, generators: { echo } });
        expect(first.pairs.map((p) => p.id).sort()).toEqual(names.map((n) => `t[docs/${n}]`).sort());
        const edited = names[pick % names.length]!;
        writeFiles(dir, { [`docs/${edited}`]: `edited ${edited}\n` });
        const { plan } = await planOf(dir, { cwd: dir });
        expect(plan.pairs.filter((p) => p.action === "run").map((p) => p.id)).toEqual([`t[docs/${edited}]`]);
      }),
      { seed: SEED, numRuns: 25 },
    );
  }, 120_000);
});

describe("file names as long as a file system allows", () => {
  it("run, re-run, restore from the store and prune, with 240-byte names under a foreach", async () => {
    const names = [`${"a".repeat(237)}.md`, `${"é".repeat(120)}.md`, "short.md"];
    const files: Record<string, string> = {
      "workflow.yml": `name: long
generator: command
action_pairs:
  t:
    foreach: {files: "docs/*.md"}
    generator_config: {run: "cat {file}"}
    output: out/{stem}.txt
  index:
    requires: [t]
    generator_config: {run: 'ls "$PAIRFLOW_DEPENDENCIES_DIR" | wc -l'}
    output: out/index.txt
`,
    };
    for (const name of names) files[`docs/${name}`] = `text of ${name.slice(0, 8)}\n`;
    const dir = tempRepo(files);
    const first = await cli(["run"], dir);
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(readFileSync(path.join(dir, "out/index.txt"), "utf8").trim()).toBe("3");
    expect(readFileSync(path.join(dir, `out/${"é".repeat(120)}.txt`), "utf8")).toBe("text of éééééééé\n");

    const again = await cli(["run"], dir);
    expect(again.stdout).toMatch(/0 executed, 4 reused/);
    // Outputs deleted, and old runs pruned: the store still holds every accepted artifact.
    rmSync(path.join(dir, "out"), { recursive: true });
    const pruned = await cli(["prune", "--older-than", "0s"], dir);
    expect(pruned.status, pruned.stderr).toBe(0);
    const restored = await cli(["run"], dir);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/0 executed, 4 reused/);
    expect(readFileSync(path.join(dir, `out/${"a".repeat(237)}.txt`), "utf8")).toBe("text of aaaaaaaa\n");
  });
});

describe("a file pairflow writes whose place a command of the run removed or replaced", () => {
  it("stops the run with one line naming the file and what to do, and keeps what was accepted (ENOTDIR)", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: gone
generator: command
action_pairs:
  a: {output: out/sub/a.txt, generator_config: {run: "echo a"}}
  b: {requires: [a], output: out/sub/b.txt, generator_config: {run: "rm -rf out; echo > out; echo b"}}
`,
    });
    const r = await cli(["run"], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "error could not write out/sub/b.txt: something on its path that should be a directory is not one (ENOTDIR at out/sub). The run stopped; every file it wrote is whole. Make sure out/sub is a directory pairflow can write (a command of the run may have removed or replaced it), then run again: what was accepted is kept.\n",
    );
    // Both acceptances were recorded before the output was written: the next run restores both, executing nothing.
    rmSync(path.join(dir, "out"));
    const again = await cli(["run"], dir);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/0 executed, 2 reused/);
    expect(readFileSync(path.join(dir, "out/sub/b.txt"), "utf8")).toBe("b\n");
  });

  it("stops the run with one line naming the file when the lock file's directory is removed (ENOENT)", async () => {
    const dir = tempRepo({
      "flows/workflow.yml": `name: gone\ngenerator: command\naction_pairs:\n  a: {output: a.txt, generator_config: {run: 'rm -rf "$PWD"; echo a'}}\n`,
    });
    const r = await cli(["run", "flows"], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error could not write flows\/\.workflow\.lock\.json\.journal: a directory on its path is gone .*\(ENOENT\)\. The run stopped.*what was accepted is kept\.\n$/,
    );
    // What was accepted is in the store: with the workflow back, nothing runs again.
    writeFiles(dir, {
      "flows/workflow.yml": `name: gone\ngenerator: command\naction_pairs:\n  a: {output: a.txt, generator_config: {run: 'rm -rf "$PWD"; echo a'}}\n`,
    });
    const again = await cli(["plan", "flows"], dir);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/skip +a .*unchanged/);
  });

  it("refuses an output under a link that leads nowhere, writing nothing", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: gone\ngenerator: command\naction_pairs:\n  a: {output: out/a.txt, generator_config: {run: "echo a"}}\n`,
    });
    const out = outside();
    symlinkSync(path.join(out, "not-yet"), path.join(dir, "out"));
    const r = await cli(["run"], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/action_pairs\.a\.output: "out\/a\.txt" is under out, a symbolic link that leads nowhere; remove the link/);
    expect(existsSync(path.join(out, "not-yet"))).toBe(false);
  });
});
