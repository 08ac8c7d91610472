/**
 * The o200k count is js-tiktoken's `encode(text).length`, computed by pairflow's own merge (linear in
 * long unbroken runs, where js-tiktoken's is cubic), and long words are estimated at all.
 */
import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { encodeRankTable, RankTable } from "../../src/estimate/rankTable.js";
import { countO200k, countTokens, JoinedTokens, loadTokenizer } from "../../src/estimate/tokens.js";
import { pairflow } from "../cli/built.js";
import { tempRepo } from "../helpers/fixtures.js";
import { shipped } from "../helpers/package.js";
import { planOf } from "../helpers/state.js";

const reference = new Tiktoken(o200kBase);
const encodeLength = (text: string) => reference.encode(text, [], []).length;

const pieces = [
  ..."abcdefghijklmnopqrstuvwxyz ABCXYZ\n\t\r.,;:!?'\"()[]{}<>|/\\_-=+*&^%$#@~`0123456789",
  "é",
  "ü",
  "ñ",
  "日本語",
  "中文",
  "한국어",
  "😀",
  "🎉",
  "—",
  "…",
  "'s",
  "'re",
  "<|endoftext|>",
  "\u0301",
  "\u200b",
  "ﬁ",
];

describe("o200k token counts", () => {
  beforeAll(() => loadTokenizer());

  it("equal js-tiktoken's on random text: words, code, unicode, special-token text", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 120 }), fc.string({ unit: "grapheme", maxLength: 60 }), (parts, tail) => {
        const text = parts.join("") + tail;
        expect(countO200k(text)).toBe(encodeLength(text));
      }),
      { numRuns: 400 },
    );
  });

  it("equal js-tiktoken's on random ASCII text, which is cut without the regular expression", () => {
    const ascii = [
      "a",
      "Z",
      "ab",
      "CD",
      "Ab",
      "aB",
      "'",
      "'s",
      "'S",
      "'re",
      "'Ll",
      "'ve",
      "'d",
      "'x",
      "'",
      "0",
      "12",
      "3456",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\n\n",
      " \n ",
      "\u000b",
      "\f",
      "/",
      "//",
      ".",
      "!?",
      "(",
      ")",
      "-",
      "_",
      "\u0000",
      "\u007f",
      "#",
      "`",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ascii), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(countO200k(text)).toBe(encodeLength(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("equal js-tiktoken's on long unbroken words, where merges cascade", () => {
    for (const word of ["a".repeat(600), "ab".repeat(300), "abc".repeat(200), "漢字".repeat(150), "😀".repeat(100), "1".repeat(500), "é".repeat(300)]) {
      expect(countO200k(word), word.slice(0, 10)).toBe(encodeLength(word));
    }
  });

  it("estimate a 20,000-character word and 10,000 CJK characters", () => {
    const letters = "supercalifragilisticexpialidocious".repeat(600).slice(0, 20_000);
    const word = countTokens(letters, "gpt-4o");
    expect(word.method).toBe("o200k_base");
    // Several characters per token, never more tokens than bytes.
    expect(word.tokens).toBeGreaterThan(20_000 / 40);
    expect(word.tokens).toBeLessThan(20_000 / 2);
    // A prefix of the word can only be as long in tokens, or shorter by a token at the cut.
    expect(countO200k(letters.slice(0, 10_000))).toBeLessThanOrEqual(word.tokens);

    const cjk = "人工智能的发展改变了世界经济格局".repeat(625);
    expect(cjk.length).toBe(10_000);
    const counted = countTokens(cjk, "gpt-4.1-mini").tokens;
    expect(counted).toBeGreaterThan(10_000 / 8);
    expect(counted).toBeLessThanOrEqual(3 * 10_000);
    // The same run counted twice over is (nearly) twice the tokens: counting is additive, not capped.
    const twice = countO200k(cjk + cjk);
    expect(twice).toBeGreaterThanOrEqual(2 * counted - 2);
    expect(twice).toBeLessThanOrEqual(2 * counted + 2);
  });

  it("of prompts counted part by part equal js-tiktoken's of the whole prompt, parts seen before or not", () => {
    // Parts that begin with a header, with white space, with `/`, that end in symbols, spaces or
    // line breaks, empty ones: the count adds up only where the text is cut alike either way.
    const starts = ["# Role\n\n", "## g_test\n\n```\n", "#", " ", "\n", "/", "\t", "x", "é", "日本", "😀", "'s", ""];
    const ends = ["", ".", "```", " ", "\n", "\r", "/", "'", "'ll", "1", "\u3000", "😀"];
    const part = fc
      .tuple(fc.constantFrom(...starts), fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), fc.constantFrom(...ends))
      .map(([a, b, c]) => a + b.join("") + c);
    const shared = fc.constantFrom("# Context\n\nShared by every prompt.", "## dep\n\n```\n```", " shared, after a space", "/shared");
    for (const model of ["gpt-4o", "claude-sonnet-4"]) {
      const counter = new JoinedTokens("\n\n");
      fc.assert(
        fc.property(fc.array(part, { maxLength: 3 }), fc.array(shared, { maxLength: 3 }), fc.array(part, { maxLength: 3 }), (before, common, after) => {
          const units = [...before, ...common, ...after];
          for (let n = 0; n <= units.length; n++) {
            const text = units.slice(0, n).join("\n\n");
            const counted = counter.count(units, n, model, [before.length, before.length + common.length]);
            expect(counted).toEqual(countTokens(text, model));
            if (model === "gpt-4o") expect(counted.tokens).toBe(encodeLength(text));
          }
        }),
        { numRuns: 300 },
      );
    }
  });

  it("approximate other models as characters / 4", () => {
    expect(countTokens("x".repeat(20_001), "claude-sonnet-4")).toEqual({ tokens: 5_001, method: "approximate" });
  });
});

describe("the packaged token table", () => {
  const block = encodeRankTable(o200kBase);
  const table = RankTable.decode(block)!;
  const bytes = (token: string) => Buffer.from(token, "base64").toString("latin1");

  it("is what the installed package ships in dist/, and its CLI counts with it as the sources do", async () => {
    expect(Buffer.compare(readFileSync(path.join(shipped.installed, "dist/o200k_base.bin")), block)).toBe(0);
    const dir = tempRepo({
      "workflow.yml": "name: t\nmodel: gpt-4o\ngenerator: command\ngenerator_config: {run: cat}\naction_pairs:\n  a: {}\n  b: {requires: [a]}\n",
      "prompts.yml": `a: {task: "Summarise the changes; keep it short. 日本語のテキスト 😀 <|endoftext|> don't"}\nb: {task: ${JSON.stringify("word ".repeat(300))}}\n`,
    });
    const built = JSON.parse(pairflow(["plan", "--json"], { cwd: dir }).stdout) as { pairs: { id: string; estimate: { inputTokens: number } | null }[] };
    const { estimate } = await planOf(dir, { cwd: dir });
    expect(built.pairs.map((p) => [p.id, p.estimate?.inputTokens])).toEqual(estimate.pairs.map((p) => [p.id, p.inputTokens]));
    expect(estimate.pairs.map((p) => p.tokenizer)).toEqual(["o200k_base", "o200k_base"]);
  });

  it("finds every token's rank, and nothing that is not a token", () => {
    const wrong: string[] = [];
    o200kBase.bpe_ranks
      .split(" ")
      .slice(2)
      .forEach((token, rank) => {
        const b = bytes(token);
        if (table.rank(`x${b}y`, 1, b.length + 1) !== rank) wrong.push(token);
      });
    expect(wrong).toEqual([]);
    expect(table.rank("\u00ff\u00fe\u00fd\u00fc\u00fb\u00fa", 0, 6)).toBeUndefined();
  });

  it("reads a block at any offset, and refuses one that is damaged", () => {
    const shifted = Buffer.alloc(block.length + 1);
    Buffer.from(block).copy(shifted, 1);
    const moved = RankTable.decode(shifted.subarray(1))!;
    for (const token of ["IQ==", "aGVsbG8=", "IHRoZQ=="])
      expect(moved.rank(bytes(token), 0, bytes(token).length)).toBe(table.rank(bytes(token), 0, bytes(token).length));
    expect(RankTable.decode(block.subarray(0, block.length - 1))).toBeUndefined();
    expect(RankTable.decode(Buffer.concat([Buffer.from("XXXX"), block.subarray(4)]))).toBeUndefined();
    expect(RankTable.decode(new Uint8Array(10))).toBeUndefined();
    // Slots that point past the table, or leave no slot empty, would send a lookup astray or round it for ever.
    for (const damage of [(b: DataView) => b.setInt32(0, 0x7fffffff, true), (b: DataView) => new Int32Array(b.buffer, b.byteOffset, 8).fill(1)]) {
      const copy = Buffer.from(block);
      const view = new DataView(copy.buffer, copy.byteOffset + 24);
      damage(view);
      expect(RankTable.decode(copy)).toBeUndefined();
    }
  });
});
