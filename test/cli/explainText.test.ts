/** The pure parts of `explain`: the rows comparing components now and accepted, and the text people read. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { componentRows } from "../../src/app/explain.js";
import { componentOfKey, componentsOfLock } from "../../src/model/component.js";
import type { Explanation } from "../../src/model/explain.js";
import { explainText } from "../../src/report/explain.js";

const plain = {
  bold: (s: string) => s,
  dim: (s: string) => s,
  green: (s: string) => s,
  yellow: (s: string) => s,
  red: (s: string) => s,
  cyan: (s: string) => s,
};
const key = fc.constantFrom("prompt.task", "prompt.role", "model", "input:a.md", "generator_file:lib/h.mjs", "upstream:x", "artifact:x");
const digests = fc.dictionary(key, fc.constantFrom("1111111111111111", "2222222222222222"));

describe("componentRows", () => {
  it("has one row per component now or accepted, the same exactly where the digests are", () => {
    fc.assert(
      fc.property(digests, digests, (now, accepted) => {
        const rows = componentRows({ known: componentsOfLock(now), unknown: [] }, componentsOfLock(accepted));
        const keys = new Set([...Object.keys(now), ...Object.keys(accepted)]);
        expect(rows).toHaveLength(keys.size);
        for (const k of keys) {
          const c = componentOfKey(k, "");
          const row = rows.find((r) => r.kind === c.kind && r.name === c.name)!;
          const [n, a] = [now[k] ?? null, accepted[k] ?? null];
          expect(row).toMatchObject({ now: n, accepted: a, label: c.label });
          expect(row.status).toBe(a === null ? "added" : n === null ? "removed" : n === a ? "same" : "changed");
        }
      }),
    );
  });

  it("keeps a dependency's parts unknown while it runs first, whatever was accepted", () => {
    const unknown = componentsOfLock({ "upstream:x": "", "artifact:x": "" });
    const rows = componentRows(
      { known: componentsOfLock({ model: "1111111111111111" }), unknown },
      componentsOfLock({ model: "1111111111111111", "upstream:x": "2222222222222222" }),
    );
    expect(rows.map((r) => [r.kind, r.name, r.now, r.accepted, r.status])).toEqual([
      ["artifact", "x", null, null, "unknown"],
      ["model", "", "1111111111111111", "1111111111111111", "same"],
      ["upstream", "x", null, "2222222222222222", "unknown"],
    ]);
  });
});

describe("explainText", () => {
  const base: Explanation = {
    version: 1,
    pair: "p\u001b[2J",
    workflow: { name: "w", path: "workflow.yml" },
    decision: { action: "run", reasons: [{ kind: "upstream", detail: "x will run", component: { kind: "upstream", name: "x" } }] },
    configRef: null,
    accepted: null,
    components: [{ kind: "upstream", name: "x", label: "x's reference", now: null, accepted: null, status: "unknown" }],
    artifact: { from: "generator", content: null, contentHash: null, unless: ["x"] },
    requestKey: null,
    prompt: "pairflow prompt 'p'",
    network: [],
  };

  it("says which of its commands have the network, and nothing for a pair that starts none", () => {
    expect(explainText(base, plain)).not.toContain("network");
    const both = explainText(
      {
        ...base,
        network: [
          { command: "generator", network: true },
          { command: "guard", network: false },
        ],
      },
      plain,
    );
    expect(both).toContain("network    generator has the network, guard has no network (in the sandbox; network: in its config)\n");
  });

  it("shows ids with their control characters made visible, and says what is not known yet", () => {
    const text = explainText(base, plain);
    expect(text).not.toContain("\u001b");
    expect(text).toMatch(/^p\\x1b\[2J {2}run\n {2}upstream: x will run\n/);
    expect(text).toContain("components (1: none changed, 1 not known yet)");
    expect(text).toContain("artifact   a call of its generator, unless x reproduces its content");
    expect(text).toContain("request    not known until its dependencies have run\n");
  });

  it("says where a skipped pair's artifact is read", () => {
    const skipped: Explanation = {
      ...base,
      decision: { action: "skip", reasons: [] },
      artifact: { from: "store", content: "output", contentHash: "a".repeat(64) },
      components: [],
    };
    expect(explainText(skipped, plain)).toContain("artifact   the local store's accepted artifact aaaaaaaaaaaa, read from its output file\n");
  });
});
