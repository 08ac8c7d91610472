import { describe, expect, it } from "vitest";
import { regexGuard } from "../../src/guards/regex.js";
import { GuardConfigError, type GuardRequest } from "../../src/model/ports.js";

function request(content: string, config: Record<string, unknown>): GuardRequest {
  return { pairId: "p", content, artifactPath: "/nonexistent", config, cwd: "/", env: {}, signal: new AbortController().signal };
}

describe("regex guard", () => {
  it("accepts a matching artifact and names the pattern when it does not match", async () => {
    expect(await regexGuard(request("# Title\nbody", { pattern: "^# \\w+" }))).toEqual({ accepted: true, feedback: "" });
    expect(await regexGuard(request("Title\nbody", { pattern: "^# \\w+" }))).toEqual({
      accepted: false,
      feedback: "the artifact must match /^# \\w+/, but it does not",
    });
  });

  it("applies flags", async () => {
    expect((await regexGuard(request("intro\n# Title", { pattern: "^# ", flags: "m" }))).accepted).toBe(true);
    expect((await regexGuard(request("intro\n# Title", { pattern: "^# " }))).accepted).toBe(false);
    expect((await regexGuard(request("HELLO", { pattern: "hello", flags: "i" }))).accepted).toBe(true);
  });

  it("with must_match: false rejects a match, saying where and what matched", async () => {
    const config = { pattern: "TODO\\S*", must_match: false };
    expect(await regexGuard(request("all done", config))).toEqual({ accepted: true, feedback: "" });
    expect(await regexGuard(request("line one\nline two\nsee TODO(me) later", config))).toEqual({
      accepted: false,
      feedback: 'the artifact must not match /TODO\\S*/, but it does at line 3: "TODO(me)"',
    });
  });

  it("reports configuration mistakes as GuardConfigErrors naming the key", async () => {
    await expect(regexGuard(request("x", {}))).rejects.toThrow(GuardConfigError);
    await expect(regexGuard(request("x", {}))).rejects.toThrow(/needs guard_config\.pattern/);
    await expect(regexGuard(request("x", { pattern: "(" }))).rejects.toThrow(/guard_config\.pattern .* not a valid regular expression/);
    await expect(regexGuard(request("x", { pattern: "x", flags: "q" }))).rejects.toThrow(GuardConfigError);
    await expect(regexGuard(request("x", { pattern: "x", must_match: "no" }))).rejects.toThrow(
      'guard_config.must_match of the regex guard must be true or false; found string "no"',
    );
  });
});
