/**
 * A workflow that uses every built-in guard and every generator: command, and openai and anthropic
 * against a loopback model service. Every pair's first attempt is wrong and its second right, so a
 * run shows each guard both rejecting and accepting: two attempts a pair.
 */
import type { ModelRequest } from "../helpers/providers.js";

export const MODEL_KEY = "sk-loopback-test-key";

/** What the model service answers: wrong JSON until the prompt holds a rejected attempt's history. */
export function modelAnswer(request: ModelRequest): string {
  const retry = request.prompt.includes("# History");
  return retry ? JSON.stringify({ from: request.provider, model: request.body.model }) : "not json at all";
}

/** The workflow's files, for a fresh repository; `services` are the model service's base URLs. */
export function everyKindFiles(services: { openaiUrl: string; anthropicUrl: string }): Record<string, string> {
  return {
    "gen.mjs": [
      "// Answers for the kind named on the command line: wrong on attempt 1, right on attempt 2.",
      "const kind = process.argv[2];",
      'const retry = process.env.PAIRFLOW_ATTEMPT !== "1";',
      "const answers = {",
      '  json: retry ? \'{"name": "cmd", "n": 1}\' : "{broken",',
      '  heading: retry ? "# Title\\n\\nbody\\n" : "no heading\\n",',
      '  words: retry ? "alpha beta gamma\\n" : "alpha only\\n",',
      "};",
      "process.stdout.write(answers[kind]);",
      "",
    ].join("\n"),
    "check.mjs": [
      "// A command guard: the artifact must mention n.",
      'import { readFileSync } from "node:fs";',
      'const text = readFileSync(process.env.PAIRFLOW_ARTIFACT, "utf8");',
      'if (!text.includes(\'"n"\')) { console.log("no n in the artifact"); process.exit(1); }',
      "",
    ].join("\n"),
    "schema.yml": "type: object\nrequired: [name, n]\nproperties:\n  n: {type: integer}\n",
    "workflow.yml": [
      "name: every-kind",
      "rmax: 1",
      "generator: command",
      "pricing:",
      "  stand-in: {input: 0, output: 0}",
      "model: stand-in",
      "action_pairs:",
      "  by_command:",
      "    generator_config: {run: node gen.mjs json}",
      "    guard: command",
      "    guard_config: {run: node check.mjs}",
      "    output: out/by_command.json",
      "  by_openai:",
      "    generator: openai",
      "    model: gpt-4o-mini",
      `    generator_config: {base_url: "${services.openaiUrl}", api_key_env: LOOPBACK_KEY, retries: 0}`,
      "    guard: json",
      "    output: out/by_openai.json",
      "  by_anthropic:",
      "    requires: [by_openai]",
      "    generator: anthropic",
      "    model: claude-haiku-4-5",
      `    generator_config: {base_url: "${services.anthropicUrl}", api_key_env: LOOPBACK_KEY, retries: 0, max_tokens: 200}`,
      "    guard: json_schema",
      "    guard_config:",
      "      schema: {type: object, required: [from], properties: {from: {const: anthropic}}}",
      "    output: out/by_anthropic.json",
      "  schema_file:",
      "    generator_config: {run: node gen.mjs json}",
      "    guard: json_schema",
      "    guard_config: {schema_file: schema.yml}",
      "    output: out/schema_file.json",
      "  regex:",
      "    generator_config: {run: node gen.mjs heading}",
      "    guard: regex",
      '    guard_config: {pattern: "^# ", flags: m}',
      "    output: out/regex.md",
      "  contains:",
      "    generator_config: {run: node gen.mjs words}",
      "    guard: contains",
      "    guard_config: {text: [alpha, gamma]}",
      "    output: out/contains.txt",
      "  composite:",
      "    generator_config: {run: node gen.mjs json}",
      "    guard: composite",
      "    guard_config: {policy: all_pass}",
      "    guards:",
      "      - json",
      "      - {guard: regex, guard_config: {pattern: cmd}}",
      "    output: out/composite.json",
      "",
    ].join("\n"),
  };
}

export const EVERY_KIND_PAIRS = ["by_command", "by_openai", "by_anthropic", "schema_file", "regex", "contains", "composite"];
