#!/usr/bin/env python3
"""Never larger than the source: the hero of README's manifest on photos it keeps at their own size.

A manifest of README's shape reduced to its hero (`hero: { width: 1024 }` at `scales: [3]`,
`formats: [smallest]` for iOS 16, `quality: auto`, `quality_target: 80`, `speed: balanced`) is
warmed cold with each CLI given, on photos at most 3,072 px wide (the hero's width): the hero keeps
every source's pixels. Per photo it prints the source's bytes and the stored hero's format and
bytes per CLI, then the totals.

    python3 Benchmarks/source-passthrough.py --cli before=/path/to/old --cli after=.build-release/release/warm-cache \
        [--results folder] photo.jpg ...
"""
import argparse
import json
import os
import subprocess
import tempfile


def warm(cli, photos, jobs):
    """The hero's (format, bytes) per photo path, from one cold warm's report."""
    with tempfile.TemporaryDirectory() as folder:
        manifest = os.path.join(folder, "warm-cache.yml")
        lines = ["version: 1", f"output: {folder}/out.warmcache", 'platforms: { ios: "16.0" }',
                 "defaults:", "  formats: [smallest]", "  quality: auto", "  quality_target: 80",
                 "  speed: balanced", "  scales: [3]", "  fit: inside", "  placeholder: none",
                 "presets:", "  hero: { width: 1024 }", "images:"]
        for photo in photos:
            lines += [f"  - path: {os.path.abspath(photo)}", "    presets: [hero]"]
        with open(manifest, "w") as handle:
            handle.write("\n".join(lines) + "\n")
        report = os.path.join(folder, "report.json")
        subprocess.run([cli, "warm", manifest, "--report", report, "--cache-dir", f"{folder}/cache", "--jobs",
                        str(jobs)], check=True, stdout=subprocess.DEVNULL)
        with open(report) as handle:
            sources = json.load(handle)["sources"]
        return {s["location"]: (s["originalBytes"], s["variants"][0]["format"], s["variants"][0]["bytes"],
                                s["variants"][0].get("encoderQuality"), s["variants"][0].get("qualityScore"))
                for s in sources}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", action="append", required=True, help="name=path")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--results", help="a folder keeping each CLI's results by name, reused when present")
    parser.add_argument("photos", nargs="+")
    args = parser.parse_args()
    runs = []
    for item in args.cli:
        name, cli = item.split("=", 1)
        saved = os.path.join(args.results, name + ".json") if args.results else None
        if saved and os.path.exists(saved):
            with open(saved) as handle:
                result = {key: tuple(value) for key, value in json.load(handle).items()}
        else:
            result = warm(cli, args.photos, args.jobs)
            if saved:
                os.makedirs(args.results, exist_ok=True)
                with open(saved, "w") as handle:
                    json.dump(result, handle)
        runs.append((name, result))
    header = "| photo | source bytes | " + " | ".join(f"{name} format | {name} bytes" for name, _ in runs) + " |"
    print(header)
    print("|" + "---|" * (2 + 2 * len(runs)))
    totals = [0] * (1 + len(runs))
    for photo in args.photos:
        path = os.path.abspath(photo)
        source = runs[0][1][path][0]
        cells = [os.path.basename(photo), f"{source:,}"]
        totals[0] += source
        for index, (_, result) in enumerate(runs):
            _, format, size, quality, score = result[path]
            cells += [f"{format} (q {quality if quality is not None else '-'}, {score})", f"{size:,}"]
            totals[index + 1] += size
        print("| " + " | ".join(cells) + " |")
    print("| total | " + f"{totals[0]:,} | " + " | ".join(f" | {t:,}" for t in totals[1:]) + " |")


if __name__ == "__main__":
    main()
