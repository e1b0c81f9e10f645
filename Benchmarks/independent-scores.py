#!/usr/bin/env python3
"""Scores a `warm-cache-bench bytes --dump DIR` folder with an independent SSIMULACRA 2.1
implementation (the PyPI package `ssimulacra2`, BSD-3), and prints per setup the mean, the
worst decile and the minimum, next to the scores WarmCache's own port gave.

    pip install ssimulacra2
    python3 Benchmarks/independent-scores.py DIR [--every N] [--setups a,b]

`--every N` scores every N-th variant only (the Python implementation is slow on large images);
`--setups` only the setups named.
Formats Pillow cannot open (AVIF, HEIC, JPEG XL) are first converted to PNG with libvips' `vips` command.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

from ssimulacra2 import compute_ssimulacra2


def readable(path, scratch):
    if path.endswith((".png", ".jpg", ".webp")):
        return path
    out = os.path.join(scratch, os.path.basename(path) + ".png")
    subprocess.run(["vips", "copy", path, out], check=True)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--setups", default="")
    args = parser.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(args.folder, "index.tsv"))][1:]
    if args.setups:
        rows = [row for row in rows if row[0] in args.setups.split(",")]
    ours = defaultdict(list)
    theirs = defaultdict(list)
    with tempfile.TemporaryDirectory() as scratch:
        for number, (setup, reference, distorted, score) in enumerate(rows):
            if number % args.every:
                continue
            ref = os.path.join(args.folder, reference)
            dis = readable(os.path.join(args.folder, distorted), scratch)
            theirs[setup].append(compute_ssimulacra2(ref, dis))
            ours[setup].append(float(score))
            print(f"\r{number + 1}/{len(rows)}", end="", file=sys.stderr)
    print(file=sys.stderr)

    def decile(values):
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * 0.1))]

    print("| setup | variants | independent mean | worst decile | min | WarmCache's mean | worst decile | min |")
    print("|---|---|---|---|---|---|---|---|")
    for setup in theirs:
        t, o = theirs[setup], ours[setup]
        print(f"| {setup} | {len(t)} | {statistics.mean(t):.1f} | {decile(t):.1f} | {min(t):.1f} | "
              f"{statistics.mean(o):.1f} | {decile(o):.1f} | {min(o):.1f} |")


if __name__ == "__main__":
    main()
