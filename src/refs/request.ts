/**
 * The request key: everything one generator call receives, and nothing else. The configRef decides
 * whether a pair must be accepted again; the request key decides whether a model call is needed:
 * an artifact generated for the same request (by this pair or another, in any workflow) answers
 * it again once the pair's current guard accepts it. So a dependency that reproduced its content
 * under a new reference, a guard-only change and a revert buy no call (docs/cost.md).
 *
 * What a generator receives:
 * - the openai and anthropic generators send one request: the model, the rendered prompt (the
 *   dependencies' content and the history of rejected attempts are in it) and the settings that
 *   reach the body or the headers (temperature, max_tokens, the endpoint, non-secret headers);
 * - a command, or a generator pairflow does not ship, also gets the pair's id, the attempt's
 *   number (PAIRFLOW_PAIR, PAIRFLOW_ATTEMPT) and the dependencies as files, and reads the files
 *   its command line reaches, the pair's `inputs`, and what a traced run saw its commands read
 *   (`observed`, kept only where there is any, so keys made before it stay as they were): all of
 *   it is in the key.
 * Settings that change how a request travels (api_key_env, timeout, retries, batch) and secret
 * headers are not, as in the configRef (TRANSPORT_KEYS): a batch's answer answers the same request
 * made synchronously, and the other way round.
 */
import type { OwnComponents } from "../model/plan.js";
import type { Pair } from "../model/workflow.js";
import { digestOf, sha256Hex } from "./hash.js";

/** Generators whose whole request is the body they send: no pair id, attempt or files reach the model. */
const HTTP_GENERATORS = new Set(["openai", "anthropic"]);

/** The version of what a request key holds: a change here makes every key new (and every request a miss). */
export const REQUEST_KEY_VERSION = 1;

export interface RequestInput {
  pair: Pick<Pair, "id" | "generator" | "model">;
  /** The pair's own components: the generator's settings as the reference has them, and the files it reads. */
  own: Pick<OwnComponents, "generator" | "files" | "inputs" | "piece">;
  /** The rendered prompt of this attempt. */
  prompt: string;
  dependencies: readonly { id: string; content: string }[];
  attempt: number;
}

export function requestKey(input: RequestInput): string {
  const { pair, own } = input;
  const call: Record<string, unknown> = {
    v: REQUEST_KEY_VERSION,
    generator: own.generator ?? { name: pair.generator, config: {} },
    model: pair.model,
    prompt: input.prompt,
  };
  if (pair.generator === null || !HTTP_GENERATORS.has(pair.generator)) {
    call.pair = pair.id;
    call.attempt = input.attempt;
    call.dependencies = input.dependencies.map((d) => [d.id, sha256Hex(d.content)]);
    call.files = own.files?.generator ?? {};
    call.inputs = own.inputs ?? {};
    if (own.piece !== undefined) call.piece = own.piece;
    if (own.files?.observed !== undefined) call.observed = own.files.observed;
  }
  return digestOf(call);
}

/**
 * The identity of a pair's guard: everything that decides its verdict (the pair it judges for, as
 * a command guard is told it; the guard and its settings; a composite's guards; the files its
 * command reads, and what a traced run saw the pair's commands read). An artifact this guard
 * rejected is never judged by it again; one it accepted needs no second look.
 */
export function guardKey(pair: string, own: Pick<OwnComponents, "guard" | "guard_config" | "guards" | "files">): string {
  const identity: Record<string, unknown> = {
    pair,
    guard: own.guard,
    guard_config: own.guard_config,
    guards: own.guards ?? null,
    files: own.files?.guard ?? {},
  };
  if (own.files?.observed !== undefined) identity.observed = own.files.observed;
  return digestOf(identity).slice(0, 32);
}
