// A deterministic stand-in for a model, so the example runs offline. It writes tests for
// src/slug.mjs; its first answer gets one expectation wrong, as a model's first try may, and once
// the prompt carries the test runner's feedback it answers with the right one. Point `generator`
// at `openai` or `anthropic` to have a real model write the tests.
import { readFileSync } from "node:fs";

const prompt = readFileSync(0, "utf8");
const corrected = prompt.includes("Your tests failed");

process.stdout.write(`import { test } from "node:test";
import assert from "node:assert/strict";
import { slug } from "../src/slug.mjs";

test("joins words with a dash, in lower case", () => {
  assert.equal(slug("Hello World"), "hello-world");
});

test("drops accents and punctuation", () => {
  assert.equal(slug("Crème brûlée, s'il vous plaît!"), ${corrected ? '"creme-brulee-s-il-vous-plait"' : '"crème-brûlée-sil-vous-plait"'});
});

test("trims dashes at both ends", () => {
  assert.equal(slug("  --Already slugged--  "), "already-slugged");
});
`);
