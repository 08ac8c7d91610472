import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandGuard } from "../../src/guards/command.js";
import { feedbackOf, tail } from "../../src/guards/feedback.js";
import { tempRepo } from "../helpers/fixtures.js";

/** Real output of each tool (test/fixtures/guard-output/README.md says how each was produced). */
const fixture = (name: string) => readFileSync(new URL(`../fixtures/guard-output/${name}`, import.meta.url), "utf8");

const lines = (text: string) => text.split("\n");
const OMITTED = "[earlier output omitted]\n";
/** Whether `text` is in one of the first `n` lines. */
const inFirst = (feedback: string, n: number, text: string) =>
  lines(feedback)
    .slice(0, n)
    .some((l) => l.includes(text));

/** What a runner prints besides its failures: none of it belongs in the feedback. */
const NOISE = ["node:internal", "node_modules", "duration_ms", "generatedMessage", "ERR_TEST_FAILURE", "\x1b["];

const cases: {
  file: string;
  /** In the first five lines: the failing test and its assertion, with the values. */
  first: string[];
  /** Further down: the other failures, and where they happened. */
  also: string[];
  /** Never: passing tests, banners, the runner's progress. */
  never: string[];
}[] = [
  {
    file: "node-test-spec.txt",
    first: ["✖ adds", "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal", "-1 !== 3"],
    also: [
      "add.test.mjs:10:10",
      "✖ adds lists",
      "✖ is commutative",
      "-1 !== 1",
      "TypeError [Error]: Cannot read properties of undefined",
      "add.test.mjs:27:17",
      "tests 6, fail 4",
    ],
    never: ["adds zero", "subtracts", "failing tests:", "test at add.test.mjs", "ℹ pass"],
  },
  {
    file: "node-test-tap.txt",
    first: ["not ok 2 - adds", "Expected values to be strictly equal", "-1 !== 3"],
    also: ["add.test.mjs:10:10", "not ok 3 - adds lists", "not ok 1 - is commutative", "tests 6, fail 4"],
    never: ["adds zero", "subtracts", "TAP version", "# Subtest", "not ok 5 - add", "subtests failed"],
  },
  {
    file: "vitest.txt",
    first: ["FAIL  add.test.ts > add > adds", "AssertionError: expected -1 to be 3"],
    also: [
      "- 3\n+ -1",
      "❯ add.test.ts:9:23",
      "expect(add(1, 2)).toBe(3)",
      "FAIL  add.test.ts > add > adds lists",
      "to deeply equal [ 2, 4 ]",
      "Tests 2 failed | 2 passed (4)",
    ],
    never: ["adds zero", "subtracts", "RUN", "v4.1.12", "Duration", "Start at", "Failed Tests 2"],
  },
  {
    file: "vitest-color.txt",
    first: ["FAIL  add.test.ts > add > adds", "AssertionError: expected -1 to be 3"],
    also: ["- 3\n+ -1", "❯ add.test.ts:9:23", "FAIL  add.test.ts > add > adds lists", "Tests 2 failed | 2 passed (4)"],
    never: ["adds zero", "subtracts", "RUN", "Duration"],
  },
  {
    file: "vitest-import-error.txt",
    first: ["FAIL  broken.test.ts [ broken.test.ts ]", "Error: Cannot find module './sub' imported from /tmp/fb/vitest/broken.test.ts", "❯ broken.test.ts:2:1"],
    also: [`import { sub } from "./sub";`, "Test Files 1 failed (1)"],
    never: ["RUN", "(0 test)", "Failed Suites", "describe("],
  },
  {
    file: "jest.txt",
    first: ["● add › adds", "expect(received).toBe(expected)", "Expected: 3", "Received: -1"],
    also: [">  8 |     expect(add(1, 2)).toBe(3);", "add.test.js:8:23", "● add › adds lists", "Tests: 2 failed, 2 passed, 4 total"],
    never: ["adds zero", "subtracts", "Snapshots", "Ran all test suites", "7 |"],
  },
  {
    file: "pytest.txt",
    first: [
      "FAILED test_calc.py::test_adds - assert -1 == 3",
      "FAILED test_calc.py::test_adds_lists - assert [0, 0] == [2, 4]",
      "FAILED test_calc.py::test_strings",
    ],
    also: [
      "E       assert -1 == 3",
      "test_calc.py:9: AssertionError",
      "E       TypeError: unsupported operand type(s) for -: 'str' and 'str'",
      "calc.py:2: TypeError",
      "3 failed, 2 passed in 2.03s",
    ],
    never: ["test_adds_zero", "test_subtracts", "test session starts", "platform linux", "rootdir", ".FF.F", "def test_adds():"],
  },
  {
    file: "pytest-verbose.txt",
    first: ["FAILED test_calc.py::test_adds - assert -1 == 3"],
    also: ["E       assert -1 == 3", "3 failed, 2 passed"],
    never: ["PASSED", "test_adds_zero", "[ 20%]", "cachedir", "collecting"],
  },
  {
    file: "pytest-collection-error.txt",
    first: [
      "ERROR test_broken.py",
      "ERROR collecting test_broken.py",
      "test_broken.py:1: in <module>",
      "E   ImportError: cannot import name 'sub' from 'calc'",
    ],
    also: ["1 error in 0.20s"],
    never: ["importlib", "test session starts", "Interrupted", "Hint"],
  },
  {
    file: "pytest-junit.xml",
    first: ["FAIL test_calc > test_adds", "E       assert -1 == 3"],
    also: ["test_calc.py:9: AssertionError", "FAIL test_calc > test_adds_lists", "FAIL test_calc > test_strings", "E       TypeError"],
    never: ["test_adds_zero", "test_subtracts", "<?xml", "<testcase", "&gt;", "&#10;"],
  },
  {
    file: "vitest-junit.xml",
    first: ["FAIL add.test.ts > add > adds", "AssertionError: expected -1 to be 3 // Object.is equality", "- Expected"],
    also: ["❯ add.test.ts:9:23", "FAIL add.test.ts > add > adds lists", "AssertionError: expected [ +0, +0 ] to deeply equal [ 2, 4 ]"],
    never: ["adds zero", "subtracts", "<testsuite", "&gt;"],
  },
  {
    file: "tsc.txt",
    first: [
      "add.ts(5,37): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
      "add.ts(6,14): error TS2322",
      "add.ts(7,13): error TS2552: Cannot find name 'totl'. Did you mean 'total'?",
    ],
    also: [],
    never: [],
  },
  {
    file: "tsc-pretty.txt",
    first: ["add.ts:5:37 - error TS2345: Argument of type 'string' is not assignable", `export const total: number = add(1, "2");`, "~~~"],
    also: ["add.ts:6:14 - error TS2322", "add.ts:7:13 - error TS2552", "Found 3 errors in the same file"],
    never: [],
  },
  {
    file: "eslint.txt",
    first: [
      "/tmp/fb/eslint/add.js",
      "3:9   error    'unused' is assigned a value but never used     no-unused-vars",
      "4:11  error    Expected '===' and instead saw '=='",
    ],
    also: ["2:7   warning  'sum' is never reassigned", "/tmp/fb/eslint/sub.js", "2:14  error  'c' is not defined", "✖ 6 problems (5 errors, 1 warning)"],
    never: ["clean.js", "potentially fixable"],
  },
];

