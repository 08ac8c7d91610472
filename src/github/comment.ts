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
  | { posted: true; action: "created" | "updated" | "unchanged"; commentId: number; url: string }
  /** A newer plan's comment is there: nothing was written. */
  | { posted: true; action: "superseded"; commentId: number; url: string; newer: PlanStamp | null }
  | { posted: false; status: number; notice: string };

interface Comment {
  id: number;
  body?: string | null;
  html_url: string;
}

export async function publishPlanComment(request: PublishRequest): Promise<PublishResult> {
  const { token, repo, issueNumber, markdown, marker } = request;
  if (!markdown.startsWith(marker)) throw new Error("the comment must start with its marker, or it could not be found again");
  const octokit = getOctokit(token, { baseUrl: request.apiUrl ?? process.env.GITHUB_API_URL ?? "https://api.github.com" });
  const where = { ...repo, issue_number: issueNumber };
  const mine = readStamp(markdown);
  const list = async (): Promise<Comment[]> =>
    (await octokit.paginate(octokit.rest.issues.listComments, { ...where, per_page: 100 }))
      .filter((c) => c.body?.startsWith(marker))
      .sort((a, b) => a.id - b.id);

  try {
    const ours = await list();
    const newest = newestOf(ours);
    if (newest && compareStamps(readStamp(newest.body ?? ""), mine) > 0) {
      return { posted: true, action: "superseded", commentId: newest.id, url: newest.html_url, newer: readStamp(newest.body ?? "") };
    }
    const keeper = ours[0];
    let action: "created" | "updated" | "unchanged";
    if (keeper && ours.length === 1 && sameText(keeper.body ?? "", markdown)) {
      action = "unchanged";
    } else if (keeper) {
      await octokit.rest.issues.updateComment({ ...repo, comment_id: keeper.id, body: markdown });
      action = "updated";
    } else {
      await octokit.rest.issues.createComment({ ...where, body: markdown });
      action = "created";
    }
    if (action === "unchanged") return { posted: true, action, commentId: keeper!.id, url: keeper!.html_url };

    // Another job may have written at the same time: keep the comment with the newest plan and delete
    // the others. Only deleting, never writing again, means no job can put back an older plan here.
    const settled = await list();
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
    if (compareStamps(newer, mine) > 0) return { posted: true, action: "superseded", commentId: keep.id, url: keep.html_url, newer };
    return { posted: true, action, commentId: keep.id, url: keep.html_url };
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
