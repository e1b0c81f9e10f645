#!/usr/bin/env python3
"""An independent WarmCache bundle reader, written from docs/bundle-format.md alone.

Standard library only (sqlite3, hashlib, json). It exists to check that the document is exact
enough for a reader that is not the Swift runtime to give the same answers.

    reader.py check BUNDLE                 every cache_key against the grammar, every blob path
    reader.py compare BUNDLE LOOKUPS       LOOKUPS: JSON lines of requests with the runtime's answer
    reader.py normalise CASES              CASES: JSON lines {"text": ..., "identifier": ...}

Each command prints one JSON object (counts and the first disagreements) and exits 0 when
everything agrees, 1 otherwise.
"""
import hashlib
import json
import math
import os
import re
import sqlite3
import sys

APPLICATION_ID = 1464034152  # 0x57436368, "WCch"
FITS = {"inside", "cover", "fill", "contain"}
FORMATS = ["jpeg", "png", "webp", "avif", "heic", "jxl", "gif"]
EXTENSIONS = {f: ("jpg" if f == "jpeg" else f) for f in FORMATS}
GRAVITIES = ["centre", "north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest",
             "attention", "entropy"]
UNRESERVED = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
HEX = set(b"0123456789abcdefABCDEF")


# --- Source identifiers ("Source identifiers") ------------------------------------------------

def _lower_ascii(data):
    return bytes(b + 32 if 65 <= b <= 90 else b for b in data)


def normalise(text):
    data = text.encode("utf-8")
    at = data.find(b"://")
    if at < 0:
        return text
    scheme = _lower_ascii(data[:at])
    if scheme not in (b"http", b"https"):
        return text
    rest = data[at + 3:]
    hash_at = rest.find(b"#")
    if hash_at >= 0:
        rest = rest[:hash_at]
    ends = [i for i in (rest.find(b"/"), rest.find(b"?")) if i >= 0]
    authority_end = min(ends) if ends else len(rest)
    authority, path = rest[:authority_end], rest[authority_end:]
    if not authority:
        return text
    userinfo = b""
    last_at = authority.rfind(b"@")
    if last_at >= 0:
        userinfo, authority = authority[:last_at + 1], authority[last_at + 1:]
    host, port = authority, None
    colon = authority.rfind(b":")
    if colon >= 0 and b"]" not in authority[colon:]:
        host, port = authority[:colon], authority[colon + 1:]
    if not host:
        return text
    port_text = b""
    if port is not None:
        if any(not (48 <= b <= 57) for b in port):
            return text
        if port:
            significant = port.lstrip(b"0")
            if len(significant) > 5:
                return text
            number = int(significant) if significant else 0
            if number > 65535:
                return text
            if not ((scheme == b"http" and number == 80) or (scheme == b"https" and number == 443)):
                port_text = b":" + str(number).encode()
    if not path.startswith(b"/"):
        path = b"/" + path
    out = bytearray()
    i = 0
    while i < len(path):
        b = path[i]
        if b == 0x25 and i + 2 < len(path) and path[i + 1] in HEX and path[i + 2] in HEX:
            value = int(path[i + 1:i + 3], 16)
            if value in UNRESERVED:
                out.append(value)
            else:
                out += b"%%%02X" % value
            i += 3
        elif b <= 0x20 or b >= 0x7F:
            out += b"%%%02X" % b
            i += 1
        else:
            out.append(b)
            i += 1
    result = scheme + b"://" + userinfo + _lower_ascii(host) + port_text + bytes(out)
    return result.decode("utf-8")


# --- The canonical variant key ------------------------------------------------------------

def escape_source(source):
    out = []
    for ch in source:
        code = ord(ch)
        if ch == "%" or ch == "|" or code <= 0x20 or code == 0x7F:
            out.append("%%%02X" % code)
        else:
            out.append(ch)
    return "".join(out)


COLOUR = r"(?:[0-9a-f]{6}|[0-9a-f]{6}(?:[0-9a-f][0-9a-e]|[0-9a-e][0-9a-f]))"
DIM = r"(?:[1-9][0-9]*|_)"
KEY_TAIL = re.compile(
    r"(?P<box>" + DIM + "x" + DIM + r")\|@[1-9][0-9]*x\|"
    r"(?:inside|fill|cover-(?:" + "|".join(GRAVITIES) + r")|contain-" + COLOUR + r")(?:\+up)?\|"
    r"(?P<encoding>[^|]+)\|(?P<processors>[^|]+)\Z")
OPTION_RANKS = {"lossless": 0, "lossy": 0, "progressive": 1, "baseline": 1, "sub": 2, "nosub": 2,
                "palette": 4, "truecolor": 4, "icc": 5, "noicc": 5}


