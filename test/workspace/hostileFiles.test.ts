// Files a pull request controls, as the globs of `inputs`, generator_config/guard_config `files`
// and foreach `files` list them: symbolic links are never walked through, and a name that is not
// UTF-8 is kept byte for byte, in the glob, the hash, the lock file's text and a traced read.
import { isUtf8 } from "node:buffer";
import { appendFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isUtf8Name, nameBytes, nameText, shownName } from "../../src/model/fileName.js";
import { parseTrace } from "../../src/processes/trace.js";
import { loadWorkflow } from "../../src/workspace/load.js";
import { InputHasher } from "../../src/workspace/inputs.js";
import { PairFileHasher } from "../../src/workspace/pairFiles.js";
import { tempRepo } from "../helpers/fixtures.js";

const WORKFLOW = `name: hostile
action_pairs:
  p:
    generator: command
    generator_config: {run: echo p}
    inputs: ["**"]
`;

/** The keys of the pair's `inputs` hashes, as every plan takes them. */
function inputsOf(dir: string): Record<string, string> {
  const { workflow } = loadWorkflow(dir);
  return new InputHasher(workflow).hash(workflow.pairs.get("p")!.inputs);
}

/** A repository holding `docs/caf\xE9.md` (Latin-1, not UTF-8) beside the workflow. */
function latin1Repo(workflow = WORKFLOW): { dir: string; name: string; file: Buffer } {
  const dir = tempRepo({ "workflow.yml": workflow, "docs/a.md": "a\n" });
  const file = Buffer.concat([Buffer.from(path.join(dir, "docs/caf")), Buffer.of(0xe9), Buffer.from(".md")]);
  writeFileSync(file, "caf\xe9\n", "latin1");
  return { dir, name: `docs/caf\udce9.md`, file };
}

describe("symbolic links under a glob", () => {
  it("are never walked through: links to the repository, to / and in a loop add nothing; a link to a file is that file", () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW, "docs/a.md": "a\n" });
    const outside = tempRepo({ "secret.md": "outside\n" });
    symlinkSync(".", path.join(dir, "self"));
    symlinkSync("..", path.join(dir, "docs/up"));
    symlinkSync("/", path.join(dir, "root"));
    symlinkSync(outside, path.join(dir, "elsewhere"));
    symlinkSync("loop2", path.join(dir, "loop1"));
    symlinkSync("loop1", path.join(dir, "loop2"));
    symlinkSync("nowhere", path.join(dir, "dangling.md"));
    symlinkSync("docs/a.md", path.join(dir, "linked.md"));
    const inputs = inputsOf(dir);
    expect(Object.keys(inputs)).toEqual(["docs/a.md", "linked.md", "workflow.yml"]);
    // A link to a file is hashed by what it leads to, so an edit there re-runs the pair.
    expect(inputs["linked.md"]).toBe(inputs["docs/a.md"]);
  });

  it("a link to a file outside the repository still fails the plan, naming it", () => {
    const dir = tempRepo({ "workflow.yml": WORKFLOW });
    const outside = tempRepo({ "secret.md": "outside\n" });
    symlinkSync(path.join(outside, "secret.md"), path.join(dir, "secret.md"));
    expect(() => inputsOf(dir)).toThrow(/input "secret.md" resolves to .*secret.md, outside the repository/);
  });

  it("a foreach glob that starts in a link out of the repository walks nothing there", () => {
    const dir = tempRepo({
      "workflow.yml": `name: each
action_pairs:
  t:
    foreach: {files: "root/**/*.md"}
    generator: command
    generator_config: {run: "echo {file}"}
`,
    });
    symlinkSync("/", path.join(dir, "root"));
    const loaded = loadWorkflow(dir);
    expect([...loaded.workflow.pairs.keys()]).toEqual([]);
    expect(loaded.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining("matches no files"));
  });

  it("foreach files are listed by the same rule", () => {
    const dir = tempRepo({
      "workflow.yml": `name: each
action_pairs:
  t:
    foreach: {files: "**/*.md"}
    generator: command
    generator_config: {run: "echo {file}"}
`,
      "docs/a.md": "a\n",
    });
    symlinkSync(".", path.join(dir, "docs/self"));
    symlinkSync("/", path.join(dir, "root"));
    symlinkSync("docs/a.md", path.join(dir, "linked.md"));
    const ids = [...loadWorkflow(dir).workflow.pairs.keys()];
    expect(ids).toEqual(["t[docs/a.md]", "t[linked.md]"]);
  });
});

describe("a file name that is not UTF-8", () => {
  it("is an input under its exact name: hashed, and an edit of it changes the hash", () => {
    const { dir, name, file } = latin1Repo();
    const before = inputsOf(dir);
    expect(Object.keys(before)).toEqual(["docs/a.md", name, "workflow.yml"]);
    appendFileSync(file, "more\n");
    expect(inputsOf(dir)[name]).not.toBe(before[name]);
    expect(inputsOf(dir)["docs/a.md"]).toBe(before["docs/a.md"]);
  });

  it("read by a traced command is kept exactly, and hashed as the file it is (not as missing)", () => {
    const { dir, name, file } = latin1Repo();
    const trace = `1234  openat(AT_FDCWD<${dir}>, "docs/caf\\351.md", O_RDONLY|O_CLOEXEC) = 3<${dir}/docs/caf\\351.md>\n`;
    const opened = parseTrace(trace, dir);
    expect(opened).toEqual([`${dir}/${name}`]);
    expect(nameBytes(opened[0]!)).toEqual(file);

    const { workflow } = loadWorkflow(dir);
    const hasher = new PairFileHasher(workflow, new InputHasher(workflow));
    const observed = hasher.workflowPaths(opened);
    expect(observed).toEqual([name]);
    const before = hasher.observedHashes(observed);
    expect(before[name]).toMatch(/^[0-9a-f]{64}$/);
    appendFileSync(file, "more\n");
    const { workflow: again } = loadWorkflow(dir);
    expect(new PairFileHasher(again, new InputHasher(again)).observedHashes(observed)[name]).not.toBe(before[name]);
  });

  it("under foreach files is left out with a warning naming its bytes, since commands, prompts and outputs spell items as text", () => {
    const { dir } = latin1Repo(`name: each
action_pairs:
  t:
    foreach: {files: "docs/*.md"}
    generator: command
    generator_config: {run: "echo {file}"}
`);
    const loaded = loadWorkflow(dir);
    expect([...loaded.workflow.pairs.keys()]).toEqual(["t[docs/a.md]"]);
    expect(loaded.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('leaves out "docs/caf\\xE9.md": its name is not UTF-8'));
  });
});

describe("a file name's text", () => {
  it("turns back into exactly its bytes, and is the plain text of a UTF-8 name", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const text = nameText(bytes);
        expect(nameBytes(text)).toEqual(Buffer.from(bytes));
        expect(isUtf8Name(text)).toBe(isUtf8(bytes));
        if (isUtf8(bytes)) expect(text).toBe(Buffer.from(bytes).toString("utf8"));
      }),
      { numRuns: 5000 },
    );
  });

  it("names the bytes that are not UTF-8 in messages", () => {
    expect(shownName(nameText(Buffer.from([0x61, 0xff, 0xc3, 0xa9, 0xed, 0xa0, 0x80])))).toBe("a\\xFF\u00e9\\xED\\xA0\\x80");
    // A leading byte-order mark is part of the name, not an encoding's mark.
    expect(nameText(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe("\ufeffa");
  });
});
