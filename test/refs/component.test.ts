/**
 * The one way between typed components and the lock file's keys: every key a lock file can hold
 * reads back as a component that writes the same key, every component the reference computation
 * makes writes a key that reads back as itself, and the keys are the ones lock files always had.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMPONENT_KINDS, componentKey, componentOfKey, componentsOfLock, lockComponents, type ComponentKind } from "../../src/model/component.js";
import type { OwnComponents } from "../../src/model/plan.js";
import { componentDigests, referenceComponents } from "../../src/refs/configRef.js";

const SINGLE: ComponentKind[] = ["model", "guard", "guards", "generator", "layout", "piece"];
const digest = fc.stringMatching(/^[0-9a-f]{16}$/);

/** A component as the reference computation makes them: a kind there is one of has no name. */
const typed = fc
  .record({ kind: fc.constantFrom(...COMPONENT_KINDS.filter((k) => k !== "other")), name: fc.string(), digest })
  .map((c) => (SINGLE.includes(c.kind) ? { ...c, name: "" } : c));

describe("components and lock file keys", () => {
  it("a component written as a key reads back as the same component", () => {
    fc.assert(
      fc.property(typed, (c) => {
        const back = componentOfKey(componentKey(c), c.digest);
        expect({ kind: back.kind, name: back.name, digest: back.digest }).toEqual(c);
      }),
    );
  });

  it("any key a lock file holds reads as a component that writes that key again", () => {
    const key = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom("prompt.", "input:", "upstream:", "model", "guard_config.env.", "observed:"), fc.string()).map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(fc.dictionary(key, digest), (digests) => {
        const components = componentsOfLock(digests);
        expect(lockComponents(components)).toEqual(digests);
        expect(components.map(componentKey)).toEqual(Object.keys(digests));
      }),
    );
  });

  it("keeps the keys lock files always had, one kind per part of the reference", () => {
    const expected: [string, ComponentKind, string][] = [
      ["prompt.task", "prompt", "task"],
      ["context.specification", "context", "specification"],
      ["model", "model", ""],
      ["guard", "guard", ""],
      ["guards", "guards", ""],
      ["guard_config.env.LEVEL", "guard_config", "env.LEVEL"],
      ["generator", "generator", ""],
      ["generator_config.run", "generator_config", "run"],
      ["layout", "layout", ""],
      ["piece", "piece", ""],
      ["input:src/a.py", "input", "src/a.py"],
      ["generator_file:lib/helper.mjs", "generator_file", "lib/helper.mjs"],
      ["guard_file:check.sh", "guard_file", "check.sh"],
      ["observed:data/t.csv", "observed", "data/t.csv"],
      ["upstream:g_test", "upstream", "g_test"],
      ["artifact:g_test", "artifact", "g_test"],
      ["written_by_hand", "other", "written_by_hand"],
    ];
    for (const [key, kind, name] of expected) {
      expect(componentOfKey(key, "0123456789abcdef")).toMatchObject({ kind, name });
      expect(componentKey({ kind, name })).toBe(key);
    }
    expect(new Set(expected.map(([, kind]) => kind))).toEqual(new Set(COMPONENT_KINDS));
  });

  it("labels each component in the words the plan's reasons use", () => {
    expect(componentOfKey("prompt.task", "").label).toBe("prompt.task");
    expect(componentOfKey("context.constraints", "").label).toBe("workflow constraints");
    expect(componentOfKey("generator_file:lib/helper.mjs", "").label).toBe("lib/helper.mjs");
    expect(componentOfKey("observed:data/t.csv", "").label).toBe("observed read: data/t.csv");
    expect(componentOfKey("upstream:g_test", "").label).toBe("g_test's reference");
    expect(componentOfKey("artifact:g_test", "").label).toBe("g_test's accepted content");
  });

  it("the reference's components are its lock file digests, typed", () => {
    const own: OwnComponents = {
      prompt: { task: "Write." },
      model: null,
      guard: "regex",
      guard_config: { pattern: "x" },
      generator: { name: "command", config: { run: "node gen.mjs", env: { MODE: "fast" } } },
      layout: 1,
      inputs: { "src/a.py": "a".repeat(64) },
      files: { generator: { "gen.mjs": "b".repeat(64) } },
    };
    const upstream = { refs: { z: "c".repeat(64) }, artifactHashes: { z: "d".repeat(64) } };
    const components = referenceComponents(own, upstream);
    expect(lockComponents(components)).toEqual(componentDigests(own, upstream));
    expect(Object.keys(componentDigests(own, upstream))).toEqual(Object.keys(componentDigests(own, upstream)).sort());
    expect(components.map((c) => `${c.kind} ${c.name}`)).toEqual(
      expect.arrayContaining([
        "generator_config env.MODE",
        "generator_config run",
        "generator_file gen.mjs",
        "input src/a.py",
        "upstream z",
        "artifact z",
        "layout ",
      ]),
    );
    expect(components.find((c) => c.kind === "input")!.digest).toBe("a".repeat(16));
  });
});
