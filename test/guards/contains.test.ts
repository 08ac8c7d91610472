import { describe, expect, it } from "vitest";
import { containsGuard } from "../../src/guards/contains.js";
import { GuardConfigError, type GuardRequest } from "../../src/model/ports.js";

function request(content: string, config: Record<string, unknown>): GuardRequest {
  return { pairId: "p", content, artifactPath: "/nonexistent", config, cwd: "/", env: {}, signal: new AbortController().signal };
}

const content = "def test_add():\n    assert add(1, 2) == 3\n";

describe("contains guard", () => {
  it("takes a single string", async () => {
    expect(await containsGuard(request(content, { text: "def test_" }))).toEqual({ accepted: true, feedback: "" });
    expect(await containsGuard(request(content, { text: "import pytest" }))).toEqual({ accepted: false, feedback: 'missing: "import pytest"' });
  });

  it("requires every string by default and lists each one missing", async () => {
    const result = await containsGuard(request(content, { text: ["def test_", "import pytest", "@pytest.mark"] }));
    expect(result).toEqual({ accepted: false, feedback: 'missing: "import pytest", "@pytest.mark"' });
  });

  it("with all: false needs only one of them", async () => {
    expect((await containsGuard(request(content, { text: ["nope", "assert"], all: false }))).accepted).toBe(true);
    expect(await containsGuard(request(content, { text: ["nope", "never"], all: false }))).toEqual({
      accepted: false,
      feedback: 'contains none of: "nope", "never" (at least one is required)',
    });
  });

  it("rejects text listed under absent, together with what is missing", async () => {
    expect((await containsGuard(request(content, { absent: ["TODO", "pass"] }))).accepted).toBe(true);
    const result = await containsGuard(request(content + "# TODO\n", { text: ["def test_", "import pytest"], absent: ["TODO", "FIXME"] }));
    expect(result).toEqual({ accepted: false, feedback: 'missing: "import pytest"\nmust not contain: "TODO"' });
  });

  it("reports a configuration without text or absent, or with the wrong types", async () => {
    await expect(containsGuard(request(content, {}))).rejects.toThrow(GuardConfigError);
    await expect(containsGuard(request(content, {}))).rejects.toThrow(/needs guard_config\.text/);
    await expect(containsGuard(request(content, { text: ["a", 1] }))).rejects.toThrow(
      "guard_config.text of the contains guard must be a string or a list of strings; found a list",
    );
  });
});
