#!/usr/bin/env bash
# The plugin downloading over HTTPS, as an app's `swift package warm-cache` does from a CDN.
#
# On macOS, SwiftPM runs the plugin (and so warm-cache) in a sandbox, and certificate checks go
# through the system's trust service: this is what proves that path. In Examples/ConsumerApp it
#   1. makes a certificate for localhost and 127.0.0.1 and trusts it system-wide (macOS: the System
#      keychain, with sudo; Debian: /usr/local/share/ca-certificates, as root),
#   2. serves ../Images over HTTPS on a free loopback port (Python's http.server, stopped on exit),
#   3. bakes a manifest of two https:// URLs with the plugin, non-interactively, and verifies it.
#
#   bash Examples/run-consumer-https.sh      (GitHub's macOS job runs it; it changes the trust store)
#
# CONSUMER_BUILD_DIR: the app's SwiftPM scratch directory, as for run-consumer.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
app="$here/ConsumerApp"
scratch=${CONSUMER_BUILD_DIR:-$app/.build}
work=$(mktemp -d)
manifest="$app/warm-cache-https.yml"
output=Build/HTTPS.warmcache
server=""
linux_ca=/usr/local/share/ca-certificates/warm-cache-https-check.crt
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work" "$manifest" "$app/$output"
  if [ -f "$linux_ca" ]; then rm -f "$linux_ca"; update-ca-certificates --fresh >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
fail() { printf 'run-consumer-https: FAILED: %s\n' "$*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }

step "a certificate for localhost, trusted by this machine"
openssl=openssl
if command -v brew >/dev/null && [ -x "$(brew --prefix openssl@3 2>/dev/null)/bin/openssl" ]; then
  openssl="$(brew --prefix openssl@3)/bin/openssl"  # LibreSSL's may lack -addext
fi
"$openssl" req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
case "$(uname -s)" in
  Darwin) sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain "$work/cert.pem" ;;
  *) cp "$work/cert.pem" "$linux_ca"
     update-ca-certificates >/dev/null ;;
esac

step "serving ../Images over HTTPS on 127.0.0.1"
python3 - "$here/Images" "$work" > "$work/port" 2> "$work/server.log" <<'PY' &
import functools, http.server, os, ssl, sys
folder, work = sys.argv[1], sys.argv[2]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(work, "cert.pem"), os.path.join(work, "key.pem"))
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
[ -n "$port" ] || fail "the HTTPS server did not start: $(cat "$work/server.log")"
curl -fsS -o /dev/null "https://localhost:$port/coffee.png" || fail "curl does not trust the server either"

cat > "$manifest" <<YAML
version: 1
output: $output
defaults: { formats: [jpeg], quality: 80, scales: [2] }
presets:
  thumb: { width: 100, height: 100, fit: cover }
images:
  - url: https://localhost:$port/coffee.png
    presets: [thumb]
  - url: https://127.0.0.1:$port/chelsea.png
    presets: [thumb]
YAML

plugin=(swift package --scratch-path "$scratch"
        --allow-writing-to-package-directory --allow-network-connections all warm-cache)
cd "$app"
step "bake over HTTPS: ${plugin[*]} warm-cache-https.yml"
"${plugin[@]}" warm-cache-https.yml < /dev/null 2>&1 | tee "$work/warm" || fail "the plugin's HTTPS warm failed"
grep -qF "2 ok, 0 failed" "$work/warm" || fail "expected '2 ok, 0 failed' (above)"
"${plugin[@]}" verify "$output" < /dev/null 2>&1 | tee "$work/verify" || fail "verify failed"
grep -qF "0 problems" "$work/verify" || fail "expected '0 problems' (above)"
printf '\nrun-consumer-https: OK\n'
