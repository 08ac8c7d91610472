/**
 * What a GitHub Actions job says about itself in its environment: the pull request it runs for
 * (from the event payload), and where its pages are. The action and `pairflow diff --format
 * markdown` read them alike, so that the comment the action posts and the text the command prints
 * in the same job are the same.
 */
import { readFileSync } from "node:fs";

export interface PullRequestEvent {
  number: number;
  baseSha: string;
  /** The head the author pushed (GITHUB_SHA is the merge commit GitHub made of it). */
  headSha: string;
  repo: { owner: string; repo: string };
}

/** The pull request this job runs for, from the event payload; undefined for other events. */
export function pullRequestOf(env: NodeJS.ProcessEnv): PullRequestEvent | undefined {
  if (env.GITHUB_EVENT_NAME !== "pull_request" || !env.GITHUB_EVENT_PATH || !env.GITHUB_REPOSITORY) return undefined;
  const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as {
    pull_request?: { number: number; base: { sha: string }; head?: { sha?: string } };
  };
  if (!event.pull_request) return undefined;
  const [owner, repo] = env.GITHUB_REPOSITORY.split("/") as [string, string];
  const headSha = event.pull_request.head?.sha ?? env.GITHUB_SHA ?? "";
  return { number: event.pull_request.number, baseSha: event.pull_request.base.sha, headSha, repo: { owner, repo } };
}

/** The links of the plan comment: the commit planned (its page, on a runner) and the job summary. */
export function commentLinks(env: NodeJS.ProcessEnv, sha: string): { commit: { sha: string; url?: string }; summaryUrl?: string } {
  const server = env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}` : undefined;
  return {
    commit: { sha, ...(server ? { url: `${server}/commit/${sha}` } : {}) },
    ...(server && env.GITHUB_RUN_ID ? { summaryUrl: `${server}/actions/runs/${env.GITHUB_RUN_ID}` } : {}),
  };
}

/** The fan-out of this workflow run: its id and attempt, so a re-run of failed jobs starts afresh. */
export function fanoutOf(env: NodeJS.ProcessEnv): string | undefined {
  return env.GITHUB_RUN_ID ? `${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT ?? "1"}` : undefined;
}