describe("feedbackOf: what a rejection says", () => {
  it.each(cases)("leads with the failing assertion of $file and leaves out passing tests and banners", ({ file, first, also, never }) => {
    const feedback = feedbackOf(fixture(file));
    for (const text of first) expect(inFirst(feedback, 5, text), `"${text}" in the first lines of:\n${feedback}`).toBe(true);
    for (const text of also) expect(feedback).toContain(text);
    for (const text of [...never, ...NOISE]) expect(feedback).not.toContain(text);
    expect(lines(feedback).length).toBeLessThanOrEqual(40);
    expect(feedback.length).toBeLessThanOrEqual(4000);
  });

  it("reads each tool's part of an output that has more than one", () => {
    const feedback = feedbackOf(`${fixture("eslint.txt")}\n${fixture("vitest.txt")}`);
    expect(lines(feedback)[0]).toBe("/tmp/fb/eslint/add.js");
    expect(feedback).toContain("FAIL  add.test.ts > add > adds\nAssertionError: expected -1 to be 3 // Object.is equality");
    expect(feedback).toMatch(/✖ 6 problems \(5 errors, 1 warning\)\nTests 2 failed \| 2 passed \(4\)$/);
    expect(feedback).not.toContain("adds zero");
  });

  it("whatever the output, stays within 40 lines and 4000 characters (and the mark of a cut)", () => {
    const pool = cases.flatMap(({ file }) => lines(fixture(file)));
    const line = fc.oneof(
      fc.constantFrom(...pool),
      fc.string({ maxLength: 500 }),
      fc.constantFrom(" FAIL  a.ts > b", "not ok 1 - x", "  ---", "  ...", "E   x", "✖ t (1ms)"),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 400 }), (picked) => {
        const output = picked.join("\n");
        const feedback = feedbackOf(output);
        // The end of an unrecognised output has its mark of a cut on a line of its own, as before.
        const marked = feedback === tail(output) && feedback.startsWith(OMITTED) ? 1 : 0;
        expect(lines(feedback).length).toBeLessThanOrEqual(40 + marked);
        expect(feedback.length).toBeLessThanOrEqual(4000 + marked * OMITTED.length);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps what a test list marks as failed when the runner's report of it is not in the output", () => {
    const listOnly = fixture("vitest.txt").split("⎯⎯⎯⎯⎯⎯⎯ Failed Tests")[0]!;
    expect(feedbackOf(listOnly)).toBe("× adds 7ms\n× adds lists 7ms");
  });

  it("keeps the end of the output, as before, when no runner's failures are recognised", () => {
    const missing = fixture("node-test-missing-file.txt");
    expect(feedbackOf(missing)).toBe("Could not find '/tmp/fb/node/missing.test.mjs'");
    const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    expect(feedbackOf(long)).toBe(tail(long));
    expect(feedbackOf(long)).toBe(`[earlier output omitted]\n${Array.from({ length: 40 }, (_, i) => `line ${i + 60}`).join("\n")}`);
    expect(feedbackOf("")).toBe("");
    expect(feedbackOf(" \n\n")).toBe("");
    // Passing tests only: nothing failed that could be named.
    expect(feedbackOf("ok 1 - adds\nok 2 - subtracts\n1..2\n")).toBe("ok 1 - adds\nok 2 - subtracts\n1..2");
  });

  it("cuts a failure longer than 20 lines, saying how much it left out", () => {
    const diff = Array.from({ length: 60 }, (_, i) => `+   ${i},`);
    const output = [
      " FAIL  big.test.ts > big",
      "AssertionError: expected [ …(60) ] to deeply equal []",
      "- Expected",
      "+ Received",
      ...diff,
      " ❯ big.test.ts:3:20",
    ].join("\n");
    const feedback = lines(feedbackOf(output));
    expect(feedback.slice(0, 2)).toEqual(["FAIL  big.test.ts > big", "AssertionError: expected [ …(60) ] to deeply equal []"]);
    expect(feedback).toHaveLength(21);
    expect(feedback[20]).toBe("[45 more lines of this failure omitted]");
  });

  it("stays within 40 lines and 4000 characters however many failures there are, first failures first", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("a", "b", " ", "'", "x"), minLength: 1, maxLength: 400 }), { minLength: 1, maxLength: 120 }),
        (messages) => {
          const errors = messages.map((m, i) => `src/file${i}.ts(${i + 1},1): error TS2322: ${m}`);
          const output = ["> pkg@1.0.0 typecheck", "> tsc --noEmit", "", ...errors, "", `Found ${errors.length} errors.`].join("\n");
          const feedback = feedbackOf(output);
          const shown = lines(feedback);
          expect(shown.length).toBeLessThanOrEqual(40);
          expect(feedback.length).toBeLessThanOrEqual(4000);
          // As a terminal shows it: no trailing blanks, and a line longer than 300 characters cut.
          const first = errors[0]!.trimEnd();
          expect(shown[0]).toBe(first.length <= 300 ? first : `${first.slice(0, 299)}…`);
          // Every error is either shown, in order, or counted as left out.
          const listed = shown.filter((l) => / error TS2322:/.test(l));
          const omitted = Number(/^\[(\d+) more failures? omitted\]$/m.exec(feedback)?.[1] ?? 0);
          expect(listed.length + omitted).toBe(errors.length);
          expect(listed.map((l) => l.slice(0, 40))).toEqual(errors.slice(0, listed.length).map((l) => l.trimEnd().slice(0, 40)));
          expect(shown[shown.length - 1]).toBe(`Found ${errors.length} errors.`);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the command guard's feedback", () => {
  it("leads with the assertion that failed, without the tests that passed", async () => {
    const cwd = tempRepo({
      "add.mjs": "export const add = (a, b) => a - b;\n",
      "add.test.mjs": [
        'import { test } from "node:test";',
        'import assert from "node:assert/strict";',
        'import { add } from "./add.mjs";',
        'test("adds zero", () => assert.equal(add(2, 0), 2));',
        'test("adds", () => assert.equal(add(1, 2), 3));',
        'test("subtracts", () => assert.equal(add(3, -1), 4));',
        "",
      ].join("\n"),
    });
    const artifactPath = path.join(cwd, "add.mjs");
    const request = {
      pairId: "p",
      content: "",
      artifactPath,
      config: { run: "node --test add.test.mjs" },
      cwd,
      env: { PATH: process.env.PATH },
      signal: new AbortController().signal,
    };
    const result = await commandGuard(request);
    expect(result.accepted).toBe(false);
    const shown = lines(result.feedback);
    expect(shown[0]).toMatch(/^(not ok \d+ - adds|✖ adds \(.*\))$/);
    expect(shown.slice(0, 5).join("\n")).toContain("-1 !== 3");
    expect(result.feedback).not.toMatch(/adds zero|subtracts|TAP version|duration_ms/);
  });
});

