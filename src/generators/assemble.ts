/**
 * `assemble`: pairflow's own generator for the instance of a split pair that puts a file's pieces
 * back together (src/config/foreach.ts): the pieces' accepted results, given as its dependencies in
 * the file's order, joined as src/config/split.ts `assemble` says. No model, nothing to pay; a
 * catalogue's structure is read from its file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { assemble, ASSEMBLE } from "../config/split.js";

export { ASSEMBLE };
import { GeneratorError, type Generator } from "../model/ports.js";
import type { SplitSpec } from "../model/workflow.js";

export const assembleGenerator: Generator = async (request) => {
  const kind = request.config.split;
  if (kind !== "markdown" && kind !== "json" && kind !== "yaml" && kind !== "regex") throw new GeneratorError("assemble: no split kind");
  const spec: SplitSpec = { kind, ...(typeof request.config.regex === "string" ? { regex: request.config.regex } : {}) };
  const file = typeof request.config.file === "string" ? request.config.file : "";
  let source = "";
  if (kind === "json" || kind === "yaml") {
    try {
      source = readFileSync(path.resolve(request.cwd, file), "utf8");
    } catch (err) {
      throw new GeneratorError(`assemble: cannot read ${file}: ${(err as Error).message}`);
    }
  }
  try {
    return {
      content: assemble(
        spec,
        source,
        (request.dependencies ?? []).map((d) => d.content),
      ),
    };
  } catch (err) {
    throw new GeneratorError(`assemble: cannot put ${file} back together: ${(err as Error).message}`);
  }
};
