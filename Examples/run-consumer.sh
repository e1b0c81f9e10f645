#!/usr/bin/env bash
# End-to-end check of `swift package warm-cache` as an app uses it. In Examples/ConsumerApp (a
# package that depends on this checkout by path) it
#   1. bakes warm-cache.yml into the app's resources with the plugin (non-interactively),
#   2. verifies the bundle through the plugin, and checks that a failure is reported as one,
#   3. runs the app, which opens the bundle from Bundle.module and must find every source.
#
#   bash Examples/run-consumer.sh          (from anywhere; needs libvips-dev, like the package)
#
# CONSUMER_BUILD_DIR: the app's SwiftPM scratch directory (default Examples/ConsumerApp/.build,
# apart from the repository's own .build so the two builds never share a lock or a build plan).
# Measured from a fresh clone on 2 cores: 183 s cold (160 s of it compiling warm-cache and its
# dependencies; up to ~290 s on a busy machine), 14 s again. A CI cache of the scratch directory
# gives the warm figure. docs/plugin.md has the details.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
app="$here/ConsumerApp"
scratch=${CONSUMER_BUILD_DIR:-$app/.build}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

plugin=(swift package --scratch-path "$scratch"
        --allow-writing-to-package-directory --allow-network-connections all warm-cache)
bundle=Sources/ConsumerApp/Resources/Images.warmcache
start=$SECONDS

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'run-consumer: FAILED: %s\n' "$*" >&2; exit 1; }
# expect LOG TEXT: the log must contain TEXT (a fixed string).
expect() {
  grep -qF -- "$2" "$1" || fail "expected '$2' in the output of ${1##*/} (above)"
}

cd "$app"
# A fresh bundle each time, so a stale one cannot pass the checks (the originals cache stays).
rm -rf "$bundle"

step "bake: ${plugin[*]}"
t=$SECONDS
"${plugin[@]}" < /dev/null 2>&1 | tee "$logs/warm" || fail "the plugin's warm run failed"
expect "$logs/warm" "Created $bundle"
expect "$logs/warm" "2 ok, 0 failed"
[ -f "$bundle/index.sqlite" ] || fail "the plugin did not write $bundle"
echo "(bake: $((SECONDS - t)) s)"

step "verify: ${plugin[*]} verify"
"${plugin[@]}" verify < /dev/null 2>&1 | tee "$logs/verify" || fail "verify failed"
expect "$logs/verify" "0 problems"

step "a failing run is an error that names the exit status"
if "${plugin[@]}" plan missing-manifest.yml < /dev/null > "$logs/failure" 2>&1; then
  cat "$logs/failure"
  fail "the plugin succeeded with a manifest that does not exist"
fi
cat "$logs/failure"
expect "$logs/failure" "cannot read the manifest"
expect "$logs/failure" "error: warm-cache failed (exit 1)"

step "run: swift run ConsumerApp"
swift run --scratch-path "$scratch" ConsumerApp < /dev/null 2>&1 | tee "$logs/run" || fail "ConsumerApp failed"
# SwiftPM's resource bundle: ConsumerApp_ConsumerApp.resources on Linux, .bundle on Apple platforms.
grep -qE 'ConsumerApp_ConsumerApp\.(resources|bundle)/.*Images\.warmcache' "$logs/run" \
    || fail "the app did not open Images.warmcache from its resource bundle (above)"
expect "$logs/run" "asset://coffee: 200x200 webp"
expect "$logs/run" "asset://chelsea: 200x200 webp"
expect "$logs/run" "OK: every source has an image for 100x100@2x"

printf '\nrun-consumer: OK in %d s\n' "$((SECONDS - start))"
