#!/usr/bin/env python3
"""Peak memory of README's manifest on 12 and 24 MP photos, at 2 and 8 imaging processes.

Each warm is README's manifest as written (`Benchmarks/readme-figures.py` reads it from README.md:
iOS 16 `smallest`, `quality: auto`, thumb, card and a 1024 pt hero at scale 3), cold, into a fresh
bundle and cache folder, with the release CLI. Memory is the peak of the resident sets of the warm
and every imaging process together, sampled every 0.1 s from /proc; CPU is theirs (user + system).

Photos: the 12 held-out MATE backgrounds (/usr/share/backgrounds/mate/nature, 1280-2560 px, never
used for tuning), enlarged with libvips' Lanczos-3 to 12 and to 24 megapixels (JPEG quality 92),
written once under --photos-dir. Enlarged photos compress like smoother photos, but memory depends
on pixel counts, which is what this measures. `--photos a.jpg,b.jpg` adds a set of your own.

    swift build -c release --product warm-cache --scratch-path .build-release
    python3 Benchmarks/memory-bound.py [--cli .build-release/release/warm-cache] [--jobs 2,8]
        [--memory-limit 512MB] [--unlimited] [--count 12]

`--memory-limit` is passed to every warm (default: the CLI's own, 192 MiB per core plus 64 MiB);
`--unlimited` adds a run with a limit of 1 TB, to show what the limit saves.
"""
import argparse
import importlib.util
import math
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MATE = "/usr/share/backgrounds/mate/nature"


def readme_figures():
    spec = importlib.util.spec_from_file_location("readme_figures", os.path.join(HERE, "readme-figures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dimension(path, field):
    return int(subprocess.check_output(["vipsheader", "-f", field, path], text=True))


def enlarged(megapixels, folder, count):
    """The first `count` MATE photos at `megapixels` MP, made once."""
    target = os.path.join(folder, f"{megapixels}mp")
    os.makedirs(target, exist_ok=True)
    photos = []
    for name in sorted(os.listdir(MATE))[:count]:
        source, output = os.path.join(MATE, name), os.path.join(target, name)
        if not os.path.exists(output):
            area = dimension(source, "width") * dimension(source, "height")
            factor = math.sqrt(megapixels * 1e6 / area) * 1.001
            subprocess.run(["vips", "resize", source, f"{output}[Q=92]", str(factor), "--kernel", "lanczos3"],
                           check=True)
        photos.append(output)
    return photos


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, ".build-release/release/warm-cache"))
    parser.add_argument("--jobs", default="2,8", help="comma-separated imaging process counts")
    parser.add_argument("--memory-limit")
    parser.add_argument("--unlimited", action="store_true")
    parser.add_argument("--count", type=int, default=12, help="MATE photos per set")
    parser.add_argument("--photos", help="comma-separated photos: one more set")
    parser.add_argument("--photos-dir", default=os.path.join(tempfile.gettempdir(), "warm-cache-memory-photos"))
    arguments = parser.parse_args()
    if not os.path.isdir(MATE):
        raise SystemExit(f"memory-bound: {MATE} is missing; install it with: apt-get install mate-backgrounds")
    figures = readme_figures()
    sets = [(f"{mp} MP", enlarged(mp, arguments.photos_dir, arguments.count)) for mp in (12, 24)]
    if arguments.photos:
        sets.append(("yours", arguments.photos.split(",")))
    limits = [("limit " + (arguments.memory_limit or "default"),
               ["--memory-limit", arguments.memory_limit] if arguments.memory_limit else [])]
    if arguments.unlimited:
        limits.append(("no limit", ["--memory-limit", "1TB"]))
    print(f"{os.cpu_count()} cores; peak RSS of the warm and its imaging processes together")
    for name, photos in sets:
        for jobs in [int(j) for j in arguments.jobs.split(",")]:
            for limit_name, extra in limits:
                work = tempfile.mkdtemp(prefix="memory-bound-")
                try:
                    result = figures.warm(os.path.abspath(arguments.cli),
                                          figures.manifest_for(photos, "Out.warmcache", None), work, jobs, extra)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                print(f"{name:6} x{len(photos):<3} -j {jobs}  {limit_name:16} peak RSS {result['peakRSS'] / 2**20:6.0f} MiB"
                      f" ({result['peakRSS'] / 1e6:5.0f} MB)  processes at most {result['processes']:2}"
                      f"  CPU {result['cpu']:6.1f} s  wall {result['wall']:6.1f} s  {result['bytes']:>10,} B",
                      flush=True)


if __name__ == "__main__":
    main()
