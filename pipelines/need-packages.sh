#!/bin/sh
# need-packages.sh TARGET PACKAGE...: make sure the Debian packages 'make TARGET' needs are
# installed before it starts. The missing ones are installed when run as root
# (DEPS_INSTALL=auto, the default) or when DEPS_INSTALL=yes; otherwise (a user, or
# DEPS_INSTALL=no) it stops with the one apt-get line to run. On a system without
# dpkg-query (not Debian) it checks nothing and lets the build say what is missing.
# PACKAGE:COMMAND is satisfied by COMMAND on PATH, whatever installed it, else by PACKAGE.
set -eu
target=$1
shift
command -v dpkg-query >/dev/null 2>&1 || exit 0
missing=
for spec in "$@"; do
	p=${spec%%:*}
	case " $missing " in *" $p "*) continue ;; esac
	if [ "$p" != "$spec" ] && command -v "${spec#*:}" >/dev/null 2>&1; then
		continue
	fi
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	[ "$target" != deps ] || echo "deps: every Debian package is installed"
	exit 0
fi
mode=${DEPS_INSTALL:-auto}
case "$mode" in auto | yes | no) ;; *) echo "make $target: DEPS_INSTALL must be auto, yes or no, not '$mode'" >&2; exit 2 ;; esac
if [ "$mode" = yes ] || { [ "$mode" = auto ] && [ "$(id -u)" -eq 0 ]; }; then
	echo "make $target: installing the missing Debian packages:$missing" >&2
	apt-get update -qq
	# $missing is a list of package names, split on purpose. Only what is asked for: the
	# recommends (ImageMagick, Ghostscript, groff, mesa, printer tools...) are not needed;
	# the one that matters, a font for chromium's screenshots, comes with fontconfig-config
	# (it depends on fonts-dejavu-core), and gnuplot's SVG names fonts without loading any.
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
	exit 0
fi
echo "make $target: missing Debian packages:$missing; run this, then 'make $target' again:" >&2
echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
exit 1
