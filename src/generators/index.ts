/** The generators pairflow ships, by the name a workflow's `generator` field uses. */
import { GeneratorError, type Generator } from "../model/ports.js";
import { didYouMean } from "../model/text.js";
import { anthropicGenerator } from "./anthropic.js";
import { ASSEMBLE, assembleGenerator } from "./assemble.js";
import { commandGenerator } from "./command.js";
import { openaiGenerator } from "./openai.js";

export const GENERATORS: Record<string, Generator> = {
  anthropic: anthropicGenerator,
  command: commandGenerator,
  openai: openaiGenerator,
};

/**
 * The generator called `name`. Unknown names (such as the reference framework's class names, which
 * load and plan) and a missing name fail here, at run time, naming what exists.
 */
export function getGenerator(name: string | null): Generator {
  // hasOwn: "toString" and friends are not generators.
  if (name !== null && Object.hasOwn(GENERATORS, name)) return GENERATORS[name]!;
  // pairflow's own, for the instances `foreach: {split}` makes (src/config/foreach.ts): not one to name.
  if (name === ASSEMBLE) return assembleGenerator;
  const known = Object.keys(GENERATORS).sort();
  const have = `pairflow has: ${known.join(", ")}`;
  if (name === null) {
    throw new GeneratorError(`no generator set; set "generator" on the pair or the workflow (${have})`);
  }
  const guess = didYouMean(name, known);
  throw new GeneratorError(`unknown generator "${name}"${guess ? ` (did you mean "${guess}"?)` : ""}; ${have}`);
}
