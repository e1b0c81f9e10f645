#!/usr/bin/env python3
"""What shipping one scale saves, and what a 2x screen then shows: README's recommended iOS
manifest warmed at scales [1, 2, 3] and at [3] only.

App Store thinning slices asset catalogs, not a resource folder: every device downloads every
scale a bundle holds. A 2x device shown the 3x file decodes it down to its own pixel size (the
runtime's views decode at the view's pixel size with ImageIO's thumbnail API). This script
measures both sides of that trade (docs/performance.md, "One scale shipped", has the figures):

    apt-get install -y plasma-workspace-wallpapers     # the script does this when they are missing
    pip install pyvips ssimulacra2                     # likewise
    swift build -c release --product warm-cache --scratch-path .build-release
    python3 Benchmarks/one-scale.py [--set photos|largest | --photos a.jpg,b.png] [--keep DIR [--reuse]]
                                    [--presets thumb,card] [--no-scores] [--json out.json] [--jobs 2]

Photos (`--set`), each wallpaper's largest file in /usr/share/wallpapers/NAME/contents/images/:
  photos (the default): the first 8 by name of the KDE Plasma wallpapers that are photographs
      (PHOTOGRAPHS below: BytheWater ... Kite), 2560x1600 JPEGs;
  largest: the 8 wallpapers whose largest file has the most pixels (ties by name), in name order:
      5120x2880 digital illustrations (Altai ... SafeLanding), large enough for a 3x hero.
`--photos a.jpg,b.png` takes any others.

The manifest is README's recommended shape: `platforms: { ios: "16.0" }`, `formats: [smallest]`,
`quality: auto`, `quality_target: 80`, `speed: balanced`, `fit: inside`, presets thumb (64x64
cover, attention), card (320 wide) and hero (1024 wide), every photo in all three; no budget and
no placeholders (they are not files). It is warmed twice with the release CLI into fresh folders:
at `scales: [1, 2, 3]` and at `scales: [3]`. For each warm it prints the files and their bytes
(each blob once; the index aside), and the [2, 3] figures read from the first bundle (a variant's
file depends on its source and settings alone, which the script checks: the [3] warm's files must
be the first warm's 3x files, byte for byte).

Then a third warm of the same variants at scales [2, 3] as PNG (`formats: [png]`): the builder's
own lossless renders. For each preset and photo, SSIMULACRA2 (the PyPI package `ssimulacra2`,
independent of WarmCache's own port) of
  (a) the 2x file the [1, 2, 3] warm made, and
  (b) the 3x file resized to the 2x file's pixel size by libvips' Lanczos 3 (standing in for
      ImageIO's downsampling),
  a, b:         against the source decoded whole and resized by libvips' Lanczos 3 to that size
                (not libvips' `thumbnail`, whose shrink-on-load decode is no reference);
  a_own, b_own: against the builder's lossless 2x render;
  a0, b0:       the same two paths without encoding (the lossless renders in place of the files),
                against the Lanczos reference, for 2x sizes up to CEILING_PIXELS (heroes take
                minutes to score); b0_own against the lossless 2x render.
For `cover` the Lanczos reference is the source resized to cover the box and cropped where it
best matches the image scored (the smallest mean difference over every window); the 3x path's is
found at 3x and resized as the file is, since the smart crop places each scale's window a little
apart. For the same reason b_own and b0_own of a cover preset measure the windows, not quality.

Printed: per preset and scale set, files and bytes; the byte ratio [3] / [1, 2, 3] against the
target (at most 0.65x); a JSON line per photo and preset; per preset the mean / worst of every
score and how many photos (b) scored at least as high as (a) (target: all of them, and the mean).
"""
import argparse
import concurrent.futures
import glob
import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

PRESETS = {
    "thumb": "{ width: 64, height: 64, fit: cover, gravity: attention }",
    "card": "{ width: 320 }",
    "hero": "{ width: 1024 }",
}
SCALE_SETS = {"1-2-3": [1, 2, 3], "3": [3]}
# The KDE Plasma 5.27 wallpapers that are photographs (the others are paintings and renders).
PHOTOGRAPHS = ["BytheWater", "ColdRipple", "ColorfulCups", "DarkestHour", "EveningGlow", "FallenLeaf", "Grey",
               "Kite", "OneStandsOut", "Path", "summer_1am"]
BYTES_TARGET = 0.65
CEILING_PIXELS = 1_000_000  # the unencoded ceilings are scored up to this 2x size (heroes take minutes)


def ensure_tools():
    """Installs the wallpapers (apt) and the Python packages (pip) when they are missing."""
    if not glob.glob("/usr/share/wallpapers/*/contents/images/*"):
        subprocess.run(["apt-get", "install", "-y", "plasma-workspace-wallpapers"], check=True)
    try:
        import pyvips  # noqa: F401
        import ssimulacra2  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "pyvips", "ssimulacra2"], check=True)


