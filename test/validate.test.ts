import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli as cliIn } from "./pr/repo.js";
import { GENERATOR_SETTINGS, GUARD_SETTINGS } from "../src/config/check.js";
import { GENERATORS } from "../src/generators/index.js";
import { GUARDS } from "../src/guards/index.js";
import { loadWorkflow } from "../src/workspace/load.js";
import { configRef, ownComponents } from "../src/refs/configRef.js";
import { canonicalJson } from "../src/refs/canonical.js";
import { sha256Hex } from "../src/refs/hash.js";
import { ConfigError } from "../src/model/errors.js";
import { runOf } from "./helpers/state.js";
import { FIXTURES, REPO, tempRepo } from "./helpers/fixtures.js";

const cli = (args: string[], cwd = REPO) => cliIn(args, cwd);

/** A workflow of pairflow's own format: line 1 the name, lines 2-3 the generator, pairs from line 5. */
function own(pairs: string[], extra: Record<string, string> = {}): Record<string, string> {
  return {
    "workflow.yml": ["name: n", "generator: command", "generator_config: {run: cat}", "action_pairs:", ...pairs, ""].join("\n"),
    ...extra,
  };
}

/** A reference-format workflow: JSON named workflow.json, one key a line. */
function reference(lines: string[], extra: Record<string, string> = {}): Record<string, string> {
  return { "workflow.json": ["{", ...lines, "}", ""].join("\n"), ...extra };
}

const compatDirs = ["atomicguard", "atomicguard-more"].flatMap((folder) =>
  readdirSync(path.join(FIXTURES, "compat", folder))
    .filter((d) => d !== "LICENSE")
    .map((d) => path.join("test/fixtures/compat", folder, d)),
);

