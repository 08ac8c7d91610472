// The installed command line: `pairflow adopt` takes over a translation people wrote, with no
// generator started, and the next run leaves it as it is.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { pairflow } from "../cli/built.js";

/** A translator that needs no model. */
const TRANSLATE = `let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => process.stdout.write("[" + process.argv[2] + "] " + /<<<\\n([\\s\\S]*?)>>>/.exec(s)[1]));
`;

describe("pairflow adopt", { timeout: scaled(120_000) }, () => {
  it("adopts an existing translation with no call, and run translates only the other language", () => {
    const french = "# Intro\n\nBonjour.\n\n## Installer\n\nLancez-le.\n";
    const dir = tempRepo({
      "workflow.yml": `name: site
generator: command
action_pairs:
  translate:
    foreach:
      files: docs/*.md
      split: markdown
      values: [fr, de]
      as: lang
    output: "i18n/{lang}/{name}"
    generator_config:
      run: node translate.mjs {lang}
`,
      "prompts.yml": 'translate:\n  task: "Translate into {lang}:\\n<<<\\n{piece}>>>"\n',
      "translate.mjs": TRANSLATE,
      "docs/intro.md": "# Intro\n\nHello.\n\n## Install\n\nRun it.\n",
      "i18n/fr/intro.md": french,
    });
    const adopted = pairflow(["adopt", "translate[fr]"], { cwd: dir });
    expect(adopted.status, adopted.stderr).toBe(0);
    expect(adopted.stdout).toBe("adopted  translate[fr:docs/intro.md]  i18n/fr/intro.md (2 sections)\n");
    // Nothing ran: no run record, nothing of the other language written.
    expect(pairflow(["runs"], { cwd: dir }).stdout).not.toMatch(/translate/);

    const run = pairflow(["run", "--json"], { cwd: dir });
    expect(run.status, run.stderr).toBe(0);
    const executed = (JSON.parse(run.stdout) as { pairs: { id: string; status: string }[] }).pairs.filter((p) => p.status === "executed").map((p) => p.id);
    expect(executed.sort()).toEqual(["translate[de:docs/intro.md#install]", "translate[de:docs/intro.md#intro]", "translate[de:docs/intro.md]"]);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(french);
    const lock = JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as { pairs: Record<string, { source: string }> };
    expect(lock.pairs["translate[fr:docs/intro.md#install]"]!.source).toBe("human");

    const missing = pairflow(["adopt", "translate[de:docs/nope.md]"], { cwd: dir });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/no such pair/);
  });
});
