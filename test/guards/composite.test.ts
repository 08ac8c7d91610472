import { describe, expect, it } from "vitest";
import type { GuardRef } from "../../src/model/workflow.js";
import { getGuard } from "../../src/guards/index.js";
import { PyFloat } from "../../src/model/values.js";
import { GuardConfigError, type GuardRequest } from "../../src/model/ports.js";

const composite = getGuard("composite");

function request(content: string, config: Record<string, unknown>, guards?: GuardRef[]): GuardRequest {
  return { pairId: "p", content, artifactPath: "/nonexistent", config, guards, cwd: "/", env: {}, signal: new AbortController().signal };
}

const hasTitle: GuardRef = { guard: "regex", guard_config: { pattern: "^# " } };
const hasTest: GuardRef = { guard: "contains", guard_config: { text: "def test_" } };
const isJson: GuardRef = { guard: "json", guard_config: {} };
const noTodo: GuardRef = { guard: "regex", guard_config: { pattern: "TODO", must_match: false } };

describe("composite guard", () => {
  it("accepts with all_pass (the default) only when every sub-guard accepts", async () => {
    expect(await composite(request("# T\ndef test_a(): pass", {}, [hasTitle, hasTest]))).toEqual({ accepted: true, feedback: "" });
  });

  it("evaluates every sub-guard and joins the rejections' feedback, named, in order", async () => {
    const result = await composite(request("def test_a(): pass  # TODO", {}, [hasTitle, isJson, hasTest, noTodo]));
    expect(result.accepted).toBe(false);
    const lines = result.feedback.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe("[regex] the artifact must match /^# /, but it does not");
    expect(lines[1]).toMatch(/^\[json\] not valid JSON: /);
    expect(lines[2]).toBe('[regex] the artifact must not match /TODO/, but it does at line 1: "TODO"');
  });

  it("with any_pass accepts when one sub-guard accepts", async () => {
    expect((await composite(request("no title", { policy: "any_pass" }, [hasTitle, isJson, noTodo]))).accepted).toBe(true);
    expect(await composite(request("no title", { policy: "any_pass" }, [hasTitle, hasTest]))).toEqual({
      accepted: false,
      feedback: '[regex] the artifact must match /^# /, but it does not\n[contains] missing: "def test_"',
    });
  });

  it("with majority_pass needs strictly more than half: an even split rejects", async () => {
    const policy = { policy: "majority_pass" };
    // two of three accept
    expect((await composite(request("def test_a(): pass", policy, [hasTitle, hasTest, noTodo]))).accepted).toBe(true);
    // two of four accept
    const even = await composite(request("def test_a(): pass", policy, [hasTitle, hasTest, noTodo, isJson]));
    expect(even.accepted).toBe(false);
    expect(even.feedback).toMatch(/^\[regex\] .*\n\[json\] /);
  });

  it("takes sub-guards from guard_config.guards when the pair lists none, names or mappings", async () => {
    const config = { guards: ["json", { guard: "contains", guard_config: { text: "b" } }] };
    expect((await composite(request('{"b": 1}', config))).accepted).toBe(true);
    expect(await composite(request('{"a": 1}', config))).toEqual({ accepted: false, feedback: '[contains] missing: "b"' });
  });

  it("gives sub-guards plain numbers from configs that kept the source's number form", async () => {
    const slow: GuardRef = { guard: "command", guard_config: { run: "sleep 5", timeout: new PyFloat(0.2) } };
    await expect(composite(request("x", {}, [slow]))).rejects.toThrow("[command] guard error: the command guard timed out after 0.2s");
  });

  it("reports an unknown sub-guard, an empty list, a bad policy and a misconfigured sub-guard", async () => {
    const unknown = composite(request("x", {}, [isJson, { guard: "syntax", guard_config: {} }]));
    await expect(unknown).rejects.toThrow(GuardConfigError);
    await expect(composite(request("x", {}, [{ guard: "syntax", guard_config: {} }]))).rejects.toThrow(
      /unknown guard "syntax"; pairflow has: command, composite/,
    );
    await expect(composite(request("x", {}, []))).rejects.toThrow(/the composite guard lists no guards/);
    await expect(composite(request("x", {}))).rejects.toThrow(/the composite guard lists no guards/);
    await expect(composite(request("x", { policy: "most" }, [isJson]))).rejects.toThrow(
      'guard_config.policy of the composite guard must be one of all_pass, any_pass, majority_pass; found "most"',
    );
    await expect(composite(request("x", {}, [{ guard: "regex", guard_config: {} }]))).rejects.toThrow(/^\[regex\] the regex guard needs guard_config\.pattern/);
  });
});
