import { describe, expect, it } from "vitest";
import { anthropicGenerator } from "../../src/generators/anthropic.js";
import { commandGenerator } from "../../src/generators/command.js";
import { GENERATORS, getGenerator } from "../../src/generators/index.js";
import { openaiGenerator } from "../../src/generators/openai.js";
import { GeneratorError } from "../../src/model/ports.js";

describe("getGenerator", () => {
  it("finds the generators pairflow ships by name", () => {
    expect(getGenerator("command")).toBe(commandGenerator);
    expect(getGenerator("openai")).toBe(openaiGenerator);
    expect(getGenerator("anthropic")).toBe(anthropicGenerator);
    expect(Object.keys(GENERATORS).sort()).toEqual(["anthropic", "command", "openai"]);
  });

  it("names the generators that exist when the name is unknown", () => {
    expect(() => getGenerator("OllamaGenerator")).toThrow(GeneratorError);
    expect(() => getGenerator("OllamaGenerator")).toThrow('unknown generator "OllamaGenerator"; pairflow has: anthropic, command, openai');
    expect(() => getGenerator("opneai")).toThrow('did you mean "openai"?');
  });

  it("treats Object's own properties as unknown names", () => {
    expect(() => getGenerator("toString")).toThrow('unknown generator "toString"');
    expect(() => getGenerator("constructor")).toThrow(GeneratorError);
  });

  it("says to set a generator when there is none", () => {
    expect(() => getGenerator(null)).toThrow(/no generator set.*pairflow has: anthropic, command, openai/);
  });
});
