import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FEEDBACK_WRAPPER,
  fenceFor,
  PROMPT_LAYOUT,
  renderPrompt,
  renderPromptParts,
  sharedPrefixes,
  wrapFeedback,
  type RenderInput,
} from "../../src/prompt/render.js";
import { sha256Hex } from "../../src/refs/hash.js";

function full(): RenderInput {
  return {
    prompt: {
      role: "You write Python tests.",
      constraints: "Use pytest only.",
      task: "Write tests for a stack.",
      feedback_wrapper: "Rejected:\n{feedback}",
    },
    specification: "A LIFO stack with push and pop.",
    constraints: "Python 3.12.",
    dependencies: [
      { id: "g_spec", content: "push(x), pop() -> x" },
      { id: "g_test", content: "def test_push():\n    pass\n" },
    ],
    history: [{ feedback: "missing pop test" }, { feedback: "syntax error on line 3" }],
  };
}

/** The top-level header lines, in the order they appear. */
function headers(out: string): string[] {
  return out.split("\n").filter((line) => /^# /.test(line));
}

describe("renderPrompt", () => {
  it("renders every section in the reference order", () => {
    const out = renderPrompt(full());
    expect(headers(out)).toEqual(["# Role", "# Constraints", "# Context", "# Dependencies", "# History", "# Task"]);
    expect(out).toBe(
      [
        "# Role",
        "",
        "You write Python tests.",
        "",
        "# Constraints",
        "",
        "Use pytest only.",
        "",
        "# Context",
        "",
        "## Specification",
        "",
        "A LIFO stack with push and pop.",
        "",
        "## Workflow constraints",
        "",
        "Python 3.12.",
        "",
        "# Dependencies",
        "",
        "## g_spec",
        "",
        "```",
        "push(x), pop() -> x",
        "```",
        "",
        "## g_test",
        "",
        "```",
        "def test_push():",
        "    pass",
        "```",
        "",
        "# History",
        "",
        "## Attempt 1",
        "",
        "Rejected:",
        "missing pop test",
        "",
        "## Attempt 2",
        "",
        "Rejected:",
        "syntax error on line 3",
        "",
        "# Task",
        "",
        "Write tests for a stack.",
      ].join("\n"),
    );
  });

  it("keeps the task last even when there is history", () => {
    const out = renderPrompt(full());
    expect(out.indexOf("# History")).toBeLessThan(out.indexOf("# Task"));
    expect(out.endsWith("Write tests for a stack.")).toBe(true);
  });

  it("puts the specification before the workflow constraints in the context", () => {
    const out = renderPrompt(full());
    expect(out.indexOf("## Specification")).toBeLessThan(out.indexOf("## Workflow constraints"));
  });

  it("omits empty sections entirely", () => {
    const out = renderPrompt({
      prompt: { task: "Do it." },
      dependencies: [],
      history: [],
    });
    expect(out).toBe("# Task\n\nDo it.");
  });

  it("treats missing, empty and whitespace-only fields as absent", () => {
    const out = renderPrompt({
      prompt: { role: "", constraints: "  \n\t\n", task: "Do it." },
      specification: "   ",
      constraints: "",
      dependencies: [],
      history: [],
    });
    expect(headers(out)).toEqual(["# Task"]);
    expect(out).not.toContain("# Role");
    expect(out).not.toContain("# Constraints");
    expect(out).not.toContain("# Context");
  });

  it("renders only the part of the context that is present", () => {
    const specOnly = renderPrompt({ prompt: undefined, specification: "Spec.", dependencies: [], history: [] });
    expect(specOnly).toBe("# Context\n\n## Specification\n\nSpec.");
    const consOnly = renderPrompt({ prompt: undefined, constraints: "Cons.", dependencies: [], history: [] });
    expect(consOnly).toBe("# Context\n\n## Workflow constraints\n\nCons.");
  });

  it("returns an empty string when there is nothing to render", () => {
    expect(renderPrompt({ prompt: undefined, dependencies: [], history: [] })).toBe("");
    expect(renderPrompt({ prompt: {}, dependencies: [], history: [] })).toBe("");
  });

  it("trims surrounding blank lines but keeps indentation", () => {
    const out = renderPrompt({
      prompt: { task: "\n\n    indented first line\n  second\n\n\n" },
      dependencies: [],
      history: [],
    });
    expect(out).toBe("# Task\n\n    indented first line\n  second");
  });
});

describe("history and feedback_wrapper", () => {
  it("replaces every {feedback} and leaves other braces alone", () => {
    const out = renderPrompt({
      prompt: { feedback_wrapper: "{feedback} | again: {feedback} | {other} {{feedback}} {0} { feedback }" },
      dependencies: [],
      history: [{ feedback: "FB" }],
    });
    expect(out).toBe("# History\n\n## Attempt 1\n\nFB | again: FB | {other} {FB} {0} { feedback }");
  });

  it("does not treat $ patterns or braces in the feedback specially", () => {
    expect(wrapFeedback("<{feedback}>", "$& $1 $$ $` {feedback} {x}")).toBe("<$& $1 $$ $` {feedback} {x}>");
  });

  it("uses the default wrapper when none is given", () => {
    for (const prompt of [undefined, {}, { feedback_wrapper: "" }, { feedback_wrapper: "  " }]) {
      const out = renderPrompt({ prompt, dependencies: [], history: [{ feedback: "bad" }] });
      expect(out).toBe(`# History\n\n## Attempt 1\n\n${DEFAULT_FEEDBACK_WRAPPER.replace("{feedback}", "bad")}`);
    }
    expect(DEFAULT_FEEDBACK_WRAPPER).toContain("{feedback}");
  });

  it("numbers attempts oldest first", () => {
    const out = renderPrompt({
      prompt: { feedback_wrapper: "{feedback}" },
      dependencies: [],
      history: [{ feedback: "first" }, { feedback: "second" }, { feedback: "third" }],
    });
    expect(out).toBe("# History\n\n## Attempt 1\n\nfirst\n\n## Attempt 2\n\nsecond\n\n## Attempt 3\n\nthird");
  });

  it("keeps an attempt whose wrapped feedback is empty", () => {
    const out = renderPrompt({
      prompt: { feedback_wrapper: "{feedback}" },
      dependencies: [],
      history: [{ feedback: "" }, { feedback: "x" }],
    });
    expect(out).toBe("# History\n\n## Attempt 1\n\n## Attempt 2\n\nx");
  });
});

describe("dependencies", () => {
  it("labels each artifact by pair id, ordered by id whatever the order of requires", () => {
    const a = { id: "g_a", content: "A" };
    const b = { id: "g_b", content: "B" };
    const out = renderPrompt({ prompt: undefined, dependencies: [b, a], history: [] });
    expect(out).toBe("# Dependencies\n\n## g_a\n\n```\nA\n```\n\n## g_b\n\n```\nB\n```");
    expect(renderPrompt({ prompt: undefined, dependencies: [a, b], history: [] })).toBe(out);
  });

  it("fences content holding ``` fences and # headers with a longer fence", () => {
    const content = "# Not a section\n\n```python\nprint('hi')\n```\n\n## Also not a section\n";
    const out = renderPrompt({ prompt: { task: "T" }, dependencies: [{ id: "g_doc", content }], history: [] });
    expect(out).toBe(`# Dependencies\n\n## g_doc\n\n\`\`\`\`\n${content}\`\`\`\`\n\n# Task\n\nT`);
    // Outside the fenced block, the only headers are the renderer's own.
    const outside = out.replace(/^````\n[\s\S]*?^````$/m, "");
    expect(headers(outside)).toEqual(["# Dependencies", "# Task"]);
  });

  it("picks a fence longer than the longest backtick run", () => {
    expect(fenceFor("")).toBe("```");
    expect(fenceFor("a `b` c")).toBe("```");
    expect(fenceFor("``")).toBe("```");
    expect(fenceFor("```")).toBe("````");
    expect(fenceFor("x ``````` y ``")).toBe("````````");
    const content = "`````\ninside\n`````";
    const out = renderPrompt({ prompt: undefined, dependencies: [{ id: "g", content }], history: [] });
    expect(out).toBe(`# Dependencies\n\n## g\n\n\`\`\`\`\`\`\n${content}\n\`\`\`\`\`\``);
  });

  it("keeps artifact content byte for byte, including an empty artifact", () => {
    const content = "  leading spaces\n\n\ntrailing spaces   \n\n";
    const out = renderPrompt({
      prompt: undefined,
      dependencies: [
        { id: "g_ws", content },
        { id: "g_empty", content: "" },
      ],
      history: [],
    });
    expect(out).toBe(`# Dependencies\n\n## g_empty\n\n\`\`\`\n\`\`\`\n\n## g_ws\n\n\`\`\`\n${content}\`\`\``);
  });
});

describe("determinism and unicode", () => {
  it("gives byte-identical output for identical input", () => {
    const a = renderPrompt(full());
    const b = renderPrompt(full());
    expect(Buffer.from(a, "utf8").equals(Buffer.from(b, "utf8"))).toBe(true);
    // Rendering does not change the input.
    const input = full();
    const snapshot = JSON.stringify(input);
    renderPrompt(input);
    expect(JSON.stringify(input)).toBe(snapshot);
  });

  it("preserves unicode exactly, without normalising it", () => {
    const decomposed = "e\u0301"; // e + combining acute, must not become U+00E9
    const input: RenderInput = {
      prompt: {
        role: "Rôle: 開発者 🧪",
        task: `Écris ${decomposed} — עברית — 👩‍💻`,
        feedback_wrapper: "⚠️ {feedback} ⚠️",
      },
      specification: "Spécification ∀x∈ℝ",
      dependencies: [{ id: "g_ünï", content: "naïve = '🐍'\n" }],
      history: [{ feedback: "échec 💥" }],
    };
    const out = renderPrompt(input);
    expect(out).toContain("Rôle: 開発者 🧪");
    expect(out).toContain(`Écris ${decomposed} — עברית — 👩‍💻`);
    expect(out).toContain("Spécification ∀x∈ℝ");
    expect(out).toContain("## g_ünï\n\n```\nnaïve = '🐍'\n```");
    expect(out).toContain("⚠️ échec 💥 ⚠️");
    expect(out.normalize("NFC")).not.toBe(out);
  });
});

describe("PROMPT_LAYOUT", () => {
  // The layout version is part of the reference of every pair with a generator, so artifacts made
  // from prompts rendered another way are not reused. When this fails, the same input now renders
  // differently: raise PROMPT_LAYOUT in src/prompt/render.ts and add the new digest here.
  const RENDERED: Record<number, string> = {
    1: "9bec754528c94badb935f2c691ac089db68af967df4b4252e52115f1bdae5d3f",
  };

  it("is raised whenever the same input renders differently", () => {
    const samples: RenderInput[] = [
      full(),
      { ...full(), prompt: { task: "T" } }, // the default feedback_wrapper
      {
        prompt: { role: "\n  R  \n" },
        dependencies: [
          { id: "g_z", content: "```\nz" },
          { id: "g_y", content: "" },
        ],
        history: [],
      },
    ];
    expect(sha256Hex(samples.map(renderPrompt).join("\u0000"))).toBe(RENDERED[PROMPT_LAYOUT]);
  });
});

describe("the part of a prompt other pairs share", () => {
  const line = fc.string({ maxLength: 12 });
  const optional = fc.option(line, { nil: undefined });
  const ids = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d"), { maxLength: 3 });
  const input = fc.record({
    prompt: fc.record({ role: optional, constraints: optional, task: optional }),
    specification: optional,
    constraints: optional,
    dependencies: ids.chain((list) => fc.tuple(...list.map((id) => fc.record({ id: fc.constant(id), content: line })))),
    history: fc.array(fc.record({ feedback: line }), { maxLength: 2 }),
  });

  it("is the text itself, cut where role, constraints, context and each dependency end", () => {
    fc.assert(
      fc.property(input, (i) => {
        const { text, prefixEnds } = renderPromptParts(i);
        expect(text).toBe(renderPrompt(i));
        const sorted = [...i.dependencies].sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(prefixEnds).toHaveLength(sorted.length + 1);
        prefixEnds.forEach((end, k) => {
          // What the prompt begins with is the prompt of that much alone.
          const alone = renderPrompt({
            ...i,
            prompt: { role: i.prompt.role, constraints: i.prompt.constraints },
            dependencies: sorted.slice(0, k),
            history: [],
          });
          expect(text.slice(0, end)).toBe(alone);
        });
      }),
    );
  });

  it("is found from the plan alone, and every pair found to share it renders the same beginning", () => {
    const pair = fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      prompt: fc.record({ role: fc.constantFrom(undefined, "R1", "R2"), task: line }),
      requires: ids,
    });
    fc.assert(
      fc.property(fc.uniqueArray(pair, { selector: (p) => p.id, maxLength: 8 }), optional, (pairs, specification) => {
        const shared = sharedPrefixes(pairs, { specification });
        const contents: Record<string, string> = { a: "A", b: "B\n", c: "```", d: "" };
        const rendered = pairs.map((p) => {
          const r = renderPromptParts({ prompt: p.prompt, specification, dependencies: p.requires.map((id) => ({ id, content: contents[id]! })), history: [] });
          const depth = shared.get(p.id);
          return { id: p.id, prefix: depth === undefined ? undefined : r.text.slice(0, r.prefixEnds[depth]) };
        });
        for (const r of rendered) {
          if (r.prefix === undefined) continue;
          expect(r.prefix).not.toBe("");
          // Someone else's prompt begins with exactly that.
          expect(rendered.some((o) => o.id !== r.id && o.prefix !== undefined && o.prefix.startsWith(r.prefix!))).toBe(true);
        }
      }),
    );
  });

  it("is the context for foreach instances with one role, and runs through a dependency they all read", () => {
    const instances = ["x", "y", "z"].map((item) => ({ id: `t[${item}]`, prompt: { role: "Translate.", task: item }, requires: ["glossary", `src[${item}]`] }));
    expect(sharedPrefixes([...instances, { id: "lone", prompt: { role: "Other." }, requires: [] }], { specification: "S" })).toEqual(
      new Map(instances.map((p) => [p.id, 1])),
    );
    expect(
      sharedPrefixes(
        [
          { id: "a", prompt: undefined, requires: [] },
          { id: "b", prompt: undefined, requires: [] },
        ],
        {},
      ),
    ).toEqual(new Map());
  });
});
