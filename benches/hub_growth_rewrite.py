#!/usr/bin/env python3
"""Rewrites a `git fast-export` stream (stdin to stdout) so every learning
file carries its derived fields another way, for benches/hub_growth.sh:

  level    `quality` at its neutral value; `trust_level`, `promoted_at` and
           `wiki_page_name` as committed
  neutral  every derived field neutral: `trust_level` L1 when the learning
           has a correction else L0, quality zero, `promoted_at` and
           `wiki_page_name` null

A blob is a learning file when it opens with `---` and an `id: learning-`
line; nothing else is touched, so commits, trees and events files are the
stream's own.
"""
import re
import sys

NEUTRAL_QUALITY = (
    b"quality:\n"
    b"  applied_count: 0\n"
    b"  effective_count: 0\n"
    b"  agent_count: 0\n"
    b"  agent_names: []\n"
    b"  last_applied_at: null\n"
    b"  success_rate: null\n"
)
QUALITY = re.compile(rb"^quality:\n(?:  .*\n)*", re.M)


def rewrite(blob, mode):
    if not blob.startswith(b"---\nid: learning-"):
        return blob
    end = blob.find(b"\n---\n", 4)
    if end < 0:
        return blob
    head, rest = blob[: end + 1], blob[end + 1 :]
    head = QUALITY.sub(lambda _: NEUTRAL_QUALITY, head, count=1)
    if mode == "neutral":
        corrected = re.search(rb"^correction: (?!null\n)\S", head, re.M) is not None
        level = b"L1" if corrected else b"L0"
        head = re.sub(rb"^trust_level: .*$", b"trust_level: " + level, head, count=1, flags=re.M)
        head = re.sub(rb"^promoted_at: .*$", b"promoted_at: null", head, count=1, flags=re.M)
        head = re.sub(rb"^wiki_page_name: .*$", b"wiki_page_name: null", head, count=1, flags=re.M)
    return head + rest


def main():
    mode = sys.argv[1]
    assert mode in ("level", "neutral"), "mode: level or neutral"
    src, out = sys.stdin.buffer, sys.stdout.buffer
    in_blob = False
    while True:
        line = src.readline()
        if not line:
            break
        if line.startswith(b"data "):
            n = int(line[5:])
            data = src.read(n)
            if in_blob:
                data = rewrite(data, mode)
            out.write(b"data %d\n" % len(data))
            out.write(data)
            continue
        if line == b"blob\n":
            in_blob = True
        elif line.startswith((b"commit ", b"tag ", b"reset ")):
            in_blob = False
        out.write(line)
    out.flush()


if __name__ == "__main__":
    main()
