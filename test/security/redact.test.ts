/**
 * The cleaning of what commands print: every secret, as it is, broken over lines, or in base64 at
 * any alignment, becomes `***`; text without a secret stays as it is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64Forms, MIN_SECRET_LENGTH, REDACTED, redactor } from "../../src/model/redact.js";
import { childEnvironments } from "../../src/app/environment.js";
import type { Workflow } from "../../src/model/workflow.js";

const secretArb = fc
  .string({ minLength: MIN_SECRET_LENGTH, maxLength: 40, unit: "grapheme-ascii" })
  .filter((s) => s.trim().length >= MIN_SECRET_LENGTH && !/[\r\n]/.test(s));
const textArb = fc.string({ maxLength: 60, unit: "grapheme" });

describe("redaction", () => {
  it("removes a secret wherever it stands in a text, and leaves no part of it that identifies it", () => {
    fc.assert(
      fc.property(secretArb, textArb, textArb, (secret, before, after) => {
        const out = redactor([secret])(before + secret + after);
        expect(out).not.toContain(secret);
        expect(out).toContain(REDACTED);
      }),
    );
  });

  it("removes it broken over lines anywhere", () => {
    fc.assert(
      fc.property(secretArb, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), fc.constantFrom("\n", "\r\n"), (secret, cuts, eol) => {
        const chars = [...secret];
        const at = [...new Set(cuts.map((c) => 1 + (c % (chars.length - 1))))].sort((a, b) => b - a);
        for (const i of at) chars.splice(i, 0, eol);
        const printed = `log: ${chars.join("")} end`;
        expect(redactor([secret])(printed)).toBe(`log: ${REDACTED} end`);
      }),
    );
  });

  it("removes its base64 at any alignment, within a longer base64 text", () => {
    fc.assert(
      fc.property(secretArb, fc.uint8Array({ maxLength: 5 }), fc.uint8Array({ maxLength: 5 }), (secret, before, after) => {
        const encoded = Buffer.concat([Buffer.from(before), Buffer.from(secret), Buffer.from(after)]).toString("base64");
        const out = redactor([secret])(encoded);
        expect(out).toContain(REDACTED);
        // What is left identifies nothing: no run of the secret's own base64 survives.
        for (const form of base64Forms(secret)) expect(out).not.toContain(form);
      }),
    );
  });

  it("leaves a text without secrets as it is, and ignores values too short to be one", () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(redactor([])(text)).toBe(text);
        expect(redactor(["true", "main", "x"])(text)).toBe(text);
      }),
    );
  });

  it("takes the credentials a run withholds, its provider keys included, and not the other variables", () => {
    const workflow = { pairs: new Map([["a", { generatorConfig: { api_key_env: "MY_MODEL_KEY" } }]]) } as unknown as Workflow;
    const env = {
      GITHUB_TOKEN: "ghs_token_value",
      ACTIONS_RUNTIME_TOKEN: "runtime-token-value",
      "INPUT_GITHUB-TOKEN": "input-token-value",
      INPUT_PATH: "examples/tdd-stack",
      MY_MODEL_KEY: "model-key-value",
      NPM_TOKEN: "npm-token-value",
      GITHUB_ENV: "/home/runner/work/_temp/_runner_file_commands/set_env",
      HOME: "/home/runner",
      PAIRFLOW_PASS_ENV: "NPM_TOKEN",
    };
    const { generator, guard, secrets } = childEnvironments(env, workflow);
    expect(secrets.sort()).toEqual(["ghs_token_value", "input-token-value", "model-key-value", "npm-token-value", "runtime-token-value"]);
    expect(Object.keys(guard).sort()).toEqual(["HOME", "NPM_TOKEN", "PAIRFLOW_PASS_ENV"]);
    expect(Object.keys(generator).sort()).toEqual(["HOME", "MY_MODEL_KEY", "NPM_TOKEN", "PAIRFLOW_PASS_ENV"]);
  });
});
