/** The action's inputs (see action.yml), read and checked. Defaults match action.yml's. */
import * as core from "@actions/core";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../model/errors.js";
import { parseUsd } from "../estimate/prices.js";
import type { ShardSpec } from "../model/shard.js";
import { parseShard } from "../app/shard.js";
import { SANDBOX_MODES } from "../processes/sandbox.js";
import { parseLimits } from "../processes/limits.js";
import type { CommandLimits, RateLimits } from "../model/ports.js";

export interface ActionInputs {
  /** A workflow file, or a directory holding one, relative to workingDirectory (input `path`). */
  workflow: string;
  mode: "run" | "plan" | "merge";
  cache: boolean;
  cachePrefix: string;
  /** Pairs executed at once (input `max-parallel`): a number, or auto. */
  concurrency: number | "auto";
  /** The longest one provider call may wait for its rate limit, in seconds (input `max-wait`). */
  maxWaitSeconds: number | undefined;
  /** The limits of every model endpoint the run calls (input `rate-limit`). */
  rateLimits: RateLimits | undefined;
  /** Post the plan as a pull request comment (mode plan on pull_request events). */
  comment: boolean;
  force: boolean;
  /** Pair ids; undefined for all. */
  only: string[] | undefined;
  /** Absolute. */
  workingDirectory: string;
  githubToken: string;
  /** USD: refuse a run whose estimate is higher. */
  maxCost: number | undefined;
  /** How commands run: auto, required or off (see src/app/sandbox.ts). */
  sandbox: string;
  /** What each command may take (src/processes/limits.ts). */
  limits: CommandLimits;
  /** Run commands under strace and record what they read that their pairs' references do not name. */
  traceReads: boolean;
  /** Mode plan: split the pairs to run into at most this many shards (output `matrix`); mode merge: the N of the fan-out. */
  shards: number | undefined;
  /** Mode run: execute only this shard of the plan. */
  shard: ShardSpec | undefined;
  /** Mode run with shard, and mode merge: the fan-out whose split the plan job pinned. */
  fanout: string | undefined;
  /** Every openai and anthropic pair through its provider's batch API (input `batch`). */
  batch: boolean;
  /** Wait for provider batches to end (input `batch-wait`); false: submit, end, and let a later job collect. */
  batchWait: boolean;
}

/**
 * Inputs renamed because their old names are GitHub's own words (`workflow`, `concurrency`): the
 * old name still works, with a warning, and has no default in action.yml so that its use shows.
 */
const RENAMED: Record<string, string> = { workflow: "path", concurrency: "max-parallel" };

