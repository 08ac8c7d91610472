// A deterministic stand-in for a translating model, so the example runs offline.
//
//   node translate.mjs FILE           prints FILE "in French": a few words swapped, the rest kept
//   node translate.mjs --check FILE   reads the translation of FILE from the prompt (stdin) and
//                                     checks that it has as many headings as FILE
//   node translate.mjs --index        reads every translation from the prompt and lists their titles
//
// pairflow gives the rendered prompt on stdin, dependencies' artifacts included, one "## <pair id>"
// section each.
import { readFileSync } from "node:fs";

const WORDS = {
  the: "le",
  and: "et",
  is: "est",
  page: "page",
  hello: "bonjour",
  world: "monde",
  guide: "guide",
  install: "installer",
  welcome: "bienvenue",
  with: "avec",
  for: "pour",
  this: "ceci",
  you: "vous",
  file: "fichier",
  files: "fichiers",
  run: "lancer",
};

const [mode, file] = process.argv[2]?.startsWith("--") ? [process.argv[2], process.argv[3]] : ["--translate", process.argv[2]];

function translate(text) {
  return text.replace(/[A-Za-z]+/g, (word) => {
    const french = WORDS[word.toLowerCase()];
    if (french === undefined) return word;
    return word[0] === word[0].toUpperCase() ? french[0].toUpperCase() + french.slice(1) : french;
  });
}

/** Each dependency's artifact in the prompt, by pair id. */
function dependencies(prompt) {
  const out = new Map();
  const re = /^## (.+)\n\n(`{3,})\n([\s\S]*?)\n?\2$/gm;
  for (const m of prompt.matchAll(re)) out.set(m[1], m[3]);
  return out;
}

const headings = (text) => text.split("\n").filter((line) => /^#{1,6} /.test(line)).length;

if (mode === "--translate") {
  process.stdout.write(translate(readFileSync(file, "utf8")));
} else if (mode === "--check") {
  const deps = dependencies(readFileSync(0, "utf8"));
  const translation = deps.get(`translate[${file}]`) ?? "";
  const [want, got] = [headings(readFileSync(file, "utf8")), headings(translation)];
  process.stdout.write(`${file}: ${got} of ${want} headings\nheadings: ${got === want ? "ok" : "missing"}\n`);
} else if (mode === "--index") {
  const lines = ["# Index", ""];
  for (const [id, text] of [...dependencies(readFileSync(0, "utf8"))].sort()) {
    const page = /^translate\[(.+)\]$/.exec(id)?.[1];
    const title = /^# (.+)$/m.exec(text)?.[1] ?? page;
    if (page) lines.push(`- [${title}](${page.replace(/^docs\//, "")})`);
  }
  process.stdout.write(lines.join("\n") + "\n");
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
