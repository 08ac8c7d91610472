import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMap, isScalar } from "yaml";
import { parseText, parseWorkflow, type ConfigFiles } from "../../src/config/parse.js";
import { ConfigError, formatIssue, type ConfigIssue } from "../../src/model/errors.js";
import { canonicalJson } from "../../src/refs/canonical.js";

// A repository that exists only in memory: nothing here is on disk, so any file system access
// by the parser would miss these files.
const ROOT = path.join(path.sep, "virtual", "repo");

/** Files by absolute path; a directory exists when some file is under it. No links: a path is its real path. */
function memoryFiles(texts: Record<string, string>): ConfigFiles {
  const files = new Map(Object.entries(texts).map(([rel, text]) => [path.join(ROOT, rel), text]));
  const isDir = (file: string) => file === ROOT || [...files.keys()].some((f) => f.startsWith(file + path.sep));
  return {
    read(file) {
      const text = files.get(file);
      if (text === undefined) throw new Error(`no such file ${file}`);
      return text;
    },
    exists: (file) => files.has(file) || isDir(file),
    stat: (file) => (files.has(file) ? { kind: "file", real: file } : isDir(file) ? { kind: "directory", real: file } : { kind: "missing" }),
  };
}

function parse(texts: Record<string, string>, workflow = "workflow.yml") {
  return parseWorkflow(path.join(ROOT, workflow), { files: memoryFiles(texts), cwd: ROOT, root: ROOT });
}

/** The issues a parse reports, or [] when it parses. */
function issues(texts: Record<string, string>, workflow = "workflow.yml"): ConfigIssue[] {
  try {
    parse(texts, workflow);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues;
  }
}

