/**
 * The composite guard: runs several guards on the same artifact and combines their verdicts by a policy.
 * Sub-guards come from the pair's `guards` list (the reference format), else from guard_config.guards.
 */
import { plain } from "../model/values.js";
import type { GuardRef } from "../model/workflow.js";
import { GuardConfigError, GuardError, type Guard, type GuardRequest } from "../model/ports.js";
import { optionalString } from "./config.js";

const POLICIES = ["all_pass", "any_pass", "majority_pass"] as const;
type Policy = (typeof POLICIES)[number];

/** `lookup` is getGuard, passed in so this module and the registry do not import each other. */
export function compositeGuard(lookup: (name: string) => Guard): Guard {
  return async (request) => {
    const policy = readPolicy(request.config);
    const refs = request.guards ?? readGuardList(request.config.guards);
    if (refs.length === 0) {
      throw new GuardConfigError('the composite guard lists no guards: list them under "guards" on the pair (or guard_config.guards)');
    }
    // Resolve every name before running any, so a typo fails the pair before commands run.
    const subGuards = refs.map((ref) => {
      try {
        return { ref, guard: lookup(ref.guard) };
      } catch (err) {
        throw err instanceof GuardConfigError ? new GuardConfigError(`in the composite guard: ${err.message}`) : err;
      }
    });

    // One after another and all of them, even when the verdict is already known: the feedback names
    // every problem, so the next attempt can fix them all at once.
    let passed = 0;
    const feedback: string[] = [];
    for (const { ref, guard } of subGuards) {
      const result = await runSubGuard(guard, ref, request);
      if (result.accepted) passed++;
      else feedback.push(`[${ref.guard}] ${result.feedback || "rejected"}`);
    }

    const accepted = decide(policy, passed, subGuards.length);
    return { accepted, feedback: accepted ? "" : feedback.join("\n") };
  };
}

function decide(policy: Policy, passed: number, total: number): boolean {
  switch (policy) {
    case "all_pass":
      return passed === total;
    case "any_pass":
      return passed > 0;
    case "majority_pass":
      return passed * 2 > total; // an even split is not a majority
  }
}

async function runSubGuard(guard: Guard, ref: GuardRef, request: GuardRequest) {
  const subRequest: GuardRequest = {
    ...request,
    // Sub-guard configs come straight from the workflow; guards see plain numbers (see GuardRequest).
    config: plain(ref.guard_config) as Record<string, unknown>,
    guards: undefined,
  };
  try {
    return await guard(subRequest);
  } catch (err) {
    // Say which sub-guard is misconfigured or could not judge; other errors (a cancelled run) pass through untouched.
    if (err instanceof GuardError) err.message = `[${ref.guard}] ${err.message}`;
    throw err instanceof GuardConfigError ? new GuardConfigError(`[${ref.guard}] ${err.message}`) : err;
  }
}

function readPolicy(config: Record<string, unknown>): Policy {
  const policy = optionalString("composite", config, "policy") ?? "all_pass";
  if (!(POLICIES as readonly string[]).includes(policy)) {
    throw new GuardConfigError(`guard_config.policy of the composite guard must be one of ${POLICIES.join(", ")}; found ${JSON.stringify(policy)}`);
  }
  return policy as Policy;
}

/** guard_config.guards, in the same forms as the pair's `guards`: a name, or {guard, guard_config}. */
function readGuardList(value: unknown): GuardRef[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw listError();
  return value.map((item): GuardRef => {
    if (typeof item === "string") return { guard: item, guard_config: {} };
    if (item !== null && typeof item === "object" && !Array.isArray(item) && typeof item.guard === "string") {
      const config = item.guard_config ?? {};
      if (config === null || typeof config !== "object" || Array.isArray(config)) throw listError();
      return { guard: item.guard, guard_config: config };
    }
    throw listError();
  });
}

function listError(): GuardConfigError {
  return new GuardConfigError("guard_config.guards of the composite guard must be a list of guard names or {guard, guard_config} mappings");
}
