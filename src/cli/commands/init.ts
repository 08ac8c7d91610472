import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { initWorkflow } from "../../app/init.js";
import { displayPath } from "../../config/parse.js";
import { examples, type CliContext } from "../context.js";

/**
 * The schemas/ directory that ships with this pairflow: beside dist/ in the package, two levels
 * up from src/cli/commands/ in a checkout.
 */
export function shippedSchemasDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, "schemas", "workflow.schema.json"))) return path.join(dir, "schemas");
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "schemas");
    dir = up;
  }
}

export function registerInit(program: Command, { io }: CliContext): void {
  program
    .command("init")
    .description(
      "Write a starter workflow.yml and prompts.yml that run offline, GitHub Actions workflows that run them on every push (.github/workflows/pairflow.yml) and post their plan on every pull request (.github/workflows/pairflow-plan.yml), and .pairflow/ (pairflow's local state) into .gitignore. Never overwrites anything: writes each file that is missing and says which it kept; run it again to finish what it could not do.",
    )
    .argument("[dir]", "the directory to hold workflow.yml (default: .); created when missing")
    .addHelpText("after", examples(["pairflow init", "pairflow init pairflow && pairflow run pairflow"]))
    .action((dir: string | undefined) => {
      const done = initWorkflow({ cwd: io.cwd, dir, schemasDir: shippedSchemasDir() });
      for (const step of done.steps) io.stdout.write(`${step.done} ${displayPath(step.file, io.cwd)}${step.detail ? `: ${step.detail}` : ""}\n`);
      if (!done.starter) return;
      const target = dir === undefined ? "" : ` ${dir}`;
      io.stdout.write(`\nNext: pairflow run${target}   (then pairflow prompt review${target} shows what a generator receives)\n`);
    });
}
