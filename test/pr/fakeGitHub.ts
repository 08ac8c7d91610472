import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Comment {
  id: number;
  body: string;
  html_url: string;
  user: Account;
}

/** Who a token acts as, as GitHub shows it in a comment's `user`. */
export interface Account {
  login: string;
  id: number;
  type: "User" | "Bot";
}

/** The identity of a job's GITHUB_TOKEN, and of any token the fake was not told about. */
export const ACTIONS_BOT: Account = { login: "github-actions[bot]", id: 41898282, type: "Bot" };
export const REVIEWER: Account = { login: "octocat", id: 583231, type: "User" };

/**
 * A loopback stand-in for the REST endpoints the comment uses: list (paginated with Link headers,
 * as GitHub does), create, update and delete issue comments. `refuse` answers writes as GitHub
 * answers a token that may not write. `holdFirstLists(n)` holds the answers to the first n listings
 * until all n have arrived, so n jobs start from the same view, as racing jobs do.
 *
 * Each token acts as an account (`tokens`; any other token is the job's GITHUB_TOKEN, acting as
 * github-actions[bot]), which authors the comments it creates; only its author may change or delete a
 * comment. As on GitHub, the GraphQL `viewer` names the account of any token, while `GET /user`
 * answers only a person's token: an installation token (a bot's: GITHUB_TOKEN, an app's) gets 403.
 */
export class FakeGitHub {
  comments: Comment[] = [];
  requests: string[] = [];
  authorizations = new Set<string>();
  refuse: number | null = null;
  tokens = new Map<string, Account>();
  /** The GraphQL endpoint answers 404 (as where it is not served), so the viewer is not known from it. */
  noGraphql = false;
  /** Milliseconds to wait before answering each request, so racing clients interleave differently. */
  delay: () => number = () => 0;
  private nextId = 1000;
  private held: (() => void)[] = [];
  private holding = 0;

  /** The first n listings are answered together, once all n have arrived. */
  holdFirstLists(n: number): void {
    this.holding = n;
  }
  private server: Server = createServer((req, res) => void this.handle(req, res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The requests that write: all but reads (a GraphQL query is a POST that reads). */
  get writes(): string[] {
    return this.requests.filter((r) => !r.startsWith("GET") && r !== "POST /graphql");
  }

  /** A comment already on the pull request; by default a person's. */
  add(body: string, user: Account = REVIEWER): Comment {
    const comment = { id: this.nextId++, body, html_url: `https://github.test/o/r/pull/7#issuecomment-${this.nextId}`, user };
    this.comments.push(comment);
    return comment;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Only the path matters; a request still arriving after stop() has no address to resolve against.
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    this.requests.push(`${req.method} ${url.pathname}`);
    this.authorizations.add(String(req.headers.authorization));
    let text = "";
    for await (const chunk of req) text += chunk;
    const wait = this.delay();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    const token = /^(?:token|bearer) (.*)$/i.exec(String(req.headers.authorization))?.[1] ?? "";
    const account = this.tokens.get(token) ?? ACTIONS_BOT;
    if (url.pathname === "/graphql" && req.method === "POST" && !this.noGraphql) {
      const { query } = JSON.parse(text) as { query: string };
      if (/\bviewer\s*\{\s*login\s*\}/.test(query)) return send(200, { data: { viewer: { login: account.login } } });
      return send(200, { errors: [{ message: "this fake answers only the viewer's login" }] });
    }
    if (url.pathname === "/user" && req.method === "GET") {
      if (account.type === "Bot") return send(403, { message: "Resource not accessible by integration", documentation_url: "https://docs.github.com/rest" });
      return send(200, account);
    }
    if (req.method !== "GET" && this.refuse !== null) {
      return send(this.refuse, { message: "Resource not accessible by integration", documentation_url: "https://docs.github.com/rest" });
    }
    if (url.pathname === "/repos/o/r/issues/7/comments" && req.method === "GET" && this.holding > 0) {
      await new Promise<void>((resolve) => {
        this.held.push(resolve);
        if (this.held.length === this.holding) {
          this.holding = 0;
          for (const release of this.held.splice(0)) release();
        }
      });
    }
    if (url.pathname === "/repos/o/r/issues/7/comments" && req.method === "GET") {
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const page = Number(url.searchParams.get("page") ?? 1);
      const items = this.comments.slice((page - 1) * perPage, page * perPage);
      const more = page * perPage < this.comments.length;
      const next = `<${this.url}/repos/o/r/issues/7/comments?per_page=${perPage}&page=${page + 1}>; rel="next"`;
      return send(200, items, more ? { link: next } : {});
    }
    if (url.pathname === "/repos/o/r/issues/7/comments" && req.method === "POST") {
      return send(201, this.add(JSON.parse(text).body, account));
    }
    const update = /^\/repos\/o\/r\/issues\/comments\/(\d+)$/.exec(url.pathname);
    const comment = update && this.comments.find((c) => c.id === Number(update[1]));
    if (comment && req.method !== "GET" && comment.user.login !== account.login) {
      return send(403, { message: "Resource not accessible by integration", documentation_url: "https://docs.github.com/rest" });
    }
    if (comment && req.method === "PATCH") {
      comment.body = JSON.parse(text).body;
      return send(200, comment);
    }
    if (comment && req.method === "DELETE") {
      this.comments = this.comments.filter((c) => c !== comment);
      res.writeHead(204);
      res.end();
      return;
    }
    send(404, { message: "Not Found" });
  }
}
