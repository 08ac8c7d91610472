import { describe, expect, it } from "vitest";
import { jsonGuard } from "../../src/guards/json.js";
import type { GuardRequest } from "../../src/model/ports.js";

function request(content: string): GuardRequest {
  return { pairId: "p", content, artifactPath: "/nonexistent", config: {}, cwd: "/", env: {}, signal: new AbortController().signal };
}

describe("json guard", () => {
  it("accepts a JSON document, surrounding whitespace included", async () => {
    expect(await jsonGuard(request('\n  {"a": [1, 2, null]}\n'))).toEqual({ accepted: true, feedback: "" });
    expect((await jsonGuard(request("42"))).accepted).toBe(true);
  });

  it("points at the line and column of a syntax error, counted in the artifact as written", async () => {
    const result = await jsonGuard(request('\n{\n  "a": 1,\n  "b": 2,\n}\n'));
    expect(result.accepted).toBe(false);
    expect(result.feedback).toMatch(/^not valid JSON: .+ at line 5, column 1$/);
  });

  it("locates a document that stops early at its end", async () => {
    const result = await jsonGuard(request('{\n  "a": '));
    expect(result.accepted).toBe(false);
    // The wording is V8's and varies between Node versions; the place is ours.
    expect(result.feedback).toMatch(/^not valid JSON: .+ at line 2, column 7$/);
  });

  it("rejects JSON inside a Markdown fence: whatever reads the artifact needs bare JSON", async () => {
    const result = await jsonGuard(request('```json\n{"a": 1}\n```'));
    expect(result.accepted).toBe(false);
    expect(result.feedback).toMatch(/^not valid JSON: /);
  });

  it("rejects an empty artifact saying so", async () => {
    expect(await jsonGuard(request("  \n"))).toEqual({ accepted: false, feedback: "not valid JSON: the artifact is empty" });
  });
});
