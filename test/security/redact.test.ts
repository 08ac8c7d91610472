/**
 * The cleaning of what commands print: every secret, as it is, broken over lines, in base64 at any
 * alignment, and in the encodings a line of shell or a print statement makes without effort (hex,
 * reversed, percent- and JSON-escaped, spaced out, gzip+base64), becomes `***`; text without a
 * secret stays as it is.
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64Forms, MIN_SECRET_LENGTH, PIECE_LENGTH, REDACTED, redactor } from "../../src/model/redact.js";
import { childEnvironments, secretRedactor } from "../../src/app/environment.js";
import type { Workflow } from "../../src/model/workflow.js";

const secretArb = fc
  .string({ minLength: MIN_SECRET_LENGTH, maxLength: 40, unit: "grapheme-ascii" })
  .filter((s) => s.trim().length >= MIN_SECRET_LENGTH && !/[\r\n]/.test(s));
const textArb = fc.string({ maxLength: 60, unit: "grapheme" });

/** Printable ASCII and some characters beyond it (two-byte, three-byte, four-byte UTF-8). */
const characterArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom("é", "ß", "Ω", "€", "日", "本", "🔑", "𝄞") },
);
/** A secret of six characters or more, at least four of them different: a value worth hiding. */
const anySecretArb = fc
  .array(characterArb, { minLength: MIN_SECRET_LENGTH, maxLength: 48 })
  .map((chars) => chars.join(""))
  .filter((s) => s.trim() === s && new Set(s).size >= 4);

