/**
 * A workflow that uses every built-in guard and every generator: command, and openai and anthropic
 * against a loopback model service. Every pair's first attempt is wrong and its second right, so a
 * run shows each guard both rejecting and accepting: two attempts a pair. The command generator and
 * guard are shell scripts: what they test is pairflow's handling of commands, not Node's start.
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
    "gen.sh": [
      "# Answers for the kind named on the command line: wrong on attempt 1, right on attempt 2.",
      'if [ "$PAIRFLOW_ATTEMPT" = 1 ]; then',
      "  case $1 in json) printf '{broken' ;; heading) printf 'no heading\\n' ;; words) printf 'alpha only\\n' ;; esac",
      "else",
      "  case $1 in json) printf '{\"name\": \"cmd\", \"n\": 1}' ;; heading) printf '# Title\\n\\nbody\\n' ;; words) printf 'alpha beta gamma\\n' ;; esac",
      "fi",
      "",
    ].join("\n"),
    "check.sh": [
      "# A command guard: the artifact must mention n.",
      'grep -q \'"n"\' "$PAIRFLOW_ARTIFACT" || { echo "no n in the artifact"; exit 1; }',
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
      "    generator_config: {run: sh gen.sh json}",
      "    guard: command",
      "    guard_config: {run: sh check.sh}",
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
      "    generator_config: {run: sh gen.sh json}",
      "    guard: json_schema",
      "    guard_config: {schema_file: schema.yml}",
      "    output: out/schema_file.json",
      "  regex:",
      "    generator_config: {run: sh gen.sh heading}",
      "    guard: regex",
      '    guard_config: {pattern: "^# ", flags: m}',
      "    output: out/regex.md",
      "  contains:",
      "    generator_config: {run: sh gen.sh words}",
      "    guard: contains",
      "    guard_config: {text: [alpha, gamma]}",
      "    output: out/contains.txt",
      "  composite:",
      "    generator_config: {run: sh gen.sh json}",
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