describe("reference-format files load unchanged", () => {
  it.each(compatDirs)("validates and plans %s with exit 0", async (dir) => {
    const validated = await cli(["validate", dir]);
    expect(validated.stderr).not.toMatch(/^error /m);
    expect(validated.status).toBe(0);
    expect(validated.stdout).toMatch(/: valid \(/);
    const planned = await cli(["plan", dir, "--state-dir", tempRepo()]);
    expect(planned.status).toBe(0);
  });

  it("hashes a prompts entry whole, keys pairflow does not use included, as the reference formula does", () => {
    const prompt = { role: "Tester", task: "Write tests.", escalation_feedback_wrapper: "Upstream said: {feedback}", x_extra: "kept" };
    const dir = tempRepo({
      "workflow.json": JSON.stringify({ name: "n", model: "m", action_pairs: { g: { guard: "syntax", guard_config: { min: 1 } } } }),
      "prompts.json": JSON.stringify({ g: prompt, other_workflow_pair: { task: "ignored" } }),
    });
    const { workflow } = loadWorkflow(dir);
    const ref = configRef(ownComponents(workflow, workflow.pairs.get("g")!, undefined), { refs: {}, artifactHashes: {} });
    // test/fixtures/vectors/config_ref.json: sha256 of the canonical JSON of these six keys.
    const expected = sha256Hex(canonicalJson({ prompt, model: "m", guard: "syntax", guard_config: { min: 1 }, upstream_refs: {}, artifact_hashes: {} }));
    expect(ref).toBe(expected);
  });
});

interface Case {
  name: string;
  files: Record<string, string>;
  severity: "error" | "warning";
  /** The start of the reported line after the severity: file:line:column and the key. */
  at: string;
  says: RegExp;
}

const cases: Case[] = [
  {
    name: "a misspelled guard",
    files: own(["  a:", "    guard: regx"]),
    severity: "error",
    at: "workflow.yml:6:12: action_pairs.a.guard",
    says: /unknown guard "regx"; did you mean "regex"\?/,
  },
  {
    name: "a regex guard with no pattern",
    files: own(["  a:", "    guard: regex", "    guard_config: {flags: i}"]),
    severity: "error",
    at: "workflow.yml:7:19: action_pairs.a.guard_config",
    says: /needs guard_config\.pattern/,
  },
  {
    name: "a regex guard with an invalid pattern",
    files: own(["  a:", "    guard: regex", "    guard_config:", "      pattern: '(unclosed'"]),
    severity: "error",
    at: "workflow.yml:8:16: action_pairs.a.guard_config.pattern",
    says: /not a valid regular expression/,
  },
  {
    name: "a json_schema guard with no schema",
    files: own(["  a:", "    guard: json_schema"]),
    severity: "error",
    at: "workflow.yml:6:12: action_pairs.a.guard",
    says: /needs a schema/,
  },
  {
    name: "a json_schema guard with an invalid schema",
    files: own(["  a:", "    guard: json_schema", "    guard_config:", "      schema: {type: twelve}"]),
    severity: "error",
    at: "workflow.yml:8:15: action_pairs.a.guard_config.schema",
    says: /not a valid JSON Schema/,
  },
  {
    name: "a json_schema guard whose schema_file is missing",
    files: own(["  a:", "    guard: json_schema", "    guard_config: {schema_file: schemas/out.json}"]),
    severity: "error",
    at: "workflow.yml:7:33: action_pairs.a.guard_config.schema_file",
    says: /"schemas\/out\.json" does not exist/,
  },
  {
    name: "a composite guard with no guards",
    files: own(["  a:", "    guard: composite"]),
    severity: "error",
    at: "workflow.yml:6:12: action_pairs.a.guard",
    says: /lists no guards/,
  },
  {
    name: "a composite guard with an unknown policy",
    files: own(["  a:", "    guard: composite", "    guards: [json]", "    guard_config: {policy: all_passs}"]),
    severity: "error",
    at: "workflow.yml:8:28: action_pairs.a.guard_config.policy",
    says: /unknown policy "all_passs"; did you mean "all_pass"\?/,
  },
  {
    name: "a typo inside guard_config",
    files: own(["  a:", "    guard: contains", "    guard_config:", "      text: ok", "      absnet: TODO"]),
    severity: "error",
    at: "workflow.yml:9:7: action_pairs.a.guard_config.absnet",
    says: /unknown key "absnet" for the contains guard; did you mean "absent"\?/,
  },
  {
    name: "a typo inside generator_config",
    files: own(["  a:", "    guard: json", "    generator_config: {run: cat, tiemout: 5}"]),
    severity: "error",
    at: "workflow.yml:7:34: action_pairs.a.generator_config.tiemout",
    says: /unknown key "tiemout" for the command generator; did you mean "timeout"\?/,
  },
  {
    name: "guards without guard: composite",
    files: own(["  a:", "    guard: json", "    guards: [json]"]),
    severity: "error",
    at: "workflow.yml:7:5: action_pairs.a.guards",
    says: /set guard: composite, or remove "guards"/,
  },
  {
    name: "no generator anywhere",
    files: { "workflow.yml": "name: n\naction_pairs:\n  a:\n    guard: json\n" },
    severity: "error",
    at: "workflow.yml:4:5: action_pairs.a",
    says: /names no generator/,
  },
  {
    name: "two pairs writing the same output",
    files: own(["  a:", "    guard: json", "    output: out.json", "  b:", "    guard: json", "    output: ./out.json"]),
    severity: "error",
    at: "workflow.yml:10:13: action_pairs.b.output",
    says: /also the output of pair "a"/,
  },
  {
    name: "a misspelled generator",
    files: own(["  a:", "    guard: json", "    generator: comand"]),
    severity: "error",
    at: "workflow.yml:7:16: action_pairs.a.generator",
    says: /unknown generator "comand"; did you mean "command"\?/,
  },
  {
    name: "a rate limit with a misspelled key",
    files: own(["  a:", "    guard: json", "    generator: openai", "    generator_config: {rate_limit: {tokens_per_minut: 5000}}"]),
    severity: "error",
    at: "workflow.yml:8:37: action_pairs.a.generator_config.rate_limit.tokens_per_minut",
    says: /did you mean "tokens_per_minute"\?; expected one of: requests_per_minute, tokens_per_minute/,
  },
  {
    name: "a near miss of a pair key (gaurd)",
    files: own(["  a:", "    gaurd: json"]),
    severity: "error",
    at: "workflow.yml:6:5: action_pairs.a.gaurd",
    says: /did you mean "guard"\?/,
  },
  {
    name: "a near miss of a pair key in a reference-format file (requries)",
    files: reference(['"name": "n",', '"action_pairs": {', '  "a": {"guard": "json"},', '  "b": {"guard": "json",', '    "requries": ["a"]}', "}"]),
    severity: "error",
    at: "workflow.json:6:5: action_pairs.b.requries",
    says: /did you mean "requires"\?/,
  },
  {
    name: "a near miss inside guard_config of a reference-format file (absnet)",
    files: reference([
      '"name": "n",',
      '"generator": "command",',
      '"action_pairs": {',
      '  "a": {"guard": "contains", "guard_config": {"text": "x",',
      '    "absnet": "y"}}',
      "}",
    ]),
    severity: "error",
    at: "workflow.json:6:5: action_pairs.a.guard_config.absnet",
    says: /did you mean "absent"\?/,
  },
  {
    name: "a feedback_wrapper without {feedback}",
    files: own(["  a:", "    guard: json"], { "prompts.yml": "a:\n  task: t\n  feedback_wrapper: Try again.\n" }),
    severity: "warning",
    at: "prompts.yml:3:21: a.feedback_wrapper",
    says: /has no \{feedback\}/,
  },
  {
    name: "a generator named by a reference class name",
    files: own(["  a:", "    guard: json", "    generator: CoderGenerator", "  b:", "    guard: json", "    generator: CoderGenerator"]),
    severity: "warning",
    at: "workflow.yml:7:16: action_pairs.a.generator",
    says: /generator "CoderGenerator" is not one of pairflow's .*run will fail for pairs "a", "b"/,
  },
  {
    name: "unknown keys of a reference-format file, listed once",
    files: reference([
      '"name": "n",',
      '"min_gates": 2,',
      '"meta_level": 1,',
      '"generator": "command",',
      '"action_pairs": {"a": {"guard": "json", "generator_config": {"run": "cat"}}}',
    ]),
    severity: "warning",
    at: "workflow.json:3:1",
    says: /keys "min_gates", "meta_level" unknown to pairflow, ignored/,
  },
  {
    name: "a pair with no generator in a reference-format file",
    files: reference(['"name": "n",', '"action_pairs": {', '  "a": {"guard": "json"}', "}"]),
    severity: "warning",
    at: "workflow.json:4:3: action_pairs.a",
    says: /no generator is set for pair "a"/,
  },
  {
    name: "escalation settings, which pairflow does not honour",
    files: reference([
      '"name": "n",',
      '"generator": "command",',
      '"generator_config": {"run": "cat"},',
      '"action_pairs": {',
      '  "a": {"guard": "json"},',
      '  "b": {"guard": "json", "requires": ["a"],',
      '    "r_patience": 2, "e_max": 1, "escalate_feedback_to": ["a"]}',
      "}",
    ]),
    severity: "warning",
    at: "workflow.json:8:5: action_pairs.b.r_patience",
    says: /does not honour the reference framework's escalation settings .* of pair "b"/,
  },
  {
    name: "a prompts entry that names no pair, in a reference-format file",
    files: reference(['"name": "n",', '"generator": "command",', '"generator_config": {"run": "cat"},', '"action_pairs": {"a": {"guard": "json"}}'], {
      "prompts.json": '{\n  "a": {"task": "t"},\n  "other": {"task": "u"}\n}\n',
    }),
    severity: "warning",
    at: "prompts.json:3:3: other",
    says: /entry "other" names no pair of workflow\.json, and is ignored/,
  },
];

describe("validate finds what a run would reject", () => {
  it("knows the settings of every built-in guard and generator, and of no other", () => {
    expect(Object.keys(GUARD_SETTINGS).sort()).toEqual(Object.keys(GUARDS).sort());
    expect(Object.keys(GENERATOR_SETTINGS).sort()).toEqual(Object.keys(GENERATORS).sort());
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const r = await cli(["validate"], tempRepo(c.files));
    const line = r.stderr.split("\n").find((l) => l.startsWith(`${c.severity} ${c.at}: `));
    expect(line, r.stderr).toBeDefined();
    expect(line).toMatch(c.says);
    expect(r.status).toBe(c.severity === "error" ? 2 : 0);
  });

  it("fails on warnings with --strict", async () => {
    const dir = tempRepo(cases.find((c) => c.name.startsWith("a feedback_wrapper"))!.files);
    expect((await cli(["validate"], dir)).status).toBe(0);
    const strict = await cli(["validate", "--strict"], dir);
    expect(strict.status).toBe(2);
    expect(strict.stderr).toMatch(/--strict: 1 warning fail/);
  });

  it("prints every problem as JSON with --json", async () => {
    const dir = tempRepo(own(["  a:", "    guard: regx"], { "prompts.yml": "a:\n  feedback_wrapper: again\n" }));
    const r = await cli(["validate", "--json"], dir);
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      version: 1,
      problems: [
        { file: "prompts.yml", line: 2, column: 21, key: "a.feedback_wrapper", severity: "warning", message: expect.stringMatching(/no \{feedback\}/) },
        { file: "workflow.yml", line: 6, column: 12, key: "action_pairs.a.guard", severity: "error", message: expect.stringMatching(/did you mean "regex"/) },
      ],
    });
    const warnOnly = tempRepo(own(["  a:", "    guard: json"], { "prompts.yml": "a:\n  feedback_wrapper: again\n" }));
    expect((await cli(["validate", "--json"], warnOnly)).status).toBe(0);
    expect((await cli(["validate", "--json", "--strict"], warnOnly)).status).toBe(2);
  });

  it("reports load errors as JSON too", async () => {
    const r = await cli(["validate", "--json"], tempRepo({ "workflow.yml": "name: n\naction_pairs:\n  a:\n    gaurd: json\n" }));
    expect(r.status).toBe(2);
    const problems = (JSON.parse(r.stdout) as { problems: { line: number; severity: string; message: string }[] }).problems;
    expect(problems).toEqual([expect.objectContaining({ line: 4, column: 5, severity: "error", message: expect.stringMatching(/did you mean "guard"/) })]);
  });
});

describe("run", () => {
  it("refuses before anything executes when a pair about to run would fail on its configuration", async () => {
    const dir = tempRepo(
      own(["  a:", "    guard: json", "    generator_config: {run: \"echo '{}' > ran.txt; echo '{}'\"}", "  b:", "    requires: [a]", "    guard: regx"]),
    );
    const run = runOf(dir, { cwd: dir, env: {} });
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(run).rejects.toThrow(/workflow\.yml:10:12: action_pairs\.b\.guard: unknown guard "regx"; did you mean "regex"\?/);
    expect(existsSync(path.join(dir, "ran.txt"))).toBe(false);
  });
});
