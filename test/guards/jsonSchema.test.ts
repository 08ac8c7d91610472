import { describe, expect, it } from "vitest";
import { jsonSchemaGuard } from "../../src/guards/jsonSchema.js";
import { GuardConfigError, type GuardRequest } from "../../src/model/ports.js";
import { tempRepo } from "../helpers/fixtures.js";

function request(content: string, config: Record<string, unknown>, cwd = "/"): GuardRequest {
  return { pairId: "p", content, artifactPath: "/nonexistent", config, cwd, env: {}, signal: new AbortController().signal };
}

const schema = {
  type: "object",
  required: ["name", "tests"],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    tests: { type: "array", items: { type: "integer" } },
    level: { enum: ["low", "high"] },
  },
};

describe("json_schema guard", () => {
  it("accepts JSON the schema accepts", async () => {
    expect(await jsonSchemaGuard(request('{"name": "x", "tests": [1, 2]}', { schema }))).toEqual({ accepted: true, feedback: "" });
  });

  it("lists every violation with where it is", async () => {
    const result = await jsonSchemaGuard(request('{"tests": [1, "two", 3.5], "extra": true, "level": "mid"}', { schema }));
    expect(result.accepted).toBe(false);
    expect(result.feedback.split("\n").sort()).toEqual(
      [
        "JSON does not match the schema:",
        "(root): must have required property 'name'",
        '(root): must NOT have additional properties ("extra")',
        "/tests/1: must be integer",
        "/tests/2: must be integer",
        '/level: must be equal to one of the allowed values: "low", "high"',
      ].sort(),
    );
  });

  it("rejects content that is not JSON with the parse error", async () => {
    const result = await jsonSchemaGuard(request("name: x", { schema }));
    expect(result.accepted).toBe(false);
    expect(result.feedback).toMatch(/^not valid JSON: /);
  });

  it("reads schema_file relative to the workflow directory, as YAML or JSON", async () => {
    const dir = tempRepo({
      "schemas/out.yml": "type: object\nrequired: [name]\n",
      "schemas/out.json": JSON.stringify({ type: "array" }),
    });
    expect((await jsonSchemaGuard(request('{"name": 1}', { schema_file: "schemas/out.yml" }, dir))).accepted).toBe(true);
    expect(await jsonSchemaGuard(request("{}", { schema_file: "schemas/out.yml" }, dir))).toEqual({
      accepted: false,
      feedback: "JSON does not match the schema:\n(root): must have required property 'name'",
    });
    expect((await jsonSchemaGuard(request("[]", { schema_file: "schemas/out.json" }, dir))).accepted).toBe(true);
    await expect(jsonSchemaGuard(request("{}", { schema_file: "schemas/missing.yml" }, dir))).rejects.toThrow(
      /cannot read guard_config\.schema_file schemas\/missing\.yml/,
    );
  });

  it("reports a missing or invalid schema as a configuration error", async () => {
    await expect(jsonSchemaGuard(request("{}", {}))).rejects.toThrow(GuardConfigError);
    await expect(jsonSchemaGuard(request("{}", {}))).rejects.toThrow(/set guard_config\.schema .* or guard_config\.schema_file/);
    await expect(jsonSchemaGuard(request("{}", { schema: { type: "objekt" } }))).rejects.toThrow(/schema is not a valid JSON Schema/);
    await expect(jsonSchemaGuard(request("{}", { schema: "object" }))).rejects.toThrow(GuardConfigError);
  });
});
