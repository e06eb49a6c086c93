#!/usr/bin/env python3
"""Groups JFR execution samples of Sandjar's engine threads by the step of a run they fall in.

Input: the text of `jfr print --events jdk.ExecutionSample --stack-depth 200`. A sample's step is
its innermost frame in RunExecution (setup lines are named by what they call); within each step
the report lists the hottest leaf frames.
"""
import collections
import re
import sys

STEPS = [  # (method, first line, last line, name): RunExecution.setup's lines, see host/
    ("setup", 226, 233, "runtime: newRuntime and its limits"),
    ("setup", 234, 239, "context: newContext"),
    ("setup", 240, 242, "codec: eval of the transport's guest codec"),
    ("setup", 243, 245, "prelude: eval of prelude.js"),
    ("setup", 246, 266, "bridges: eval of bridges' guest code"),
    ("setup", 267, 300, "prelude: install call (hardening, globals)"),
]

frame_re = re.compile(r"^\s+([\w.$<>]+)\(.*\)\s+line:\s+(\d+)")


def step_of(frames):
    for name, line in frames:  # innermost first
        if ".RunExecution." in name:
            method = name.rsplit(".", 1)[1]
            if method == "setup":
                for m, lo, hi, label in STEPS:
                    if lo <= line <= hi:
                        return label
                return "setup: line %d" % line
            return "run: RunExecution.%s" % method
    for name, _ in frames:
        if "QuickJsEngine" in name or "EnginePool" in name:
            return "engine: " + name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[1]
    return "other"


def samples(text):
    for block in text.split("jdk.ExecutionSample")[1:]:
        thread = re.search(r'sampledThread = "([^"]+)"', block)
        frames = [(m.group(1), int(m.group(2))) for m in map(frame_re.match, block.splitlines()) if m]
        yield (thread.group(1) if thread else "?"), frames


def main(path):
    text = open(path, encoding="utf-8").read()
    by_step = collections.Counter()
    leaves = collections.defaultdict(collections.Counter)
    total = 0
    for thread, frames in samples(text):
        if not thread.startswith("sandjar-engine") or not frames:
            continue
        total += 1
        step = step_of(frames)
        by_step[step] += 1
        leaves[step][frames[0][0]] += 1
    print("engine-thread samples: %d" % total)
    for step, n in by_step.most_common():
        print("%5.1f%%  %s" % (100.0 * n / total, step))
        for leaf, k in leaves[step].most_common(4):
            print("          %5.1f%%  %s" % (100.0 * k / total, leaf))


if __name__ == "__main__":
    main(sys.argv[1])
