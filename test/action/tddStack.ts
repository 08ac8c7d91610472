/**
 * examples/tdd-stack for the tests of what the action does around a run (the cache, pull requests,
 * retries), where the stand-in model is not what is tested: the same workflow and prompts, and
 * the same answers as its model.mjs, from a shell script instead of a Node process per pair. The
 * example as shipped, model.mjs and all, is run by test/action/action.test.ts, test/examples.test.ts
 * and test/package/shipped.test.ts; test/action/tddStack.test.ts holds the two stand-ins to the
 * same answers.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { copySources, copyToTempRepo, REPO } from "../helpers/fixtures.js";

export const EXAMPLE = path.join(REPO, "examples/tdd-stack");

/**
 * model.mjs's answers: the prompt's task (the first line after "# Task" that is not empty) quoted
 * at the top, so that editing a task changes the artifact; a pair it has no answer for fails.
 */
export const MODEL_SH = String.raw`task=$(sed -n '/^# Task$/{:a;n;/^$/ba;s/^[[:space:]]*//;s/[[:space:]]*$//;p;q}' "$PAIRFLOW_PROMPT_FILE")
case "$PAIRFLOW_PAIR" in
g_test) cat <<EOF
# $task
import pytest
from stack import Stack


def test_push_then_pop_returns_last():
    s = Stack()
    s.push(1)
    s.push(2)
    assert s.pop() == 2


def test_peek_keeps_the_top():
    s = Stack()
    s.push("a")
    assert s.peek() == "a"
    assert not s.is_empty()


def test_empty_stack_raises():
    with pytest.raises(IndexError):
        Stack().pop()
EOF
;;
g_impl) cat <<EOF
# $task
class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        if not self._items:
            raise IndexError("pop from an empty stack")
        return self._items.pop()

    def peek(self):
        if not self._items:
            raise IndexError("peek at an empty stack")
        return self._items[-1]

    def is_empty(self):
        return not self._items
EOF
;;
g_review) cat <<EOF
## Review

$task

- push, pop, peek and is_empty are covered by the tests.
- Underflow raises IndexError, as specified.

Verdict: approve
EOF
;;
*) echo "model.sh has no answer for pair \"$PAIRFLOW_PAIR\"" >&2; exit 1 ;;
esac
`;

let source: string | undefined;

/** A directory holding the example with model.sh as its generator (made once per test process). */
export function tddStackSource(): string {
  if (source) return source;
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-tdd-stack-"));
  copySources(EXAMPLE, dir);
  const workflow = path.join(dir, "workflow.yml");
  const text = readFileSync(workflow, "utf8");
  if (!text.includes("run: node model.mjs")) throw new Error("examples/tdd-stack no longer runs node model.mjs");
  writeFileSync(workflow, text.replace("run: node model.mjs", "run: sh model.sh"));
  writeFileSync(path.join(dir, "model.sh"), MODEL_SH);
  return (source = dir);
}

/** The example with model.sh in a fresh temporary repository, with the given files. */
export function tddStack(files: Record<string, string> = {}): string {
  return copyToTempRepo(tddStackSource(), files);
}
