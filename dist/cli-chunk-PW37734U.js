#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  CHARS_PER_TOKEN,
  DEFAULT_OUTPUT_TOKENS,
  callsModel,
  costOf,
  totals,
  usd
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  commandNetwork,
  displayPath,
  grouped,
  instanceId,
  shortRef
} from "./cli-chunk-BXCSBTXN.js";

// src/report/markdown.ts
function md(text) {
  return nameFor(text, "markdown");
}
function code(text) {
  return nameFor(text, "code");
}
function longestRun(lines, ch) {
  let best = 0;
  for (const line of lines) {
    let run = 0;
    for (const c of line) {
      run = c === ch ? run + 1 : 0;
      if (run > best) best = run;
    }
  }
  return best;
}
function bytes(text) {
  return Buffer.byteLength(text, "utf8");
}

// node_modules/get-east-asian-width/lookup-data.js
var ambiguousMinimalCodePoint = 161;
var ambiguousMaximumCodePoint = 1114109;
var ambiguousRanges = [161, 161, 164, 164, 167, 168, 170, 170, 173, 174, 176, 180, 182, 186, 188, 191, 198, 198, 208, 208, 215, 216, 222, 225, 230, 230, 232, 234, 236, 237, 240, 240, 242, 243, 247, 250, 252, 252, 254, 254, 257, 257, 273, 273, 275, 275, 283, 283, 294, 295, 299, 299, 305, 307, 312, 312, 319, 322, 324, 324, 328, 331, 333, 333, 338, 339, 358, 359, 363, 363, 462, 462, 464, 464, 466, 466, 468, 468, 470, 470, 472, 472, 474, 474, 476, 476, 593, 593, 609, 609, 708, 708, 711, 711, 713, 715, 717, 717, 720, 720, 728, 731, 733, 733, 735, 735, 768, 879, 913, 929, 931, 937, 945, 961, 963, 969, 1025, 1025, 1040, 1103, 1105, 1105, 8208, 8208, 8211, 8214, 8216, 8217, 8220, 8221, 8224, 8226, 8228, 8231, 8240, 8240, 8242, 8243, 8245, 8245, 8251, 8251, 8254, 8254, 8308, 8308, 8319, 8319, 8321, 8324, 8364, 8364, 8451, 8451, 8453, 8453, 8457, 8457, 8467, 8467, 8470, 8470, 8481, 8482, 8486, 8486, 8491, 8491, 8531, 8532, 8539, 8542, 8544, 8555, 8560, 8569, 8585, 8585, 8592, 8601, 8632, 8633, 8658, 8658, 8660, 8660, 8679, 8679, 8704, 8704, 8706, 8707, 8711, 8712, 8715, 8715, 8719, 8719, 8721, 8721, 8725, 8725, 8730, 8730, 8733, 8736, 8739, 8739, 8741, 8741, 8743, 8748, 8750, 8750, 8756, 8759, 8764, 8765, 8776, 8776, 8780, 8780, 8786, 8786, 8800, 8801, 8804, 8807, 8810, 8811, 8814, 8815, 8834, 8835, 8838, 8839, 8853, 8853, 8857, 8857, 8869, 8869, 8895, 8895, 8978, 8978, 9312, 9449, 9451, 9547, 9552, 9587, 9600, 9615, 9618, 9621, 9632, 9633, 9635, 9641, 9650, 9651, 9654, 9655, 9660, 9661, 9664, 9665, 9670, 9672, 9675, 9675, 9678, 9681, 9698, 9701, 9711, 9711, 9733, 9734, 9737, 9737, 9742, 9743, 9756, 9756, 9758, 9758, 9792, 9792, 9794, 9794, 9824, 9825, 9827, 9829, 9831, 9834, 9836, 9837, 9839, 9839, 9886, 9887, 9919, 9919, 9926, 9933, 9935, 9939, 9941, 9953, 9955, 9955, 9960, 9961, 9963, 9969, 9972, 9972, 9974, 9977, 9979, 9980, 9982, 9983, 10045, 10045, 10102, 10111, 11094, 11097, 12872, 12879, 57344, 63743, 65024, 65039, 65533, 65533, 127232, 127242, 127248, 127277, 127280, 127337, 127344, 127373, 127375, 127376, 127387, 127404, 917760, 917999, 983040, 1048573, 1048576, 1114109];
var fullwidthMinimalCodePoint = 12288;
var fullwidthMaximumCodePoint = 65510;
var fullwidthRanges = [12288, 12288, 65281, 65376, 65504, 65510];
var wideMinimalCodePoint = 4352;
var wideMaximumCodePoint = 262141;
var wideRanges = [4352, 4447, 8986, 8987, 9001, 9002, 9193, 9196, 9200, 9200, 9203, 9203, 9725, 9726, 9748, 9749, 9776, 9783, 9800, 9811, 9855, 9855, 9866, 9871, 9875, 9875, 9889, 9889, 9898, 9899, 9917, 9918, 9924, 9925, 9934, 9934, 9940, 9940, 9962, 9962, 9970, 9971, 9973, 9973, 9978, 9978, 9981, 9981, 9989, 9989, 9994, 9995, 10024, 10024, 10060, 10060, 10062, 10062, 10067, 10069, 10071, 10071, 10133, 10135, 10160, 10160, 10175, 10175, 11035, 11036, 11088, 11088, 11093, 11093, 11904, 11929, 11931, 12019, 12032, 12245, 12272, 12287, 12289, 12350, 12353, 12438, 12441, 12543, 12549, 12591, 12593, 12686, 12688, 12773, 12783, 12830, 12832, 12871, 12880, 42124, 42128, 42182, 43360, 43388, 44032, 55203, 63744, 64255, 65040, 65049, 65072, 65106, 65108, 65126, 65128, 65131, 94176, 94180, 94192, 94198, 94208, 101594, 101631, 101664, 101760, 101874, 101888, 102801, 102816, 102866, 110576, 110579, 110581, 110587, 110589, 110590, 110592, 110888, 110898, 110898, 110928, 110930, 110933, 110933, 110948, 110952, 110960, 111355, 119552, 119638, 119648, 119670, 126980, 126980, 127183, 127183, 127374, 127374, 127377, 127386, 127406, 127406, 127488, 127490, 127504, 127547, 127552, 127560, 127568, 127569, 127584, 127589, 127744, 127776, 127789, 127797, 127799, 127868, 127870, 127891, 127904, 127946, 127951, 127955, 127968, 127984, 127988, 127988, 127992, 128062, 128064, 128064, 128066, 128252, 128255, 128317, 128331, 128334, 128336, 128359, 128378, 128378, 128405, 128406, 128420, 128420, 128507, 128591, 128640, 128709, 128716, 128716, 128720, 128722, 128725, 128729, 128732, 128735, 128747, 128748, 128756, 128764, 128986, 128986, 128992, 129003, 129008, 129008, 129292, 129338, 129340, 129349, 129351, 129535, 129648, 129660, 129664, 129734, 129736, 129736, 129740, 129757, 129759, 129771, 129775, 129786, 131072, 196605, 196608, 262141];

// node_modules/get-east-asian-width/utilities.js
var isInRange = (ranges, codePoint) => {
  let low = 0;
  let high = Math.floor(ranges.length / 2) - 1;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    const i = mid * 2;
    if (codePoint < ranges[i]) {
      high = mid - 1;
    } else if (codePoint > ranges[i + 1]) {
      low = mid + 1;
    } else {
      return true;
    }
  }
  return false;
};

