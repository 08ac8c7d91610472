/**
 * Inputs that used to crash, hang or leak, each now a configuration error at its file:line:column
 * saying what to do (exit 2), driven through the command line as a person meets them.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, type CliResult } from "../pr/repo.js";
import { copyToTempRepo, REPO } from "../helpers/fixtures.js";

const EXAMPLE = path.join(REPO, "examples/tdd-stack");
const WORKFLOW = readFileSync(path.join(EXAMPLE, "workflow.yml"), "utf8");

/** The example in a fresh repository, with files replaced. */
function example(files: Record<string, string> = {}): string {
  return copyToTempRepo(EXAMPLE, files);
}

/** The example's workflow with its first pair's output line followed by more settings of that pair. */
function withFirstPair(lines: string): string {
  return WORKFLOW.replace("    output: out/test_stack.py\n", `    output: out/test_stack.py\n${lines}`);
}

/** A file outside every repository the tests make, holding a secret. */
function outsideSecret(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
  writeFileSync(path.join(dir, "env.yml"), "SECRET_KEY_7731: {task: leaked}\n");
  return path.join(dir, "env.yml");
}

function fifo(file: string): void {
  expect(spawnSync("mkfifo", [file]).status).toBe(0);
}

async function both(dir: string): Promise<CliResult[]> {
  return [await cli(["validate"], dir), await cli(["plan", "--state-dir", path.join(dir, ".state")], dir)];
}

/** Exit 2, the one error expected (file:line:column: text), no stack trace. */
function expectError(result: CliResult, error: RegExp): void {
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr).toMatch(error);
  expect(result.stderr).not.toMatch(/^\s+at |TypeError|RangeError/m);
}

describe("documents with nothing in them", () => {
  it.each(["---\n", "~\n", "null\n"])("a workflow that is only %j says what is missing, where", async (text) => {
    for (const result of await both(example({ "workflow.yml": text }))) expectError(result, /^error workflow\.yml:1:\d+: missing required key "action_pairs"/m);
  });

  it.each(["---\n", "~\n", "null\n"])("a prompts file that is only %j is an error at its first line", async (text) => {
    for (const result of await both(example({ "prompts.yml": text }))) expectError(result, /^error prompts\.yml:1:\d+: .*expected object/m);
  });
});

