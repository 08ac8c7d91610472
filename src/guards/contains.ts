/** The contains guard: required text must be present (all of it, or any with all: false); absent text must not. */
import { GuardConfigError, type Guard } from "../model/ports.js";
import { optionalBoolean, optionalStringList } from "./config.js";

export const containsGuard: Guard = async (request) => {
  const required = optionalStringList("contains", request.config, "text") ?? [];
  const forbidden = optionalStringList("contains", request.config, "absent") ?? [];
  const all = optionalBoolean("contains", request.config, "all", true);
  if (required.length === 0 && forbidden.length === 0) {
    throw new GuardConfigError(
      "the contains guard needs guard_config.text (a string or a list of strings that must appear) or guard_config.absent (a list that must not)",
    );
  }

  const problems: string[] = [];
  const missing = required.filter((text) => !request.content.includes(text));
  if (all && missing.length > 0) problems.push(`missing: ${quoteAll(missing)}`);
  if (!all && required.length > 0 && missing.length === required.length) {
    problems.push(`contains none of: ${quoteAll(required)} (at least one is required)`);
  }
  const present = forbidden.filter((text) => request.content.includes(text));
  if (present.length > 0) problems.push(`must not contain: ${quoteAll(present)}`);
  return { accepted: problems.length === 0, feedback: problems.join("\n") };
};

function quoteAll(texts: string[]): string {
  return texts.map((text) => JSON.stringify(text)).join(", ");
}