/** A runner's way of printing a passing test, and one failing test with the line that says why. */
interface Runner {
  name: string;
  passing: (test: string, n: number) => string[];
  failing: (test: string, n: number, actual: number, expected: number) => { lines: string[]; key: string };
  banner: string[];
}

const RUNNERS: Runner[] = [
  {
    name: "TAP (node --test)",
    banner: ["TAP version 13"],
    passing: (t, n) => [`# Subtest: ${t}`, `ok ${n} - ${t}`, "  ---", "  duration_ms: 0.51", "  ..."],
    failing: (t, n, a, e) => ({
      lines: [
        `# Subtest: ${t}`,
        `not ok ${n} - ${t}`,
        "  ---",
        "  duration_ms: 1.2",
        `  location: '/w/t.test.mjs:${n}:1'`,
        "  failureType: 'testCodeFailure'",
        "  error: |-",
        "    Expected values to be strictly equal:",
        "    ",
        `    ${a} !== ${e}`,
        "    ",
        "  code: 'ERR_ASSERTION'",
        "  name: 'AssertionError'",
        `  expected: ${e}`,
        `  actual: ${a}`,
        "  operator: 'strictEqual'",
        "  stack: |-",
        `    TestContext.<anonymous> (file:///w/t.test.mjs:${n + 1}:10)`,
        "    Test.runInAsyncScope (node:async_hooks:206:9)",
        "  ...",
      ],
      key: `${a} !== ${e}`,
    }),
  },
  {
    name: "node --test (spec)",
    banner: [],
    passing: (t) => [`✔ ${t} (0.51ms)`],
    failing: (t, n, a, e) => ({
      lines: [
        `✖ ${t} (1.2ms)`,
        "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
        "  ",
        `  ${a} !== ${e}`,
        "  ",
        `      at TestContext.<anonymous> (file:///w/t.test.mjs:${n}:10)`,
        "      at Test.runInAsyncScope (node:async_hooks:206:9) {",
        "    generatedMessage: true,",
        "    code: 'ERR_ASSERTION',",
        `    actual: ${a},`,
        `    expected: ${e},`,
        "    operator: 'strictEqual'",
        "  }",
        "",
      ],
      key: `${a} !== ${e}`,
    }),
  },
  {
    name: "vitest",
    banner: ["", " RUN  v4.1.12 /w", ""],
    passing: (t) => [`     ✓ ${t} 2ms`],
    failing: (t, n, a, e) => ({
      lines: [
        `⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯`,
        "",
        ` FAIL  t.test.ts > ${t}`,
        `AssertionError: expected ${a} to be ${e} // Object.is equality`,
        "",
        "- Expected",
        "+ Received",
        "",
        `- ${e}`,
        `+ ${a}`,
        "",
        ` ❯ t.test.ts:${n}:23`,
        `    ${n}|     expect(f()).toBe(${e});`,
        "       |                 ^",
        "",
        "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯",
      ],
      key: `AssertionError: expected ${a} to be ${e} // Object.is equality`,
    }),
  },
  {
    name: "jest",
    banner: ["FAIL ./t.test.js"],
    passing: (t) => [`    ✓ ${t} (3 ms)`],
    failing: (t, n, a, e) => ({
      lines: [
        `  ● ${t}`,
        "",
        "    expect(received).toBe(expected) // Object.is equality",
        "",
        `    Expected: ${e}`,
        `    Received: ${a}`,
        "",
        `    > ${n} |     expect(f()).toBe(${e});`,
        "         |                 ^",
        "",
        `      at Object.toBe (t.test.js:${n}:17)`,
        "",
      ],
      key: `Received: ${a}`,
    }),
  },
  {
    name: "pytest",
    banner: ["============================= test session starts ==============================", "collected 9 items", ""],
    passing: (t) => [`test_t.py::test_${t} PASSED                                      [ 20%]`],
    failing: (t, n, a, e) => ({
      lines: [
        "=================================== FAILURES ===================================",
        `__________________________________ test_${t} ___________________________________`,
        "",
        `    def test_${t}():`,
        `>       assert f() == ${e}`,
        `E       assert ${a} == ${e}`,
        "E        +  where ... = f()",
        "",
        `test_t.py:${n}: AssertionError`,
        "=========================== short test summary info ============================",
        `FAILED test_t.py::test_${t} - assert ${a} == ${e}`,
      ],
      key: `E       assert ${a} == ${e}`,
    }),
  },
  {
    name: "tsc",
    banner: ["> pkg@1.0.0 typecheck", "> tsc --noEmit", ""],
    passing: () => [],
    failing: (t, n, a, e) => {
      const key = `src/${t}.ts(${n},7): error TS2322: Type '${a}' is not assignable to type '${e}'.`;
      return { lines: [key], key };
    },
  },
  {
    name: "eslint",
    banner: ["> pkg@1.0.0 lint", "> eslint .", ""],
    passing: () => [],
    failing: (t, n) => {
      const key = `  ${n}:7  error  '${t}' is assigned a value but never used  no-unused-vars`;
      return { lines: ["", `/w/src/${t}.js`, key, ""], key };
    },
  },
];

