#!/bin/sh
# rename-lib-symbols.sh — apply tests/rename-lib-symbols.map to the tree: every OLD name
# becomes NEW in lib/, tools/, tests/ and docs/*.md, as a whole word, never after '.' or '->'
# (a struct member of the same name stays) and never inside a "string literal" or a 'c'
# character literal (output bytes stay byte-identical); a name marked "call" (a common word,
# or also a record, field or harness name) only where '(' follows it at once, and with
# "call DIR/" only in the files under DIR/. The map and this
# script themselves are left alone. Run it from a clean checkout, then
#   make -j2 all && make unit && make lint && make identity
# and commit the result; tests/lint-names.sh then finds no known exception left, and the map
# can be emptied. usage: tests/rename-lib-symbols.sh [TREE]   (default: this script's tree)
set -eu
cd "${1:-$(dirname "$0")/..}"
map=tests/rename-lib-symbols.map
[ -f "$map" ] || { echo "rename-lib-symbols: no $map in '$(pwd)'" >&2; exit 2; }
files=$( { find lib tools tests -type f \( -name '*.[ch]' -o -name '*.bats' -o -name '*.bash' -o -name '*.sh' -o -name '*.py' \); \
	find docs -maxdepth 1 -type f -name '*.md'; } | grep -v -e '^tests/rename-lib-symbols\.' | LC_ALL=C sort)
# shellcheck disable=SC2086
MAP="$map" perl -i -ne '
	BEGIN {
		open(my $m, "<", $ENV{MAP}) or die "rename-lib-symbols: $ENV{MAP}: $!\n";
		while (<$m>) {
			next if /^\s*(#|$)/;
			my @f = split;
			my ($old, $new, $how) = @f;
			die "rename-lib-symbols: $ENV{MAP}:$.: want OLD NEW [call [DIR/]]\n"
				unless (@f == 2 || (@f <= 4 && $how eq "call")) && !exists $to{$old};
			$to{$old} = $new;
			$call{$old} = @f == 4 ? $f[3] : "" if @f > 2;
		}
		my $alt = join("|", map { quotemeta } sort { length($b) <=> length($a) || $a cmp $b } keys %to);
		$re = qr/(?<![\w.])(?<!->)($alt)(?!\w)(?:(?=(\())|)/;
	}
	# the line in pieces: string and character literals kept as they are, the rest renamed
	my @parts = split /("(?:[^"\\\n]|\\.)*"|\x27(?:[^\x27\\\n]|\\.)\x27)/;
	for my $i (0 .. $#parts) {
		next if $i % 2;
		$parts[$i] =~ s{$re}{ (exists $call{$1} && (!defined $2 || index($ARGV, $call{$1}) != 0)) ? $1 : $to{$1} }ge;
	}
	print join("", @parts);
' $files
echo "rename-lib-symbols: applied $(grep -cv -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$map") names of $map"