describe("parsing configuration from texts", () => {
  it("builds the workflow and its graph from a workflow and the prompts file beside it", () => {
    const { workflow, graph } = parse(
      {
        "wf/workflow.yml": [
          "name: demo",
          "model: m-1",
          "rmax: 2",
          "action_pairs:",
          "  g_test:",
          "    guard: syntax",
          "    output: tests/test_a.py",
          "    inputs: [spec.md, 'src/**/*.py']",
          "  g_impl:",
          "    requires: [g_test]",
          "    rmax: 5",
          "",
        ].join("\n"),
        "wf/prompts.yml": "g_test:\n  task: Write the tests.\ng_impl:\n  role: Coder\n",
        "wf/spec.md": "# Spec\n",
      },
      "wf/workflow.yml",
    );

    expect(workflow.name).toBe("demo");
    expect(workflow.path).toBe(path.join(ROOT, "wf/workflow.yml"));
    expect(workflow.dir).toBe(path.join(ROOT, "wf"));
    expect(workflow.root).toBe(ROOT);
    expect(workflow.promptsPath).toBe(path.join(ROOT, "wf/prompts.yml"));
    expect([...workflow.pairs.keys()]).toEqual(["g_test", "g_impl"]);
    expect(workflow.pairs.get("g_test")).toMatchObject({
      guard: "syntax",
      model: "m-1",
      rmax: 2,
      output: "tests/test_a.py",
      inputs: ["spec.md", "src/**/*.py"],
      prompt: { task: "Write the tests." },
    });
    expect(workflow.pairs.get("g_impl")).toMatchObject({ requires: ["g_test"], rmax: 5, prompt: { role: "Coder" } });
    expect(graph.order).toEqual(["g_test", "g_impl"]);
    expect(graph.waves).toEqual([["g_test"], ["g_impl"]]);
  });

  it("runs with the rmax it validated, however the number is written", () => {
    const { workflow } = parse({
      "workflow.yml": "name: n\nrmax: 1.0\naction_pairs:\n  g_a: {}\n  g_b: {rmax: 0.0}\n  g_c: {rmax: 5}\n",
    });
    expect([...workflow.pairs.values()].map((p) => p.rmax)).toEqual([1, 0, 5]);
  });

  it("reports an unknown key at its line and column, suggesting the likely one", () => {
    const out = issues({ "workflow.yml": "name: n\naction_pairs:\n  g_a:\n    gaurd: syntax\n" });
    expect(out).toEqual([
      {
        file: "workflow.yml",
        line: 4,
        column: 5,
        key: "action_pairs.g_a.gaurd",
        message:
          'unknown key "gaurd"; did you mean "guard"?; expected one of: description, requires, guard, guard_config, guards, generator, generator_config, model, rmax, fresh, output, inputs, foreach, assembled_guard, carry_edits, adopt_existing, human_prompt_title (or an "x-" key for notes of your own)',
      },
    ]);
  });

  it("reports a prompts file the workflow names but that does not exist, at the prompts key", () => {
    const out = issues({ "wf/workflow.yml": "name: n\nprompts: ../common/prompts.yml\naction_pairs:\n  g_a: {}\n" }, "wf/workflow.yml");
    expect(out.map(formatIssue)).toEqual([
      'wf/workflow.yml:2:10: prompts: file "../common/prompts.yml" not found (looked for common/prompts.yml); fix the path or remove the key to use prompts.yml, prompts.yaml, prompts.json beside the workflow',
    ]);
  });

  it("requires a literal input path to exist, relative to the workflow file, but not a glob", () => {
    const out = issues(
      {
        "wf/workflow.yml": "name: n\naction_pairs:\n  g_a:\n    inputs: [spec.md, docs/missing.md, 'src/*.py']\n",
        "spec.md": "at the root, not beside the workflow\n",
        "wf/docs/other.md": "x\n",
      },
      "wf/workflow.yml",
    );
    expect(out.map(formatIssue)).toEqual([
      'wf/workflow.yml:4:14: action_pairs.g_a.inputs.0: "spec.md" does not exist (inputs are relative to the workflow file); fix the path, or write a glob if the file may be absent',
      'wf/workflow.yml:4:23: action_pairs.g_a.inputs.1: "docs/missing.md" does not exist (inputs are relative to the workflow file); fix the path, or write a glob if the file may be absent',
    ]);
  });

  it("rejects an output outside the repository given as root", () => {
    const out = issues({ "wf/workflow.yml": "name: n\naction_pairs:\n  g_a:\n    output: ../../notes.txt\n" }, "wf/workflow.yml");
    expect(out).toEqual([
      {
        file: "wf/workflow.yml",
        line: 4,
        column: 13,
        key: "action_pairs.g_a.output",
        message: `"../../notes.txt" is outside the repository (${ROOT}); give a path inside it, relative to the workflow file`,
      },
    ]);
  });

  it("rejects a dependency cycle at the requires entry that starts it", () => {
    const out = issues({ "workflow.yml": "name: n\naction_pairs:\n  a: {requires: [b]}\n  b: {requires: [a]}\n  c: {}\n" });
    expect(out.map(formatIssue)).toEqual([
      "workflow.yml:3:18: action_pairs.a.requires.0: dependency cycle: a -> b -> a (each pair requires the next); remove one of these requires entries",
    ]);
  });

  it("reports a file that cannot be read at its first line, with the reason the files give", () => {
    const files = memoryFiles({ "workflow.yml": "name: n\naction_pairs:\n  g_a: {}\n", "prompts.yml": "" });
    const unreadable: ConfigFiles = {
      exists: files.exists,
      stat: files.stat,
      read(file) {
        if (file === path.join(ROOT, "prompts.yml")) throw new Error("permission denied");
        return files.read(file);
      },
    };
    expect(() => parseWorkflow(path.join(ROOT, "workflow.yml"), { files: unreadable, cwd: ROOT, root: ROOT })).toThrow(
      "prompts.yml:1:1: cannot read: permission denied",
    );
  });

  it("shows paths relative to cwd, and absolute outside it", () => {
    const files = memoryFiles({ "wf/workflow.yml": "name: n\naction_pairs:\n  g_a: {guard: 3}\n" });
    const at = (cwd: string) => {
      try {
        parseWorkflow(path.join(ROOT, "wf/workflow.yml"), { files, cwd, root: ROOT });
      } catch (err) {
        return (err as ConfigError).issues.map((i) => i.file);
      }
    };
    expect(at(path.join(ROOT, "wf"))).toEqual(["workflow.yml"]);
    expect(at(path.join(path.sep, "elsewhere"))).toEqual([path.join(ROOT, "wf/workflow.yml")]);
  });

  it("refuses a relative cwd or root, which only the process's working directory could complete", () => {
    expect(() => parseWorkflow("workflow.yml", { files: memoryFiles({}), cwd: "repo", root: ROOT })).toThrow(/must be absolute/);
  });
});