def default_photos(which, count=8):
    """Each wallpaper's largest file; `photos`: the first `count` PHOTOGRAPHS by name; `largest`: the
    `count` of most pixels, ties by name; in name order."""
    largest = {}
    for path in glob.glob("/usr/share/wallpapers/*/contents/images/*"):
        name = path.split("/")[4]
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            width, height = (int(side) for side in stem.split("x"))
        except ValueError:
            continue
        if name not in largest or width * height > largest[name][0]:
            largest[name] = (width * height, path)
    if which == "photos":
        return [largest[name][1] for name in sorted(PHOTOGRAPHS)[:count]]
    chosen = sorted(largest.items(), key=lambda item: (-item[1][0], item[0]))[:count]
    return [path for _, (_, path) in sorted(chosen)]


def manifest(photos, scales, lossless=False):
    """README's shape at `scales`; `lossless`: the same variants as PNG, the builder's own pixels."""
    encoding = ["  formats: [png]"] if lossless else ["  formats: [smallest]", "  quality: auto",
                                                      "  quality_target: 80", "  speed: balanced"]
    lines = ["version: 1", "output: Images.warmcache", 'platforms: { ios: "16.0" }', "defaults:", *encoding,
             f"  scales: [{', '.join(map(str, scales))}]", "  fit: inside", "presets:"]
    lines += [f"  {name}: {settings}" for name, settings in PRESETS.items()]
    lines.append("images:")
    for photo in photos:
        lines += [f"  - path: {photo}", f"    presets: [{', '.join(PRESETS)}]"]
    return "\n".join(lines) + "\n"


def warm(cli, photos, scales, folder, lossless=False):
    """Warms the manifest at `scales` in `folder`; returns the bundle path and the CPU seconds."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for index, photo in enumerate(photos):  # local paths are relative to the manifest
        os.symlink(photo, os.path.join(folder, f"photo{index}{os.path.splitext(photo)[1]}"))
    local = [f"photo{index}{os.path.splitext(photo)[1]}" for index, photo in enumerate(photos)]
    with open(os.path.join(folder, "manifest.yml"), "w") as file:
        file.write(manifest(local, scales, lossless))
    before = os.times()
    subprocess.run([cli, "warm", "manifest.yml", "--quiet", "--cache-dir", "cache"], cwd=folder, check=True)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return os.path.join(folder, "Images.warmcache"), cpu


def variants(bundle, photos):
    """Rows (photo index, preset, scale, pixel width, pixel height, bytes, path) of a bundle."""
    index = sqlite3.connect(f"file:{os.path.join(bundle, 'index.sqlite')}?mode=ro", uri=True)
    rows = index.execute("""
        SELECT s.source, p.preset, v.scale, v.pixel_width, v.pixel_height, v.byte_count, v.blob_sha256, v.format
        FROM variants v JOIN sources s ON s.id = v.source_id JOIN variant_presets p ON p.cache_key = v.cache_key
        """).fetchall()
    extensions = {"jpeg": "jpg", "webp": "webp", "avif": "avif", "png": "png", "heic": "heic", "jxl": "jxl"}
    result = []
    for source, preset, scale, width, height, size, sha, form in rows:
        number = int(os.path.splitext(source)[0].removeprefix("photo"))
        path = os.path.join(bundle, "objects", sha[:2], f"{sha}.{extensions[form]}")
        result.append(dict(photo=number, preset=preset, scale=scale, width=width, height=height, bytes=size,
                           sha=sha, format=form, path=path))
    return result


def totals(rows, scales=None, preset=None):
    """Files and bytes of the rows at `scales` (all if None) of `preset` (all if None), each blob once."""
    blobs = {row["sha"]: row["bytes"] for row in rows
             if (scales is None or row["scale"] in scales) and (preset is None or row["preset"] == preset)}
    return len(blobs), sum(blobs.values())


def srgb(image):
    import pyvips
    if image.bands == 4:
        image = image.flatten(background=[255, 255, 255])
    if image.interpretation != pyvips.Interpretation.SRGB:
        image = image.colourspace(pyvips.Interpretation.SRGB)
    return image.cast("uchar")


def decoded(path):
    import pyvips
    return srgb(pyvips.Image.new_from_file(path, access="sequential"))


def resized(image, width, height):
    """`image` resized to exactly width x height by libvips' Lanczos 3."""
    return image.resize(width / image.width, vscale=height / image.height, kernel="lanczos3").copy_memory()


