"""Shared by the profile builders (build-alibaba-spot-profile.py for /2 and
build-alibaba-spot-profile-v3.py for /3): finding the shared data folder, reading its tables
while recording each file's size and SHA-256, and the profile's JSON layout. Imported from the
builders' own folder; it writes nothing by itself."""
import csv, hashlib, json, os, sys

DS = "alibaba-spot-gpu-v2026"
AG = DS + "/derived-aggregates-sultanul-ovi"


def default_data(prog):
    """$SCHEDNAV_SHARED/data, else ../shared/data beside the clone, else /work/shared/data:
    the first that holds the dataset's folder; prog names the builder in the error."""
    env = os.environ.get("SCHEDNAV_SHARED")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for d in ([os.path.join(env, "data")] if env else []) + [
            os.path.join(root, "..", "shared", "data"), "/work/shared/data"]:
        if os.path.isdir(os.path.join(d, DS)):
            return d
    sys.exit("%s: no shared data folder found" % prog)


class Tables:
    """The tables of one data folder; every file read is appended to used as
    {"path", "bytes", "sha256"} (the profile's built_from)."""

    def __init__(self, data, used):
        self.data = data
        self.used = used

    def read(self, rel):
        with open(os.path.join(self.data, rel), "rb") as f:
            raw = f.read()
        self.used.append({"path": rel, "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()})
        return raw.decode("utf-8")

    def table(self, rel):
        return list(csv.DictReader(self.read(rel).splitlines()))


def dump(v, ind=0):
    """JSON with a readable layout: short arrays of scalars on one line, the long count
    arrays 24 to a line, node and pair lists one item per line."""
    pad = "  " * (ind + 1)
    if isinstance(v, dict):
        items = ["%s%s: %s" % (pad, json.dumps(k), dump(x, ind + 1)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * ind + "}"
    if isinstance(v, list):
        if all(not isinstance(x, (list, dict)) for x in v):
            if len(v) <= 24:
                return json.dumps(v)
            rows = [", ".join(json.dumps(x) for x in v[i:i + 24]) for i in range(0, len(v), 24)]
            return "[\n" + ",\n".join(pad + r for r in rows) + "\n" + "  " * ind + "]"
        return "[\n" + ",\n".join(pad + dump(x, ind + 1) for x in v) + "\n" + "  " * ind + "]"
    return json.dumps(v)


def write(out, doc):
    """doc as dump() lays it out, written through OUT.tmp and renamed (no partial file)."""
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write(dump(doc) + "\n")
    os.replace(tmp, out)