describe("numbers as the reference writes them", () => {
  // Python's json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) for these values:
  // integers exactly, whatever their size; floats as repr() writes them.
  const VALUES: [string, string][] = [
    ["9007199254740993", "9007199254740993"],
    ["9007199254740992", "9007199254740992"],
    ["-9223372036854775809", "-9223372036854775809"],
    ["12345678901234567890", "12345678901234567890"],
    ["1e16", "1e+16"],
    ["12345678901234567890.0", "1.2345678901234567e+19"],
    ["1.0", "1.0"],
    ["0.1", "0.1"],
  ];
  const expected = "{" + VALUES.map(([, out], i) => `"k${i}":${out}`).join(",") + "}";
  const config = (pairs: [string, string][]) => VALUES.map(([text], i) => pairs[i]![0] + `k${i}` + pairs[i]![1] + text).join(", ");
  const guardConfig = (texts: Record<string, string>, workflow: string) => canonicalJson(parse(texts, workflow).workflow.pairs.get("g_a")!.guardConfig);

  it("writes integers of any size exactly and floats as Python's repr, from YAML", () => {
    const yaml = `name: n\naction_pairs:\n  g_a:\n    guard: g\n    guard_config: {${config(VALUES.map(() => ["", ": "]))}}\n`;
    expect(guardConfig({ "workflow.yml": yaml }, "workflow.yml")).toBe(expected);
  });

  it("writes integers of any size exactly and floats as Python's repr, from JSON", () => {
    const json = `{"name": "n", "action_pairs": {"g_a": {"guard": "g", "guard_config": {${config(VALUES.map(() => ['"', '": ']))}}}}}`;
    expect(guardConfig({ "workflow.json": json }, "workflow.json")).toBe(expected);
  });

  it("validates and runs with a big integer as the number it is closest to", () => {
    expect(issues({ "workflow.yml": "name: n\nrmax: 12345678901234567890\naction_pairs:\n  g_a: {}\n" }).map(formatIssue)).toEqual([
      "workflow.yml:2:7: rmax: found the number 12345678901234567000; expected a value that must be <= 100",
    ]);
  });
});

describe("YAML that has no JSON form", () => {
  const pairWith = (config: string) => `name: n\naction_pairs:\n  g_a:\n    guard: g\n    guard_config:\n${config}`;

  it("rejects tags outside YAML 1.2's core schema at the tag, instead of hashing their values as {}", () => {
    const out = issues({
      "workflow.yml": pairWith(
        [
          "      when: !!timestamp 2024-01-01",
          "      tags: !!set {a, b}",
          "      order: !!omap [a: 1, b: 2]",
          "      pairs: !!pairs [a: 1]",
          "      blob: !!binary aGk=",
          "      mine: !custom x",
          "      n: !!int 1.5",
          "",
        ].join("\n"),
      ),
    });
    expect(out.map(formatIssue)).toEqual([
      'workflow.yml:6:13: the tag !!timestamp is not one of YAML 1.2\'s core types, so its value has no JSON form to hash; quote the date ("2024-01-01") to keep it as text',
      "workflow.yml:7:13: the tag !!set is not one of YAML 1.2's core types, so its value has no JSON form to hash; write a list ([a, b]) instead",
      "workflow.yml:8:14: the tag !!omap is not one of YAML 1.2's core types, so its value has no JSON form to hash; write a mapping, or a list of mappings, instead",
      "workflow.yml:9:14: the tag !!pairs is not one of YAML 1.2's core types, so its value has no JSON form to hash; write a mapping, or a list of mappings, instead",
      "workflow.yml:10:13: the tag !!binary is not one of YAML 1.2's core types, so its value has no JSON form to hash; remove the tag, or quote the value to keep it as text",
      "workflow.yml:11:13: the tag !custom is not one of YAML 1.2's core types, so its value has no JSON form to hash; remove the tag, or quote the value to keep it as text",
      "workflow.yml:12:10: the value does not fit its tag !!int; remove the tag, or write a value of that type",
    ]);
  });

  it("rejects a %YAML 1.1 document, whose yes, no, dates and octal numbers mean something else in YAML 1.2", () => {
    expect(issues({ "workflow.yml": "%YAML 1.1\n---\n" + pairWith("      on: yes\n") }).map(formatIssue)).toEqual([
      "workflow.yml:1:1: pairflow reads YAML 1.2 (as JSON is read), where yes/no/on/off and dates are text and 0777 is a decimal; remove the %YAML 1.1 line and write true/false, quoted text and 0o777 where you mean them",
    ]);
  });

  it("rejects mapping keys that have no JSON form: null, floats, lists and mappings", () => {
    const out = issues({
      "workflow.yml": pairWith("      null: a\n      1.5: b\n      ? [x, y]\n      : c\n      ? {x: 1}\n      : d\n      2: e\n      true: f\n"),
    });
    expect(out.map(formatIssue)).toEqual([
      'workflow.yml:6:7: YAML reads this key as null, and a JSON key is text; quote it ("null") to keep it as text',
      'workflow.yml:7:7: YAML reads this key as a float, and a JSON key is text; quote it ("1.5") to keep it as text',
      "workflow.yml:8:9: YAML reads this key as a list, and a JSON key is text; write a text key",
      "workflow.yml:10:9: YAML reads this key as a mapping, and a JSON key is text; write a text key",
    ]);
  });

  it("reads an unquoted date as the text it is in YAML 1.2, the same as the quoted date JSON has to write", () => {
    const config = (texts: Record<string, string>, workflow: string) => canonicalJson(parse(texts, workflow).workflow.pairs.get("g_a")!.guardConfig);
    const json = '{"name": "n", "action_pairs": {"g_a": {"guard": "g", "guard_config": {"since": "2024-01-01", "at": "2024-01-01T10:00:00Z"}}}}';
    expect(config({ "workflow.yml": pairWith("      since: 2024-01-01\n      at: 2024-01-01T10:00:00Z\n") }, "workflow.yml")).toBe(
      config({ "workflow.json": json }, "workflow.json"),
    );
  });
});

