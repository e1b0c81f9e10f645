#!/usr/bin/env bash
# The plugin downloading over HTTPS, as an app's `swift package warm-cache` does from a CDN.
#
# On macOS, SwiftPM runs the plugin (and so warm-cache) in a sandbox, and certificate checks go
# through the system's verifier (SecTrust, which asks the system's trust service): this is what
# proves that path. In Examples/ConsumerApp it
#   1. makes a certificate authority and, signed by it, a server certificate for localhost and
#      127.0.0.1, in a folder of the package (the sandbox lets the tool read it there),
#   2. serves ../Images over HTTPS on a free loopback port (Python's http.server, stopped on exit),
#   3. bakes a manifest of two https:// URLs with the plugin, non-interactively, with the CA given
#      through WARM_CACHE_CA_CERTIFICATES (trusted besides the system's; nothing on the machine
#      changes), and verifies the bundle.
#
#   bash Examples/run-consumer-https.sh      (scripts/test and GitHub's macOS job run it)
#
# CONSUMER_BUILD_DIR: the app's SwiftPM scratch directory, as for run-consumer.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
app="$here/ConsumerApp"
scratch=${CONSUMER_BUILD_DIR:-$app/.build}
work="$app/.build/https-check"
manifest="$app/warm-cache-https.yml"
output=Build/HTTPS.warmcache
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work" "$manifest" "$app/$output"
}
trap cleanup EXIT
fail() { printf 'run-consumer-https: FAILED: %s\n' "$*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }

step "a certificate authority, and a certificate it signed for localhost"
rm -rf "$work"
mkdir -p "$work"
openssl=openssl
if command -v brew >/dev/null && [ -x "$(brew --prefix openssl@3 2>/dev/null)/bin/openssl" ]; then
  openssl="$(brew --prefix openssl@3)/bin/openssl"  # LibreSSL's may lack -addext and -copy_extensions
fi
# Apple's verifier wants what a public CA would issue: a CA with its constraints, and a server
# certificate with the host names and the server-authentication usage, valid for a short time.
"$openssl" req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=WarmCache check CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout "$work/ca-key.pem" -out "$work/ca.pem" 2>/dev/null
"$openssl" req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "extendedKeyUsage=serverAuth" \
  -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature,keyEncipherment" \
  -keyout "$work/key.pem" -out "$work/server.csr" 2>/dev/null
"$openssl" x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca-key.pem" -CAcreateserial \
  -days 1 -copy_extensions copy -out "$work/cert.pem" 2>/dev/null

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
curl -fsS --cacert "$work/ca.pem" -o /dev/null "https://localhost:$port/coffee.png" \
  || fail "the HTTPS server does not answer with its certificate (curl above)"

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
WARM_CACHE_CA_CERTIFICATES="$work/ca.pem" "${plugin[@]}" warm-cache-https.yml < /dev/null 2>&1 | tee "$work/warm" \
  || fail "the plugin's HTTPS warm failed"
grep -qF "2 ok, 0 failed" "$work/warm" || fail "expected '2 ok, 0 failed' (above)"
"${plugin[@]}" verify "$output" < /dev/null 2>&1 | tee "$work/verify" || fail "verify failed"
grep -qF "0 problems" "$work/verify" || fail "expected '0 problems' (above)"
printf '\nrun-consumer-https: OK\n'
