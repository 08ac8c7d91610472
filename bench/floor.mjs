// The parse-and-hash floor of a plan: parse the workflow and prompts files with js-yaml, then
// sha256 each pair's configuration and prompt together with its dependencies' hashes, in
// dependency order. Whatever a plan does beyond this is pairflow's own cost.
//
//   node bench/floor.mjs <workflow.yml>     prints the number of pairs hashed
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import yaml from "js-yaml";

const workflowPath = path.resolve(process.argv[2]);
const workflow = yaml.load(readFileSync(workflowPath, "utf8"));
const prompts = yaml.load(readFileSync(path.join(path.dirname(workflowPath), "prompts.yml"), "utf8"));
const pairs = workflow.action_pairs;
const hashes = new Map();
const hashOf = (id) => {
  let hash = hashes.get(id);
  if (hash === undefined) {
    const sha = createHash("sha256")
      .update(JSON.stringify(pairs[id]))
      .update(JSON.stringify(prompts[id] ?? null));
    for (const dep of pairs[id].requires ?? []) sha.update(hashOf(dep));
    hash = sha.digest("hex");
    hashes.set(id, hash);
  }
  return hash;
};
for (const id of Object.keys(pairs)) hashOf(id);
console.log(hashes.size);
