#!/usr/bin/env python3
"""Checks a WarmCache bundle's signed statement the way docs/bundle-format.md specifies it,
written from that document alone: Python's standard library, and the `openssl` command for the
Ed25519 check (OpenSSL 1.1.1 or later).

    verify_statement.py BUNDLE PUBLIC_KEY_BASE64 [PUBLIC_KEY_BASE64 ...]

Prints one JSON object: {"ok": true, "version": ..., "keyid": ..., "expiresAt": ...} or
{"ok": false, "reason": "..."}; exits 0 or 1 accordingly.
"""
import base64
import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile

PAYLOAD_TYPE = "application/vnd.warmcache.statement+json"
# DER SubjectPublicKeyInfo of an Ed25519 key (RFC 8410) is this prefix and the key's 32 bytes.
ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")


def key_id(raw):
    return hashlib.sha256(raw).hexdigest()[:16]


def pae(payload_type, payload):
    type_bytes = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(type_bytes), type_bytes, len(payload), payload)


def ed25519_valid(public_key, signature, message):
    with tempfile.TemporaryDirectory() as folder:
        paths = {name: os.path.join(folder, name) for name in ("key.der", "sig", "msg")}
        for name, data in (("key.der", ED25519_SPKI_PREFIX + public_key), ("sig", signature), ("msg", message)):
            with open(paths[name], "wb") as f:
                f.write(data)
        result = subprocess.run(
            ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", paths["key.der"], "-keyform", "DER",
             "-rawin", "-in", paths["msg"], "-sigfile", paths["sig"]],
            capture_output=True)
        return result.returncode == 0


def check(bundle, keys):
    with open(os.path.join(bundle, "statement.json"), "rb") as f:
        data = f.read()
    if len(data) > 65536:
        return "larger than 64 KiB"
    envelope = json.loads(data)
    if envelope.get("payloadType") != PAYLOAD_TYPE:
        return "wrong payloadType"
    payload = base64.b64decode(envelope["payload"], validate=True)
    message = pae(PAYLOAD_TYPE, payload)
    signer = None
    for signature in envelope["signatures"][:16]:
        sig = base64.b64decode(signature["sig"])
        for raw in keys:
            if ed25519_valid(raw, sig, message):
                signer = key_id(raw)
                break
        if signer:
            break
    if signer is None:
        return "no valid signature by a trusted key"
    statement = json.loads(payload)
    if statement["format"] != 1:
        return "unknown format"
    with open(os.path.join(bundle, "index.sqlite"), "rb") as f:
        index = f.read()
    if hashlib.sha256(index).hexdigest() != statement["indexSHA256"] or len(index) != statement["indexByteCount"]:
        return "index.sqlite is not the index the statement names"
    expires = datetime.datetime.strptime(statement["expiresAt"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)
    if expires <= datetime.datetime.now(datetime.timezone.utc):
        return "expired"
    return {"ok": True, "version": statement["version"], "keyid": signer, "expiresAt": statement["expiresAt"]}


def main():
    bundle = sys.argv[1]
    keys = [base64.b64decode(text) for text in sys.argv[2:]]
    try:
        outcome = check(bundle, keys)
    except (OSError, ValueError, KeyError, TypeError) as error:
        outcome = "unreadable: %s" % error
    if isinstance(outcome, str):
        outcome = {"ok": False, "reason": outcome}
    print(json.dumps(outcome, sort_keys=True))
    return 0 if outcome["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
