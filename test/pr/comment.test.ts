import { afterEach, describe, expect, it } from "vitest";
import { planSummary, publishPlanComment, readStamp, stampLine } from "../../src/github/comment.js";
import { prng } from "../../bench/generate.js";
import { commentMarker } from "../../src/report/diffMarkdown.js";
import { ACTIONS_BOT, FakeGitHub, REVIEWER, type Account } from "./fakeGitHub.js";

const marker = commentMarker("flows/tdd/workflow.yml");
const body = (text: string, m = marker) => `${m}\n### pairflow plan\n\n${text}\n`;
const repo = { owner: "o", repo: "r" };

let fake: FakeGitHub;
afterEach(async () => {
  await fake?.stop();
});

async function startFake(): Promise<FakeGitHub> {
  fake = new FakeGitHub();
  await fake.start();
  return fake;
}

describe("the sticky pull request comment", () => {
  it("is created on the first push, updated in place on the next, and left alone when nothing changed", async () => {
    const gh = await startFake();
    // A busy pull request: the comments run over one page of the listing.
    for (let i = 0; i < 130; i++) gh.add(`review comment ${i}`);
    const publish = (markdown: string) => publishPlanComment({ token: "t0ken", repo, issueNumber: 7, markdown, marker, apiUrl: gh.url });

    const first = await publish(body("2 pairs will re-run"));
    expect(first).toMatchObject({ posted: true, action: "created" });
    const ours = () => gh.comments.filter((c) => c.body.startsWith(marker));
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.body).toBe(body("2 pairs will re-run"));
    expect(gh.authorizations).toEqual(new Set(["token t0ken"]));

    const second = await publish(body("1 pair will re-run"));
    expect(second).toMatchObject({ posted: true, action: "updated", commentId: first.posted && first.commentId });
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.body).toBe(body("1 pair will re-run"));
    expect(gh.comments).toHaveLength(131);

    gh.requests = [];
    const third = await publish(body("1 pair will re-run"));
    expect(third).toMatchObject({ posted: true, action: "unchanged", commentId: first.posted && first.commentId });
    expect(ours().map((c) => c.body)).toEqual([body("1 pair will re-run")]);
    expect(gh.writes).toEqual([]);
  });

  it("keeps one comment per workflow file", async () => {
    const gh = await startFake();
    const other = commentMarker("flows/docs/workflow.yml");
    const publish = (markdown: string, m: string) => publishPlanComment({ token: "t", repo, issueNumber: 7, markdown, marker: m, apiUrl: gh.url });
    await publish(body("tdd: 1", marker), marker);
    await publish(body("docs: 1", other), other);
    await publish(body("tdd: 2", marker), marker);
    expect(gh.comments.map((c) => c.body)).toEqual([body("tdd: 2", marker), body("docs: 1", other)]);
  });

  it("uses GITHUB_API_URL when no address is given", async () => {
    const gh = await startFake();
    const saved = process.env.GITHUB_API_URL;
    process.env.GITHUB_API_URL = gh.url;
    try {
      const result = await publishPlanComment({ token: "t", repo, issueNumber: 7, markdown: body("x"), marker });
      expect(result).toMatchObject({ posted: true, action: "created" });
    } finally {
      if (saved === undefined) delete process.env.GITHUB_API_URL;
      else process.env.GITHUB_API_URL = saved;
    }
  });

  it.each([403, 404])("reports a refused write (%i) instead of failing, and the job summary gets the same text with a notice", async (status) => {
    const gh = await startFake();
    gh.refuse = status;
    const markdown = body("2 pairs will re-run");
    const result = await publishPlanComment({ token: "read-only", repo, issueNumber: 7, markdown, marker, apiUrl: gh.url });
    expect(result).toEqual({
      posted: false,
      status,
      notice: expect.stringContaining(`could not be posted as a pull request comment (HTTP ${status}: Resource not accessible by integration)`),
    });
    expect(result.posted === false && result.notice).toContain("pull-requests: write");
    expect(gh.comments).toEqual([]);

    const summary = planSummary(result, markdown);
    expect(summary.startsWith(`> [!NOTE]\n> ${result.posted === false && result.notice}\n\n`)).toBe(true);
    expect(summary.endsWith(markdown)).toBe(true);
  });

  it("puts only the whole text in the job summary when the comment was posted", async () => {
    const gh = await startFake();
    const result = await publishPlanComment({ token: "t", repo, issueNumber: 7, markdown: body("x"), marker, apiUrl: gh.url });
    expect(planSummary(result, "the whole diff\n")).toBe("the whole diff\n");
  });

  it("fails on other errors, which are not a matter of permissions", async () => {
    const gh = await startFake();
    gh.refuse = 500;
    await expect(publishPlanComment({ token: "t", repo, issueNumber: 7, markdown: body("x"), marker, apiUrl: gh.url })).rejects.toMatchObject({ status: 500 });
  });
});

