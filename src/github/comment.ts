/**
 * The one sticky pull request comment per workflow: found again by its hidden marker and updated in
 * place on every push, never posted twice. Where the token may not comment (a pull request from a
 * fork, a read-only token, no `pull-requests: write`), the caller is told so instead of failing,
 * and writes the same text to the job summary.
 *
 * Plan jobs of one pull request can run at once (two pushes in quick succession). Each comment
 * carries a stamp of what it planned: the head commit and the workflow run (run ids grow with every
 * push, and a re-run of an old job keeps its old id). A job never writes over a comment stamped
 * newer than its own; after writing it lists the comments again, keeps the one with the newest plan
 * and deletes the others, so racing jobs leave one comment showing the newest plan. (Two jobs that
 * update the same comment at the same instant can still end in either order: the example workflows
 * give each pull request a concurrency group, so a new push cancels the plan of the one before.)
 *
 * Only comments the token's own account wrote count: anyone may write a comment carrying the marker
 * and a high stamp (a forged "nothing will re-run"), and such a comment neither stops this job nor
 * is taken for its comment; it is reported (`ignored`) and left alone. The account is the GraphQL
 * `viewer`, which names it for every kind of token (GITHUB_TOKEN acts as github-actions[bot], an
 * app's installation token as `<app>[bot]`, a personal token as its person); else `GET /user` (a
 * person's token); else the author of the comment this job creates, which is then written first.
 */
import { getOctokit } from "@actions/github";

/** What a comment planned: the pull request's head commit, and the workflow run that planned it. */
export interface PlanStamp {
  sha: string;
  /** GITHUB_RUN_ID: grows with every new workflow run. */
  runId: number;
  /** GITHUB_RUN_ATTEMPT: grows when a run is re-run. */
  attempt: number;
}

const STAMP = /^<!-- pairflow:planned ([0-9a-f]{4,64}) run (\d+) attempt (\d+) -->$/m;

/** The hidden line a comment carries its stamp in. */
export function stampLine(stamp: PlanStamp): string {
  return `<!-- pairflow:planned ${stamp.sha} run ${stamp.runId} attempt ${stamp.attempt} -->`;
}

export function readStamp(body: string): PlanStamp | null {
  const m = STAMP.exec(body);
  return m ? { sha: m[1]!, runId: Number(m[2]), attempt: Number(m[3]) } : null;
}

/** Positive when a is newer than b; a comment without a stamp is older than any with one. */
export function compareStamps(a: PlanStamp | null, b: PlanStamp | null): number {
  if (a === null || b === null) return (a === null ? 0 : 1) - (b === null ? 0 : 1);
  return a.runId - b.runId || a.attempt - b.attempt;
}

export interface PublishRequest {
  token: string;
  repo: { owner: string; repo: string };
  /** The pull request's number (pull requests are issues to the comments API). */
  issueNumber: number;
  /** The comment's text; it starts with `marker`, and may carry a stamp (stampLine). */
  markdown: string;
  /** The hidden marker (commentMarker) that identifies this workflow's comment. */
  marker: string;
  /** The REST API's address; default GITHUB_API_URL, else https://api.github.com. */
  apiUrl?: string;
}

export type PublishResult =
  | ({ posted: true; action: "created" | "updated" | "unchanged"; commentId: number; url: string } & Ignored)
  /** A newer plan's comment is there: nothing was written. */
  | ({ posted: true; action: "superseded"; commentId: number; url: string; newer: PlanStamp | null } & Ignored)
  | { posted: false; status: number; notice: string };

interface Ignored {
  /** The account the token acts as: the author of the comment. */
  author: string;
  /** Comments carrying the marker that another account wrote, left alone: their authors' logins. */
  ignored: string[];
}

interface Comment {
  id: number;
  body?: string | null;
  html_url: string;
  user?: { login: string } | null;
}

type Octokit = ReturnType<typeof getOctokit>;

/** The login of the account the token acts as, when the API says it before anything is written. */
async function tokenAccount(octokit: Octokit): Promise<string | undefined> {
  try {
    const { viewer } = await octokit.graphql<{ viewer: { login: string } }>("query { viewer { login } }");
    if (viewer?.login) return viewer.login;
  } catch {
    // No GraphQL here (or it failed): the REST API may still say, for a person's token.
  }
  try {
    return (await octokit.rest.users.getAuthenticated()).data.login;
  } catch {
    return undefined; // an installation token: GitHub answers 403
  }
}

/** GitHub's logins are the same whatever their case. */
const sameLogin = (comment: Comment, login: string) => comment.user?.login.toLowerCase() === login.toLowerCase();