describe("parsing text with positions", () => {
  it("keeps the line and column of each key", () => {
    const file = parseText("name: n\naction_pairs:\n  g_a: {}\n  g_b: {}\n", "workflow.yml", []);
    const pairs = file?.doc.get("action_pairs", true);
    expect(file?.display).toBe("workflow.yml");
    expect(isMap(pairs)).toBe(true);
    const keys = isMap(pairs) ? pairs.items.map((item) => (isScalar(item.key) ? file!.lines.linePos(item.key.range![0]) : undefined)) : [];
    expect(keys).toEqual([
      { line: 3, col: 3 },
      { line: 4, col: 3 },
    ]);
  });

  it("reports a syntax error and a duplicate key under the name given, and returns no file", () => {
    const found: ConfigIssue[] = [];
    expect(parseText("a: 1\na: 2\n", "p.yml", found)).toBeUndefined();
    expect(found.map(formatIssue)).toEqual(['p.yml:2:1: duplicate key "a" (first at line 1); each key, and each pair id, may appear once']);
    const broken: ConfigIssue[] = [];
    expect(parseText("key: [unclosed\n", "p.yml", broken)).toBeUndefined();
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatchObject({ file: "p.yml", line: 2 });
  });

  it("refuses lists and mappings nested over 256 deep at the bracket that goes too deep, and takes 256", () => {
    fc.assert(
      fc.property(fc.nat(5), fc.nat(12), fc.constantFrom("[", "{"), (before, indent, open) => {
        const deep = (n: number) => (open === "[" ? "[".repeat(n) + "]".repeat(n) : "{a: ".repeat(n) + "1" + "}".repeat(n));
        const head = Array.from({ length: before }, (_, i) => `k${i}: [x, {y: [1]}]\n`).join("");
        const found: ConfigIssue[] = [];
        expect(parseText(`${head}deep:\n${" ".repeat(indent + 1)}${deep(257)}\n`, "p.yml", found)).toBeUndefined();
        // The 257th opening bracket: line and column of it.
        const column = indent + 2 + (open === "[" ? 256 : 256 * 4);
        expect(found.map(formatIssue)).toEqual([
          `p.yml:${before + 2}:${column}: lists and mappings nested more than 256 deep; pairflow's files need a few levels: flatten the structure`,
        ]);
        expect(parseText(`${head}deep:\n${" ".repeat(indent + 1)}${deep(256)}\n`, "p.yml", [])).toBeDefined();
      }),
      { numRuns: 30 },
    );
  });
});