def reference(photo, width, height, cover, match):
    """The source, decoded whole, resized by libvips (Lanczos 3) to width x height; for `cover`,
    resized to cover the box and cropped where it best matches `match`."""
    import pyvips
    source = pyvips.Image.new_from_file(photo)
    if source.get_typeof("icc-profile-data"):  # as the builder does: converted to sRGB
        source = source.icc_transform("srgb", embedded=True)
    source = srgb(source).copy_memory()
    if not cover:
        return resized(source, width, height)
    factor = max(width / source.width, height / source.height)
    full = resized(source, max(width, round(source.width * factor)), max(height, round(source.height * factor)))
    best = None
    for x in range(full.width - width + 1):
        for y in range(full.height - height + 1):
            difference = (full.crop(x, y, width, height).cast("float") - match.cast("float")).abs().avg()
            if best is None or difference < best[0]:
                best = (difference, x, y)
    return full.crop(best[1], best[2], width, height).copy_memory()


def downsampled(path, width, height):
    """The file at `path` resized to exactly width x height by Lanczos 3, as a 2x view would show it."""
    image = resized(decoded(path).copy_memory(), width, height)
    if (image.width, image.height) != (width, height):
        raise SystemExit(f"resizing {path} gave {image.width}x{image.height}, not {width}x{height}")
    return image


def label(photo):
    """A wallpaper's name (/usr/share/wallpapers/NAME/contents/images/WxH.ext), else the file's."""
    parts = photo.split("/")
    return parts[-4] if len(parts) >= 4 and parts[-3:-1] == ["contents", "images"] else os.path.basename(photo)


def score(ref, image, folder):
    from ssimulacra2 import compute_ssimulacra2
    ref_path, image_path = os.path.join(folder, "ref.png"), os.path.join(folder, "image.png")
    ref.pngsave(ref_path, compression=1, strip=True)
    image.pngsave(image_path, compression=1, strip=True)
    return compute_ssimulacra2(ref_path, image_path)


def score_pair(task):
    """The scores of one photo and preset. task: (photo path, preset, and the rows of the 2x and 3x
    files and of the builder's lossless 2x and 3x renders)."""
    photo, preset, two, three, two_png, three_png = task
    width, height = two["width"], two["height"]
    cover = "cover" in PRESETS[preset]
    file_a, file_b = decoded(two["path"]).copy_memory(), downsampled(three["path"], width, height)
    render_a, render_b = decoded(two_png["path"]).copy_memory(), downsampled(three_png["path"], width, height)
    lanczos = {name: reference(photo, width, height, cover, image)
               for name, image in [("a", file_a), ("a0", render_a)]}
    for name, row in [("b", three), ("b0", three_png)]:
        # A cover crop's window differs a little between scales: the 3x path's reference is the
        # source's rendering of the 3x window (found at 3x), resized as the file is.
        window = reference(photo, row["width"], row["height"], True, decoded(row["path"]).copy_memory()) \
            if cover else None
        lanczos[name] = resized(window, width, height) if cover else lanczos["a"]
    result = dict(photo=label(photo), preset=preset, size=f"{width}x{height}",
                  three=f"{three['width']}x{three['height']}")
    with tempfile.TemporaryDirectory() as folder:
        result.update(a=score(lanczos["a"], file_a, folder), b=score(lanczos["b"], file_b, folder),
                      a_own=score(render_a, file_a, folder), b_own=score(render_a, file_b, folder))
        if width * height <= CEILING_PIXELS:
            result.update(a0=score(lanczos["a0"], render_a, folder), b0=score(lanczos["b0"], render_b, folder),
                          b0_own=score(render_a, render_b, folder))
    return {key: float(value) if not isinstance(value, str) else value for key, value in result.items()}


def scores(photos, rows, renders, jobs, presets):
    """Per preset (of `presets`) and photo, the scores of score_pair."""
    by_key = {(row["photo"], row["preset"], row["scale"]): row for row in rows}
    png = {(row["photo"], row["preset"], row["scale"]): row for row in renders}
    tasks = [(photos[number], preset, two, by_key[(number, preset, 3)], png[(number, preset, 2)],
              png[(number, preset, 3)]) for (number, preset, scale), two in sorted(by_key.items())
             if scale == 2 and preset in presets]
    results = []
    context = multiprocessing.get_context("spawn")  # libvips' threads do not survive a fork
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        for result in pool.map(score_pair, tasks):
            results.append(result)
            print(json.dumps({key: round(value, 2) if isinstance(value, float) else value
                              for key, value in result.items()}), flush=True)
    return results