const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
const percentEveryByte = (s: string) => [...Buffer.from(s, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");
const jsonEveryUnit = (s: string) => [...Array(s.length).keys()].map((i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");
/** gzip+base64, wrapped at 76 columns as `gzip | base64` prints it. */
const gzipBase64 = (s: string) =>
  gzipSync(`${s}\n`)
    .toString("base64")
    .replace(/(.{76})/g, "$1\n")
    .trimEnd();

/** Each encoding the redactor promises to catch, as a program prints it. */
const ENCODINGS: Record<string, (secret: string) => string> = {
  "hex, lower case": hex,
  "hex, upper case": (s) => hex(s).toUpperCase(),
  "hex, a separator between bytes (xxd, od)": (s) => hex(s).replace(/(..)(?!$)/g, "$1 "),
  reversed: (s) => [...s].reverse().join(""),
  "reversed, a space between characters": (s) => [...s].reverse().join(" "),
  "percent-encoding of every byte": percentEveryByte,
  "percent-encoding of every byte, lower case": (s) => percentEveryByte(s).toLowerCase(),
  encodeURIComponent: encodeURIComponent,
  "form encoding (URLSearchParams)": (s) => new URLSearchParams({ v: s }).toString().slice(2),
  "JSON \\u escapes of every character": jsonEveryUnit,
  "JSON.stringify": (s) => JSON.stringify(s),
  "a space between characters": (s) => [...s].join(" "),
  "a dash between characters": (s) => [...s].join("-"),
  "one character a line": (s) => [...s].join("\n"),
  "one character a CRLF line": (s) => [...s].join("\r\n"),
  "a list of its characters (JSON, Python)": (s) => JSON.stringify([...s]),
  "gzip+base64": gzipBase64,
};

describe("redaction of encoded secrets", () => {
  for (const [name, encode] of Object.entries(ENCODINGS)) {
    it(`removes a secret printed as ${name}, wherever it stands`, () => {
      fc.assert(
        fc.property(anySecretArb, textArb, textArb, (secret, before, after) => {
          const printed = encode(secret);
          // Words apart, as printed on a line of its own or between spaces.
          const out = secretRedactor([secret])(`${before} ${printed} ${after}`);
          expect(out).not.toContain(printed);
          expect(out).toContain(REDACTED);
        }),
        { numRuns: 60 },
      );
    });
  }

  it("removes any separator of one to four characters repeated between the characters, a line break beside one or not", () => {
    fc.assert(
      fc.property(anySecretArb, fc.array(characterArb, { minLength: 1, maxLength: 4 }), fc.nat(), fc.boolean(), textArb, (secret, chars, at, after, before) => {
        const separator = chars.join("");
        // As `fold` would break the line: before or after one of the separators.
        const cut = 1 + (at % ([...secret].length - 1));
        const printed = [...secret].map((c, i) => (i === 0 ? c : i === cut ? (after ? `${separator}\n${c}` : `\n${separator}${c}`) : separator + c)).join("");
        expect(secretRedactor([secret])(`${before}\n${printed}\n`)).toBe(`${before}\n${REDACTED}\n`);
        expect(secretRedactor([secret])(`${before}\n${[...secret].join(separator)}\n`)).toBe(`${before}\n${REDACTED}\n`);
      }),
    );
  });

  it("removes gzip+base64 whole, in either alphabet, wrapped over lines, cut short or going on after its end, and not the line after it", () => {
    fc.assert(
      fc.property(
        anySecretArb,
        textArb,
        textArb,
        fc.constantFrom("whole", "cut", "trailing"),
        fc.constantFrom(0, 64, 76),
        fc.constantFrom("base64" as const, "base64url" as const),
        (secret, before, after, how, width, alphabet) => {
          let data = gzipSync(`${before}${secret}${after}`);
          if (how === "cut") data = data.subarray(0, data.length - 8); // the trailer lost
          if (how === "trailing") data = Buffer.concat([data, Buffer.from("more data after the end")]);
          let token = data.toString(alphabet);
          if (width > 0) token = token.replace(new RegExp(`(.{${width}})(?!$)`, "g"), "$1\n");
          const next = `Error: ${after}`;
          expect(secretRedactor([secret])(`log: ${token}\n${next}`)).toBe(`log: ${REDACTED}\n${next}`);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("leaves text without the secret as it is: words, hex, base64, gzip+base64, JSON and URLs of other values", () => {
    const otherArb = fc.string({ maxLength: 40, unit: "grapheme" });
    const pieceArb = fc.oneof(
      otherArb,
      otherArb.map(hex),
      otherArb.map((o) => Buffer.from(o).toString("base64")),
      otherArb.map((o) => gzipSync(o).toString("base64")),
      otherArb.map((o) => JSON.stringify(o)),
      otherArb.map(encodeURIComponent),
    );
    fc.assert(
      fc.property(anySecretArb, fc.array(pieceArb, { maxLength: 8 }), (secret, pieces) => {
        const text = pieces.join(" ");
        fc.pre(!text.includes(secret));
        expect(secretRedactor([secret])(text)).toBe(text);
      }),
    );
  });

  it("finds a long secret (a private key) in any form: it is looked for in pieces", () => {
    fc.assert(
      fc.property(
        fc.array(characterArb, { minLength: PIECE_LENGTH + 1, maxLength: 4 * PIECE_LENGTH }),
        fc.constantFrom(...Object.values(ENCODINGS)),
        (chars, encode) => {
          const secret = chars.join("").trim();
          fc.pre(new Set(secret).size >= 8 && [...secret].length > PIECE_LENGTH);
          const printed = encode(secret);
          const out = secretRedactor([secret])(`key: ${printed} end`);
          expect(out).not.toContain(printed);
          expect(out).toContain(REDACTED);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("replaces gzip data that inflates beyond what is read, which could hide anything", () => {
    const bomb = gzipSync(Buffer.alloc(2 * 1024 * 1024, "a")).toString("base64");
    expect(secretRedactor(["any-secret"])(`x ${bomb} y`)).toBe(`x ${REDACTED} y`);
    expect(secretRedactor([])(`x ${bomb} y`)).toBe(`x ${bomb} y`);
  });
});

describe("redaction", () => {
  it("removes a secret wherever it stands in a text, and leaves no part of it that identifies it", () => {
    fc.assert(
      fc.property(secretArb, textArb, textArb, (secret, before, after) => {
        const out = redactor([secret])(before + secret + after);
        expect(out).not.toContain(secret);
        expect(out).toContain(REDACTED);
      }),
    );
  });

  it("removes it broken over lines anywhere", () => {
    fc.assert(
      fc.property(secretArb, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), fc.constantFrom("\n", "\r\n"), (secret, cuts, eol) => {
        const chars = [...secret];
        const at = [...new Set(cuts.map((c) => 1 + (c % (chars.length - 1))))].sort((a, b) => b - a);
        for (const i of at) chars.splice(i, 0, eol);
        const printed = `log: ${chars.join("")} end`;
        expect(redactor([secret])(printed)).toBe(`log: ${REDACTED} end`);
      }),
    );
  });

  it("removes its base64 at any alignment, within a longer base64 text", () => {
    fc.assert(
      fc.property(secretArb, fc.uint8Array({ maxLength: 5 }), fc.uint8Array({ maxLength: 5 }), (secret, before, after) => {
        const encoded = Buffer.concat([Buffer.from(before), Buffer.from(secret), Buffer.from(after)]).toString("base64");
        const out = redactor([secret])(encoded);
        expect(out).toContain(REDACTED);
        // What is left identifies nothing: no run of the secret's own base64 survives.
        for (const form of base64Forms(secret)) expect(out).not.toContain(form);
      }),
    );
  });

  it("leaves a text without secrets as it is, and ignores values too short to be one", () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(redactor([])(text)).toBe(text);
        expect(redactor(["true", "main", "x"])(text)).toBe(text);
      }),
    );
  });

  it("takes the credentials a run withholds, its provider keys included, and not the other variables", () => {
    const workflow = { pairs: new Map([["a", { generatorConfig: { api_key_env: "MY_MODEL_KEY" } }]]) } as unknown as Workflow;
    const env = {
      GITHUB_TOKEN: "ghs_token_value",
      ACTIONS_RUNTIME_TOKEN: "runtime-token-value",
      "INPUT_GITHUB-TOKEN": "input-token-value",
      INPUT_PATH: "examples/tdd-stack",
      MY_MODEL_KEY: "model-key-value",
      NPM_TOKEN: "npm-token-value",
      GITHUB_ENV: "/home/runner/work/_temp/_runner_file_commands/set_env",
      HOME: "/home/runner",
      PAIRFLOW_PASS_ENV: "NPM_TOKEN",
    };
    const { generator, guard, secrets } = childEnvironments(env, workflow);
    expect(secrets.sort()).toEqual(["ghs_token_value", "input-token-value", "model-key-value", "npm-token-value", "runtime-token-value"]);
    expect(Object.keys(guard).sort()).toEqual(["HOME", "PAIRFLOW_PASS_ENV"]);
    expect(Object.keys(generator).sort()).toEqual(["HOME", "MY_MODEL_KEY", "NPM_TOKEN", "PAIRFLOW_PASS_ENV"]);
  });

  it("lets a withheld variable through to generators when PAIRFLOW_PASS_ENV names it, and to guards only when PAIRFLOW_PASS_ENV_GUARDS names it too", () => {
    const workflow = { pairs: new Map([["a", { generatorConfig: { api_key_env: "MY_MODEL_KEY" } }]]) } as unknown as Workflow;
    const withheld = ["NPM_TOKEN", "DEPLOY_PASSWORD", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "INPUT_GITHUB-TOKEN", "GITHUB_ENV", "OPENAI_API_KEY"];
    const keys = ["OPENAI_API_KEY", "MY_MODEL_KEY"];
    const names = [...withheld, "MY_MODEL_KEY", "HOME", "LANG"];
    const listArb = fc.subarray(names).chain((list) => fc.constantFrom(list.join(","), list.join(", "), ` ${list.join(" , ")} `));
    fc.assert(
      fc.property(listArb, listArb, (pass, toGuards) => {
        const env: Record<string, string> = { ...Object.fromEntries(names.map((n) => [n, `value of ${n}`])) };
        if (pass.trim()) env.PAIRFLOW_PASS_ENV = pass;
        if (toGuards.trim()) env.PAIRFLOW_PASS_ENV_GUARDS = toGuards;
        const listed = (list: string) => new Set(list.split(",").map((n) => n.trim()));
        const { generator, guard } = childEnvironments(env, workflow);
        for (const name of names) {
          const secret = withheld.includes(name) || keys.includes(name);
          const toGenerator = keys.includes(name) || !withheld.includes(name) || listed(pass).has(name);
          const toGuard = !secret || (listed(pass).has(name) && listed(toGuards).has(name));
          expect(name in generator, `${name} to generators`).toBe(toGenerator);
          expect(name in guard, `${name} to guards`).toBe(toGuard);
        }
      }),
    );
  });
});
