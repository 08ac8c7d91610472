#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  visibleName
} from "./cli-chunk-7NHSQKXA.js";

// src/report/names.ts
var ENTITY = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
var MERMAID = { "#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;", '"': "#quot;", "`": "#96;" };
var JOIN = "\u200D";
function nameFor(name, medium) {
  const line = visibleName(name);
  switch (medium) {
    case "terminal":
      return line;
    case "markdown":
      return line.replace(/[&<>]/g, (c) => ENTITY[c]).replace(/[\\`*[\]|~#$!]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\$&").replace(/[@#]|:(?=\/\/)|\bwww(?=\.)/gi, `$&${JOIN}`);
    case "code":
      return inlineCode(line);
    case "cell":
      return inlineCode(line).replace(/(\\*)\|/g, "$1$1\\|");
    case "html":
      return line.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/@/g, `&#64;${JOIN}`);
    case "mermaid":
      return line.replace(/[#&<>"`]/g, (c) => MERMAID[c]);
  }
}
function inlineCode(text) {
  const ticks = "`".repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || /^ .* $/.test(text) ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

export {
  nameFor
};