// node_modules/get-east-asian-width/lookup.js
var commonCjkCodePoint = 19968;
var [wideFastPathStart, wideFastPathEnd] = /* @__PURE__ */ findWideFastPathRange(wideRanges);
function findWideFastPathRange(ranges) {
  let fastPathStart = ranges[0];
  let fastPathEnd = ranges[1];
  for (let index = 0; index < ranges.length; index += 2) {
    const start = ranges[index];
    const end = ranges[index + 1];
    if (commonCjkCodePoint >= start && commonCjkCodePoint <= end) {
      return [start, end];
    }
    if (end - start > fastPathEnd - fastPathStart) {
      fastPathStart = start;
      fastPathEnd = end;
    }
  }
  return [fastPathStart, fastPathEnd];
}
var isAmbiguous = (codePoint) => {
  if (codePoint < ambiguousMinimalCodePoint || codePoint > ambiguousMaximumCodePoint) {
    return false;
  }
  return isInRange(ambiguousRanges, codePoint);
};
var isFullwidth = (codePoint) => {
  if (codePoint < fullwidthMinimalCodePoint || codePoint > fullwidthMaximumCodePoint) {
    return false;
  }
  return isInRange(fullwidthRanges, codePoint);
};
var isWide = (codePoint) => {
  if (codePoint >= wideFastPathStart && codePoint <= wideFastPathEnd) {
    return true;
  }
  if (codePoint < wideMinimalCodePoint || codePoint > wideMaximumCodePoint) {
    return false;
  }
  return isInRange(wideRanges, codePoint);
};

// node_modules/get-east-asian-width/index.js
function validate(codePoint) {
  if (!Number.isSafeInteger(codePoint)) {
    throw new TypeError(`Expected a code point, got \`${typeof codePoint}\`.`);
  }
}
function eastAsianWidth(codePoint, { ambiguousAsWide = false } = {}) {
  validate(codePoint);
  if (isFullwidth(codePoint) || isWide(codePoint) || ambiguousAsWide && isAmbiguous(codePoint)) {
    return 2;
  }
  return 1;
}

// src/report/fit.ts
var SGR = /\x1b\[[0-9;]*m/g;
var PLAIN_ASCII = /^[\x20-\x7e]*$/;
var ZERO = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u;
var PICTOGRAPH = new RegExp("^\\p{Extended_Pictographic}$", "u");
var EMOJI_PRESENTATION = new RegExp("^\\p{Emoji_Presentation}$", "u");
var EMOJI_STYLE = "\uFE0F";
function columnsOf(ch, alone, after) {
  if (ZERO.test(ch)) return alone ? 1 : 0;
  if (PICTOGRAPH.test(ch) && (EMOJI_PRESENTATION.test(ch) || after === EMOJI_STYLE)) return 2;
  return eastAsianWidth(ch.codePointAt(0), { ambiguousAsWide: false });
}
function columns(text) {
  const plain = text.includes("\x1B") ? text.replace(SGR, "") : text;
  if (PLAIN_ASCII.test(plain)) return plain.length;
  const chars = [...plain];
  let total = 0;
  let shown = false;
  for (let i = 0; i < chars.length; i++) {
    total += columnsOf(chars[i], !shown, chars[i + 1]);
    shown ||= !ZERO.test(chars[i]);
  }
  return total;
}
function padColumns(text, width) {
  const taken = columns(text);
  return taken >= width ? text : text + " ".repeat(width - taken);
}
function cut(text, width) {
  if (columns(text) <= width) return text;
  let out = "";
  let shown = 0;
  let glyph = false;
  let from = 0;
  for (const sgr of [...text.matchAll(SGR), null]) {
    const end = sgr === null ? text.length : sgr.index;
    const chars = [...text.slice(from, end)];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      const taken = columnsOf(ch, !glyph, chars[i + 1]);
      if (shown + taken > width - 1) return `${out}\u2026${out.includes("\x1B[") ? "\x1B[0m" : ""}`;
      out += ch;
      shown += taken;
      glyph ||= !ZERO.test(ch);
    }
    if (sgr === null) break;
    out += sgr[0];
    from = end + sgr[0].length;
  }
  return out;
}
function fitLines(text, width) {
  if (width === void 0 || width < 2) return text;
  return text.split("\n").map((line) => cut(line, width - 1)).join("\n");
}

