import type { Command } from "commander";
import { adoptPairs } from "../../app/adopt.js";
import { nameFor } from "../../report/names.js";
import { examples, PATH_HELP, stateDirOption, type CliContext } from "../context.js";

interface AdoptFlags {
  workflow?: string;
  stateDir?: string;
}

export function registerAdopt(program: Command, { io }: CliContext): void {
  program
    .command("adopt")
    .description(
      "Record outputs that already exist (translations people wrote) as accepted for their pairs' current sources, as a person's, with no model call. From then on each is a hand edit like any other: kept while its sources stand, stale (or carried forward with carry_edits) once they change. A split file is adopted section by section. See docs/foreach.md.",
    )
    .argument("<pairs...>", "pair ids, a foreach pair's own id (all its instances), or a slice of one: translate[fr], translate[docs/a.md]")
    .option("--workflow <path>", PATH_HELP)
    .addOption(stateDirOption())
    .addHelpText(
      "after",
      examples(["pairflow adopt 'translate[fr]'   # every French page already translated", "pairflow adopt 'translate[de:docs/intro.md]' --workflow docs/"]),
    )
    .action(async (pairs: string[], opts: AdoptFlags) => {
      const adopted = await adoptPairs(opts.workflow, { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, ids: pairs });
      for (const a of adopted) {
        const what = a.sections === undefined ? "" : ` (${a.sections} ${a.sections === 1 ? "section" : "sections"})`;
        io.stdout.write(`${a.already ? "already adopted" : "adopted"}  ${nameFor(a.id, "terminal")}  ${nameFor(a.output, "terminal")}${what}\n`);
      }
    });
}