def _canonical_number(text):
    try:
        value = float(text)
    except ValueError:
        return False
    if not math.isfinite(value) or value <= 0:
        return False
    if value == int(value) and abs(value) < 1e15:
        return text == str(int(value))
    return text == repr(value)


def key_problem(key):
    """Why `key` does not follow the grammar, or None."""
    fields = key.split("|")
    if len(fields) != 6:
        return "has %d fields, not 6" % len(fields)
    source = fields[0]
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "%":
            escape = source[i + 1:i + 3]
            if not re.fullmatch(r"[0-9A-F]{2}", escape):
                return "bad escape in source"
            value = int(escape, 16)
            if not (value in (0x25, 0x7C, 0x7F) or value <= 0x20):
                return "needless escape %" + escape + " in source"
            i += 3
            continue
        if ord(ch) <= 0x20 or ord(ch) == 0x7F:
            return "unescaped control or space in source"
        i += 1
    match = KEY_TAIL.match("|".join(fields[1:]))
    if not match:
        return "box, scale, fit or field layout do not follow the grammar"
    encoding = match.group("encoding").split("-")
    if encoding[0] not in FORMATS:
        return "unknown format " + encoding[0]
    rest = encoding[1:]
    if rest and rest[0].startswith("q"):
        if not re.fullmatch(r"q[1-9][0-9]*", rest[0]):
            return "bad quality " + rest[0]
        rest = rest[1:]
    last = -1
    for token in rest:
        if re.fullmatch(r"e(?:0|[1-9][0-9]*)", token):
            rank = 3
        elif token in OPTION_RANKS:
            rank = OPTION_RANKS[token]
        else:
            return "unknown option " + token
        if rank <= last:
            return "options out of order or repeated"
        last = rank
    processors = match.group("processors")
    if processors != "-":
        for token in processors.split(","):
            if token == "grayscale":
                continue
            m = re.fullmatch(r"(round|blur|flatten)\((.*)\)", token)
            if not m:
                return "unknown processor " + token
            if m.group(1) == "flatten":
                if not re.fullmatch(COLOUR, m.group(2)):
                    return "bad colour in " + token
            elif not _canonical_number(m.group(2)):
                return "non-canonical number in " + token
    return None


# --- Reading the index as untrusted input --------------------------------------------------

def valid_row(row):
    """Whether a variants row (cache_key, source_id, fit, format, processors, pixel_width,
    pixel_height, byte_count, blob_sha256, has_alpha) follows the table in the document."""
    key, source_id, fit, fmt, processors, pw, ph, nbytes, sha, alpha = row

    def is_int(value):
        return isinstance(value, int) and not isinstance(value, bool)

    if not isinstance(key, str) or not (1 <= len(key.encode("utf-8")) <= 65536):
        return False
    if not is_int(source_id):
        return False
    if not isinstance(fit, str) or fit not in FITS:
        return False
    if not isinstance(fmt, str) or fmt not in FORMATS:
        return False
    if not isinstance(processors, str) or processors == "" or "|" in processors:
        return False
    if not (is_int(pw) and 1 <= pw <= 1048576 and is_int(ph) and 1 <= ph <= 1048576):
        return False
    if not (is_int(nbytes) and 1 <= nbytes <= 4294967296):
        return False
    if not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        return False
    return is_int(alpha) and alpha in (0, 1)


def blob_path(sha, fmt):
    return "objects/%s/%s.%s" % (sha[:2], sha, EXTENSIONS[fmt])


def blob_present(bundle, row):
    path = os.path.join(bundle, blob_path(row[8], row[3]))
    try:
        info = os.lstat(path)
    except OSError:
        return False
    import stat
    return stat.S_ISREG(info.st_mode) and info.st_size == row[7]


