#!/bin/sh
# Output identity of the controller config loaders across a refactor (issue 20, item 1: the
# field tables): load the same configs with the library of two built trees and compare every
# canonical dict (in stored order), fingerprint and error message.
#
#   tests/identity/controller-configs.sh OLD_TREE NEW_TREE
#
# Each tree must hold a built build/libschednav.a (make all). The configs: every file of
# configs/controllers/ and ../shared/golden-predictive/predictive-spot-v1.json as shipped,
# reordered, and with each key (and the optional and an unknown key) removed or set to each
# of about 45 values (wrong types, bounds, NaN, control characters, other families' ids),
# every pair of keys broken together (the order of errors), and a few non-objects: about
# 28,000 files. Prints the number of configs and exits 1 on any difference.
set -eu
[ $# -eq 2 ] || { echo "usage: tests/identity/controller-configs.sh OLD_TREE NEW_TREE" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OLD=$(cd "$1" && pwd) NEW=$(cd "$2" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
LIBS="$(pkg-config --libs yajl 2>/dev/null || echo -lyajl) -lxxhash -lzstd -lcrypto -lm"
for t in old new; do
	[ $t = old ] && tree=$OLD || tree=$NEW
	cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$tree/lib" -I/usr/include/yajl \
		"$ROOT/tests/identity/config-dump.c" "$tree/build/libschednav.a" $LIBS -o "$W/dump-$t"
done
mkdir "$W/cases"
python3 - "$W/cases" "$ROOT"/configs/controllers/*.json "$ROOT/../shared/golden-predictive/predictive-spot-v1.json" <<'PY'
import itertools, json, os, sys
out, srcs = sys.argv[1], [s for s in sys.argv[2:] if os.path.exists(s)]
n = 0
def write(text):
    global n
    n += 1
    with open(os.path.join(out, '%05d.json' % n), 'w') as f:
        f.write(text)
vals = ["x", "", 1.5, -1, 0, 1, 2, 3, 24, 25, 169, 1e20, 9e15, 4e15, None, True, False, [], {}, [1], [2, 1], [0],
        [1, 1], list(range(70)), 3600, 3600.0, 0.5, 0.9, 1.0, 1.25, 100000, 100001, 3153600001, "a\u0001b",
        "tenant-linear-gaussian-v1", "seasonal-conformal-v1", "tenant-quantile-linear-v1", "seasonal-gaussian-v1",
        "validation-residual-nearest-rank", "china", "weekday", "schednav.predictive-controller/v1",
        "schednav.tenant-predictive-controller/1", -0.5, 2.0, 1e-9, float('nan')]
for src in srcs:
    text = open(src).read()
    base = json.loads(text)
    write(text)
    keys = list(base) + ['quantile_calibration_method', 'sigma_min']
    for k in keys:
        d = dict(base); d.pop(k, None); write(json.dumps(d))
        for v in vals:
            d = dict(base); d[k] = v
            write(json.dumps(d).replace('NaN', 'nan'))
    for k1, k2 in itertools.combinations(list(base) + ['quantile_calibration_method'], 2):
        for v1, v2 in [("x", "x"), (-1, -1), (None, 0), (0, "x")]:
            d = dict(base); d[k1] = v1; d[k2] = v2; write(json.dumps(d))
        d = dict(base); d.pop(k1, None); d.pop(k2, None); write(json.dumps(d))
        d = dict(base); d.pop(k1, None); d[k2] = "x"; write(json.dumps(d))
    write(json.dumps(dict(reversed(list(base.items())))))
for raw in ['[]', '1', '"x"', 'null', '{}', '{"schema_version":1}', '{', '']:
    write(raw)
PY
(cd "$W" && ls cases | LC_ALL=C sort | sed 's|^|cases/|' > list && xargs ./dump-old < list > old.txt && xargs ./dump-new < list > new.txt)
echo "controller-configs: $(wc -l < "$W/list") configs, $(grep -c '	OK	' "$W/old.txt" || true) valid"
if ! cmp -s "$W/old.txt" "$W/new.txt"; then
	diff "$W/old.txt" "$W/new.txt" | head -40
	echo "controller-configs: the two trees differ"
	exit 1
fi
echo "controller-configs: 0 differences"
