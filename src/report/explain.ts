/** `pairflow explain` as people read it: the decision, the components that made it, where the artifact comes from. */
import type { ComponentRow, Explanation } from "../model/explain.js";
import { shortRef } from "../refs/hash.js";
import type { Style } from "./color.js";
import { nameFor } from "./names.js";

/** The first 12 hex digits of a component's digest, as the plan shows references. */
const DIGEST = 12;

export function explainText(e: Explanation, style: Style): string {
  const lines: string[] = [];
  const action = e.decision.action === "run" ? style.yellow("run") : style.green("skip");
  lines.push(
    `${style.bold(nameFor(e.pair, "terminal"))}  ${action}${e.template !== undefined ? style.dim(`  (an instance of ${nameFor(e.template, "terminal")})`) : ""}`,
  );
  for (const r of e.decision.reasons) lines.push(`  ${r.kind}: ${nameFor(r.detail, "terminal")}`);
  // A person's output is kept whatever changed: its reference need not be the one accepted.
  if (e.decision.action === "skip" && e.artifact.from === "workspace")
    lines.push(`  ${style.dim("its output is a person's edit, kept whatever changed (delete the file to regenerate it)")}`);
  else if (e.decision.action === "skip") lines.push(`  ${style.dim("its reference is the one accepted: nothing changed")}`);
  lines.push("");
  lines.push(`reference  ${shortRef(e.configRef)}${e.configRef === null ? style.dim(" (not known until its dependencies have run)") : ""}`);
  lines.push(
    `accepted   ${e.accepted ? `${shortRef(e.accepted.configRef)} ${style.dim(`at ${e.accepted.acceptedAt}${e.accepted.source === "human" ? ", a person's edit" : ""}`)}` : style.dim("never (no lock entry)")}`,
  );
  lines.push("");
  lines.push(...componentLines(e.components, style));
  lines.push("");
  lines.push(`artifact   ${artifactText(e)}`);
  lines.push(`request    ${e.requestKey ?? style.dim("not known until its dependencies have run")}`);
  lines.push(`prompt     ${nameFor(e.prompt, "terminal")}`);
  if (e.network.length > 0) {
    const says = e.network.map((c) => `${c.command} ${c.network ? "has the network" : style.dim("has no network")}`);
    lines.push(`network    ${says.join(", ")} ${style.dim("(in the sandbox; network: in its config)")}`);
  }
  return lines.join("\n") + "\n";
}

function componentLines(rows: readonly ComponentRow[], style: Style): string[] {
  if (rows.length === 0) return ["components  none"];
  const changed = rows.filter((r) => r.status !== "same" && r.status !== "unknown").length;
  const unknown = rows.length - changed - rows.filter((r) => r.status === "same").length;
  const kinds = Math.max(4, ...rows.map((r) => r.kind.length));
  const names = Math.min(48, Math.max(4, ...rows.map((r) => nameFor(r.name, "terminal").length)));
  const head = `  ${"kind".padEnd(kinds)}  ${"name".padEnd(names)}  ${"now".padEnd(DIGEST)}  accepted`;
  const counts = [changed === 0 ? "none changed" : `${changed} changed`, ...(unknown > 0 ? [`${unknown} not known yet`] : [])];
  const out = [`components (${rows.length}: ${counts.join(", ")})`, style.dim(head)];
  const digest = (d: string | null) => (d === null ? "-" : d === "" ? "?" : d.slice(0, DIGEST)).padEnd(DIGEST);
  for (const r of rows) {
    const status = r.status === "same" ? "" : `  ${r.status === "unknown" ? style.dim(r.status) : style.yellow(r.status)}`;
    out.push(`  ${r.kind.padEnd(kinds)}  ${nameFor(r.name, "terminal").padEnd(names)}  ${digest(r.now)}  ${digest(r.accepted)}${status}`);
  }
  return out;
}

function artifactText(e: Explanation): string {
  const a = e.artifact;
  const content =
    a.content === "output" ? "its output file" : a.content === "store" ? "the local store" : a.content === "remote" ? "the remote store" : "nowhere here";
  switch (a.from) {
    case "workspace":
      return "its output file, a person's edit, kept as it is";
    case "lock":
      return `the lock file's accepted artifact ${shortRef(a.contentHash)}, read from ${content}`;
    case "store":
      return `the local store's accepted artifact ${shortRef(a.contentHash)}, read from ${content}`;
    case "remote":
      return `the remote store's (the cache's) accepted artifact ${shortRef(a.contentHash)}, read from ${content}`;
    case "request":
      return `request reuse: the artifact generated for ${nameFor(a.reused!.pair, "terminal")} at ${a.reused!.at} answers its request, accepted by its guard: no model call`;
    case "rejudge":
      return `request reuse: the artifact generated for ${nameFor(a.reused!.pair, "terminal")} at ${a.reused!.at} answers its request if its guard accepts it: no model call then`;
    case "generator":
      return a.unless
        ? `a call of its generator, unless ${a.unless.map((id) => nameFor(id, "terminal")).join(", ")} ${a.unless.length === 1 ? "reproduces its" : "reproduce their"} content (its earlier request is then answered)`
        : "a call of its generator";
  }
}
