#!/usr/bin/env bash
# What a re-warm of an unchanged manifest costs after another run with the same cache folder:
# a warm of another manifest of the same images (an app's and its widget's), a run of a changed
# manifest that published nothing (over budget), one stopped by Ctrl-C, one killed with kill -9.
# Prints each run's time (bash `time`) and its encoded / reused variants (from its report).
#
#   swift build -c release --product warm-cache
#   Benchmarks/rewarm-after-other-runs.sh [IMAGES_DIR] [WARM_CACHE_EXECUTABLE]
#
# Every photo in IMAGES_DIR (*.jpg, *.png; default /work/shared/images) is listed by both
# manifests; the app asks thumb (WebP+JPEG) and card (AVIF+JPEG) at 2x and 3x, the widget one
# WebP+JPEG size at 2x and 3x. The "changed" manifest is the app's at another quality.
set -euo pipefail
images=$(cd "${1:-/work/shared/images}" && pwd)
tool=${2:-.build/release/warm-cache}
tool=$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ln -s "$images" images
photos=$(cd images && ls *.jpg *.png 2>/dev/null)

# manifest OUTPUT PRESETS QUALITY
manifest() {
  printf 'version: 1\noutput: %s\n' "$1"
  printf 'defaults:\n  quality: { jpeg: %s, webp: %s, avif: %s }\n' "$3" "$3" "$3"
  printf 'presets:\n'
  printf '  thumb: { width: 128, height: 128, fit: cover, formats: [webp, jpeg], scales: [2, 3] }\n'
  printf '  card: { width: 320, formats: [avif, jpeg], scales: [2, 3] }\n'
  printf '  widget: { width: 160, formats: [webp, jpeg], scales: [2, 3] }\n'
  printf 'images:\n'
  for photo in $photos; do printf '  - path: images/%s\n    presets: [%s]\n' "$photo" "$2"; done
}
manifest Out/App.warmcache "thumb, card" 80 > app.yml
manifest Out/Widget.warmcache widget 80 > widget.yml
manifest Out/App.warmcache "thumb, card" 70 > changed.yml

TIMEFORMAT='%R s real, %U s user, %S s sys'
counts() {
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print("%d encoded, %d reused" % (t["variantsEncoded"], t["variantsReused"]))' report.json
}
# timed LABEL MANIFEST [ARGS...]: one warm, its time and counts.
timed() {
  local label=$1; shift
  printf '%-58s ' "$label"
  { time "$tool" warm "$@" -q --report report.json >/dev/null 2>&1 || true; } 2>&1 | tr '\n' ' '
  printf '| %s\n' "$(counts)"
}
# stopped SIGNAL: the changed manifest, signalled half-way through its cold encode.
stopped() {
  "$tool" warm changed.yml -q >/dev/null 2>&1 &
  local pid=$!
  sleep "$half"
  kill "-$1" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

start=$(date +%s.%N)
timed "app, cold (originals read, everything encoded)" app.yml
cold=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
half=$(python3 -c "import sys; print(round(float(sys.argv[1]) / 2, 2))" "$cold")
timed "app again, nothing changed" app.yml
rm -rf Out/App.warmcache
timed "app, bundle deleted (every variant encoded again)" app.yml
timed "widget, cold (same images, same cache folder)" widget.yml
timed "(a) app after the widget's warm" app.yml
timed "changed app over budget (exit 7, publishes nothing)" changed.yml --budget 1KB
timed "(b) app after a run that published nothing" app.yml
stopped INT
timed "(c) app after a changed run stopped by Ctrl-C at ${half}s" app.yml
stopped KILL
timed "(d) app after a changed run killed (kill -9) at ${half}s" app.yml
