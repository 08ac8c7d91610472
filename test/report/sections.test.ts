/**
 * A section of a split file is an edit of its own, named by its file and heading: editing one is
 * one cause `docs/guide.md § Section 17`, adding one is `docs/guide.md § Section 40 added`, and the
 * page put back together follows from them (not "generator_config.order changed"), in the plan and
 * in the run alike.
 */
import { describe, expect, it } from "vitest";
import type { Generator } from "../../src/model/ports.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";
import { causesOf, planNodes, runNodes } from "../../src/report/causes.js";
import { scaled } from "../helpers/time.js";

const WORKFLOW = `name: sections
generator: upper
action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
`;
const PROMPTS = 'translate:\n  task: "Translate {piece_id} of {file}:\\n<<<\\n{piece}>>>"\n';
const upper: Generator = async ({ prompt }) => ({ content: (/<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? "").toUpperCase() });
const section = (i: number, words = `Text of section ${i}.`) => `## Section ${i}\n\n${words}\n\n`;

describe("sections of a split file", () => {
  it(
    "are causes named by file and heading, an added one as added, with what puts the page together following from them",
    { timeout: scaled(60_000) },
    async () => {
      const sections = Array.from({ length: 40 }, (_, i) => section(i));
      const page = () => `# Guide\n\nIntro.\n\n${sections.join("")}`;
      const dir = tempRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "docs/guide.md": page() });
      expect((await runOf(dir, { cwd: dir, env: {}, generators: { upper } })).status).toBe("success");

      sections[17] = section(17, "Text of section 17, edited.");
      sections.push(section(40));
      writeFiles(dir, { "docs/guide.md": page() });
      const { plan } = await planOf(dir, { cwd: dir });
      const causes = causesOf(planNodes(plan));
      expect(causes.map((c) => c.why).sort()).toEqual(["docs/guide.md § Section 17", "docs/guide.md § Section 40 added"]);
      for (const c of causes) expect(c.roots).toHaveLength(1);
      // The page, put together again, follows from both.
      for (const c of causes) expect(c.downstream).toHaveLength(1);

      const report = await runOf(dir, { cwd: dir, env: {}, generators: { upper } });
      expect(report.status).toBe("success");
      expect(
        causesOf(runNodes(plan, report))
          .map((c) => c.why)
          .sort(),
      ).toEqual(causes.map((c) => c.why).sort());
    },
  );
});