describe("plan jobs of one pull request at once", () => {
  const stamped = (runId: number, text = `plan of run ${runId}`) =>
    `${marker}\n${stampLine({ sha: runId.toString(16).padStart(40, "0"), runId, attempt: 1 })}\n### pairflow plan\n\n${text}\n`;

  it("leave one comment, the newest plan's, however their requests interleave", async () => {
    for (let trial = 0; trial < 12; trial++) {
      const gh = await startFake();
      const rand = prng(trial + 1);
      gh.add("a reviewer's comment");
      gh.delay = () => Math.floor(rand() * 15);
      const jobs = 2 + (trial % 3);
      // Distinct run ids in a random order: which job is newest does not follow the order they start in.
      const runs = Array.from({ length: jobs }, (_, i) => 10 + i).sort(() => rand() - 0.5);
      gh.holdFirstLists(jobs); // all list before any writes: each creates a comment
      const results = await Promise.all(
        runs.map((run) => publishPlanComment({ token: "t", repo, issueNumber: 7, markdown: stamped(run), marker, apiUrl: gh.url })),
      );
      const ours = gh.comments.filter((c) => c.body.startsWith(marker));
      expect(
        ours.map((c) => c.body),
        `trial ${trial}`,
      ).toEqual([stamped(10 + jobs - 1)]);
      expect(gh.comments).toHaveLength(2);
      // The newest job names the comment left; an older one that listed after it says it was superseded
      // (one that finished before the newest wrote cannot know, and says what it did).
      for (const [i, r] of results.entries()) {
        if (runs[i] === 10 + jobs - 1) expect(r).toMatchObject({ posted: true, action: "created", url: ours[0]!.html_url });
        else expect(r).toMatchObject({ posted: true, action: expect.stringMatching(/^(created|superseded)$/) });
      }
      await gh.stop();
    }
  });

  it("never write over a comment that shows a newer plan, and replace an older one in place", async () => {
    const gh = await startFake();
    const publish = (markdown: string) => publishPlanComment({ token: "t", repo, issueNumber: 7, markdown, marker, apiUrl: gh.url });
    const existing = gh.add(stamped(20), ACTIONS_BOT);
    gh.requests = [];
    expect(await publish(stamped(19))).toMatchObject({ posted: true, action: "superseded", commentId: existing.id, newer: readStamp(stamped(20)) });
    expect(gh.writes).toEqual([]);
    expect(gh.comments.map((c) => c.body)).toEqual([stamped(20)]);

    expect(await publish(stamped(21))).toMatchObject({ posted: true, action: "updated", commentId: existing.id });
    expect(gh.comments.map((c) => c.body)).toEqual([stamped(21)]);
    // The same plan of the same commit made again by a re-run: nothing to write.
    gh.requests = [];
    const rerun = stamped(21).replace("attempt 1", "attempt 2");
    expect(await publish(rerun)).toMatchObject({ posted: true, action: "unchanged", commentId: existing.id });
    expect(gh.writes).toEqual([]);
  });
});

