/**
 * The one sticky pull request comment per workflow: found again by its hidden marker and updated in
 * place on every push, never posted twice. Where the token may not comment (a pull request from a
 * fork, a read-only token, no `pull-requests: write`), the caller is told so instead of failing,
 * and writes the same text to the job summary.
 */
import { getOctokit } from "@actions/github";

export interface PublishRequest {
  token: string;
  repo: { owner: string; repo: string };
  /** The pull request's number (pull requests are issues to the comments API). */
  issueNumber: number;
  /** The comment's text; it starts with `marker`. */
  markdown: string;
  /** The hidden marker (commentMarker) that identifies this workflow's comment. */
  marker: string;
  /** The REST API's address; default GITHUB_API_URL, else https://api.github.com. */
  apiUrl?: string;
}

export type PublishResult =
  { posted: true; action: "created" | "updated" | "unchanged"; commentId: number; url: string } | { posted: false; status: number; notice: string };

export async function publishPlanComment(request: PublishRequest): Promise<PublishResult> {
  const { token, repo, issueNumber, markdown, marker } = request;
  if (!markdown.startsWith(marker)) throw new Error("the comment must start with its marker, or it could not be found again");
  const octokit = getOctokit(token, { baseUrl: request.apiUrl ?? process.env.GITHUB_API_URL ?? "https://api.github.com" });
  const where = { ...repo, issue_number: issueNumber };
  try {
    const comments = await octokit.paginate(octokit.rest.issues.listComments, { ...where, per_page: 100 });
    const existing = comments.find((c) => c.body?.startsWith(marker));
    if (existing?.body === markdown) return { posted: true, action: "unchanged", commentId: existing.id, url: existing.html_url };
    if (existing) {
      const { data } = await octokit.rest.issues.updateComment({ ...repo, comment_id: existing.id, body: markdown });
      return { posted: true, action: "updated", commentId: data.id, url: data.html_url };
    }
    const { data } = await octokit.rest.issues.createComment({ ...where, body: markdown });
    return { posted: true, action: "created", commentId: data.id, url: data.html_url };
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

/**
 * What the action writes to the job summary: the whole diff (`fullMarkdown`, not cut short), under
 * a notice when the comment could not be posted.
 */
export function planSummary(result: PublishResult, fullMarkdown: string): string {
  if (result.posted) return fullMarkdown;
  return `> [!NOTE]\n> ${result.notice}\n\n${fullMarkdown}`;
}