class Reader:
    def __init__(self, bundle):
        self.bundle = bundle
        self.db = sqlite3.connect("file:%s/index.sqlite?mode=ro&immutable=1" % bundle, uri=True)
        self.db.text_factory = lambda raw: raw.decode("utf-8", "replace")
        (app_id,) = self.db.execute("PRAGMA application_id").fetchone()
        if app_id != APPLICATION_ID:
            raise SystemExit("not a WarmCache index: application_id %d" % app_id)

    def variants_of(self, identifier):
        found = self.db.execute("SELECT id FROM sources WHERE source = ?", (identifier,)).fetchone()
        if found is None:
            return []
        prefix = escape_source(identifier) + "|"
        rows = self.db.execute(
            "SELECT cache_key, source_id, fit, format, processors, pixel_width, pixel_height, byte_count, "
            "blob_sha256, has_alpha FROM variants WHERE source_id = ?", (found[0],)).fetchall()
        return [r for r in rows if valid_row(r) and r[0].startswith(prefix)]

    def presets_of(self, preset):
        return {k for (k,) in self.db.execute("SELECT cache_key FROM variant_presets WHERE preset = ?", (preset,))}

    def best(self, source, width, height, scale, accept, fit=None, processors=None, preset=None):
        identifier = normalise(source)

        def side(value):
            return value if isinstance(value, (int, float)) and math.isfinite(value) and value > 0 else 0
        s = scale if isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0 else 1
        rw, rh = side(width) * s, side(height) * s
        if processors is None:
            processors = "any" if preset is not None else "-"
        in_preset = self.presets_of(preset) if preset is not None else None
        candidates = []
        for row in self.variants_of(identifier):
            key, _, vfit, fmt, procs, pw, ph, nbytes = row[:8]
            if fmt not in accept or (fit is not None and vfit != fit):
                continue
            if in_preset is not None and key not in in_preset:
                continue
            if processors != "any" and procs != processors:
                continue
            if not blob_present(self.bundle, row):
                continue
            candidates.append(row)
        if not candidates:
            return None

        def covers(row):
            vfit, pw, ph = row[2], row[5], row[6]
            wide = rw == 0 or pw >= rw
            tall = rh == 0 or ph >= rh
            if vfit in ("cover", "fill") or rw == 0 or rh == 0:
                return wide and tall
            return pw >= rw or ph >= rh

        def ties(row):
            count = 0 if row[4] == "-" else row[4].count(",") + 1
            return (accept.index(row[3]), count, row[7], row[0].encode("utf-8"))

        covering = [r for r in candidates if covers(r)]
        if covering:
            return min(covering, key=lambda r: (r[5] * r[6],) + ties(r))[0]
        return min(candidates, key=lambda r: (-(r[5] * r[6]),) + ties(r))[0]


# --- Commands --------------------------------------------------------------------------------

def check(bundle):
    reader = Reader(bundle)
    keys = key_errors = blobs = 0
    problems = []
    root = os.path.realpath(bundle)
    sources = dict(reader.db.execute("SELECT id, source FROM sources"))
    for row in reader.db.execute(
            "SELECT cache_key, source_id, fit, format, processors, pixel_width, pixel_height, byte_count, "
            "blob_sha256, has_alpha FROM variants"):
        keys += 1
        if not valid_row(row):
            problems.append({"key": str(row[0]), "problem": "row breaks the untrusted-input rules"})
            continue
        why = key_problem(row[0])
        if why is None and not row[0].startswith(escape_source(sources.get(row[1], "\0")) + "|"):
            why = "does not start with its escaped source"
        if why is not None:
            key_errors += 1
            problems.append({"key": row[0], "problem": why})
        path = os.path.realpath(os.path.join(bundle, blob_path(row[8], row[3])))
        blobs += 1
        if not path.startswith(root + os.sep + "objects" + os.sep):
            problems.append({"key": row[0], "problem": "blob path leaves the bundle"})
        elif not blob_present(bundle, row):
            problems.append({"key": row[0], "problem": "blob missing or of the wrong size"})
        else:
            with open(path, "rb") as handle:
                if hashlib.sha256(handle.read()).hexdigest() != row[8]:
                    problems.append({"key": row[0], "problem": "blob does not hash to its name"})
    return {"keys": keys, "blobs": blobs, "problems": problems[:20], "problemCount": len(problems)}


def compare(bundle, lookups):
    reader = Reader(bundle)
    count = 0
    hits = 0
    disagreements = []
    with open(lookups) as handle:
        for line in handle:
            if not line.strip():
                continue
            q = json.loads(line)
            count += 1
            mine = reader.best(q["source"], q["width"], q["height"], q["scale"], q["accept"], q.get("fit"),
                               q.get("processors"), q.get("preset"))
            hits += mine is not None
            if mine != q.get("answer"):
                disagreements.append({"request": q, "python": mine})
    return {"lookups": count, "hits": hits, "disagreements": disagreements[:20],
            "disagreementCount": len(disagreements)}


def normalisation(cases):
    count = 0
    wrong = []
    with open(cases) as handle:
        for line in handle:
            if line.strip():
                case = json.loads(line)
                count += 1
                mine = normalise(case["text"])
                if mine != case["identifier"]:
                    wrong.append({"text": case["text"], "swift": case["identifier"], "python": mine})
    return {"cases": count, "disagreements": wrong[:20], "disagreementCount": len(wrong)}


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    command = argv[1]
    if command == "check":
        result = check(argv[2])
        ok = result["problemCount"] == 0
    elif command == "compare":
        result = compare(argv[2], argv[3])
        ok = result["disagreementCount"] == 0
    elif command == "normalise":
        result = normalisation(argv[2])
        ok = result["disagreementCount"] == 0
    else:
        raise SystemExit(__doc__)
    print(json.dumps(result, ensure_ascii=False))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
