import { describe, expect, it } from "vitest";
import { GUARDS, getGuard, knownGuard } from "../../src/guards/index.js";
import { GuardConfigError } from "../../src/model/ports.js";

describe("guard registry", () => {
  it("finds each guard by name", () => {
    expect(Object.keys(GUARDS).sort()).toEqual(["command", "composite", "contains", "json", "json_schema", "regex"]);
    expect(getGuard("json_schema")).toBe(GUARDS.json_schema);
    expect(knownGuard("regex")).toBe(true);
    expect(knownGuard("dynamic_test")).toBe(false);
    expect(knownGuard("toString")).toBe(false);
  });

  it("names the guards that exist when asked for one that does not", () => {
    expect(() => getGuard("dynamic_test")).toThrow(GuardConfigError);
    expect(() => getGuard("dynamic_test")).toThrow('unknown guard "dynamic_test"; pairflow has: command, composite, contains, json, json_schema, regex');
    expect(() => getGuard("toString")).toThrow(/unknown guard "toString"/);
  });

  it("suggests the likely intended guard for a typo", () => {
    expect(() => getGuard("jsonschema")).toThrow(/\(did you mean "json_schema"\?\)$/);
  });

  it("says a pair without a guard must name one", () => {
    expect(() => getGuard(null)).toThrow("the pair names no guard; set guard to one of: command, composite, contains, json, json_schema, regex");
  });
});
