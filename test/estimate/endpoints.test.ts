/**
 * A configured rate limit is one endpoint's however base_url is written: the generators accept an
 * address with or without the API's `/v1` (and trailing slashes), and call one address for them
 * all, so the estimate counts their calls against one limit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { cli } from "./helpers.js";

const FORMS = ["http://gpu-box:8000", "http://gpu-box:8000/", "http://gpu-box:8000/v1", "http://gpu-box:8000/v1/"];
const CALLED = { openai: "http://gpu-box:8000/v1", anthropic: "http://gpu-box:8000" };

describe("a rate limit over pairs that write one base_url in several forms", () => {
  it("is counted once, at the address the calls go to, for all their calls", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("openai" as const, "anthropic" as const),
        fc.array(fc.constantFrom(...FORMS), { minLength: 2, maxLength: 6 }),
        async (generator, forms) => {
          const ids = forms.map((_, i) => `p${i}`);
          const dir = tempRepo({
            "workflow.yml": [
              "name: paced",
              "model: local-model",
              `generator: ${generator}`,
              "action_pairs:",
              ...ids.map(
                (id, i) =>
                  `  ${id}: {output: out/${id}.txt, generator_config: {base_url: "${forms[i]}", max_tokens: 100, rate_limit: {requests_per_minute: 1}}}`,
              ),
              "",
            ].join("\n"),
            "prompts.yml": ids.map((id) => `${id}: {task: Write ${id}.}`).join("\n") + "\n",
          });
          const r = await cli(["plan", "--all"], { cwd: dir });
          expect(r.status, r.stderr).toBe(0);
          const limits = r.stdout.split("\n").filter((l) => l.includes("the rate_limit of"));
          expect(limits, r.stdout).toHaveLength(1);
          expect(limits[0]).toContain(`(the rate_limit of ${CALLED[generator]}, local-model)`);
          expect(limits[0]).toContain(`for ${ids.length} calls`);
        },
      ),
      { numRuns: 10 },
    );
  });
});