// src/report/estimate.ts
function tokensText(n) {
  return grouped(Math.round(n));
}
function attemptsText(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
function costText(cost) {
  return cost === null ? "cost unknown" : usd(cost);
}
function listed(ids) {
  return ids.length <= 10 ? ids.join(", ") : `${ids.slice(0, 10).join(", ")} and ${ids.length - 10} more`;
}
function totalCostText(estimate) {
  const t = estimate.totals;
  if (t.cost !== null) return usd(t.cost);
  const unknown = estimate.pairs.filter((p) => p.cost === null).length;
  return unknown === estimate.pairs.length ? "cost unknown" : `${usd(t.knownCost)} + cost unknown for ${plural(unknown, "pair")}`;
}
function plural(n, noun) {
  return `${tokensText(n)} ${noun}${n === 1 ? "" : "s"}`;
}
function estimateTotal(estimate) {
  const t = estimate.totals;
  return `${tokensText(t.tokens.input + t.tokens.output)} tokens, ${totalCostText(estimate)}`;
}
function estimateHeadline(estimate, running = estimate.totals.pairs) {
  const n = estimate.totals.pairs;
  if (n === 0) return running === 0 ? "nothing to run, no cost" : `none of the ${tokensText(running)} pairs to run calls a model: no cost`;
  if (n < running) return `the ${tokensText(n)} of ${tokensText(running)} pairs to run that call a model: ${estimateTotal(estimate)}`;
  return `${plural(n, "pair")} to run: ${estimateTotal(estimate)}`;
}
var HEADER = { pair: "pair", model: "model", input: "input", output: "output", attempts: "attempts", tokens: "tokens", cost: "cost" };
function rows(estimate) {
  const list2 = estimate.pairs.map((p) => ({
    pair: p.id,
    model: p.model ?? "-",
    input: (p.tokenizer === "approximate" && p.outputBasis !== "none" ? "~" : "") + tokensText(p.inputTokens),
    output: tokensText(p.outputTokens),
    attempts: attemptsText(p.attempts),
    tokens: tokensText(p.tokens.input + p.tokens.output),
    cost: costText(p.cost)
  }));
  const t = estimate.totals;
  list2.push({
    pair: "total",
    model: "",
    input: "",
    output: "",
    attempts: "",
    tokens: tokensText(t.tokens.input + t.tokens.output),
    cost: totalCostText(estimate)
  });
  return list2;
}
var MAX_NOTE_IDS = 10;
var MAX_PAIR_NOTES = 10;
function estimateNotes(estimate, all = false) {
  const notes = [];
  const ids = (f) => {
    const list2 = estimate.pairs.filter(f).map((p) => p.id);
    const shown2 = all ? list2 : list2.slice(0, MAX_NOTE_IDS);
    return list2.length > shown2.length ? [...shown2.slice(0, -1), `${shown2[shown2.length - 1]} and ${tokensText(list2.length - shown2.length)} more`] : shown2;
  };
  const models = (f) => [...new Set(estimate.pairs.filter(f).map((p) => p.model ?? "(no model)"))].join(", ");
  const some = (f) => estimate.pairs.some(f);
  notes.push("input and output are per attempt; tokens is (input + output) \xD7 attempts");
  if (some((p) => p.tokenizer === "o200k_base")) notes.push(`input counted with the o200k_base tokenizer for ${models((p) => p.tokenizer === "o200k_base")}`);
  if (some((p) => p.tokenizer === "approximate" && p.outputBasis !== "none")) {
    notes.push(
      `~ approximate input: characters / ${CHARS_PER_TOKEN}, as pairflow has no tokenizer for ${models((p) => p.tokenizer === "approximate" && p.outputBasis !== "none")}`
    );
  }
  const output = [];
  if (some((p) => p.outputBasis === "history")) output.push(`median of past accepted attempts for ${ids((p) => p.outputBasis === "history").join(", ")}`);
  if (some((p) => p.outputBasis === "max_tokens")) output.push(`generator_config.max_tokens for ${ids((p) => p.outputBasis === "max_tokens").join(", ")}`);
  if (some((p) => p.outputBasis === "default"))
    output.push(`${tokensText(DEFAULT_OUTPUT_TOKENS)} by default (no history, no max_tokens) for ${ids((p) => p.outputBasis === "default").join(", ")}`);
  if (output.length > 0) notes.push(`output: ${output.join("; ")}`);
  const attempts = [];
  if (some((p) => p.attemptsBasis === "history")) attempts.push(`median of past accepted runs for ${ids((p) => p.attemptsBasis === "history").join(", ")}`);
  if (some((p) => p.attemptsBasis === "default")) attempts.push(`1 (no history) for ${ids((p) => p.attemptsBasis === "default").join(", ")}`);
  if (attempts.length > 0) notes.push(`attempts: ${attempts.join("; ")}`);
  const prices = [];
  if (some((p) => p.price?.source === "workflow")) prices.push(`the workflow's pricing: for ${models((p) => p.price?.source === "workflow")}`);
  if (some((p) => p.price?.source === "built-in"))
    prices.push(`built-in prices of ${estimate.pricesAsOf} for ${models((p) => p.price?.source === "built-in")}`);
  if (some((p) => p.price === null)) prices.push(`no price for ${models((p) => p.price === null)} (add it under pricing: in the workflow file)`);
  notes.push(`prices: ${prices.join("; ")}`);
  const batched = ids((p) => p.tokens.batch === true);
  if (batched.length > 0) notes.push(`batch prices for ${listed(batched)}: their requests go through the provider's batch API`);
  const read = estimate.pairs.reduce((sum, p) => sum + (p.tokens.cacheRead ?? 0), 0);
  if (read > 0) {
    const written = estimate.pairs.reduce((sum, p) => sum + (p.tokens.cacheWrite ?? 0), 0);
    notes.push(
      `prompt cache: ${tokensText(read)} input tokens expected from it at the cached-input price${written > 0 ? `, ${tokensText(written)} written to it` : ""}, as ${plural(ids((p) => (p.tokens.cacheRead ?? 0) + (p.tokens.cacheWrite ?? 0) > 0).length, "pair")} begin alike (the workflow's context, their role and constraints, leading dependencies)`
    );
  }
  for (const e of estimate.paced ?? []) {
    const limits = [
      e.tokensPerMinute === void 0 ? "" : `${tokensText(e.tokensPerMinute)} tokens`,
      e.requestsPerMinute === void 0 ? "" : `${tokensText(e.requestsPerMinute)} requests`
    ].filter((x) => x !== "").join(", ");
    const takes = e.ms < 6e4 ? "within the first minute" : `about ${Math.ceil(e.ms / 6e4)} min`;
    notes.push(
      `at ${limits}/min (the rate_limit of ${e.endpoint}${e.model === null ? "" : `, ${e.model}`}): ${takes} for ${plural(Math.ceil(e.calls), "call")}`
    );
  }
  const perPair = estimate.pairs.flatMap((p) => p.notes.map((note) => `${p.id}: ${note}`));
  const shown = all ? perPair : perPair.slice(0, MAX_PAIR_NOTES);
  notes.push(...shown);
  if (shown.length < perPair.length) notes.push(`and ${tokensText(perPair.length - shown.length)} more notes on single pairs (plan --json has each pair's)`);
  return notes;
}
function estimateText(estimate, style, options = {}) {
  if (estimate.pairs.length === 0) return style.bold(`Estimate: ${estimateHeadline(estimate, options.running ?? 0)}`) + "\n";
  const table = [HEADER, ...rows(estimate).map((r) => ({ ...r, pair: nameFor(r.pair, "terminal"), model: nameFor(r.model, "terminal") }))];
  const keys = Object.keys(HEADER);
  const right = /* @__PURE__ */ new Set(["input", "output", "attempts", "tokens"]);
  const widths = keys.map((k) => Math.max(...table.map((r) => columns(r[k]))));
  const lines = [style.bold(`Estimate for ${estimateHeadline(estimate, options.running)}`)];
  table.forEach((r, n) => {
    const line = "  " + keys.map((k, i) => right.has(k) && n > 0 ? r[k].padStart(widths[i]) : padColumns(r[k], widths[i])).join("  ").trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  for (const note of estimateNotes(estimate, options.all)) lines.push(style.dim(`  - ${nameFor(note, "terminal")}`));
  return lines.join("\n") + "\n";
}
var byIdOf = /* @__PURE__ */ new WeakMap();
function pairEstimateJson(estimate, id) {
  let byId = byIdOf.get(estimate);
  if (!byId) {
    byId = new Map(estimate.pairs.map((e) => [e.id, e]));
    byIdOf.set(estimate, byId);
  }
  const p = byId.get(id);
  if (!p) return null;
  const { id: _, spends: __, ...rest } = p;
  return { ...rest, tokens: { ...rest.tokens }, price: rest.price && { ...rest.price }, notes: [...rest.notes] };
}
function totalsEstimateJson(estimate) {
  const t = estimate.totals;
  return {
    pairs: t.pairs,
    tokens: { ...t.tokens },
    cost: t.cost,
    knownCost: t.knownCost,
    unpricedModels: [...t.unpricedModels],
    pricesAsOf: estimate.pricesAsOf
  };
}
function compareWithRun(estimate, report) {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const pairs = estimate.pairs.map((e) => {
    const outcome = outcomes.get(e.id);
    const attempts = outcome?.attempts ?? [];
    const reported = attempts.filter((a) => a.tokens !== null);
    let tokens = null;
    if (attempts.length === 0)
      tokens = { input: 0, output: 0 };
    else if (reported.length > 0) {
      tokens = { input: 0, output: 0 };
      for (const a of reported) {
        tokens.input += a.tokens.input;
        tokens.output += a.tokens.output;
      }
    }
    const cost = tokens && e.price ? reported.reduce((sum2, a) => sum2 + costOf(a.tokens, e.price), 0) : null;
    return {
      id: e.id,
      status: outcome?.status ?? "not run",
      estimated: { tokens: { ...e.tokens }, cost: e.cost },
      actual: { tokens, cost }
    };
  });
  const sum = (list2) => list2.some((t) => t === null) ? null : list2.reduce((s, t) => ({ input: s.input + t.input, output: s.output + t.output }), { input: 0, output: 0 });
  const total = (list2) => list2.some((c) => c === null) ? null : list2.reduce((s, c) => s + c, 0);
  return {
    pairs,
    totals: {
      estimated: { tokens: sum(pairs.map((p) => p.estimated.tokens)), cost: total(pairs.map((p) => p.estimated.cost)) },
      actual: { tokens: sum(pairs.map((p) => p.actual.tokens)), cost: total(pairs.map((p) => p.actual.cost)) }
    }
  };
}
function comparisonRows(c) {
  const tokens = (t2) => t2 === null ? "not reported" : tokensText(t2.input + t2.output);
  const cost = (n, t2) => t2 === null ? "-" : costText(n);
  const list2 = c.pairs.map((p) => [
    p.id,
    p.status,
    tokens(p.estimated.tokens),
    tokens(p.actual.tokens),
    cost(p.estimated.cost),
    cost(p.actual.cost, p.actual.tokens)
  ]);
  const t = c.totals;
  list2.push(["total", "", tokens(t.estimated.tokens), tokens(t.actual.tokens), cost(t.estimated.cost), cost(t.actual.cost, t.actual.tokens)]);
  return list2;
}
var COMPARISON_HEADER = ["pair", "status", "est. tokens", "actual tokens", "est. cost", "actual cost"];
function comparisonText(c, style) {
  if (c.pairs.length === 0) return "";
  const table = [COMPARISON_HEADER, ...comparisonRows(c)];
  const widths = COMPARISON_HEADER.map((_, i) => Math.max(...table.map((r) => columns(r[i]))));
  const lines = [style.bold("Estimated against actual")];
  table.forEach((r, n) => {
    const line = "  " + r.map((cell, i) => i >= 2 && n > 0 ? cell.padStart(widths[i]) : padColumns(cell, widths[i])).join("  ").trimEnd();
    lines.push(n === 0 || n === table.length - 1 ? style.bold(line) : line);
  });
  if (c.pairs.some((p) => p.actual.tokens === null))
    lines.push(style.dim("  - not reported: the generator gave no token usage (a command generator, or a provider that sends none)"));
  return lines.join("\n") + "\n";
}

// src/report/failure.ts
var OMITTED = "[earlier output omitted]";
var STRONG = /(error|errors|exception)\b|\b(assert\w*|expected|panic(ked)?|fatal|undefined|cannot|can't|unexpected|missing|invalid)\b/i;
var WEAK = /\b(fail(ed|s|ure|ing)?|not ok|refused|rejected|denied)\b|[×✖✗❌]/i;
var MAX_ERROR_LINES = 2;
var MAX_QUOTED = 120;
function failureHeadline(note, max = 240, options = {}) {
  const text = visible((note ?? "").replace(/\r\n?/g, "\n"));
  const [first = "", ...rest] = text.split("\n");
  const m = /^([^:]{1,80}?:)\s*(.*)$/.exec(first);
  const lead = m && rest.length > 0 ? m[1] : "";
  const lines = [m && rest.length > 0 ? m[2] : first, ...rest].map((l) => l.replace(OMITTED, "").replace(/\s+/g, " ").trim()).filter((l) => l !== "" && !/^[-=_⎯─━*#~ ]+$/.test(l));
  if (lines.length === 0) return clip(lead.replace(/:$/, "") || "failed", max);
  const picked = errorLines(lines);
  if (picked.length === 0) picked.push(0);
  const last = lines.length - 1;
  if (options.last !== false && !picked.includes(last)) picked.push(last);
  let out = lead ? `${lead} ` : "";
  let previous = -1;
  for (const i of picked) {
    const gap = i - previous - 1;
    if (previous >= 0) out += gap === 0 ? " / " : ` \u2026 ${gap === 1 ? "1 line" : `${gap} lines`} \u2026 `;
    else if (gap > 0) out += "\u2026 ";
    out += clip(lines[i], MAX_QUOTED);
    previous = i;
  }
  return clip(out, max);
}
function errorLines(lines) {
  const picked = [];
  const core = (l) => l.replace(/^[^\p{L}\p{N}]+/u, "").toLowerCase();
  const add = (pattern) => {
    for (const [i, line] of lines.entries()) {
      if (picked.length >= MAX_ERROR_LINES) return;
      if (picked.includes(i) || !pattern.test(line)) continue;
      const c = core(line);
      if (picked.some((j) => core(lines[j]).includes(c) || c.includes(core(lines[j])))) continue;
      picked.push(i);
    }
  };
  add(STRONG);
  if (picked.length === 0) add(WEAK);
  return picked.sort((a, b) => a - b);
}
function clip(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

// src/report/impact.ts
var UNCHANGED = /* @__PURE__ */ new Set(["skip", "reused"]);
function isAffected(node2) {
  return node2.planned ?? !UNCHANGED.has(node2.status);
}
function causeGroups(nodes) {
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const dependents = /* @__PURE__ */ new Map();
  for (const n of affected.values()) {
    for (const dep of n.requires) {
      if (!affected.has(dep)) continue;
      const list2 = dependents.get(dep);
      if (list2) list2.push(n.id);
      else dependents.set(dep, [n.id]);
    }
  }
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const cascaded = new Set([...affected.values()].filter((n) => isCascaded(n, affected)).map((n) => n.id));
  const groups = [];
  for (const root of affected.values()) {
    if (cascaded.has(root.id)) continue;
    const seen = /* @__PURE__ */ new Set();
    const queue = [...dependents.get(root.id) ?? []];
    while (queue.length > 0) {
      const id = queue.pop();
      if (seen.has(id) || !cascaded.has(id)) continue;
      seen.add(id);
      queue.push(...dependents.get(id) ?? []);
    }
    groups.push({ root, cascade: [...seen].sort((a, b) => order.get(a) - order.get(b)) });
  }
  return groups;
}
function isCascaded(node2, affected) {
  const deps = new Set(node2.requires.filter((d) => affected.has(d)));
  if (deps.size === 0) return false;
  if (node2.status === "blocked" && node2.reasons.length === 0) return true;
  if (node2.reasons.length === 0) return false;
  return node2.reasons.every((r) => followsFrom(node2, r, deps));
}
function ownReasons(node2, affected) {
  const deps = new Set(node2.requires.filter((d) => affected.has(d)));
  return node2.reasons.filter((r) => !followsFrom(node2, r, deps));
}
function followsFrom(node2, r, deps) {
  if (node2.assembly && deps.size > 0 && (r.component?.kind === "upstream" || r.component?.kind === "generator_config" && r.component.name === "order"))
    return true;
  return (r.component?.kind === "upstream" || r.component?.kind === "artifact") && deps.has(r.component.name) && // A dependency added to or removed from requires is a change of the pair's own settings.
  !/ (added to|removed from) requires$/.test(r.detail);
}
var GRAPH_NODE_LIMIT = 40;
function affectedSubgraph(nodes, limit = GRAPH_NODE_LIMIT) {
  if (nodes.length <= limit) return { nodes, omittedAffected: 0, unchanged: 0 };
  const affected = nodes.filter(isAffected);
  const roots = new Map(causeGroups(nodes).map((g) => [g.root.id, g.cascade.length]));
  const rank = (n) => n.status === "failed" ? 0 : roots.has(n.id) ? 1 : 2;
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const kept = new Set(
    [...affected].sort((a, b) => rank(a) - rank(b) || (roots.get(b.id) ?? 0) - (roots.get(a.id) ?? 0) || order.get(a.id) - order.get(b.id)).slice(0, limit).map((n) => n.id)
  );
  return { nodes: affected.filter((n) => kept.has(n.id)), omittedAffected: affected.length - kept.size, unchanged: nodes.length - affected.length };
}

// src/report/causes.ts
var STATUS_ORDER = ["failed", "blocked", "interrupted", "executed", "run", "reused", "skip"];
function reach(cause) {
  return cause.roots.length + cause.downstream.length;
}
function causesOf(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const affected = new Map(nodes.filter(isAffected).map((n) => [n.id, n]));
  const merged = /* @__PURE__ */ new Map();
  const firstRun = nodes.length > 0 && nodes.every((n) => n.reasons.length > 0 && n.reasons.every((r) => r.kind === "new" || r.kind === "upstream"));
  for (const group of causeGroups(nodes)) {
    const root = byId.get(group.root.id);
    for (const found of editsOf(root, ownReasons(root, affected))) {
      const edit = firstRun && found.key.startsWith("new\0") ? NOTHING_ACCEPTED : found;
      let cause = merged.get(edit.key);
      if (!cause) merged.set(edit.key, cause = { edit, reasons: /* @__PURE__ */ new Map(), roots: [], downstream: /* @__PURE__ */ new Set() });
      for (const r of edit.reasons) if (!cause.reasons.has(r.detail)) cause.reasons.set(r.detail, r);
      cause.roots.push({ id: root.id, wave: root.wave, status: root.status, downstream: group.cascade.length });
      for (const id of group.cascade) cause.downstream.add(id);
    }
  }
  const causes = [...merged.values()].map((c) => {
    const downstream = [...c.downstream].sort((a, b) => order.get(a) - order.get(b));
    const roots = [...c.roots].sort((a, b) => Number(b.status === "failed") - Number(a.status === "failed") || b.downstream - a.downstream);
    const all = [...roots.map((r) => byId.get(r.id)), ...downstream.map((id) => byId.get(id))];
    const templates = /* @__PURE__ */ new Map();
    for (const n of all) if (n.template !== void 0) templates.set(n.template, (templates.get(n.template) ?? 0) + 1);
    const reasons = [...c.reasons.values()];
    const name = c.edit.name(reasons);
    return {
      key: c.edit.key,
      name,
      why: nameText(name),
      reasons,
      roots,
      downstream,
      waves: waveRange(all),
      templates: [...templates].map(([template, count2]) => ({ template, count: count2 })),
      rootStatuses: statusCounts(roots.map((r) => r.status)),
      downstreamStatuses: statusCounts(downstream.map((id) => byId.get(id).status)),
      failed: roots.filter((r) => r.status === "failed").length
    };
  });
  return causes.sort((a, b) => Number(b.failed > 0) - Number(a.failed > 0) || reach(b) - reach(a));
}
var NOTHING_ACCEPTED = { key: "new\0", reasons: [{ kind: "new", detail: "never accepted" }], name: () => ["new: never accepted"] };
function editsOf(node2, own) {
  const owner = node2.template ?? node2.id;
  const edits = /* @__PURE__ */ new Map();
  const section = node2.section;
  const sectionEdited = section !== void 0 && own.some((r) => r.component?.kind === "piece" || r.kind === "new");
  for (const r of own) {
    const [key, name] = sectionEdited && (r.component?.kind === "piece" || r.component?.kind === "prompt" || r.kind === "new") ? sectionEdit(node2.id, section, r) : editOf(owner, node2.id, r);
    const edit = edits.get(key);
    if (edit) edit.reasons.push(r);
    else edits.set(key, { key, reasons: [r], name });
  }
  if (edits.size === 0)
    edits.set(`status\0${node2.id}`, { key: `status\0${node2.id}`, reasons: [], name: () => [{ code: node2.id }, `: ${node2.status}`] });
  return [...edits.values()];
}
function sectionEdit(id, section, r) {
  const added = r.kind === "new";
  return [
    `section\0${id}`,
    (reasons) => [{ code: section.file }, ` \xA7 ${section.heading}${added && reasons.every((x) => x.kind === "new") ? " added" : ""}`]
  ];
}
var partsOf = (reasons) => [...new Set(reasons.map((r) => r.component?.name).filter((n) => !!n))].join(", ");
function editOf(owner, id, r) {
  const c = r.component;
  const of = (what, subject, parts) => (reasons) => {
    const p = parts?.(reasons) ?? "";
    return [`${what} of `, { code: subject }, ...p ? [` (${p})`] : []];
  };
  switch (c?.kind) {
    case "prompt":
      return [`prompt\0${owner}`, of("prompt", owner, partsOf)];
    case "context":
      return [`context\0${c.name}`, () => [`workflow ${c.name}`]];
    case "layout":
      return ["layout", () => ["pairflow's prompt layout"]];
    case "input":
    case "generator_file":
    case "guard_file":
    case "observed": {
      const role = c.kind === "input" ? "input" : c.kind === "generator_file" ? "generator's file" : c.kind === "guard_file" ? "guard's file" : "file read";
      return [`file\0${c.name}`, () => [`${role} `, { code: c.name }]];
    }
    case "model":
      return [`model\0${owner}`, of("model", owner, (rs) => /\((was [^)]*)\)/.exec(rs[0]?.detail ?? "")?.[1] ?? "")];
    case "guard":
    case "guards":
      return [`guard\0${owner}`, of("guard", owner)];
    case "guard_config":
      return [`guard_config\0${owner}`, of("guard settings", owner, partsOf)];
    case "generator":
      return [`generator\0${owner}`, of("generator", owner)];
    case "generator_config":
      return [`generator_config\0${owner}`, of("generator settings", owner, partsOf)];
    case "piece":
      return [`piece\0${id}`, of("section", id)];
    case "upstream":
    case "artifact": {
      if (/ (added to|removed from) requires$/.test(r.detail)) return [`requires\0${owner}`, of("requires", owner, requiresParts)];
      const edited = /edited by hand$/.test(r.detail);
      return [`${edited ? "edited" : "upstream"}\0${c.name}`, () => [{ code: c.name }, edited ? "'s output, edited by hand" : "'s accepted content"]];
    }
  }
  switch (r.kind) {
    case "forced":
      return [`forced\0${r.detail}`, () => [{ code: r.detail }]];
    case "new":
      return [`new\0${id}`, () => r.detail === "never accepted" ? ["new pair ", { code: id }] : [{ code: id }, `: ${r.detail}`]];
    case "rejected":
      return [`rejected\0${id}`, () => [{ code: id }, ": last attempt rejected"]];
    case "carried":
      return [`carried\0${id}`, () => [{ code: id }, ": a person's edit carried forward"]];
    default:
      return [`${r.kind}\0${owner}\0${r.detail}`, () => [{ code: owner }, `: ${r.detail}`]];
  }
}
function requiresParts(reasons) {
  const list2 = (how) => reasons.filter((r) => r.detail.endsWith(` ${how} requires`)).map((r) => r.component?.name ?? "");
  const added = list2("added to");
  const removed = list2("removed from");
  return [added.length > 0 ? `added ${added.join(", ")}` : "", removed.length > 0 ? `removed ${removed.join(", ")}` : ""].filter(Boolean).join("; ");
}
function nameText(name) {
  return name.map((p) => typeof p === "string" ? p : p.code).join("");
}
function nameIn(name, words, quote) {
  return name.map((p) => typeof p === "string" ? words(p) : quote(p.code)).join("");
}
function waveRange(nodes) {
  let first = Infinity;
  let last = -Infinity;
  for (const n of nodes) {
    if (n.wave < first) first = n.wave;
    if (n.wave > last) last = n.wave;
  }
  return { first, last };
}
function append(map, key, value) {
  const list2 = map.get(key);
  if (list2) list2.push(value);
  else map.set(key, [value]);
}
function statusCounts(statuses) {
  const counts = /* @__PURE__ */ new Map();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  const rank = (s) => STATUS_ORDER.includes(s) ? STATUS_ORDER.indexOf(s) : STATUS_ORDER.length;
  return [...counts].sort(([a], [b]) => rank(a) - rank(b)).map(([status, count2]) => ({ status, count: count2 }));
}
function failuresOf(nodes, notes) {
  const blocked = blockedBy(nodes);
  return nodes.filter((n) => n.status === "failed").map((n) => ({
    id: n.id,
    wave: n.wave,
    headline: failureHeadline(notes.get(n.id) ?? null),
    note: notes.get(n.id) ?? null,
    blocked: blocked.get(n.id) ?? 0
  }));
}
function blockedBy(nodes) {
  const dependents = /* @__PURE__ */ new Map();
  for (const n of nodes) for (const dep of n.requires) append(dependents, dep, n.id);
  const status = new Map(nodes.map((n) => [n.id, n.status]));
  const out = /* @__PURE__ */ new Map();
  for (const n of nodes.filter((n2) => n2.status === "failed")) {
    const seen = /* @__PURE__ */ new Set();
    const queue = [...dependents.get(n.id) ?? []];
    while (queue.length > 0) {
      const id = queue.pop();
      if (seen.has(id) || status.get(id) !== "blocked") continue;
      seen.add(id);
      queue.push(...dependents.get(id) ?? []);
    }
    out.set(n.id, seen.size);
  }
  return out;
}
function number(n) {
  return grouped(n);
}
function plural2(n, one, many = `${one}s`) {
  return `${number(n)} ${n === 1 ? one : many}`;
}
function wavesText(waves) {
  return waves.first === waves.last ? `wave ${waves.first}` : `waves ${waves.first}\u2013${waves.last}`;
}
function statusesText(counts, only) {
  if (counts.every((c) => c.status === only)) return "";
  return counts.map((c) => `${number(c.count)} ${c.status}`).join(", ");
}
function causeExtent(cause, quote = (id) => id) {
  const roots = statusesText(cause.rootStatuses, "run");
  const down = statusesText(cause.downstreamStatuses, "run");
  const only = cause.roots.length === 1 ? cause.roots[0].id : void 0;
  const head = only !== void 0 && !cause.name.some((p) => typeof p !== "string" && p.code === only) ? quote(only) : plural2(cause.roots.length, "pair");
  const tail = cause.downstream.length > 0 ? ` + ${number(cause.downstream.length)} downstream${down ? ` (${down})` : ""}` : "";
  const templates = cause.templates.length > 0 ? ` \xB7 ${cause.templates.map((t) => `${quote(`${t.template}[*]`)} ${number(t.count)}`).join(", ")}` : "";
  return `${head}${roots ? ` (${roots})` : ""}${tail} \xB7 ${wavesText(cause.waves)}${templates}`;
}
function rootsDiffer(cause) {
  return cause.roots.some((r) => r.downstream > 0) || cause.rootStatuses.length > 1;
}
function planNodes(plan) {
  return plan.pairs.map((p) => node(plan, p, p.action));
}
function runNodes(plan, report) {
  const outcomes = new Map(report.pairs.map((o) => [o.id, o]));
  const nodes = [];
  for (const p of plan.pairs) {
    const o = outcomes.get(p.id);
    if (o) nodes.push(node(plan, p, o.status));
  }
  return nodes;
}
function node(plan, p, status) {
  const pair = plan.workflow.pairs?.get(p.id);
  const template = pair?.template;
  const piece = pair?.piece;
  return {
    id: p.id,
    requires: p.requires,
    status,
    reasons: p.action === "run" ? p.reasons : [],
    planned: p.action === "run",
    wave: p.wave,
    ...template !== void 0 ? { template } : {},
    ...piece !== void 0 ? { section: { file: piece.file, heading: headingOf(piece) } } : {},
    ...pair?.assembly !== void 0 ? { assembly: true } : {}
  };
}
function headingOf(piece) {
  const first = piece.text.slice(0, piece.text.indexOf("\n") === -1 ? void 0 : piece.text.indexOf("\n"));
  const heading = /^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(first)?.[1];
  return heading || piece.id;
}
function changesFor(cause, changes, templateOf) {
  const entry = (kind2, id) => changes.find((c) => c.kind === kind2 && c.id === id);
  const [kind, subject = ""] = cause.key.split("\0");
  const found = [];
  switch (kind) {
    case "context":
      found.push(entry("workflow", null));
      break;
    case "prompt":
      found.push(entry("prompt", subject));
      break;
    case "file":
      found.push(entry("file", subject));
      break;
    case "section":
      found.push(entry("section", subject));
      break;
    case "new": {
      const name = templateOf(subject) ?? subject;
      found.push(entry("pair", name), entry("prompt", name));
      break;
    }
    case "model":
    case "guard":
    case "guard_config":
    case "generator":
    case "generator_config":
    case "requires":
      found.push(entry("pair", subject) ?? entry("workflow", null));
      break;
  }
  return found.filter((c) => c !== void 0);
}

// src/report/causesText.ts
var MAX_ROOT_LINES = 5;
var MAX_NAMED = 5;
function causeLines(causes, style, budget) {
  const lines = [];
  const shown = causes.length > budget ? causes.slice(0, Math.max(0, budget - 1)) : causes;
  let spare = budget - shown.length - (shown.length < causes.length ? 1 : 0);
  for (const cause of shown) {
    const why = cause.failed > 0 ? style.red(nameFor(cause.why, "terminal")) : style.bold(nameFor(cause.why, "terminal"));
    lines.push(`  ${why}  ${causeExtent(cause, (id) => nameFor(id, "terminal"))}`);
    if (cause.roots.length < 2 || spare <= 0) continue;
    if (!rootsDiffer(cause) || spare === 1) {
      const named = cause.roots.slice(0, MAX_NAMED).map((r) => nameFor(r.id, "terminal"));
      const more = cause.roots.length - named.length;
      lines.push(style.dim(`    ${named.join(", ")}${more > 0 ? ` and ${number(more)} more` : ""}`));
      spare--;
      continue;
    }
    const room = Math.min(spare, MAX_ROOT_LINES);
    const listed2 = cause.roots.length > room ? cause.roots.slice(0, room - 1) : cause.roots;
    const width = Math.min(40, Math.max(...listed2.map((r) => columns(nameFor(r.id, "terminal")))));
    const waveWidth = Math.max(...listed2.map((r) => String(r.wave).length));
    for (const r of listed2) {
      const status = r.status === "run" ? "" : `  ${r.status === "failed" ? style.red(r.status) : r.status}`;
      const down = r.downstream > 0 ? style.dim(`  + ${number(r.downstream)} downstream`) : "";
      lines.push(`    ${padColumns(nameFor(r.id, "terminal"), width)}  ${style.dim(`wave ${String(r.wave).padEnd(waveWidth)}`)}${status}${down}`);
    }
    if (listed2.length < cause.roots.length) lines.push(style.dim(`    \u2026 and ${plural2(cause.roots.length - listed2.length, "more pair")}`));
    spare -= Math.min(room, cause.roots.length);
  }
  if (shown.length < causes.length) lines.push(style.dim(`  \u2026 and ${plural2(causes.length - shown.length, "more cause")}`));
  return lines;
}
function failureLines(failures, style, max) {
  const shown = failures.length > max ? failures.slice(0, Math.max(0, max - 1)) : failures;
  const lines = shown.map((f) => {
    const blocked = f.blocked > 0 ? style.dim(` (blocked ${plural2(f.blocked, "pair")})`) : "";
    return `  ${style.red("\u2716")} ${nameFor(f.id, "terminal")}${blocked}: ${f.headline}`;
  });
  if (shown.length < failures.length) lines.push(style.dim(`  \u2026 and ${plural2(failures.length - shown.length, "more failed pair")}`));
  return lines;
}

// src/report/plan.ts
function planJson(plan, cwd = process.cwd(), estimate) {
  const json = planJsonStream(plan, cwd, estimate);
  return { ...json, pairs: [...json.pairs] };
}
function planJsonStream(plan, cwd = process.cwd(), estimate) {
  return {
    version: 1,
    workflow: { name: plan.workflow.name, path: displayPath(plan.workflow.path, cwd), workflowRef: plan.workflowRef },
    waves: plan.graph.waves.map((w) => [...w]),
    pairs: (function* () {
      for (const p of plan.pairs) yield pairJson(plan, p, estimate);
    })(),
    ...plan.removed && plan.removed.length > 0 ? { removed: [...plan.removed] } : {},
    totals: { ...totals(plan), ...estimate ? { estimate: totalsEstimateJson(estimate) } : {} }
  };
}
function pairJson(plan, p, estimate) {
  const template = plan.workflow.pairs.get(p.id)?.template;
  return {
    id: p.id,
    ...template !== void 0 ? { template } : {},
    wave: p.wave,
    // Shared with the plan, not copied: the JSON is written out, never changed.
    requires: p.requires,
    configRef: p.configRef,
    action: p.action,
    reasons: p.reasons,
    ...p.reuse ? { reuse: p.reuse } : {},
    ...estimate ? { estimate: pairEstimateJson(estimate, p.id) } : {}
  };
}
function* planJsonText(json) {
  const { version, workflow, waves, pairs, totals: totals2, ...rest } = json;
  let piece = `{
  "version": ${JSON.stringify(version)},
  "workflow": ${JSON.stringify(workflow)},
  "waves": ${list(waves)},
  "pairs": [`;
  let first = true;
  for (const pair of pairs) {
    piece += `${first ? "" : ","}
    ${JSON.stringify(pair)}`;
    first = false;
    if (piece.length >= PIECE_LENGTH) {
      yield piece;
      piece = "";
    }
  }
  piece += `${first ? "]" : "\n  ]"},
  "totals": ${JSON.stringify(totals2)}`;
  for (const [key, value] of Object.entries(rest)) piece += `,
  ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  yield `${piece}
}
`;
}
var PIECE_LENGTH = 32 * 1024;
function list(items) {
  return items.length === 0 ? "[]" : `[
${items.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}
  ]`;
}
var MAX_DETAILS = 3;
function reasonsText(pair) {
  if (pair.action === "skip") {
    if (pair.stale) return "a person's edit kept, though its sources changed since (carry_edits: true carries it forward)";
    if (pair.artifact?.source === "workspace") return "output edited by hand; kept as accepted (delete the file to regenerate it)";
    if (pair.artifact?.edited) return "unchanged (output edited by hand; kept as accepted)";
    return pair.artifact?.source === "remote" ? "unchanged (accepted artifact in the remote store)" : "unchanged";
  }
  const shown = pair.reasons.slice(0, MAX_DETAILS).map((r) => r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`);
  const more = pair.reasons.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}
function withoutCalls(plan) {
  return plan.pairs.filter((p) => p.action === "run" && (p.reuse?.kind === "request" || p.reuse?.kind === "rejudge") && pairCallsModel(plan, p.id)).length;
}
function withoutCallsText(plan) {
  const n = withoutCalls(plan);
  return n === 0 ? "" : ` (${grouped(n)} with no model call: ${n === 1 ? "its request was" : "their requests were"} answered before)`;
}
function pairCallsModel(plan, id) {
  const pair = plan.workflow.pairs?.get(id);
  return pair === void 0 || callsModel(pair);
}
function reuseText(pair, calls = true) {
  const reuse = pair.reuse;
  if (reuse === void 0) return "";
  if (reuse.kind === "request") return `request answered before${calls ? ": no model call" : ""}`;
  if (reuse.kind === "rejudge")
    return calls ? "re-judge: no model call if the guard accepts what the same request returned" : "re-judge: the guard judges what the same request returned";
  if (!calls) return "";
  if (reuse.kind !== "unless") return "";
  return `no model call if ${reuse.deps.join(", ")} ${reuse.deps.length === 1 ? "reproduces its" : "reproduce their"} content`;
}
var SCREEN_LINES = 40;
function planText(plan, style, cwd = process.cwd(), estimate, options = {}) {
  const estimateLines = estimate && estimate.pairs.length > 0 ? estimate.pairs.length + 4 + estimateNotes(estimate, options.all).length : 0;
  if (options.all || listLines(plan) + estimateLines <= SCREEN_LINES) return fitLines(planListText(plan, style, cwd, estimate, options.all), options.columns);
  const t = totals(plan);
  const lines = [planHeader(plan, style, cwd)];
  const removed = removedLine(plan, style);
  const network = networkLine(plan, style);
  const tail = [
    "",
    totalsLine(plan, style),
    ...network ? [network] : [],
    ...estimate && estimate.pairs.length > 0 ? [style.bold(`Estimate for ${estimateHeadline(estimate, t.run)}`)] : [],
    style.dim(`${options.more ?? "pairflow plan --all lists every pair, by wave"}.`)
  ];
  if (t.run > 0) {
    const budget = SCREEN_LINES - lines.length - 2 - (removed ? 2 : 0) - tail.length;
    lines.push("", style.bold("Will run, by cause"), ...causeLines(causesOf(planNodes(plan)), style, budget));
  }
  if (removed) lines.push("", removed);
  lines.push(...tail);
  return fitLines(lines.join("\n") + "\n", options.columns);
}
function planHeader(plan, style, cwd) {
  const where = displayPath(plan.workflow.path, cwd);
  return style.bold(`Plan for "${nameFor(plan.workflow.name, "terminal")}"`) + style.dim(` (${nameFor(where, "terminal")}): ${plural2(totals(plan).pairs, "pair")} in ${plural2(plan.graph.waves.length, "wave")}`);
}
function totalsLine(plan, style) {
  const t = totals(plan);
  const removed = plan.removed ?? [];
  return style.bold(
    `${number(t.run)} to run${withoutCallsText(plan)}, ${number(t.skip)} unchanged` + (removed.length > 0 ? `, ${number(removed.length)} removed` : "")
  );
}
function removedLine(plan, style) {
  const removed = plan.removed ?? [];
  if (removed.length === 0) return void 0;
  return `${style.bold("Removed")} (no longer in the workflow; the run drops them from the lock file): ${removedText(removed)}`;
}
function listLines(plan) {
  const templates = /* @__PURE__ */ new Map();
  let lines = 1 + 2 * plan.graph.waves.length + 2 + ((plan.removed ?? []).length > 0 ? 2 : 0);
  for (const p of plan.pairs) {
    const template = plan.workflow.pairs?.get(p.id)?.template;
    if (template === void 0) {
      lines++;
      continue;
    }
    const key = `${p.wave} ${template}`;
    const group = templates.get(key) ?? { wave: p.wave, run: 0, all: 0 };
    group.all++;
    if (p.action === "run") group.run++;
    templates.set(key, group);
  }
  for (const g of templates.values()) lines += g.all < 2 ? 1 : 1 + g.run;
  return lines;
}
function planListText(plan, style, cwd = process.cwd(), estimate, all = false) {
  const t = totals(plan);
  const lines = [planHeader(plan, style, cwd)];
  const templateOf = (p) => plan.workflow.pairs.get(p.id)?.template;
  const width = Math.min(40, Math.max(0, ...plan.pairs.map((p) => columns(nameFor(p.id, "terminal")))));
  const line = (p, indent) => {
    const action = p.action === "run" ? style.yellow("run ") : style.green("skip");
    const reuse = reuseText(p, pairCallsModel(plan, p.id));
    return `${indent}${action}  ${padColumns(nameFor(p.id, "terminal"), width)}  ${style.dim(shortRef(p.configRef).padEnd(12))}  ${nameFor(reasonsText(p), "terminal")}${reuse ? style.dim(` (${nameFor(reuse, "terminal")})`) : ""}`;
  };
  for (const [wave, pairs] of byWave(plan.pairs)) {
    lines.push("", style.bold(`Wave ${wave}`));
    const groups = /* @__PURE__ */ new Map();
    for (const p of pairs) {
      const template = templateOf(p);
      if (template === void 0) continue;
      const group = groups.get(template);
      if (group) group.push(p);
      else groups.set(template, [p]);
    }
    const shown = /* @__PURE__ */ new Set();
    for (const p of pairs) {
      const template = templateOf(p);
      const group = template === void 0 ? void 0 : groups.get(template);
      if (group === void 0 || group.length < 2) {
        lines.push(line(p, "  "));
        continue;
      }
      if (shown.has(template)) continue;
      shown.add(template);
      const run = group.filter((g) => g.action === "run");
      const counts = [
        run.length > 0 ? style.yellow(`${run.length} run`) : "",
        run.length < group.length ? style.green(`${group.length - run.length} unchanged`) : ""
      ];
      lines.push(`  ${style.bold(`${nameFor(template, "terminal")}[*]`)}  ${counts.filter(Boolean).join(", ")}`);
      const shownPairs = group.filter((g) => g.action === "run" || g.stale);
      for (const [file, pieces] of byFile(plan, template, group, shownPairs)) {
        if (file !== void 0) lines.push(`    ${style.bold(nameFor(pieces.heading, "terminal"))}  ${pieces.count}`);
        for (const r of pieces.shown) lines.push(line(r, file === void 0 ? "    " : "      "));
      }
    }
  }
  const removed = removedLine(plan, style);
  if (removed) lines.push("", removed);
  lines.push("", totalsLine(plan, style));
  const network = networkLine(plan, style);
  if (network) lines.push(network);
  if (estimate && estimate.pairs.length > 0) lines.push("", estimateText(estimate, style, { running: t.run, all }).trimEnd());
  return lines.join("\n") + "\n";
}
function networkLine(plan, style) {
  const guarded = (id) => {
    const pair = plan.workflow.pairs?.get(id);
    return pair !== void 0 && commandNetwork(pair).some((c) => c.command === "guard" && c.network);
  };
  const ids = plan.pairs.filter((p) => p.action === "run" && guarded(p.id)).map((p) => p.id);
  if (ids.length === 0) return void 0;
  const named = ids.slice(0, 5).map((id) => nameFor(id, "terminal")).join(", ") + (ids.length > 5 ? ` and ${number(ids.length - 5)} more` : "");
  return style.dim(`Guards with the network (network: true): ${named}`);
}
var PIECE_NOUN = { markdown: "section", json: "key", yaml: "key", regex: "piece" };
function byFile(plan, template, group, shown) {
  const out = /* @__PURE__ */ new Map();
  const fileOf = (p) => plan.workflow.pairs.get(p.id)?.piece?.file;
  for (const p of shown) {
    const file = fileOf(p);
    let entry = out.get(file);
    if (!entry) {
      const split = file === void 0 ? void 0 : plan.workflow.pairs.get(instanceId(template, file))?.assembly?.split.kind;
      const all = file === void 0 ? 0 : group.filter((g) => fileOf(g) === file).length;
      const running = file === void 0 ? 0 : group.filter((g) => fileOf(g) === file && g.action === "run").length;
      const noun = PIECE_NOUN[split ?? "regex"];
      entry = { heading: file === void 0 ? "" : instanceId(template, file), count: `${running} of ${count(all, noun)} to run`, shown: [] };
      out.set(file, entry);
    }
    entry.shown.push(p);
  }
  return out;
}
function byWave(pairs) {
  const waves = /* @__PURE__ */ new Map();
  for (const p of pairs) {
    const wave = waves.get(p.wave);
    if (wave) wave.push(p);
    else waves.set(p.wave, [p]);
  }
  return waves;
}
var MAX_REMOVED = 10;
function removedText(ids) {
  const named = ids.slice(0, MAX_REMOVED).map((id) => nameFor(id, "terminal")).join(", ");
  return ids.length > MAX_REMOVED ? `${named} and ${ids.length - MAX_REMOVED} more` : named;
}
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
function planCheck(plan, lockFile) {
  const stale = plan.pairs.filter((p) => {
    const artifact = p.artifact;
    if (p.action !== "skip" || artifact === null || artifact.edited || artifact.source === "workspace") return false;
    const output = plan.workflow.pairs.get(p.id)?.output;
    return output !== void 0 && artifact.content !== "output" || lockFile && artifact.source !== "lock";
  }).map((p) => p.id);
  return { run: totals(plan).run, stale, removed: lockFile ? (plan.removed ?? []).length : 0 };
}
function checkFails(check) {
  return check.run > 0 || check.stale.length > 0 || check.removed > 0;
}
function checkText(check, style) {
  if (!checkFails(check)) return style.green("check: nothing would run, and every output is current") + "\n";
  const parts = [
    check.run > 0 ? `${plural2(check.run, "pair")} would run` : "",
    check.stale.length > 0 ? `${plural2(check.stale.length, "pair")} would write ${check.stale.length === 1 ? "its" : "their"} stale output (${removedText(check.stale)})` : "",
    check.removed > 0 ? `${plural2(check.removed, "removed pair")} would leave the lock file` : ""
  ].filter(Boolean);
  return style.yellow(`check: ${parts.join(", ")}; exit status 3`) + "\n";
}

export {
  columns,
  padColumns,
  fitLines,
  md,
  code,
  longestRun,
  bytes,
  totalCostText,
  plural,
  estimateTotal,
  estimateHeadline,
  estimateText,
  compareWithRun,
  comparisonText,
  failureHeadline,
  isAffected,
  GRAPH_NODE_LIMIT,
  affectedSubgraph,
  reach,
  causesOf,
  nameIn,
  waveRange,
  append,
  failuresOf,
  blockedBy,
  number,
  plural2,
  wavesText,
  causeExtent,
  rootsDiffer,
  planNodes,
  runNodes,
  changesFor,
  causeLines,
  failureLines,
  planJson,
  planJsonStream,
  planJsonText,
  reasonsText,
  withoutCallsText,
  SCREEN_LINES,
  planText,
  count,
  planCheck,
  checkFails,
  checkText
};
