/** The guards pairflow ships, by the name a pair's `guard` uses. */
import { GuardConfigError, type Guard } from "../model/ports.js";
import { didYouMean } from "../model/text.js";
import { commandGuard } from "./command.js";
import { compositeGuard } from "./composite.js";
import { containsGuard } from "./contains.js";
import { jsonGuard } from "./json.js";
import { jsonSchemaGuard } from "./jsonSchema.js";
import { regexGuard } from "./regex.js";

export const GUARDS: Record<string, Guard> = {
  command: commandGuard,
  composite: compositeGuard((name) => getGuard(name)),
  contains: containsGuard,
  json: jsonGuard,
  json_schema: jsonSchemaGuard,
  regex: regexGuard,
};

export function knownGuard(name: string): boolean {
  // Own keys only: "toString" is not a guard.
  return Object.hasOwn(GUARDS, name);
}

/** The guard called `name`; a GuardConfigError naming the guards that exist when there is none. */
export function getGuard(name: string | null): Guard {
  const names = Object.keys(GUARDS).sort().join(", ");
  if (name === null || name === "") {
    throw new GuardConfigError(`the pair names no guard; set guard to one of: ${names}`);
  }
  if (!knownGuard(name)) {
    const suggestion = didYouMean(name, Object.keys(GUARDS));
    throw new GuardConfigError(`unknown guard "${name}"; pairflow has: ${names}${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`);
  }
  return GUARDS[name]!;
}
