/** A stand-in generator and workflow for tests of split pages: each section upper-cased, no model. */
import { expect } from "vitest";
import type { Generator } from "../../src/model/ports.js";
import type { RunReport } from "../../src/model/run.js";
import { runOf } from "./state.js";

/** Upper-cases the section between `<<<` and `>>>` of its prompt (or the whole prompt), noting in `asked` each pair it was called for. */
export function upperSections(asked: string[] = []): Generator {
  return async ({ pairId, prompt }) => {
    asked.push(pairId);
    return { content: (/<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? prompt).toUpperCase() };
  };
}

/** Every page of docs/ split into its sections, each given to `upper`, put together in out/. */
export const SPLIT_PAGES = `name: pages
generator: upper
action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
`;

/** The prompt of SPLIT_PAGES: the section between `<<<` and `>>>`. */
export const SPLIT_PROMPTS = 'translate:\n  task: "Translate:\\n<<<\\n{piece}>>>"\n';

/**
 * Runs of SPLIT_PAGES-like workflows with upperSections: `run` expects success and returns the
 * report; `asked` holds the pairs the last run called the generator for.
 */
export function splitRuns(): { asked: string[]; run: (dir: string) => Promise<RunReport> } {
  const asked: string[] = [];
  const upper = upperSections(asked);
  return {
    asked,
    async run(dir) {
      asked.length = 0;
      const report = await runOf(dir, { cwd: dir, env: {}, generators: { upper } });
      expect(report.status).toBe("success");
      return report;
    },
  };
}
