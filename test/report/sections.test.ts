/**
 * A section of a split file is an edit of its own, named by its file and heading: editing one is
 * one cause `docs/guide.md § Section 17`, adding one is `docs/guide.md § Section 40 added`, and the
 * page put back together follows from them (not "generator_config.order changed"), in the plan and
 * in the run alike; the comment shows each section's own diff under it.
 */
import { describe, expect, it } from "vitest";
import { writeFiles } from "../helpers/fixtures.js";
import { commitAll, git, gitRepo } from "../pr/repo.js";
import { planDiff } from "../../src/app/diff.js";
import { diffMarkdown } from "../../src/report/diffMarkdown.js";
import { planOf, runOf } from "../helpers/state.js";
import { causesOf, planNodes, runNodes } from "../../src/report/causes.js";
import { scaled } from "../helpers/time.js";
import { upperSections } from "../helpers/sections.js";

const WORKFLOW = `name: sections
generator: upper
action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
`;
const PROMPTS = 'translate:\n  task: "Translate {piece_id} of {file}:\\n<<<\\n{piece}>>>"\n';
const upper = upperSections();
const section = (i: number, words = `Text of section ${i}.`) => `## Section ${i}\n\n${words}\n\n`;

describe("sections of a split file", () => {
  it(
    "are causes named by file and heading, an added one as added, with what puts the page together following from them",
    { timeout: scaled(60_000) },
    async () => {
      const sections = Array.from({ length: 40 }, (_, i) => section(i));
      const page = () => `# Guide\n\nIntro.\n\n${sections.join("")}`;
      const dir = gitRepo({ "workflow.yml": WORKFLOW, "prompts.yml": PROMPTS, "docs/guide.md": page() });
      expect((await runOf(dir, { cwd: dir, env: {}, generators: { upper } })).status).toBe("success");
      commitAll(dir, "accepted");
      git(dir, "checkout", "-q", "-b", "change");

      sections[17] = section(17, "Text of section 17, edited.");
      sections.push(section(40));
      writeFiles(dir, { "docs/guide.md": page() });
      const { plan } = await planOf(dir, { cwd: dir });
      const causes = causesOf(planNodes(plan));
      expect(causes.map((c) => c.why).sort()).toEqual(["docs/guide.md § Section 17", "docs/guide.md § Section 40 added"]);
      for (const c of causes) expect(c.roots).toHaveLength(1);
      // The page, put together again, follows from both.
      for (const c of causes) expect(c.downstream).toHaveLength(1);

      // The comment: each section's diff under its cause, the edited lines and nothing of the other 39 sections.
      commitAll(dir, "edit a section, add one");
      const comment = diffMarkdown(await planDiff(undefined, { cwd: dir, base: "main" }));
      const under = (cause: string) => {
        const at = comment.indexOf(`**${cause}** — `);
        expect(at, cause).toBeGreaterThan(0);
        return comment.slice(at).split("\n\n**")[0]!;
      };
      const edited = under("`docs/guide.md` § Section 17");
      expect(edited).toContain("<details><summary>section <code>translate[docs/guide.md#section-17]</code> (changed)</summary>");
      expect(edited).toContain("-Text of section 17.\n+Text of section 17, edited.\n");
      const added = under("`docs/guide.md` § Section 40 added");
      expect(added).toContain("<details><summary>section <code>translate[docs/guide.md#section-40]</code> (added)</summary>");
      expect(added).toContain("+## Section 40\n");
      expect(comment).not.toContain("Text of section 3.");

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