describe("aliases", () => {
  it("an alias bomb is stopped at one of its aliases, and nothing else is reported", async () => {
    let bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 10; i++)
      bomb += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    for (const result of await both(example({ "workflow.yml": bomb + WORKFLOW }))) {
      expectError(result, /^error workflow\.yml:10:\d+: aliases expand this document to more than 1,000,000 values .* alias bomb/m);
      expect(result.stderr).toMatch(/^1 problem in 1 file/m);
    }
  });

  it("an alias inside the value it names is an error at the alias", async () => {
    for (const text of ["r: &r [*r]\n", "r: &r {self: {again: *r}}\n"]) {
      for (const result of await both(example({ "workflow.yml": text + WORKFLOW })))
        expectError(result, /^error workflow\.yml:1:\d+: the alias \*r stands for a value that contains it/m);
    }
  });

  it("an alias of no anchor is an error at the alias", async () => {
    for (const result of await both(example({ "workflow.yml": "x: 1\nu: *nowhere\n" + WORKFLOW }))) {
      expectError(result, /^error workflow\.yml:2:4: the alias \*nowhere names no anchor before it/m);
    }
  });

  it("an anchor may be used more than ten thousand times for shared settings", async () => {
    const uses = Array(10_001).fill("*shared").join(", ");
    const text = WORKFLOW.replace("name: tdd-stack", `name: tdd-stack\nx-shared: &shared {a: [1, 2]}\nx-uses: [${uses}]`);
    const result = await cli(["validate"], example({ "workflow.yml": text }));
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});

describe("keys that are names in JavaScript", () => {
  it("__proto__ and constructor are unknown keys like any other", async () => {
    const text = WORKFLOW.replace("name: tdd-stack", "name: tdd-stack\n__proto__: {polluted: true}\nconstructor: 1");
    const [validated] = await both(example({ "workflow.yml": text }));
    expectError(validated!, /^error workflow\.yml:7:1: __proto__: unknown key "__proto__"/m);
    expect(validated!.stderr).toMatch(/^error workflow\.yml:8:1: constructor: unknown key "constructor"/m);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("__proto__ and constructor are pair ids like any other, and a prompts entry of that name needs the pair", async () => {
    const proto = await cli(
      ["validate"],
      example({
        "workflow.yml": WORKFLOW.replace("action_pairs:\n", "action_pairs:\n  __proto__: {guard: json}\n  constructor: {requires: [__proto__], guard: json}\n"),
      }),
    );
    expect(proto.stderr).toBe("");
    expect(proto.stdout).toMatch(/valid \(5 pairs in 3 waves/);
    const prompts = readFileSync(path.join(EXAMPLE, "prompts.yml"), "utf8") + "constructor: {task: t}\ntoString: {task: t}\n";
    const orphan = await cli(["validate"], example({ "prompts.yml": prompts }));
    expectError(orphan, /prompts\.yml:\d+:1: constructor: prompts entry "constructor" names no pair/);
    expect(orphan.stderr).toMatch(/toString: prompts entry "toString" names no pair/);
    const owned = await cli(
      ["validate"],
      example({
        "workflow.yml": WORKFLOW.replace("action_pairs:\n", "action_pairs:\n  constructor: {guard: json}\n"),
        "prompts.yml": prompts.replace(/toString.*\n/, ""),
      }),
    );
    expect(owned.stderr).toBe("");
    expect(owned.status).toBe(0);
  });
});

describe("the lock file", () => {
  const lockOf = async (dir: string) => {
    const ran = await cli(["run", "--yes", "--state-dir", path.join(dir, ".state")], dir);
    expect(ran.status, ran.stderr).toBe(0);
    return JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as { pairs: Record<string, Record<string, unknown>> };
  };

  it("a null or wrong-shaped entry is an error at the entry, naming the lock file and what to do", async () => {
    const dir = example();
    const lock = await lockOf(dir);
    const cases: [unknown, RegExp][] = [
      [null, /pairs\.g_test: the entry of pair "g_test" is null, not a mapping; restore it from version control, or delete it/],
      [[], /pairs\.g_test: the entry of pair "g_test" is a list, not a mapping/],
      [{ ...lock.pairs.g_test, components: null }, /pairs\.g_test\.components: the entry of pair "g_test" has a "components" that is not a mapping/],
      [{ ...lock.pairs.g_test, tokens: { input: "1" } }, /pairs\.g_test\.tokens: .* not a mapping with input and output token counts/],
      [{ ...lock.pairs.g_test, configRef: 5 }, /pairs\.g_test\.configRef: .* not a sha256 hex digest/],
    ];
    for (const [entry, error] of cases) {
      writeFileSync(path.join(dir, "workflow.lock.json"), JSON.stringify({ ...lock, pairs: { ...lock.pairs, g_test: entry } }, null, 2));
      for (const command of [["plan"], ["run", "--yes"]]) {
        const result = await cli([...command, "--state-dir", path.join(dir, ".state")], dir);
        expectError(result, new RegExp(`^error workflow\\.lock\\.json:\\d+:\\d+: ${error.source}`, "m"));
      }
    }
  });

  it("a lock file that is a pipe is refused, not waited on", async () => {
    const dir = example();
    fifo(path.join(dir, "workflow.lock.json"));
    expectError(await cli(["plan"], dir), /^error workflow\.lock\.json:1:1: the lock file is not a regular file/m);
  });
});

describe("paths the configuration names", () => {
  it("a prompts file outside the repository is refused without being read", async () => {
    const secret = outsideSecret();
    const dir = example();
    for (const named of [path.relative(dir, secret), secret]) {
      writeFileSync(path.join(dir, "workflow.yml"), `prompts: ${named}\n${WORKFLOW}`);
      for (const result of await both(dir)) {
        expectError(result, /^error workflow\.yml:1:10: prompts: ".*env\.yml" leads to .*, outside the repository .*; pairflow reads only files inside it/m);
        expect(result.stderr).not.toContain("SECRET_KEY_7731");
      }
    }
  });

  it("a prompts file beside the workflow that links outside is refused the same way", async () => {
    const dir = example();
    const file = path.join(dir, "prompts.yml");
    rmSync(file);
    symlinkSync(outsideSecret(), file);
    for (const result of await both(dir)) {
      expectError(result, /the prompts file beside the workflow, prompts\.yml, leads to .*, outside the repository/);
      expect(result.stderr).not.toContain("SECRET_KEY_7731");
    }
  });

  it("prompts: /dev/zero, a pipe or a directory is refused before it is opened", async () => {
    const dir = example();
    fifo(path.join(dir, "pipe.yml"));
    mkdirSync(path.join(dir, "adir"));
    const cases: [string, RegExp][] = [
      ["/dev/zero", /"\/dev\/zero" leads to \/dev\/zero, outside the repository/],
      ["pipe.yml", /"pipe\.yml" is not a regular file \(a pipe, a device or a socket\)/],
      ["adir", /"adir" is a directory; give the path of a file/],
    ];
    for (const [named, error] of cases) {
      writeFileSync(path.join(dir, "workflow.yml"), `prompts: ${named}\n${WORKFLOW}`);
      for (const result of await both(dir)) expectError(result, new RegExp(`^error workflow\\.yml:1:10: prompts: ${error.source}`, "m"));
    }
  });

  it("a workflow that is a pipe, a device or a link out of the repository is refused before it is opened", async () => {
    const dir = example();
    rmSync(path.join(dir, "workflow.yml"));
    fifo(path.join(dir, "workflow.yml"));
    for (const result of await both(dir)) expectError(result, /^error workflow\.yml:1:1: is not a regular file \(a pipe, a device or a socket\)/m);
    rmSync(path.join(dir, "workflow.yml"));
    symlinkSync("/dev/zero", path.join(dir, "workflow.yml"));
    for (const result of await both(dir)) expectError(result, /^error workflow\.yml:1:1: is not a regular file/m);
    rmSync(path.join(dir, "workflow.yml"));
    symlinkSync(outsideSecret(), path.join(dir, "workflow.yml"));
    for (const result of await both(dir)) {
      expectError(result, /^error workflow\.yml:1:1: is a link to .*env\.yml, outside the repository/m);
      expect(result.stderr).not.toContain("SECRET_KEY_7731");
    }
  });

  it("a schema_file outside the repository, a device or a directory is an error at the setting", async () => {
    const dir = example();
    mkdirSync(path.join(dir, "schemas"));
    symlinkSync(outsideSecret(), path.join(dir, "schemas/link.json"));
    const cases: [string, RegExp][] = [
      ["../../../../../etc/passwd", /is outside the repository/],
      ["/dev/zero", /is outside the repository/],
      ["schemas/link.json", /leads to .*env\.yml, outside the repository/],
      ["schemas", /is a directory; give the path of a file/],
    ];
    for (const [named, error] of cases) {
      writeFileSync(
        path.join(dir, "workflow.yml"),
        WORKFLOW.replace(
          'guard: regex\n    guard_config:\n      pattern: "^def test_"\n      flags: m',
          `guard: json_schema\n    guard_config:\n      schema_file: ${named}`,
        ),
      );
      for (const result of await both(dir)) {
        expectError(
          result,
          new RegExp(
            `^error workflow\\.yml:23:20: action_pairs\\.g_test\\.guard_config\\.schema_file: "${named.replace(/[.*/]/g, "\\$&")}" ${error.source}`,
            "m",
          ),
        );
        expect(result.stderr).not.toContain("SECRET_KEY_7731");
      }
    }
  });

  it("inputs and files globs that escape the repository are errors at the glob", async () => {
    const dir = example();
    symlinkSync(path.dirname(outsideSecret()), path.join(dir, "linked"));
    const cases: [string, RegExp][] = [
      ["/etc/*", /reaches outside the repository/],
      ["../*", /reaches outside the repository/],
      ["{../../etc/*,x}", /has "\.\." after a wildcard or brace/],
      ["out/*/../../../*", /has "\.\." after a wildcard or brace/],
      ["linked/*", /leads to .*, outside the repository/],
      ["out", /is a directory; inputs name files: write "out\/\*\*"/],
    ];
    mkdirSync(path.join(dir, "out"), { recursive: true });
    for (const [glob, error] of cases) {
      for (const key of ["inputs", "guard_config.files"]) {
        const text =
          key === "inputs" ? withFirstPair(`    inputs: ["${glob}"]\n`) : WORKFLOW.replace("      flags: m\n", `      flags: m\n      files: ["${glob}"]\n`);
        writeFileSync(path.join(dir, "workflow.yml"), text);
        for (const result of await both(dir))
          expectError(result, new RegExp(`^error workflow\\.yml:\\d+:\\d+: action_pairs\\.g_test\\.${key.replace(".", "\\.")}\\.0: ".*" ${error.source}`, "m"));
      }
    }
  });

  it("an output that is a directory, under a file, or through a link out of the repository is an error at the output", async () => {
    const dir = example();
    symlinkSync(path.dirname(outsideSecret()), path.join(dir, "linkdir"));
    mkdirSync(path.join(dir, "adir"));
    const cases: [string, RegExp][] = [
      [".", /"\." is a directory; give the path of a file for the pair to write/],
      ["adir", /"adir" is a directory/],
      [".git", /"\.git" is inside a \.git directory/],
      ["model.mjs/x.py", /"model\.mjs\/x\.py" is under model\.mjs, which is a file, not a directory/],
      ["linkdir/a.txt", /"linkdir\/a\.txt" would be written outside the repository/],
    ];
    for (const [output, error] of cases) {
      writeFileSync(path.join(dir, "workflow.yml"), WORKFLOW.replace("output: out/test_stack.py", `output: ${output}`));
      for (const result of [...(await both(dir)), await cli(["run", "--yes", "--state-dir", path.join(dir, ".state")], dir)]) {
        expectError(result, new RegExp(`^error workflow\\.yml:20:13: action_pairs\\.g_test\\.output: ${error.source}`, "m"));
      }
    }
  });
});

describe("the state directory", () => {
  it("--state-dir naming a file, or a path under one, is a usage error before anything is written", async () => {
    const dir = example({ afile: "x" });
    for (const given of ["afile", "afile/sub"]) {
      for (const command of [["plan"], ["run", "--yes"], ["runs"], ["show", "20260101T000000000Z-ab"], ["prune"]]) {
        const result = await cli([...command, "--state-dir", given], dir);
        expect(result.status, result.stderr).toBe(2);
        expect(result.stderr).toMatch(
          new RegExp(`^error --state-dir ${given}: is (a file|under .*afile, which is a file), not a directory; give a directory`, "m"),
        );
      }
    }
    expect(readFileSync(path.join(dir, "afile"), "utf8")).toBe("x");
  });

  it("a file where the default state directory goes is named, with what to do", async () => {
    const dir = example({ ".pairflow": "x" });
    const result = await cli(["plan"], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/\.pairflow, the default state directory, is a file, not a directory; remove it, or give --state-dir/);
  });
});
