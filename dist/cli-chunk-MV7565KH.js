#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);

// src/report/visible.ts
function visible(text) {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    out += text.slice(from, i) + `\\x${code.toString(16).padStart(2, "0")}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
function isControl(code) {
  return code < 32 && code !== 9 && code !== 10 || code >= 127 && code <= 159;
}

export {
  visible
};
