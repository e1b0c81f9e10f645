#!/usr/bin/env python3
"""The pyvips side of `warm-cache-bench scale`: makes its test images and the peer figures.

  pyvips-peer.py generate DIR N        N distinct 320x240 JPEGs (DIR/00000000.jpg ...); existing ones are kept
  pyvips-peer.py thumbnails DIR [N]    per file: 64x64 and 128x128 centre-cropped JPEGs
  pyvips-peer.py cascade DIR [N]       per photo: decode once, widths 1024..64, JPEG + WebP
  pyvips-peer.py cascade-same-files DIR [N]
                                       the same, making the files the warm makes: JPEGs decoded
                                       at the smallest power-of-two fraction the size allows
                                       (the warm's fast shrink-on-load), JPEG with optimised
                                       Huffman tables, and photos whose ICC profile is not the
                                       standard sRGB one converted to sRGB

Work is split over --processes processes (2 by default: one per core here), each with one
libvips thread and the operation cache off, as a careful user of pyvips would run it. Over
the first N files (all when N is not given), thumbnails/cascade print one line: "<files> files <seconds> s <files/s> files/s".
pyvips is installed from PyPI if missing (it binds the system libvips; no build step).
"""
import argparse
import os
import subprocess
import sys
import time


def import_pyvips():
    try:
        import pyvips
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "pyvips"])
        import pyvips
    pyvips.cache_set_max(0)
    pyvips.concurrency_set(1)
    return pyvips


def chunks(items, count):
    return [items[index::count] for index in range(count)]


def generate_range(arguments):
    """Smooth random colour fields with fine grain: photo-like JPEGs of ~10 KB, each distinct."""
    directory, start, stop = arguments
    pyvips = import_pyvips()
    # One sheet of grain per process, cropped at a different place for each image.
    grain = pyvips.Image.gaussnoise(1024, 768, mean=0, sigma=6, seed=start).copy_memory()
    for index in range(start, stop):
        path = os.path.join(directory, "%08d.jpg" % index)
        if os.path.exists(path):
            continue
        bands = [pyvips.Image.gaussnoise(16, 12, mean=128, sigma=70, seed=index * 3 + band) for band in range(3)]
        field = bands[0].bandjoin(bands[1:]).resize(20, kernel="cubic")
        speck = grain.crop(index * 37 % 704, index * 53 % 528, 320, 240)
        image = (field + speck).cast("uchar").copy(interpretation="srgb")
        image.jpegsave(path + ".tmp", Q=85, strip=True)
        os.replace(path + ".tmp", path)
    return stop - start


def thumbnails(paths):
    pyvips = import_pyvips()
    for path in paths:
        for size in (64, 128):
            image = pyvips.Image.thumbnail(path, size, height=size, crop="centre")
            image.jpegsave_buffer(Q=80, strip=True)
    return len(paths)


def cascade(paths, same_files=False):
    pyvips = import_pyvips()
    for path in paths:
        options = {}
        if same_files and not has_srgb_or_no_profile(pyvips, path):
            options["export_profile"] = "srgb"
        if same_files:
            image = fast_shrink_thumbnail(pyvips, path, 1024, options).copy_memory()
        else:
            image = pyvips.Image.thumbnail(path, 1024, height=100_000, size="down", **options).copy_memory()
        for width in (1024, 512, 256, 128, 64):
            if width < image.width:
                image = image.resize(width / image.width).copy_memory()
            image.jpegsave_buffer(Q=80, strip=True, optimize_coding=same_files)
            image.webpsave_buffer(Q=80, strip=True)
    return len(paths)


def cascade_same_files(paths):
    return cascade(paths, same_files=True)


def fast_shrink_thumbnail(pyvips, path, width, options):
    """A thumbnail `width` wide whose JPEG decode shrinks by the largest of 8, 4, 2 that still
    covers it (as the warm and sharp do), sized and colour-managed by libvips' thumbnail."""
    header = pyvips.Image.new_from_file(path)
    if not header.get("vips-loader").startswith("jpeg"):
        return pyvips.Image.thumbnail(path, width, height=100_000, size="down", **options)
    height = round(header.height * width / header.width) if header.width > width else header.height
    room = min(header.width / width, header.height / max(height, 1))
    shrink = next((factor for factor in (8, 4, 2) if room >= factor), 1)
    loaded = pyvips.Image.new_from_file(path, shrink=shrink, access="sequential")
    return loaded.thumbnail_image(width, height=100_000, size="down", **options)


def has_srgb_or_no_profile(pyvips, path):
    """Whether the photo has no ICC profile or the standard sRGB one (its description says
    'sRGB', 'sRGB built-in' or 'sRGB IEC61966-2...'): the photos the warm decodes without a
    colour transform. A header read only."""
    header = pyvips.Image.new_from_file(path)
    if header.get_typeof("icc-profile-data") == 0:
        return True
    icc = header.get("icc-profile-data")
    if len(icc) < 132 or icc[16:20] != b"RGB ":
        return False
    for index in range(int.from_bytes(icc[128:132], "big")):
        entry = icc[132 + 12 * index:144 + 12 * index]
        if entry[:4] != b"desc":
            continue
        offset, size = int.from_bytes(entry[4:8], "big"), int.from_bytes(entry[8:12], "big")
        tag = icc[offset:offset + size]
        if tag[:4] == b"desc":
            name = tag[12:12 + int.from_bytes(tag[8:12], "big")].rstrip(b"\0").decode("latin-1")
        elif tag[:4] == b"mluc":
            length, start = int.from_bytes(tag[20:24], "big"), int.from_bytes(tag[24:28], "big")
            name = tag[start:start + length].decode("utf-16-be")
        else:
            return False
        return name in ("sRGB", "sRGB built-in") or name.startswith("sRGB IEC61966-2")
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["generate", "thumbnails", "cascade", "cascade-same-files"])
    parser.add_argument("directory")
    parser.add_argument("count", nargs="?", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    options = parser.parse_args()

    from multiprocessing import Pool
    if options.command == "generate":
        os.makedirs(options.directory, exist_ok=True)
        step = max(1, options.count // (options.processes * 8))
        ranges = [(options.directory, start, min(options.count, start + step))
                  for start in range(0, options.count, step)]
        with Pool(options.processes) as pool:
            made = sum(pool.map(generate_range, ranges))
        print("%d files generated" % made)
        return

    names = sorted(name for name in os.listdir(options.directory)
                   if name.lower().endswith((".jpg", ".jpeg", ".png", ".webp")))
    if options.count:
        names = names[:options.count]
    paths = [os.path.join(options.directory, name) for name in names]
    work = {"thumbnails": thumbnails, "cascade": cascade, "cascade-same-files": cascade_same_files}[options.command]
    started = time.monotonic()
    with Pool(options.processes) as pool:
        done = sum(pool.map(work, chunks(paths, options.processes)))
    seconds = time.monotonic() - started
    print("%d files %.2f s %.1f files/s" % (done, seconds, done / seconds))


if __name__ == "__main__":
    main()