describe("a comment carrying the marker that another account wrote", () => {
  const stamped = (runId: number, text: string) =>
    `${marker}\n${stampLine({ sha: runId.toString(16).padStart(40, "0"), runId, attempt: 1 })}\n### pairflow plan\n\n${text}\n`;
  const forged = stamped(999_999, "Nothing will re-run after merging.");

  /** The kinds of token a job may pass as github-token, each as the account GitHub knows it by. */
  const tokens: { kind: string; token: string; account: Account; graphql: boolean }[] = [
    { kind: "the job's GITHUB_TOKEN", token: "ghs_job", account: ACTIONS_BOT, graphql: true },
    { kind: "an app's installation token", token: "ghs_app", account: { login: "plan-bot[bot]", id: 7, type: "Bot" }, graphql: true },
    { kind: "a personal token", token: "ghp_person", account: { login: "Maintainer", id: 8, type: "User" }, graphql: true },
    { kind: "a personal token where GraphQL is not served", token: "ghp_person", account: { login: "maintainer", id: 8, type: "User" }, graphql: false },
    { kind: "an installation token where GraphQL is not served", token: "ghs_app", account: { login: "plan-bot[bot]", id: 7, type: "Bot" }, graphql: false },
  ];

  it.each(tokens)("neither stops nor stands for the plan's comment: $kind", async ({ token, account, graphql }) => {
    const gh = await startFake();
    gh.tokens.set(token, account);
    gh.noGraphql = !graphql;
    const publish = (markdown: string) => publishPlanComment({ token, repo, issueNumber: 7, markdown, marker, apiUrl: gh.url });
    // A participant of the pull request writes what looks like pairflow's comment of a later run.
    const fake = gh.add(forged, REVIEWER);

    const first = await publish(stamped(20, "2 pairs will re-run"));
    expect(first).toMatchObject({ posted: true, action: "created", author: account.login, ignored: [REVIEWER.login] });
    const mine = gh.comments.filter((c) => c.user.login === account.login);
    expect(mine.map((c) => c.body)).toEqual([stamped(20, "2 pairs will re-run")]);
    expect(first.posted && first.url).toBe(mine[0]!.html_url);
    // The forged comment is left as it was: pairflow neither takes it over nor deletes it.
    expect(gh.comments.find((c) => c.id === fake.id)?.body).toBe(forged);

    // The next push updates pairflow's own comment, however the other one's stamp reads.
    const second = await publish(stamped(21, "1 pair will re-run"));
    const now = gh.comments.filter((c) => c.user.login === account.login);
    expect(now.map((c) => c.body)).toEqual([stamped(21, "1 pair will re-run")]);
    expect(second).toMatchObject({ posted: true, commentId: now[0]!.id, ignored: [REVIEWER.login] });
    // Where the API does not say who the token is before it writes, the comment is replaced rather than updated.
    if (graphql || account.type === "User") expect(now[0]!.id).toBe(mine[0]!.id);
    expect(gh.comments).toHaveLength(2);
  });

  it("written by another bot is not the job's either", async () => {
    const gh = await startFake();
    gh.add(forged, { login: "other-app[bot]", id: 9, type: "Bot" });
    const result = await publishPlanComment({ token: "t", repo, issueNumber: 7, markdown: stamped(20, "2 pairs will re-run"), marker, apiUrl: gh.url });
    expect(result).toMatchObject({ posted: true, action: "created", author: ACTIONS_BOT.login, ignored: ["other-app[bot]"] });
    expect(gh.comments.map((c) => [c.user.login, c.body])).toEqual([
      ["other-app[bot]", forged],
      [ACTIONS_BOT.login, stamped(20, "2 pairs will re-run")],
    ]);
  });
});
