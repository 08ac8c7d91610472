/**
 * The diff reads both sides' workflow and prompts files by the fast path where it can: the values it
 * shows must be the very ones the positioned parse gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument, stringify } from "yaml";
import { parseYaml } from "../../src/diff/diff.js";
import { fastYaml } from "../../src/config/yamlFast.js";

function positioned(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message);
  return doc.toJS({ maxAliasCount: 10_000 });
}

function slow(text: string): unknown {
  fastYaml.enabled = false;
  try {
    return parseYaml(text);
  } finally {
    fastYaml.enabled = true;
  }
}

describe("the diff's reading of a workflow", () => {
  it("gives the positioned parse's values for random documents in YAML's many styles", () => {
    const scalar = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.constantFrom(1.0, 2e20, 0.1, 1e-7, 2 ** 53 + 2, "1.0", "true", "null", "~", "0x1F", "0o17", "yes", "", "a: b", "- x", "#x"),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 })),
    }));
    const style = fc.constantFrom("PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE", "BLOCK_LITERAL") as fc.Arbitrary<"PLAIN">;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), value, { minKeys: 1, maxKeys: 6 }),
        style,
        fc.constantFrom("block", "flow") as fc.Arbitrary<"block">,
        (doc, defaultStringType, collectionStyle) => {
          const text = stringify(doc, { defaultStringType, collectionStyle, aliasDuplicateObjects: false });
          expect(parseYaml(text)).toStrictEqual(positioned(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads what the fast path declines (anchors, tags, duplicate keys) as the positioned parse does, and reports what does not parse", () => {
    for (const text of ["a: &x {b: 1}\nc: *x", "a: !!str 1", "a: 1\na: 2", "- list", "a: 1.0\nb: 0x10\nc: .inf"]) {
      expect(parseYaml(text)).toStrictEqual(positioned(text));
      expect(slow(text)).toStrictEqual(positioned(text));
    }
    expect(() => parseYaml("a: [b")).toThrow();
  });
});
