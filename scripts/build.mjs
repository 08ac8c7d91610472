// Bundles src/ into dist/: one self-contained ESM file per entry point, so the CLI and the
// action run with nothing installed. The output depends only on the sources and the locked
// esbuild version (no timestamps, no absolute paths), which is what lets CI compare it.
import { build } from "esbuild";
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });

const entries = [
  { in: "src/cli/main.ts", out: "cli", shebang: true },
  { in: "src/action/main.ts", out: "index" }, // the GitHub Action (action.yml)
];

for (const entry of entries) {
  await build({
    entryPoints: { [entry.out]: entry.in },
    outdir: "dist",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    legalComments: "none",
    // Libraries compare error classes by name (@actions/cache tells "another job saved this key"
    // from real failures that way); renaming classes while bundling would break that.
    keepNames: true,
    logLevel: "warning",
    banner: {
      // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
      js: [
        entry.shebang ? "#!/usr/bin/env node" : "",
        'import { createRequire as __pairflowCreateRequire } from "node:module";',
        "const require = __pairflowCreateRequire(import.meta.url);",
      ]
        .filter(Boolean)
        .join("\n"),
    },
  });
}