export async function publishPlanComment(request: PublishRequest): Promise<PublishResult> {
  const { token, repo, issueNumber, markdown, marker } = request;
  if (!markdown.startsWith(marker)) throw new Error("the comment must start with its marker, or it could not be found again");
  const octokit = getOctokit(token, { baseUrl: request.apiUrl ?? process.env.GITHUB_API_URL ?? "https://api.github.com" });
  const where = { ...repo, issue_number: issueNumber };
  const mine = readStamp(markdown);
  const marked = async (): Promise<Comment[]> =>
    (await octokit.paginate(octokit.rest.issues.listComments, { ...where, per_page: 100 }))
      .filter((c) => c.body?.startsWith(marker))
      .sort((a, b) => a.id - b.id);
  const by = (login: string, comments: Comment[]) => comments.filter((c) => sameLogin(c, login));
  const others = (login: string, comments: Comment[]) => [
    ...new Set(comments.filter((c) => !sameLogin(c, login)).map((c) => c.user?.login ?? "a deleted account")),
  ];

  try {
    let author = await tokenAccount(octokit);
    let action: "created" | "updated" | "unchanged";
    if (author === undefined) {
      // Who this token is shows only in what it writes: write first, then settle as racing jobs do.
      const created = await octokit.rest.issues.createComment({ ...where, body: markdown });
      if (!created.data.user) throw new Error("GitHub did not say who wrote the comment just created");
      author = created.data.user.login;
      action = "created";
    } else {
      const all = await marked();
      const ours = by(author, all);
      const newest = newestOf(ours);
      const newer = newest && readStamp(newest.body ?? "");
      if (newest && compareStamps(newer ?? null, mine) > 0) {
        return { posted: true, action: "superseded", commentId: newest.id, url: newest.html_url, newer: newer ?? null, author, ignored: others(author, all) };
      }
      const keeper = ours[0];
      if (keeper && ours.length === 1 && sameText(keeper.body ?? "", markdown)) {
        return { posted: true, action: "unchanged", commentId: keeper.id, url: keeper.html_url, author, ignored: others(author, all) };
      } else if (keeper) {
        await octokit.rest.issues.updateComment({ ...repo, comment_id: keeper.id, body: markdown });
        action = "updated";
      } else {
        const created = await octokit.rest.issues.createComment({ ...where, body: markdown });
        // The author GitHub shows is the one the comments are matched by, whatever the viewer's login read.
        author = created.data.user?.login ?? author;
        action = "created";
      }
    }

    // Another job may have written at the same time: keep the comment with the newest plan and delete
    // the others. Only deleting, never writing again, means no job can put back an older plan here.
    const all = await marked();
    const settled = by(author, all);
    const ignored = others(author, all);
    const keep = newestOf(settled);
    if (!keep) throw new Error("the comment just written is not listed");
    for (const extra of settled.filter((c) => c !== keep)) {
      try {
        await octokit.rest.issues.deleteComment({ ...repo, comment_id: extra.id });
      } catch (err) {
        if ((err as { status?: unknown }).status !== 404) throw err; // deleted by the other job
      }
    }
    const newer = readStamp(keep.body ?? "");
    if (compareStamps(newer, mine) > 0) return { posted: true, action: "superseded", commentId: keep.id, url: keep.html_url, newer, author, ignored };
    return { posted: true, action, commentId: keep.id, url: keep.html_url, author, ignored };
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (status !== 403 && status !== 404) throw err;
    const why = ((err as Error).message.split(" - ")[0] ?? "").trim();
    return {
      posted: false,
      status,
      notice:
        `The plan could not be posted as a pull request comment (HTTP ${status}${why ? `: ${why}` : ""}), so it is in the job summary instead. ` +
        "This is expected for pull requests from forks; otherwise give the workflow `permissions: pull-requests: write`.",
    };
  }
}

/** The comment with the newest stamp; among equals, the oldest comment. */
function newestOf(comments: Comment[]): Comment | undefined {
  let best: Comment | undefined;
  for (const c of comments) if (!best || compareStamps(readStamp(c.body ?? ""), readStamp(best.body ?? "")) > 0) best = c;
  return best;
}

/** The same plan of the same commit: only the run that made it differs. */
function sameText(a: string, b: string): boolean {
  const plain = (text: string) => text.replace(STAMP, (line) => line.replace(/ run \d+ attempt \d+ -->$/, " -->"));
  return plain(a) === plain(b);
}

/**
 * What the action writes to the job summary: the whole diff (`fullMarkdown`, not cut short), under
 * a notice when the comment could not be posted.
 */
export function planSummary(result: PublishResult, fullMarkdown: string): string {
  if (result.posted) return fullMarkdown;
  return `> [!NOTE]\n> ${result.notice}\n\n${fullMarkdown}`;
}
