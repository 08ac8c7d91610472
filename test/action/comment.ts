/** Reading the pull request comment back, as a reviewer reads it. */

/**
 * What the comment says will re-run: each cause of "Will re-run, by cause" with the pairs it names
 * and how many pairs it counts (`**prompt of \`g_impl\` (task)** — 1 pair + 1 downstream · waves 2–3` → g_impl, 2).
 */
export function rerunCauses(body: string): { named: string[]; count: number } {
  const section = body.split("#### Will re-run, by cause\n\n")[1]?.split(/\n#### /)[0] ?? "";
  const causes = section.split("\n\n").filter((p) => /^(✖ )?\*\*/.test(p));
  let count = 0;
  const named: string[] = [];
  for (const cause of causes) {
    const extent = cause.split(" — ")[1]!;
    const pairs = /^([\d,]+) pairs/.exec(extent);
    const downstream = / \+ ([\d,]+) downstream/.exec(extent);
    count += (pairs ? Number(pairs[1]!.replace(/,/g, "")) : 1) + (downstream ? Number(downstream[1]!.replace(/,/g, "")) : 0);
    // Pairs are named in the cause's name (`prompt of \`g_impl\``) and in how far it reaches.
    named.push(...[...cause.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  }
  return { named: [...new Set(named)], count };
}
