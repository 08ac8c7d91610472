/**
 * The modules a JavaScript or TypeScript source loads, by their specifiers as written: ESM
 * `import`, `export ... from`, `import("literal")` (es-module-lexer, the lexer Vite and Node's
 * own tooling use, in its pure JavaScript build: its WebAssembly build instantiates on import, which
 * under an address-space limit such as `ulimit -v 2097152` ends the process with "Cannot allocate
 * Wasm memory", whatever the command), and CommonJS `require("literal")` (acorn's tokenizer: a `require` name, an
 * opening bracket, one string, a closing bracket; strings, comments, regular expressions and
 * templates are told apart by acorn, so none of them is taken for a call).
 */
import { tokenizer, type Token } from "acorn";
import { parse } from "es-module-lexer/js";

export interface ModuleSpecifiers {
  specifiers: string[];
  /** Why part of the source could not be read (the specifiers found before it are kept). */
  error?: string;
}

export function moduleSpecifiers(source: string): ModuleSpecifiers {
  const specifiers: string[] = [];
  const errors: string[] = [];
  // The lexer stops at what it cannot read (JSX, say), and returns nothing: the text before the
  // line it stopped on is read again, so what comes before the trouble still counts.
  let text = source;
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const [imports] = parse(text);
      // `n` is the specifier's value, undefined for a computed dynamic import; import.meta has none either.
      for (const imp of imports) if (imp.n !== undefined) specifiers.push(imp.n);
      break;
    } catch (err) {
      if (attempt === 0) errors.push(`imports: ${(err as Error).message}`);
      const at = (err as { idx?: unknown }).idx;
      if (typeof at !== "number") break;
      text = text.slice(0, Math.max(0, text.lastIndexOf("\n", at - 1)));
    }
  }
  if (source.includes("require")) {
    const required = requireCalls(source);
    specifiers.push(...required.specifiers);
    if (required.error) errors.push(`require calls: ${required.error}`);
  }
  return errors.length > 0 ? { specifiers, error: errors.join("; ") } : { specifiers };
}

function requireCalls(source: string): ModuleSpecifiers {
  const specifiers: string[] = [];
  const window: Valued[] = [];
  const options = {
    ecmaVersion: "latest",
    sourceType: "script",
    allowHashBang: true,
    allowReturnOutsideFunction: true,
    allowImportExportEverywhere: true,
    allowAwaitOutsideFunction: true,
  } as const;
  try {
    for (const token of tokenizer(source, options)) {
      window.push(token);
      if (window.length > 6) window.shift();
      const found = requireCall(window);
      if (found !== undefined) specifiers.push(found);
    }
  } catch (err) {
    return { specifiers, error: (err as Error).message };
  }
  return { specifiers };
}

/** acorn's tokens carry their value, which its types leave out. */
type Valued = Token & { value?: unknown };

/** The specifier of a `require("x")` or require(`x`) ending the window, if it ends with one. */
function requireCall(w: Valued[]): string | undefined {
  const n = w.length;
  const label = (i: number) => w[n - i]?.type.label;
  const isRequire = (i: number) => label(i) === "name" && w[n - i]!.value === "require" && label(i - 1) === "(";
  if (label(1) !== ")") return undefined;
  if (label(2) === "string" && isRequire(4)) return w[n - 2]!.value as string;
  if (label(2) === "`" && label(3) === "template" && label(4) === "`" && isRequire(6)) return w[n - 3]!.value as string;
  return undefined;
}
