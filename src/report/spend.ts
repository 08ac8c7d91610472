/** What a run bought and reused, in one line for people (src/estimate/spend.ts makes the numbers). */
import type { Spend } from "../model/run.js";
import { usd } from "../estimate/prices.js";
import { grouped } from "../model/text.js";

const n = grouped;
const plural = (x: number, one: string, many = `${one}s`) => `${n(x)} ${x === 1 ? one : many}`;

/**
 * `bought 2 calls (3,100 tokens, $0.0042); reused 3 unchanged pairs, 1 request answered before, 1
 * re-judged, with no call; avoided 5,200 tokens, $0.0071 at current prices`.
 */
export function spendLine(spend: Spend): string {
  const { bought, reused, avoided } = spend;
  const parts: string[] = [];
  if (bought.calls === 0) parts.push("bought no call");
  else {
    const tokens = bought.tokens === null ? "tokens not reported" : plural(bought.tokens.input + bought.tokens.output, "token");
    const cost = bought.cost === null ? "cost unknown" : usd(bought.cost);
    // What the providers' price levers took off: a batch's half price, the prompt cache's reads.
    const levers = [
      bought.batched > 0 ? `${bought.batched === bought.calls ? "all" : n(bought.batched)} in batches at the batch price` : "",
      bought.tokens?.cacheRead ? `${plural(bought.tokens.cacheRead, "input token")} from the prompt cache` : "",
      bought.tokens?.cacheWrite ? `${n(bought.tokens.cacheWrite)} written to it` : "",
    ].filter(Boolean);
    parts.push(`bought ${plural(bought.calls, "call")} (${tokens}, ${cost}${levers.length > 0 ? `; ${levers.join(", ")}` : ""})`);
  }
  const kinds = [
    reused.unchanged > 0 ? `${plural(reused.unchanged, "unchanged pair")}` : "",
    reused.request > 0 ? `${plural(reused.request, "request")} answered before` : "",
    reused.rejudged > 0 ? `${n(reused.rejudged)} re-judged` : "",
  ].filter(Boolean);
  if (kinds.length > 0) parts.push(`reused ${kinds.join(", ")}${reused.request + reused.rejudged > 0 ? ", with no call" : ""}`);
  const avoidedTokens = avoided.tokens.input + avoided.tokens.output;
  if (avoidedTokens > 0) {
    const unknown = avoided.unknown > 0 ? ` (and ${plural(avoided.unknown, "artifact")} of unrecorded usage or price)` : "";
    parts.push(`avoided ${plural(avoidedTokens, "token")}, ${usd(avoided.cost)} at current prices${unknown}`);
  }
  return parts.join("; ");
}
