/**
 * A documentation site translated into several languages from one declaration: `translate` over
 * every page of docs/ and every language, section by section, driven the way `pairflow plan` and
 * `pairflow run` drive it (the application layer, real files), with a stand-in translator that
 * needs no process and records what it was asked.
 */
import type { Generator } from "../../src/model/ports.js";
import { planOf, runOf } from "../helpers/state.js";
import type { Selection } from "../../src/model/run.js";

export function workflowText(languages: readonly string[], extra = ""): string {
  return `name: site
generator: translator
action_pairs:
  translate:
    foreach:
      files: docs/*.md
      split: markdown
      values: [${languages.join(", ")}]
      as: lang
${extra}    output: "i18n/{lang}/{name}"
`;
}

export const PROMPTS = 'translate:\n  task: "Translate into {lang}:\\n<<<\\n{piece}>>>"\n';

/** Every prompt the stand-in was given, by pair id. */
export const prompts = new Map<string, string>();

/** The stand-in: the piece it was given, upper-cased, after the language's tag. */
export const translator: Generator = async ({ pairId, prompt }) => {
  prompts.set(pairId, prompt);
  const lang = /Translate into (\S+):/.exec(prompt)?.[1] ?? "?";
  const piece = /<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? "";
  return { content: `[${lang}] ${piece.toUpperCase()}` };
};

export const generators = { translator };

export interface Step {
  planned: string[];
  removed: string[];
  /** Ids the generator was called for, sorted. */
  called: string[];
  /** Ids a plan right after the run says run. */
  after: string[];
  status: string;
}

/** plan, run, plan again. */
export async function step(dir: string, selection?: Selection): Promise<Step> {
  const { plan } = await planOf(dir, { cwd: dir, ...(selection ? { selection } : {}) });
  const planned = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  prompts.clear();
  const report = await runOf(dir, { cwd: dir, env: {}, generators, ...(selection ? { selection } : {}) });
  const called = [...prompts.keys()];
  const { plan: again } = await planOf(dir, { cwd: dir });
  const after = again.pairs.filter((p) => p.action === "run").map((p) => p.id);
  return { planned: planned.sort(), removed: plan.removed ?? [], called: called.sort(), after, status: report.status };
}
