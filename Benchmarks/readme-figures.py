#!/usr/bin/env python3
"""The figures README's table gives for README's manifest, measured on README's manifest.

README's manifest block (the first ```yaml block under "## The manifest") is read from README.md
as it stands, its `images:` replaced by held-out photos (every photo in every preset the block
defines, without processors: the avatar preset's rounded corners are left out, as photos are not
avatars), its `budget`, `fetch` and placeholder keys left as written where they apply. Then:

  1. the manifest as written (`speed: balanced`, the default),
  2. the same with `speed: fast`,
  3. the same with `formats: [jpeg]`, `quality: 80` (no quality target): the baseline,

each warmed cold with the release CLI into a fresh bundle and cache folder, one at a time, `--jobs`
as given (default: the CLI's own). For each it prints the CPU (user + system of the warm and every
imaging process it started, from the kernel's accounting of waited-for children), the wall time,
the bundle's bytes (every blob once, the index aside), the peak resident memory of the warm and
its imaging processes together (sampled every 0.1 s from /proc), and the ratios against the
baseline.

    swift build -c release --product warm-cache --scratch-path .build-release
    python3 Benchmarks/readme-figures.py --cli .build-release/release/warm-cache [--set photos|largest]
        [--jobs N] [--runs 2] [--json out.json]

Photos: those of Benchmarks/one-scale.py (`--set photos`: eight KDE Plasma photographs, 2560x1600
JPEGs; `--set largest`: eight 5120x2880 wallpapers, 14.7 MP), none of which the encoders were tuned
on; `--photos a.jpg,b.jpg` takes others.
"""
import argparse
import importlib.util
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def one_scale():
    """Benchmarks/one-scale.py as a module: its photo sets are this script's too."""
    spec = importlib.util.spec_from_file_location("one_scale", os.path.join(HERE, "one-scale.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readme_manifest():
    """README's manifest block, as text."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text[text.index("## The manifest"):]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def manifest_for(photos, output, variant):
    """README's manifest with `photos` as its images, changed for `variant` (None, "fast", "jpeg")."""
    lines = readme_manifest().split("\n")
    kept, presets, skipping = [], [], False
    for line in lines:
        if re.match(r"^(images|fetch):", line):
            skipping = True
            continue
        if skipping and (line.startswith(" ") or not line.strip()):
            continue
        skipping = False
        if line.startswith("output:"):
            line = f"output: {output}"
        match = re.match(r"^  (\w+):\s*\{(.*)\}", line)
        if match and "processors" not in match.group(2) and kept and any(k.startswith("presets:") for k in kept):
            presets.append(match.group(1))
        if "processors" in line and re.match(r"^  \w+:", line):
            continue
        kept.append(line)
    text = "\n".join(kept)
    if variant == "fast":
        text = re.sub(r"(?m)^  speed: \w+", "  speed: fast", text)
    if variant == "jpeg":
        text = re.sub(r"(?m)^  formats: .*$", "  formats: [jpeg]", text)
        text = re.sub(r"(?m)^  quality: .*$", "  quality: 80", text)
        text = re.sub(r"(?m)^  quality_target: .*\n", "", text)
        text = re.sub(r"(?m)^  speed: .*\n", "", text)
    text += "\nimages:\n" + "".join(f"  - path: {p}\n    presets: [{', '.join(presets)}]\n" for p in photos)
    return text


def tree(root_pid):
    """root_pid and its descendants, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except OSError:
                pass
    found, frontier = {root_pid}, [root_pid]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def rss(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def warm(cli, manifest_text, work, jobs, extra=()):
    manifest = os.path.join(work, "manifest.yml")
    with open(manifest, "w") as handle:
        handle.write(manifest_text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [cli, "warm", manifest, "--cache-dir", os.path.join(work, "cache"), "--quiet"]
    if jobs:
        command += ["--jobs", str(jobs)]
    command += list(extra)
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak, processes, done = [0], [0], threading.Event()

    def sample():
        while not done.is_set():
            pids = tree(process.pid)
            peak[0] = max(peak[0], rss(pids))
            processes[0] = max(processes[0], len(pids))
            done.wait(0.1)
    sampler = threading.Thread(target=sample)
    sampler.start()
    _, errors = process.communicate()
    done.set()
    sampler.join()
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        sys.exit(f"readme-figures: the warm failed (exit {process.returncode}):\n{errors}")
    objects = os.path.join(work, "Out.warmcache", "objects")
    files = [os.path.join(d, f) for d, _, names in os.walk(objects) for f in names]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall, "bytes": sum(os.path.getsize(f) for f in files), "files": len(files),
            "peakRSS": peak[0], "processes": processes[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build-release/release/warm-cache"))
    parser.add_argument("--set", default="photos", choices=["photos", "largest"])
    parser.add_argument("--photos", help="comma-separated photo paths instead of a set")
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", help="comma-separated setups (balanced,fast,jpeg)")
    parser.add_argument("--json")
    arguments = parser.parse_args()
    scale = one_scale()
    scale.ensure_tools()
    photos = arguments.photos.split(",") if arguments.photos else scale.default_photos(arguments.set)
    setups = [("balanced", None), ("fast", "fast"), ("jpeg", "jpeg")]
    if arguments.only:
        setups = [s for s in setups if s[0] in arguments.only.split(",")]
    print(f"{len(photos)} photos: {', '.join(os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(p)))) or p for p in photos)}")
    results = {}
    for run in range(arguments.runs):
        for name, variant in setups:
            work = tempfile.mkdtemp(prefix=f"readme-figures-{name}-")
            try:
                result = warm(os.path.abspath(arguments.cli), manifest_for(photos, "Out.warmcache", variant), work,
                              arguments.jobs)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            results.setdefault(name, []).append(result)
            print(f"run {run + 1} {name:9} CPU {result['cpu']:7.1f} s  wall {result['wall']:6.1f} s  "
                  f"{result['files']:4} files {result['bytes']:>11,} B  peak RSS {result['peakRSS'] / 2**20:6.0f} MiB",
                  flush=True)
    if "jpeg" in results:
        base_cpu = [r["cpu"] for r in results["jpeg"]]
        base_bytes = results["jpeg"][0]["bytes"]
        for name, runs in results.items():
            ratios = [r["cpu"] / b for r, b in zip(runs, base_cpu)]
            print(f"{name:9} CPU {min(ratios):.1f}-{max(ratios):.1f}x the JPEG warm's, bytes "
                  f"{runs[0]['bytes'] / base_bytes:.2f}x, peak RSS {max(r['peakRSS'] for r in runs) / 2**20:.0f} MiB")
    if arguments.json:
        with open(arguments.json, "w") as handle:
            json.dump({"photos": photos, "results": results}, handle, indent=1)


if __name__ == "__main__":
    main()
