/** The regex guard: the artifact must match a regular expression (or, with must_match: false, must not). */
import { GuardConfigError, type Guard } from "../model/ports.js";
import { optionalBoolean, optionalString, requiredString } from "./config.js";

export const regexGuard: Guard = async (request) => {
  const pattern = requiredString("regex", request.config, "pattern", 'a regular expression, e.g. "^# "');
  const flags = optionalString("regex", request.config, "flags") ?? "";
  const mustMatch = optionalBoolean("regex", request.config, "must_match", true);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flags);
  } catch (err) {
    throw new GuardConfigError(`guard_config.pattern of the regex guard is not a valid regular expression: ${(err as Error).message}`);
  }

  const match = regex.exec(request.content);
  if (mustMatch) {
    return match ? { accepted: true, feedback: "" } : { accepted: false, feedback: `the artifact must match ${regex}, but it does not` };
  }
  if (!match) return { accepted: true, feedback: "" };
  // Say where, so the generator can find what to remove.
  const line = request.content.slice(0, match.index).split("\n").length;
  const found = match[0].length > 80 ? `${match[0].slice(0, 77)}...` : match[0];
  return { accepted: false, feedback: `the artifact must not match ${regex}, but it does at line ${line}: ${JSON.stringify(found)}` };
};
