// A deterministic stand-in for a model, so the example runs offline: it reads the rendered prompt
// on stdin (pairflow also names a file holding it in PAIRFLOW_PROMPT_FILE) and answers for the pair
// named in PAIRFLOW_PAIR. Its answer quotes the prompt's task, so editing a task changes the artifact.
import { readFileSync } from "node:fs";

const prompt = readFileSync(0, "utf8");
const task = /# Task\n+([^\n]*)/.exec(prompt)?.[1]?.trim() ?? "";
const pair = process.env.PAIRFLOW_PAIR;

const answers = {
  g_test: `# ${task}
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
`,
  g_impl: `# ${task}
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
`,
  g_review: `## Review

${task}

- push, pop, peek and is_empty are covered by the tests.
- Underflow raises IndexError, as specified.

Verdict: approve
`,
};

if (!(pair in answers)) {
  console.error(`model.mjs has no answer for pair "${pair}"`);
  process.exit(1);
}
process.stdout.write(answers[pair]);
