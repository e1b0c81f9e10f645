#!/usr/bin/env python3
"""CPU per encode and bytes at equal SSIMULACRA2 of AV1 encoders newer than Debian 12's, against
the libaom 3.6 that WarmCache links on Debian 12.

Debian 12 ships libaom 3.6 and SVT-AV1 1.4. Newer ones, as a Mac's package manager installs
them, come here from PyPI wheels that carry their own libavif:

    python3 -m venv --system-site-packages /tmp/av1 && /tmp/av1/bin/pip install pillow pillow-avif-plugin ssimulacra2
    /tmp/av1/bin/python Benchmarks/current-av1-encoders.py --photos a.jpg,b.jpg --widths 390,768,1170 [--chroma 420]

Each photo is rendered at each width (libvips' thumbnail, written as PNG). For each setup the
lowest quality whose file scores at least 80 is found by bisection over 0-100, every quality
encoded once; a line of JSON per photo, width and setup gives that quality, its bytes and score,
and the process CPU per encode averaged over the search (one encoder thread). Scores come from
the PyPI package `ssimulacra2` (SSIMULACRA 2.1), an implementation independent of WarmCache's.

Setups: `heif36-e4` is libaom 3.6 at speed 5 through libvips' heifsave (the reference every
bytes ratio in docs/performance.md is taken against), `heif36-e3` speed 6; `aom314-sN` libaom
3.14 at speed N through libavif 1.4, whose default tune for it is `iq`; `aom314-sN-ssim` the same
with libavif 0.11's tune (`ssim`); `svt41-sN` SVT-AV1 4.1 at libavif's speed N (4:2:0 only).
"""
import argparse
import io
import json
import os
import tempfile
import time

import pillow_avif  # noqa: F401  (registers libavif 1.x with libaom, rav1e and SVT-AV1)
import pyvips
from PIL import Image
from ssimulacra2 import compute_ssimulacra2

TARGET = 80.0


def reference(path, width, folder):
    image = pyvips.Image.thumbnail(path, width, size="down")
    if image.bands == 4:
        image = image.flatten()
    out = os.path.join(folder, f"{os.path.basename(path)}-{width}.png")
    image.pngsave(out, compression=1, strip=True)  # no ICC profile: libheif would embed it, Pillow too
    return out


def libheif(effort, chroma):
    def encode(ref, quality):
        image = pyvips.Image.new_from_file(ref)
        start = time.process_time()
        data = image.heifsave_buffer(Q=quality, compression="av1", effort=effort,
                                     subsample_mode="on" if chroma == "420" else "off")
        return data, time.process_time() - start
    return encode


def libavif(codec, speed, chroma, advanced=None):
    def encode(ref, quality):
        image = Image.open(ref).convert("RGB")
        buffer = io.BytesIO()
        options = dict(format="AVIF", quality=quality, speed=speed, max_threads=1, codec=codec, exif=b"",
                       subsampling="4:2:0" if chroma == "420" else "4:4:4")
        if advanced:
            options["advanced"] = advanced
        start = time.process_time()
        image.save(buffer, **options)
        return buffer.getvalue(), time.process_time() - start
    return encode


def setups(chroma):
    table = {"heif36-e4": libheif(4, chroma), "heif36-e3": libheif(3, chroma)}
    for speed in (5, 6, 7, 8, 9):
        table[f"aom314-s{speed}"] = libavif("aom", speed, chroma)
    for speed in (5, 6, 8):
        table[f"aom314-s{speed}-ssim"] = libavif("aom", speed, chroma, {"tune": "ssim"})
    if chroma == "420":
        for speed in (4, 6, 8, 10):
            table[f"svt41-s{speed}"] = libavif("svt", speed, chroma)
    return table


def score(ref, data, folder):
    out = os.path.join(folder, "decoded.png")
    Image.open(io.BytesIO(data)).convert("RGB").save(out, compress_level=1)
    return compute_ssimulacra2(ref, out)


def search(ref, encode, folder):
    """The lowest quality scoring at least TARGET (quality, bytes, score) and the CPU per encode."""
    low, high, best, cpu, encodes = 0, 100, None, 0.0, 0
    while low <= high:
        quality = (low + high) // 2
        data, seconds = encode(ref, quality)
        cpu += seconds
        encodes += 1
        passing = score(ref, data, folder)
        if passing >= TARGET:
            best, high = (quality, len(data), passing), quality - 1
        else:
            low = quality + 1
    return best, cpu / encodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", required=True, help="comma-separated image paths")
    parser.add_argument("--widths", default="390,768,1170")
    parser.add_argument("--chroma", choices=["444", "420"], default="444")
    parser.add_argument("--setups", default="", help="comma-separated setup names (default: all)")
    args = parser.parse_args()
    table = setups(args.chroma)
    names = args.setups.split(",") if args.setups else list(table)
    unknown = [name for name in names if name not in table]
    if unknown:
        parser.error(f"unknown setup {', '.join(unknown)} for --chroma {args.chroma}; "
                     f"use {', '.join(table)} (SVT-AV1 writes 4:2:0 only: add --chroma 420)")
    with tempfile.TemporaryDirectory() as folder:
        for photo in args.photos.split(","):
            for width in (int(w) for w in args.widths.split(",")):
                ref = reference(photo, width, folder)
                for name in names:
                    best, cpu = search(ref, table[name], folder)
                    print(json.dumps(dict(photo=os.path.basename(photo), width=width, setup=name,
                                          quality=best[0], bytes=best[1], score=round(best[2], 2),
                                          cpu=round(cpu, 4))), flush=True)


if __name__ == "__main__":
    main()
