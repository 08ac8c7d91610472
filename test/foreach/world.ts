/**
 * A workflow over many files, driven the way `pairflow plan` and `pairflow run` drive it (the
 * application layer, real files), with a generator that needs no process: `translate` over every
 * page of docs/, `check` of each translation (the instance with the same page), and `index` of all.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import type { Generator } from "../../src/model/ports.js";
import { planOf, runOf } from "../helpers/state.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";

export const WORKFLOW = `name: pages
generator: pages
action_pairs:
  translate:
    foreach:
      files: docs/*.md
    output: out/{stem}.fr.md
    generator_config:
      page: "{file}"
    guard: contains
    guard_config:
      text: "{file}"
  check:
    foreach:
      files: docs/*.md
    requires: ["translate[{item}]"]
    output: out/checks/{stem}.txt
    guard: contains
    guard_config:
      text: ok
  index:
    requires: [translate]
    output: out/index.md
`;

/** The artifact is the pair id, the page's text for translate, and a digest of the prompt (dependencies included). */
export const pages: Generator = async ({ pairId, prompt, config, cwd }) => {
  const page = typeof config.page === "string" ? readFileSync(path.join(cwd, config.page), "utf8").toUpperCase() : "";
  const digest = createHash("sha256").update(prompt).digest("hex").slice(0, 16);
  return { content: `${pairId}\n${page}\nok ${digest}\n` };
};

export const generators = { pages };

export function pageName(i: number): string {
  return `docs/page-${String(i).padStart(3, "0")}.md`;
}

/** A repository holding the workflow and n pages. */
export function pagesRepo(n: number): string {
  const files: Record<string, string> = { "workflow.yml": WORKFLOW };
  for (let i = 0; i < n; i++) files[pageName(i)] = `# Page ${i}\n`;
  return tempRepo(files);
}

export function writePage(dir: string, page: string, text: string): void {
  writeFiles(dir, { [page]: text });
}

export function appendPage(dir: string, page: string, text: string): void {
  writeFileSync(path.join(dir, page), readFileSync(path.join(dir, page), "utf8") + text);
}

export function deletePage(dir: string, page: string): void {
  rmSync(path.join(dir, page));
}

export interface Step {
  /** Ids the plan says run, sorted. */
  planned: string[];
  /** Ids the plan says the run drops from the lock file. */
  removed: string[];
  /** Ids the run executed, sorted. */
  executed: string[];
  /** Ids a plan right after the run says run: none when the run settled everything. */
  after: string[];
  status: string;
}

/** plan, run, plan again. */
export async function step(dir: string): Promise<Step> {
  const { plan } = await planOf(dir, { cwd: dir });
  const planned = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  const report = await runOf(dir, { cwd: dir, env: {}, generators });
  const executed = report.pairs.filter((p) => p.status === "executed").map((p) => p.id);
  const { plan: again } = await planOf(dir, { cwd: dir });
  const after = again.pairs.filter((p) => p.action === "run").map((p) => p.id);
  return { planned: planned.sort(), removed: plan.removed ?? [], executed: executed.sort(), after, status: report.status };
}

/** The instances a change to page re-runs: its translation, its check, and the index. */
export function downstreamOf(...pages: string[]): string[] {
  return [...pages.flatMap((p) => [`translate[${p}]`, `check[${p}]`]), "index"].sort();
}
