#!/usr/bin/env python3
"""Edit and check sealed streams in tests, independently of the C code.

usage: stream_edit.py --set KEY=JSON...   (stdin stream(s) -> stdout: set KEY in every
                                           metrics record (an unknown KEY is an error),
                                           then recompute the end records)
       stream_edit.py --reseal            (stdin stream(s) -> stdout with recomputed end records)
       stream_edit.py --check-self KEY    (every stdin record carrying KEY must verify)

Tests use --set to turn a real metrics stream into an edge case (a value the simulator
would not give on a small trace), --reseal to tamper with a body "properly" (so that only
a record's own fingerprint can catch it), and --check-self to verify the self-fingerprints
(audit_fingerprint, ranking_fingerprint, ...) with XXH3-128 computed through ctypes from the
system libxxhash (Python has no xxhash module here), not through lib/core.
"""
import ctypes, json, sys


class XXH128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]


_lib = ctypes.CDLL("libxxhash.so.0")
_lib.XXH3_128bits.restype = XXH128
_lib.XXH3_128bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def xxh3(data):
    h = _lib.XXH3_128bits(data, len(data))
    return "%016x%016x" % (h.high64, h.low64)


def canon(v):  # json_write: insertion order, no spaces, floats as repr
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def canon_sorted(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def reseal(data):
    out, body, head = [], [], b""
    for line in data.split(b"\n")[:-1]:
        t = json.loads(line).get("type")
        if t == "header":
            out.append(line); body = []; head = line + b"\n"
        elif t == "end":
            raw = b"".join(l + b"\n" for l in body)
            out.append(canon({"type": "end", "records": len(body), "fingerprint": xxh3(raw),
                              "header_fingerprint": xxh3(head)}).encode())
        else:
            out.append(line); body.append(line)
    return b"".join(l + b"\n" for l in out)


def set_keys(data, assignments):
    out = []
    for line in data.split(b"\n")[:-1]:
        r = json.loads(line)
        if r.get("type") == "metrics":
            for k, v in assignments:
                if k not in r:
                    sys.exit("stream_edit: metrics record has no key '%s'" % k)
                r[k] = json.loads(v)
            line = canon(r).encode()
        out.append(line)
    return reseal(b"".join(l + b"\n" for l in out))


def check_self(data, key):
    n = 0
    for i, line in enumerate(data.decode().split("\n")[:-1], 1):
        r = json.loads(line)
        if key not in r:
            continue
        want = r.pop(key)
        if xxh3(canon(r).encode()) != want:
            sys.exit("line %d: %s does not verify" % (i, key))
        n += 1
    print("verified %d" % n)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--reseal":
        sys.stdout.buffer.write(reseal(sys.stdin.buffer.read()))
    elif len(sys.argv) == 3 and sys.argv[1] == "--check-self":
        check_self(sys.stdin.buffer.read(), sys.argv[2])
    elif len(sys.argv) >= 2 and sys.argv[1] == "--set":
        pairs = []
        for a in sys.argv[2:]:
            if "=" not in a:
                sys.exit("stream_edit: --set wants KEY=JSON, not '%s'" % a)
            pairs.append(a.split("=", 1))
        sys.stdout.buffer.write(set_keys(sys.stdin.buffer.read(), pairs))
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