describe("feedbackOf: the failing lines come first, wherever they were", () => {
  const testName = fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/);
  it.each(RUNNERS)("$name: the failure's key line is in the first 5 lines, and no passing test is", (runner) => {
    fc.assert(
      fc.property(
        fc.uniqueArray(testName, { minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1000, max: 1000 }),
        (names, at, actual, expected) => {
          const [failing, ...passing] = names;
          const passingLines = passing.map((t, i) => runner.passing(t, i + 1));
          const block = runner.failing(failing!, passing.length + 1, actual, expected);
          const where = at % (passingLines.length + 1);
          const output = [...runner.banner, ...passingLines.slice(0, where).flat(), ...block.lines, ...passingLines.slice(where).flat()].join("\n");
          const shown = lines(feedbackOf(output));
          const key = shown.findIndex((l) => l.trim() === block.key.trim());
          expect(key, `the key line in:\n${shown.join("\n")}`).toBeGreaterThanOrEqual(0);
          expect(key).toBeLessThan(5);
          const passingSet = new Set(
            passingLines
              .flat()
              .map((l) => l.trim())
              .filter((l) => l !== "" && !/^(---|\.\.\.|duration_ms: [\d.]+)$/.test(l)),
          );
          expect(shown.slice(0, key).filter((l) => passingSet.has(l.trim()))).toEqual([]);
          expect(shown.filter((l) => passingSet.has(l.trim()))).toEqual([]);
          for (const line of runner.banner.filter((l) => l.trim() !== "")) expect(shown).not.toContain(line);
        },
      ),
      { numRuns: 150 },
    );
  });
});