/** @param workspace GITHUB_WORKSPACE: where relative directories start. */
export function readInputs(workspace: string): ActionInputs {
  const mode = input("mode", "run");
  if (mode !== "run" && mode !== "plan" && mode !== "merge") throw new UsageError(`input mode: "${mode}" is not a mode; use run, plan or merge`);

  const cachePrefix = input("cache-prefix", "pairflow");
  if (cachePrefix.includes(",") || cachePrefix.length > 200) {
    throw new UsageError(`input cache-prefix: "${cachePrefix}" cannot be part of a cache key; use at most 200 characters and no commas`);
  }

  const concurrencyText = input("max-parallel", "auto");
  const concurrency = concurrencyText === "auto" ? "auto" : Number(concurrencyText);
  if (concurrency !== "auto" && (!Number.isInteger(concurrency) || concurrency < 1))
    throw new UsageError(`input max-parallel: "${concurrencyText}" is not auto or a whole number of at least 1`);

  const maxWaitText = input("max-wait", "");
  const maxWaitSeconds = maxWaitText === "" ? undefined : Number(maxWaitText);
  if (maxWaitSeconds !== undefined && (!Number.isInteger(maxWaitSeconds) || maxWaitSeconds < 1))
    throw new UsageError(`input max-wait: "${maxWaitText}" is not a whole number of seconds, at least 1`);
  const rateLimits = rateLimitInput(input("rate-limit", ""));

  const sandbox = input("sandbox", "auto");
  if (!(SANDBOX_MODES as readonly string[]).includes(sandbox))
    throw new UsageError(`input sandbox: "${sandbox}" is not a mode; use ${SANDBOX_MODES.join(", ")}`);

  const limitsText = input("limits", "");
  const limits = parseLimits(limitsText);
  if (typeof limits === "string") throw new UsageError(`input limits: ${limits}`);

  const onlyText = input("only", "");
  const only = onlyText === "" ? undefined : onlyText.split(/[\s,]+/).filter(Boolean);
  const force = flag("force", false);
  if (force && only) throw new UsageError("inputs force and only cannot be combined; choose one");

  const workingDirectory = path.resolve(workspace, input("working-directory", "."));
  if (!existsSync(workingDirectory) || !statSync(workingDirectory).isDirectory()) {
    throw new UsageError(`input working-directory: ${workingDirectory} is not a directory`);
  }

  const shardsText = input("shards", "");
  const shards = shardsText === "" ? undefined : Number(shardsText);
  if (shards !== undefined && (!Number.isInteger(shards) || shards < 1 || shards > 256)) {
    throw new UsageError(`input shards: "${shardsText}" is not a whole number from 1 to 256 (a job matrix holds at most 256 jobs)`);
  }
  const shardText = input("shard", "");
  let shard: ShardSpec | undefined;
  try {
    shard = shardText === "" ? undefined : parseShard(shardText);
  } catch {
    throw new UsageError(`input shard: "${shardText}" is not I/N with 1 <= I <= N; pass \${{ matrix.shard }} from the plan job's matrix output`);
  }
  if (shard && mode !== "run") throw new UsageError("input shard is for mode run; the plan job takes shards: N, and the merge job shards: N");
  if (mode === "merge" && shards === undefined) throw new UsageError("mode merge needs input shards: the N the plan job split the run into");
  const fanoutText = input("fanout", "");
  if (fanoutText !== "" && !/^[A-Za-z0-9._-]{1,100}$/.test(fanoutText)) {
    throw new UsageError(
      `input fanout: "${fanoutText}" is not a fan-out id; pass \${{ matrix.fanout }} (shard jobs) or the plan job's output fanout (the merge job)`,
    );
  }
  if (fanoutText !== "" && !(mode === "merge" || shard))
    throw new UsageError("input fanout is for the shard jobs (with input shard) and the merge job (mode merge)");

  return {
    workflow: input("path", "."),
    mode,
    cache: flag("cache", true),
    cachePrefix,
    concurrency,
    maxWaitSeconds,
    rateLimits,
    comment: flag("comment", true),
    force,
    only,
    workingDirectory,
    githubToken: input("github-token", ""),
    maxCost: maxCost(),
    sandbox,
    limits,
    traceReads: flag("trace-reads", false),
    shards,
    shard,
    fanout: fanoutText === "" ? undefined : fanoutText,
    batch: flag("batch", false),
    batchWait: flag("batch-wait", true),
  };
}

function maxCost(): number | undefined {
  const text = input("max-cost", "");
  if (text === "") return undefined;
  const usd = parseUsd(text);
  if (usd === undefined) throw new UsageError(`input max-cost: "${text}" is not an amount of US dollars; write it like 0.50`);
  return usd;
}

function input(name: string, fallback: string): string {
  const old = Object.keys(RENAMED).find((o) => RENAMED[o] === name);
  const given = core.getInput(name);
  const legacy = old === undefined ? "" : core.getInput(old);
  if (legacy === "") return given || fallback;
  if (given !== "" && given !== fallback && given !== legacy) {
    throw new UsageError(`inputs ${old} and ${name} are both given, with different values; ${old} is the old name of ${name}: keep only ${name}`);
  }
  core.warning(`input ${old} is deprecated (it is one of GitHub's own terms): rename it to ${name}; it still works for now`);
  return legacy;
}

/** YAML's booleans, as core.getBooleanInput reads them, but an empty input takes the default. */
function flag(name: string, fallback: boolean): boolean {
  const text = core.getInput(name);
  if (text === "") return fallback;
  if (["true", "True", "TRUE"].includes(text)) return true;
  if (["false", "False", "FALSE"].includes(text)) return false;
  throw new UsageError(`input ${name}: "${text}" is not true or false`);
}

/** Input rate-limit: `requests=N,tokens=N`, per minute, either or both; empty: none. */
function rateLimitInput(text: string): RateLimits | undefined {
  if (text.trim() === "") return undefined;
  const limits: RateLimits = {};
  const seen = new Set<string>();
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const [key = "", value] = part.split("=");
    const n = Number(value);
    if ((key !== "requests" && key !== "tokens") || value === undefined || !Number.isFinite(n) || n <= 0 || seen.has(key))
      throw new UsageError(`input rate-limit: "${text}" is not requests=N,tokens=N (per minute, either or both, each greater than 0)`);
    seen.add(key);
    if (key === "requests") limits.requestsPerMinute = n;
    else limits.tokensPerMinute = n;
  }
  return limits;
}
