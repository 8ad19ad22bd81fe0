#!/bin/sh
# lint-names.sh — the names rule of docs/design.md ("Names", issue 20 item 8), checked with
# grep over lib/predict (make lint runs it):
#   - a name's prefix names its folder: pc_/PC_ in lib/predict/*.{c,h} and lib/predict/aggregate/,
#     pt_/PT_ in lib/predict/tenant/ (a part may add a second segment: pc_cal_, pt_est_, ...);
#   - every name visible outside one .c file carries its folder's prefix: non-static functions and
#     data (at their definition), and the struct/union/enum tags, typedef names, enumerators and
#     macros a header defines (include guards SCHEDNAV_* aside);
#   - a file-local name (static function or data, a type or macro defined in a .c file) may go
#     unprefixed; when it carries a module prefix it is its folder's;
#   - no name in lib/predict keeps a retired prefix (tc_ th_ tf_ ptq_ pcf_ est_ cal_, any case).
# String literals are skipped (they are output bytes, not names); comments are checked for the
# retired prefixes, since they name code. Prints each breach as PATH:LINE: name: why, and exits 1
# if there is any.
#
# With BUILD (make lint gives its build folder), also every global name the objects of
# BUILD/lib/FOLDER define (nm -g --defined-only) must start with one of FOLDER's prefixes in
# tests/lint-names.prefixes; a name listed first on a line of tests/rename-lib-symbols.map is
# a known exception that tests/rename-lib-symbols.sh renames (issue 38), counted, not a breach.
#
# usage: tests/lint-names.sh [TREE [BUILD]]   (default: the tree this script is in, no BUILD)
set -u
build=${2:-}
cd "${1:-$(dirname "$0")/..}" || exit 2
[ -d lib/predict ] || { echo "lint-names: no lib/predict in '$(pwd)'" >&2; exit 2; }
retired='(tc|th|tf|ptq|pcf|est|cal|TC|TH|TF|PTQ|PCF|EST|CAL)_[A-Za-z0-9_]+'
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT

