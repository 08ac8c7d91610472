import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMENT_LIMIT, commentMarker, diffMarkdown } from "../../src/report/diffMarkdown.js";
import { planDiff } from "../../src/app/diff.js";
import { REPO } from "../helpers/fixtures.js";
import { acceptAll } from "../helpers/state.js";
import { cli, commitAll, git, gitRepo } from "./repo.js";

/** A workflow of `n` independent pairs, each with a 20-line task. */
function bigWorkflow(n: number, wording: string): Record<string, string> {
  const ids = Array.from({ length: n }, (_, i) => `pair_${String(i).padStart(3, "0")}`);
  const workflow = ["name: big", "model: m", "action_pairs:", ...ids.map((id) => `  ${id}: { guard: contains, guard_config: { text: x } }`)];
  const prompts = ids.flatMap((id) => [
    `${id}:`,
    "  task: |",
    ...Array.from({ length: 20 }, (_, k) => `    Step ${k} of ${id}: ${wording} — über alles, with enough words to make a long line.`),
  ]);
  return { "workflow.yml": workflow.join("\n") + "\n", "prompts.yml": prompts.join("\n") + "\n" };
}

/** Checks that the Markdown renders as intended: every fence and every <details> is closed. */
function expectWellFormed(markdown: string): void {
  const fences = markdown.split("\n").filter((l) => /^```/.test(l));
  expect(fences.length % 2).toBe(0);
  expect(markdown.split("<details>").length).toBe(markdown.split("</details>").length);
}

describe("the comment's size", () => {
  it(`stays under ${COMMENT_LIMIT} characters for a change to 300 long prompts, and says where the rest is`, async () => {
    const dir = gitRepo(bigWorkflow(300, "write it carefully"));
    await acceptAll(dir);
    commitAll(dir, "accepted");
    git(dir, "checkout", "-q", "-b", "feature");
    writeFileSync(path.join(dir, "prompts.yml"), bigWorkflow(300, "write it quickly")["prompts.yml"]!);
    commitAll(dir, "reword every prompt");

    const r = await cli(["diff", "--base", "main", "--format", "markdown"], dir);
    expect(r.status).toBe(0);
    const comment = r.stdout;
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(Buffer.byteLength(comment)).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(comment.length).toBeGreaterThan(COMMENT_LIMIT - 5_000); // the room is used, not wasted
    expect(comment.startsWith(commentMarker("workflow.yml") + "\n")).toBe(true);
    expect(comment).toContain("**300 pairs will re-run after merging**, 0 unchanged.");
    // 300 prompts edited: a cause each, naming its pair, its diff under it; the first 50 listed, the rest counted.
    expect(comment).toMatch(
      /\n\*\*prompt of `pair_000` \(task\)\*\* — 1 pair · wave 1\n\n<details><summary>prompt of <code>pair_000<\/code> \(changed\)<\/summary>\n/,
    );
    expect(comment).toContain("…and 250 more causes; the whole diff is in the job summary of this check.");
    expect(comment).toMatch(/…and \d+ more changed entries not shown here; the whole diff is in the job summary of this check\./);
    expect(comment.split("<details>").length - 1).toBeGreaterThan(20);
    expect(comment).toContain("#### Graph");
    expectWellFormed(comment);

    // The job summary's copy has no limit, and holds every diff whole.
    const whole = diffMarkdown(await planDiff(undefined, { cwd: dir, base: "main" }), { limit: Infinity });
    expect(whole.match(/<summary>prompt of <code>pair_\d+<\/code> \(changed\)<\/summary>/g)).toHaveLength(300);
    expect(whole).toContain("+    Step 19 of pair_299: write it quickly");
    expect(whole).not.toContain("not shown");
  });

  it("cuts a very long diff with a note and a link to the job summary, keeping the rest of the comment", async () => {
    const dir = gitRepo({}, { source: path.join(REPO, "examples/tdd-stack"), into: "." });
    await acceptAll(dir);
    commitAll(dir, "accepted");
    git(dir, "checkout", "-q", "-b", "feature");
    const prompts = path.join(dir, "prompts.yml");
    const longTask = Array.from({ length: 3000 }, (_, i) => `    Requirement ${i}: the stack keeps its items in order.`).join("\n");
    writeFileSync(
      prompts,
      readFileSync(prompts, "utf8")
        .replace("  task: Implement the Stack class.\n", `  task: |\n${longTask}\n`)
        .replace("You are a careful code reviewer.", "You are a strict code reviewer."),
    );
    commitAll(dir, "spell out every requirement; a stricter review");

    const summaryUrl = "https://github.test/o/r/actions/runs/1";
    const comment = diffMarkdown(await planDiff(undefined, { cwd: dir, base: "main" }), { marker: commentMarker("workflow.yml"), summaryUrl });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    // Each cause with the diff that explains it right under it.
    expect(comment).toContain("\n**prompt of `g_impl` (task)** — 1 pair · wave 2\n\n<details><summary>prompt of <code>g_impl</code> (changed)</summary>");
    expect(comment).toContain("\n**prompt of `g_review` (role)** — 1 pair · wave 3\n\n<details><summary>prompt of <code>g_review</code> (changed)</summary>");
    expect(comment).toContain("```diff\n--- a/prompts.yml\n+++ b/prompts.yml\n@@ -1,7 +1,3007 @@\n g_impl:\n");
    expect(comment).toContain("+    Requirement 0: the stack keeps its items in order.");
    expect(comment).not.toContain("Requirement 2999:");
    expect(comment).toMatch(
      /\n```\n\nCut short: [\d,]+ more lines not shown, to keep the comment under GitHub's limit of 65,536 characters; the whole diff is in the \[job summary\]\(https:\/\/github\.test\/o\/r\/actions\/runs\/1\)\.\n/,
    );
    // The long diff does not crowd out the short one after it.
    expect(comment).toContain("-  role: You are a careful code reviewer.\n+  role: You are a strict code reviewer.\n");
    expect(comment).toContain("```mermaid\nflowchart TD\n");
    expectWellFormed(comment);
  });

  it("cuts a line too long for the comment, and says so", async () => {
    const dir = gitRepo({}, { source: path.join(REPO, "examples/tdd-stack"), into: "." });
    await acceptAll(dir);
    commitAll(dir, "accepted");
    git(dir, "checkout", "-q", "-b", "feature");
    const prompts = path.join(dir, "prompts.yml");
    writeFileSync(prompts, readFileSync(prompts, "utf8").replace("Implement the Stack class.", "Implement the Stack class. " + "Be thorough. ".repeat(8_000)));
    commitAll(dir, "one very long line");

    const r = await cli(["diff", "--base", "main", "--format", "markdown"], dir);
    expect(r.stdout.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(r.stdout).toMatch(
      /\n-  task: Implement the Stack class\.\n\+  task: Implement the Stack class\. Be thorough\. Be thorough\. [^\n]* …\(\d+ more characters\)\n/,
    );
    expect(r.stdout).toContain("Cut short: ");
    expectWellFormed(r.stdout);
  });
});
