/**
 * What a run bought and what it did not have to: the generator calls it made (with the tokens and
 * cost the providers reported), and what it reused instead, by kind (a pair reused whole, a request
 * answered from the request index as it was, a request answered after the guard judged it anew),
 * with what those would have cost at current prices. Each call is priced as it was bought: input
 * the prompt cache served or took at the cache's prices, a batch's requests at the batch price.
 * Pure: a report and a workflow in, numbers out.
 */
import type { TokenUsage } from "../model/records.js";
import type { RunReport, Spend } from "../model/run.js";
import type { Pair, Workflow } from "../model/workflow.js";
import { callsModel } from "./estimate.js";
import { costOf, priceFor } from "./prices.js";

export function spendOf(report: Pick<RunReport, "pairs">, workflow: Workflow): Spend {
  const spend: Spend = {
    bought: { calls: 0, batched: 0, tokens: null, cost: 0 },
    reused: { unchanged: 0, request: 0, rejudged: 0 },
    avoided: { tokens: { input: 0, output: 0 }, cost: 0, unknown: 0 },
  };
  const avoid = (pair: Pair | undefined, tokens: TokenUsage | null | undefined) => {
    if (pair === undefined || !callsModel(pair)) return; // a script: nothing to pay for either way
    const price = priceFor(pair.model, workflow.pricing);
    if (!tokens || !price) {
      spend.avoided.unknown++;
      return;
    }
    spend.avoided.tokens.input += tokens.input;
    spend.avoided.tokens.output += tokens.output;
    spend.avoided.cost += costOf(tokens, price);
  };
  for (const outcome of report.pairs) {
    const pair = workflow.pairs.get(outcome.id);
    if (outcome.status === "reused") {
      spend.reused.unchanged++;
      // A hand edit or a pair another shard ran: nothing was generated for it here, nothing avoided.
      if (outcome.avoided !== undefined) avoid(pair, outcome.avoided);
      continue;
    }
    // Calls to no model (a script, pairflow's own assembly of a split file) are not bought.
    if (pair === undefined || !callsModel(pair)) continue;
    const price = priceFor(pair.model, workflow.pricing);
    const free = price !== null && price.input === 0 && price.output === 0;
    for (const attempt of outcome.attempts) {
      if (attempt.reused) {
        spend.reused[attempt.reused.kind]++;
        avoid(pair, attempt.reused.tokens);
        continue;
      }
      spend.bought.calls++;
      if (attempt.tokens?.batch) spend.bought.batched++;
      if (attempt.tokens) {
        const t = (spend.bought.tokens ??= { input: 0, output: 0 });
        t.input += attempt.tokens.input;
        t.output += attempt.tokens.output;
        if (attempt.tokens.cacheRead) t.cacheRead = (t.cacheRead ?? 0) + attempt.tokens.cacheRead;
        if (attempt.tokens.cacheWrite) t.cacheWrite = (t.cacheWrite ?? 0) + attempt.tokens.cacheWrite;
      }
      if (free || spend.bought.cost === null) continue;
      spend.bought.cost = price && attempt.tokens ? spend.bought.cost + costOf(attempt.tokens, price) : null;
    }
  }
  return spend;
}