for f in $(find lib/predict -name '*.[ch]' | LC_ALL=C sort); do
	case $f in
	lib/predict/tenant/*) want=pt_ ;;
	*) want=pc_ ;;
	esac
	# the file with its string literals emptied (an #include's path is no name either)
	nostr=$(sed -E 's/"([^"\\]|\\.)*"/""/g' "$f")
	# 1. retired prefixes, in code and comments
	printf '%s\n' "$nostr" | grep -nowE "$retired" | while IFS=: read -r n name; do
		echo "$f:$n: $name: retired prefix (want $want)"
	done
	# 2. definitions: "LINE KIND NAME", KIND = public (must carry the prefix) or local (may not
	# carry another module's prefix)
	case $f in
	*.h) hdr=1 ;;
	*) hdr=0 ;;
	esac
	printf '%s\n' "$nostr" | awk -v hdr="$hdr" '
		function emit(kind, name) { print NR, kind, name }
		/^[ \t]*(\/\*|\*|\/\/)/ { next }      # comment lines
		/^#[ \t]*define[ \t]+[A-Za-z_]/ {
			n = $0; sub(/^#[ \t]*define[ \t]+/, "", n); sub(/[^A-Za-z0-9_].*/, "", n)
			if (n !~ /^SCHEDNAV_/) emit(hdr ? "public" : "local", n)
			next
		}
		/^(typedef[ \t]+)?(struct|union|enum)[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\{/ {
			n = $0; sub(/^(typedef[ \t]+)?(struct|union|enum)[ \t]+/, "", n); sub(/[^A-Za-z0-9_].*/, "", n)
			emit(hdr ? "public" : "local", n)
			if ($0 ~ /enum/) inenum = 1
		}
		inenum {
			s = $0; sub(/^[^{]*\{/, "", s); sub(/\}.*/, "", s); gsub(/\/\*[^*]*\*\//, "", s)
			gsub(/=[^,]*/, "", s)
			k = split(s, part, /[ \t,]+/)
			for (i = 1; i <= k; i++) if (part[i] ~ /^[A-Z][A-Z0-9_]*$/) emit(hdr ? "public" : "local", part[i])
			if ($0 ~ /\}/) inenum = 0
			next
		}
		/^typedef/ {
			n = $0
			if (n ~ /\(\*[A-Za-z_][A-Za-z0-9_]*\)/) { sub(/^[^(]*\(\*/, "", n); sub(/\).*/, "", n) }
			else { sub(/;.*/, "", n); sub(/.*[^A-Za-z0-9_]/, "", n) }
			emit(hdr ? "public" : "local", n)
			next
		}
		hdr { next }                          # a header declares; the .c that defines is checked
		/^(extern|struct|union|enum|else|return)[ \t]/ && !/^(struct|union|enum)[^;(]*[ \t*][A-Za-z_][A-Za-z0-9_]*[ \t]*(\(|\[|=)/ { next }
		/^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*][A-Za-z_][A-Za-z0-9_]*[ \t]*(\(|\[|=|;)/ {
			if ($0 ~ /^extern[ \t]/) next
			kind = ($0 ~ /^static[ \t]/) ? "local" : "public"
			n = $0; sub(/[ \t]*(\(|\[|=|;).*/, "", n); sub(/.*[^A-Za-z0-9_]/, "", n)
			emit(kind, n)
		}
	' | awk -v f="$f" -v want="$want" '
		{
			n = $1; kind = $2; name = $3; lower = tolower(name)
			if (kind == "public" && index(lower, want) != 1)
				print f ":" n ": " name ": visible outside its file without the folder'"'"'s prefix " want
			else if (kind == "local" && lower ~ /^(pc|pt|pa|tc|th|tf|ptq|pcf|est|cal)_/ && index(lower, want) != 1)
				print f ":" n ": " name ": file-local name with another module'"'"'s prefix (want " want " or none)"
		}'
done >"$out"
if [ -n "$build" ]; then
	[ -d "$build/lib" ] || { echo "lint-names: no $build/lib in '$(pwd)'" >&2; exit 2; }
	[ -f tests/lint-names.prefixes ] || { echo "lint-names: no tests/lint-names.prefixes in '$(pwd)'" >&2; exit 2; }
	known=tests/rename-lib-symbols.map
	[ -f "$known" ] || known=/dev/null
	syms=$(mktemp) || exit 2
	trap 'rm -f "$out" "$syms"' EXIT
	for o in $(find "$build/lib" -name '*.o' | LC_ALL=C sort); do
		rel=${o#"$build"/lib/}
		# (names beginning with __ are the compiler's, e.g. ASan's __odr_asan.NAME beside each global)
		nm -g --defined-only "$o" | awk -v f="${rel%%/*}" -v o="$o" 'NF == 3 && $3 !~ /^__/ { print f, o, $3 }'
	done >"$syms"
	awk -v known_file="$known" -v nknown_out="$syms.known" '
		FILENAME == "tests/lint-names.prefixes" {
			if ($0 ~ /^[ \t]*(#|$)/) next
			for (i = 2; i <= NF; i++) pre[$1] = pre[$1] " " tolower($i)
			next
		}
		FILENAME == known_file { if ($0 !~ /^[ \t]*(#|$)/) known[$1] = 1; next }
		{
			folder = $1; obj = $2; name = $3
			if (!(folder in pre)) { print obj ": " name ": lib/" folder " has no line in tests/lint-names.prefixes"; next }
			n = split(pre[folder], p, " "); ok = 0
			for (i = 1; i <= n; i++) if (index(tolower(name), p[i]) == 1) { ok = 1; break }
			if (ok) next
			if (name in known) { nknown++; next }
			print obj ": " name ": defined in lib/" folder " without one of its prefixes (" substr(pre[folder], 2) "); rename it, or list it in tests/rename-lib-symbols.map"
		}
		END { print nknown + 0 > nknown_out }
	' tests/lint-names.prefixes "$known" "$syms" >>"$out"
	nknown=$(cat "$syms.known")
	rm -f "$syms.known"
fi
if [ -s "$out" ]; then
	cat "$out"
	echo "lint-names: $(wc -l <"$out") names break the rule" >&2
	exit 1
fi
echo "lint-names: lib/predict keeps one prefix per folder (pc_ top and aggregate/, pt_ tenant/)"
[ -z "$build" ] || echo "lint-names: every name lib/ exports carries a prefix of its folder (tests/lint-names.prefixes);" \
	"$nknown known exceptions left for tests/rename-lib-symbols.sh"
