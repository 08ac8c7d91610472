/** A failure in one line (src/report/failure.ts): the line that says why, not the first line of a cut output. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failureHeadline } from "../../src/report/failure.js";
import { testRunnerOutput } from "../../bench/reportScenarios.js";
import { prng } from "../../bench/generate.js";

/** Lines a test runner prints that say nothing of what went wrong. */
const noise = fc.constantFrom(" ✓ tests/parse.test.ts (12 tests) 31ms", "collecting 19 items", "  at Object.<anonymous> (x.js:3:9)", "ok 3 - keeps order", "");

describe("the headline of a failure", () => {
  it("quotes the assertion of a test runner's tail, not the cut that starts it, and counts what it leaves out", () => {
    const note = `rejected after 2 attempts: ${testRunnerOutput("g_impl", prng(1))}`;
    expect(failureHeadline(note)).toBe(
      "rejected after 2 attempts: … → expected [ 1, 2, 7 ] to deeply equal [ 1, 2, 6 ] … 13 lines … Tests 1 failed | 18 passed (19)",
    );
  });

  it("keeps a one-line note as it is, and says failed for none", () => {
    expect(failureHeadline('rejected after 2 attempts: missing: "<never> | there"')).toBe('rejected after 2 attempts: missing: "<never> | there"');
    expect(failureHeadline("timed out after 30s")).toBe("timed out after 30s");
    expect(failureHeadline(null)).toBe("failed");
    expect(failureHeadline("rejected after 1 attempt: \n\n")).toBe("rejected after 1 attempt");
  });

  it("takes the first line when no line looks like an error, and shows control characters as text", () => {
    expect(failureHeadline("generator failed: exited with status 1\nstep one\nstep two\nstep three")).toBe(
      "generator failed: exited with status 1 … 2 lines … step three",
    );
    expect(failureHeadline("rejected after 1 attempt: \x1b[31mError: red\x1b[0m")).toBe("rejected after 1 attempt: \\x1b[31mError: red\\x1b[0m");
  });

  it("is one line, within its bound, quotes the first error and the last line, and never the cut's marker", () => {
    fc.assert(
      fc.property(
        fc.array(noise, { maxLength: 30 }),
        fc.array(noise, { maxLength: 30 }),
        fc.stringMatching(/^[a-z ]{1,40}$/),
        fc.constantFrom("AssertionError: expected 3 to be 4", "ValueError: bad input", "panic: index out of range"),
        fc.integer({ min: 60, max: 400 }),
        (before, after, last, error, max) => {
          const output = ["[earlier output omitted]", ...before, error, ...after, `summary ${last}`].join("\n");
          const headline = failureHeadline(`rejected after 2 attempts: ${output}`, max);
          expect(headline).not.toContain("\n");
          expect(headline.length).toBeLessThanOrEqual(max);
          expect(headline).not.toContain("[earlier output omitted]");
          // The error and the last line, what lies before them marked, what lies between counted.
          const lines = (list: string[]) => list.filter((l) => l.trim() !== "").length;
          const gap = lines(after);
          const tail = `summary ${last}`.replace(/\s+/g, " ").trim();
          expect(failureHeadline(`rejected after 2 attempts: ${output}`, 10_000)).toBe(
            `rejected after 2 attempts: ${lines(before) > 0 ? "… " : ""}${error}${gap === 0 ? " / " : ` … ${gap} line${gap === 1 ? "" : "s"} … `}${tail}`,
          );
        },
      ),
    );
  });
});
