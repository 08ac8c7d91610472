// Bundles src/ into dist/: an ESM file per entry point and the chunks it loads on demand, so the
// CLI and the action run with nothing installed. The output depends only on the sources and the
// locked esbuild version (no timestamps, no absolute paths), which is what lets CI compare it.
import { build } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";

// `--outdir DIR` builds elsewhere (the tests build the package they install into a scratch
// directory, so they never run a stale dist/); default: dist/.
const at = process.argv.indexOf("--outdir");
const outdir = at === -1 ? "dist" : process.argv[at + 1];
if (!outdir) throw new Error("--outdir needs a directory");
rmSync(outdir, { recursive: true, force: true });

/**
 * src/config/validators.ts compiles the workflow and prompts schemas when first used, which takes
 * most of a second. The bundles get the same validators generated here instead, from the same
 * schemas with the same options (read from validators.ts, so the two cannot drift apart).
 */
function precompiledValidators() {
  const source = readFileSync("src/config/validators.ts", "utf8");
  const options = new Function(`return (${/export const AJV_OPTIONS = (\{[^}]*\})/.exec(source)[1]});`)();
  const schema = (name) => JSON.parse(readFileSync(`schemas/${name}.schema.json`, "utf8"));
  const [workflow, prompts] = [schema("workflow"), schema("prompts")];
  const ajv = new Ajv2020({ ...options, code: { source: true, esm: true } });
  ajv.addSchema(workflow);
  ajv.addSchema(prompts);
  const code = standaloneCode.default(ajv, { workflow: workflow.$id, prompts: prompts.$id });
  const contents = `${code}\nexport const workflowValidator = () => workflow;\nexport const promptsValidator = () => prompts;\n`;
  return {
    name: "precompiled-validators",
    setup(b) {
      b.onResolve({ filter: /^\.\/validators\.js$/ }, (args) =>
        args.importer.endsWith(path.join("src", "config", "parse.ts")) ? { path: "validators", namespace: "precompiled" } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "precompiled" }, () => ({ contents, loader: "js", resolveDir: process.cwd() }));
    },
  };
}
const validators = precompiledValidators();

/**
 * The o200k_base token table goes beside the bundles as dist/o200k_base.bin, made by the same
 * src/estimate/rankTable.ts the sources use, so the bundles only read it (src/workspace/tokenTable.ts).
 * The ranks themselves are then not bundled: where the file is missing, the estimate says so.
 */
async function writeTokenTable() {
  const bundled = await build({ entryPoints: ["src/estimate/rankTable.ts"], bundle: true, platform: "node", format: "esm", write: false, logLevel: "warning" });
  const { encodeRankTable } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString("base64")}`);
  const ranks = createRequire(import.meta.url)("js-tiktoken/ranks/o200k_base");
  writeFileSync(path.join(outdir, "o200k_base.bin"), encodeRankTable(ranks.default ?? ranks));
}
const withoutRanks = {
  name: "without-ranks",
  setup(b) {
    b.onResolve({ filter: /^js-tiktoken\/ranks\/o200k_base$/ }, () => ({ path: "ranks", namespace: "packaged-ranks" }));
    b.onLoad({ filter: /.*/, namespace: "packaged-ranks" }, () => ({ contents: "export default undefined;", loader: "js" }));
  },
};

/**
 * @actions/core imports its OIDC client (getIDToken, which pairflow never calls) and with it
 * @actions/http-client and undici: most of what an action's start compiles once the cache client
 * is loaded on demand (src/action/action.ts). The bundles get that client through a dynamic
 * import instead, a chunk that only a call of getIDToken would load.
 */
const lazyOidc = {
  name: "lazy-oidc",
  setup(b) {
    b.onResolve({ filter: /^\.\/oidc-utils\.js$/ }, (args) =>
      /[\\/]@actions[\\/]core[\\/]lib[\\/]core\.js$/.test(args.importer)
        ? { path: "@actions/core/lib/oidc-utils.js", namespace: "lazy-oidc", pluginData: { dir: path.dirname(args.importer) } }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-oidc" }, (args) => ({
      contents: 'export class OidcClient { static async getIDToken(audience) { return (await import("./oidc-utils.js")).OidcClient.getIDToken(audience); } }',
      loader: "js",
      resolveDir: args.pluginData.dir,
    }));
  },
};

const entries = [
  // The CLI bundles no library that compares class names, and keeping names wraps every function
  // made at run time in a call: a tenth of a 10,000-pair plan's own time went there.
  { in: "src/cli/main.ts", out: "cli", shebang: true, keepNames: false },
  { in: "src/action/main.ts", out: "index", keepNames: true }, // the GitHub Action (action.yml)
];

for (const entry of entries) {
  await build({
    entryPoints: { [entry.out]: entry.in },
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    // Dynamic imports become chunks of their own beside the entry point, loaded on demand: the
    // CLI's `--version` loads none of the commands.
    splitting: true,
    chunkNames: `${entry.out}-[name]-[hash]`,
    target: "node20",
    legalComments: "none",
    // Libraries compare error classes by name (@actions/cache tells "another job saved this key"
    // from real failures that way); renaming classes while bundling would break that.
    keepNames: entry.keepNames,
    logLevel: "warning",
    plugins: [validators, withoutRanks, lazyOidc],
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

await writeTokenTable();