def summary(results):
    """Mean and worst of every score, per preset and over all, and how often (b) >= (a)."""
    print("\nSSIMULACRA2 at the 2x size, mean / worst: (a) the 2x file, (b) the 3x file resized by Lanczos 3;")
    print("against the source resized by Lanczos 3, and against the builder's own lossless 2x render ('own');")
    print("a0 / b0: the same two paths without encoding (the builder's PNG renders), where computed")
    columns = ["a", "b", "a_own", "b_own", "a0", "b0", "b0_own"]
    print(f"{'':7}" + "".join(f"{column:>16}" for column in columns) + "   b>=a  b_own>=a_own")
    for preset in [*PRESETS, None]:
        chosen = [row for row in results if preset is None or row["preset"] == preset]
        if not chosen:
            continue
        cells = []
        for column in columns:
            values = [row[column] for row in chosen if column in row]
            cells.append(f"{sum(values) / len(values):7.2f} /{min(values):6.2f}" if values else f"{'-':>15}")
        wins = sum(row["b"] >= row["a"] for row in chosen)
        own = sum(row["b_own"] >= row["a_own"] for row in chosen)
        print(f"{preset or 'all':<7}" + "".join(f"{cell:>16}" for cell in cells)
              + f"   {wins}/{len(chosen)}  {own}/{len(chosen)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=".build-release/release/warm-cache", help="the release warm-cache")
    parser.add_argument("--set", choices=["photos", "largest"], default="photos", help="which KDE wallpapers")
    parser.add_argument("--photos", default="", help="comma-separated image paths instead of a --set")
    parser.add_argument("--keep", default="", help="warm into this folder and keep it (default: a temporary one)")
    parser.add_argument("--json", default="", help="also write every figure to this file")
    parser.add_argument("--reuse", action="store_true", help="with --keep: score the bundles a previous run kept")
    parser.add_argument("--presets", default=",".join(PRESETS), help="the presets to score (default: all)")
    parser.add_argument("--no-scores", action="store_true", help="print the bytes only")
    parser.add_argument("--jobs", type=int, default=2, help="photos scored at once (default 2)")
    args = parser.parse_args()
    ensure_tools()
    photos = [os.path.abspath(path) for path in args.photos.split(",")] if args.photos \
        else default_photos(args.set)
    cli = os.path.abspath(args.cli)
    print("photos:", ", ".join(photos), flush=True)
    folder = args.keep or tempfile.mkdtemp(prefix="one-scale-")
    os.makedirs(folder, exist_ok=True)
    bundles, cpu = {}, {}
    for name, scales in SCALE_SETS.items():
        target = os.path.join(folder, f"scales-{name}")
        if args.reuse and os.path.isdir(os.path.join(target, "Images.warmcache")):
            bundles[name], cpu[name] = os.path.join(target, "Images.warmcache"), None
            print(f"reused {bundles[name]}", flush=True)
            continue
        started = time.time()
        bundles[name], cpu[name] = warm(cli, photos, scales, target)
        print(f"warmed scales [{', '.join(map(str, scales))}]: {cpu[name]:.1f} s CPU, "
              f"{time.time() - started:.1f} s wall", flush=True)
    full, one = variants(bundles["1-2-3"], photos), variants(bundles["3"], photos)
    same = {(r["photo"], r["preset"], r["sha"]) for r in full if r["scale"] == 3} == \
        {(r["photo"], r["preset"], r["sha"]) for r in one}
    print(f"[3] warm's files are the [1, 2, 3] warm's 3x files: {'yes' if same else 'NO'}")
    sets = {"1-2-3": (full, None), "2-3 (from the 1-2-3 bundle)": (full, {2, 3}), "3": (one, None)}
    figures = dict(photos=photos, cpu=cpu, identical=same, bytes={}, scores=[])
    print("\nfiles and bytes (each blob once)")
    print(f"{'scales':<28}" + "".join(f"{preset:>22}" for preset in [*PRESETS, "all"]))
    for label, (rows, scales) in sets.items():
        cells = [totals(rows, scales, preset) for preset in [*PRESETS, None]]
        figures["bytes"][label] = dict(zip([*PRESETS, "all"], cells))
        print(f"{label:<28}" + "".join(f"{files:>6} {size:>15,}" for files, size in cells))
    print("\nbytes of [3] / [1, 2, 3]" + "".join(
        f"  {preset} {totals(one, None, preset)[1] / totals(full, None, preset)[1]:.3f}" for preset in PRESETS)
        + f"  all {totals(one)[1] / totals(full)[1]:.3f} (target <= {BYTES_TARGET})")
    print(f"bytes of [2, 3] / [1, 2, 3]  all {totals(full, {2, 3})[1] / totals(full)[1]:.3f}\n")
    if not args.no_scores:
        target = os.path.join(folder, "lossless-2-3")
        if not (args.reuse and os.path.isdir(os.path.join(target, "Images.warmcache"))):
            warm(cli, photos, [2, 3], target, lossless=True)
        renders = variants(os.path.join(target, "Images.warmcache"), photos)
        figures["scores"] = scores(photos, full, renders, args.jobs, args.presets.split(","))
        summary(figures["scores"])
    if args.json:
        with open(args.json, "w") as file:
            json.dump(figures, file, indent=1)
    if not args.keep:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
