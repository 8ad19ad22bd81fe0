#!/usr/bin/env bats
# schednav: the front command (exec path, help, running a tool), make install/uninstall
# into a DESTDIR, and the Debian package check of make demo / make check.
load helper
load run_cases

setup() {
	cd "$BATS_TEST_TMPDIR"
	stream-seal -o small.nd "$ROOT/tests/cases/trace-window/small.body"
	POLICY="$ROOT/configs/policies/native-fifo.json"
}

@test "schednav: --help matches the man page, bad option exits 2" {
	assert_tool_invariants schednav
}

@test "schednav: in the build tree the exec path is bin/, and a tool runs exactly as itself" {
	run schednav --exec-path
	assert_success
	assert_output "$(cd "$BIN" && pwd -P)"
	sim-run --policy "$POLICY" small.nd > direct.nd
	schednav sim-run --policy "$POLICY" small.nd > front.nd
	cmp direct.nd front.nd
	# stdin, stdout, messages and exit status are the tool's own
	schednav sim-run --policy "$POLICY" < small.nd > r.nd
	schednav metrics < r.nd > m.nd
	stream-verify m.nd
	# (a tool's usage and data errors passing through are tests/cases/schednav/tool-*-passes-through.case)
	run schednav metrics -V
	assert_success
	assert_line --index 0 --regexp '^metrics \(SchedNav\) '
}

@test "schednav: the error cases (tests/cases/schednav/*.case): tool names that are no tool, no TOOL, help for no tool" {
	run_cases schednav
}

@test "schednav: help lists every tool; help TOOL shows its man page, or its --help without one" {
	run schednav help
	assert_success
	local t
	for t in $(ls "$ROOT"/tools/*.c | sed 's|.*/||; s|\.c$||' | grep -vx schednav); do
		# each with the one line of its manual page's NAME section
		what=$(sed -n '/^\.SH NAME/{n;p;q}' "$ROOT/docs/$t.1" | sed 's/^.* \\- //; s/\\-/-/g')
		[ -n "$what" ] || fail "docs/$t.1 has no NAME line"
		assert_line --regexp "^  $t +$(printf '%s' "$what" | sed 's/[][\.*^$+?(){}|/]/\\&/g')\$"
	done
	refute_line --regexp "^  schednav( |\$)"
	assert_line --regexp '^  decision-table   print a policy decision as a table for people$'
	assert_line --regexp '^  approve +record a person.s approval of a ranked action in an append-only log$'
	run schednav help sim-run
	assert_success
	assert_output --partial "SYNOPSIS"
	assert_output --partial "sim-run --policy FILE"
	# a copy of the tools without man pages beside them: the tool's --help
	mkdir -p alone
	cp "$BIN/schednav" "$BIN/metrics" alone/
	run alone/schednav help metrics
	assert_success
	assert_line --index 0 "usage: metrics [-o OUT] [FILE]"
	# and the list without the pages: the names alone
	run alone/schednav help
	assert_success
	assert_line "  metrics"
}

@test "schednav: SCHEDNAV_EXEC_PATH names the tools' directory" {
	mkdir -p other
	printf '#!/bin/sh\necho "fake metrics: $*"\n' > other/metrics
	chmod +x other/metrics
	run env SCHEDNAV_EXEC_PATH="$PWD/other" schednav metrics a b
	assert_success
	assert_output "fake metrics: a b"
	run -0 env SCHEDNAV_EXEC_PATH="$PWD/other" schednav --exec-path
	assert_output "$PWD/other"
	run env SCHEDNAV_EXEC_PATH="$PWD/other" schednav sim-run
	assert_failure 2
}

@test "make install puts schednav in bin, the tools in libexec/schednav, the pages in man1 and man7, configs and pipelines in share/schednav; uninstall removes exactly that" {
	local dest="$BATS_TEST_TMPDIR/dest" prefix=/opt/sn
	mkdir -p "$dest$prefix/bin" "$dest$prefix/share/man/man7"
	echo keep > "$dest$prefix/bin/other-program"
	find "$dest" -type d | sort > before.txt
	make -C "$ROOT" --no-print-directory install DESTDIR="$dest" PREFIX="$prefix" > install.log
	[ -x "$dest$prefix/bin/schednav" ]
	run -0 ls "$dest$prefix/bin"
	assert_output "other-program
schednav"
	local t
	for t in $(ls "$ROOT"/tools/*.c | sed 's|.*/||; s|\.c$||' | grep -vx schednav); do
		[ -x "$dest$prefix/libexec/schednav/$t" ] || fail "$t not installed"
		[ -f "$dest$prefix/share/man/man1/$t.1" ] || fail "$t.1 not installed"
	done
	[ -f "$dest$prefix/share/man/man1/schednav.1" ]
	[ -f "$dest$prefix/share/man/man7/schednav.7" ]
	[ "$(ls "$dest$prefix/libexec/schednav" | wc -l)" -eq "$(ls "$ROOT"/tools/*.c | grep -vc '/schednav\.c$')" ]
	# the installed front command finds the installed tools and pages (under DESTDIR too)
	run -0 "$dest$prefix/bin/schednav" --exec-path
	assert_output "$dest$prefix/libexec/schednav"
	"$dest$prefix/bin/schednav" sim-run --policy "$POLICY" small.nd > r.nd
	"$dest$prefix/bin/schednav" metrics < r.nd > m.nd
	stream-verify m.nd
	run -0 "$dest$prefix/bin/schednav" help trace-window
	assert_output --partial "SYNOPSIS"
	# the configs are installed, and the installed schednav-mcp finds its roles there
	cmp "$ROOT/configs/agents/analyst.json" "$dest$prefix/share/schednav/configs/agents/analyst.json" || fail "configs not installed"
	# with the studies' recorded agent plans and the pipelines (their scripts executable as in the tree)
	local f
	for f in $(cd "$ROOT" && ls configs/studies/*.agent.ndjson pipelines/*.mk pipelines/*.sh pipelines/*.jq); do
		cmp "$ROOT/$f" "$dest$prefix/share/schednav/$f" || fail "$f not installed"
	done
	[ -x "$dest$prefix/share/schednav/pipelines/need-packages.sh" ] || fail "need-packages.sh not executable"
	mkdir ws
	run sh -c 'printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}" | env -u SCHEDNAV_CONFIGS "$1" schednav-mcp --profile analyst --workspace ws' sh "$dest$prefix/bin/schednav"
	assert_success
	assert_output --partial '"name":"analyze_workload"'
	find "$dest" | sort > installed.txt
	make -C "$ROOT" --no-print-directory uninstall DESTDIR="$dest" PREFIX="$prefix" > uninstall.log
	# the foreign file and exactly the directories that were there before remain (the
	# empty man7 too: install did not make it, so uninstall does not remove it)
	run -0 find "$dest" -type f
	assert_output "$dest$prefix/bin/other-program"
	run diff before.txt <(find "$dest" -type d | sort)
	assert_success
	[ ! -e "$dest$prefix/libexec" ]
	[ ! -e "$dest$prefix/share/man/man1" ]
	# a second uninstall finds nothing to remove and still succeeds
	make -C "$ROOT" --no-print-directory uninstall DESTDIR="$dest" PREFIX="$prefix" > /dev/null
}

# Run the package check of make TARGET with a stub apt-get and dpkg-query on PATH.
stub_tools() {
	mkdir -p stub
	printf '#!/bin/sh\necho "apt-get $*" >> "%s/apt.log"\n' "$PWD" > stub/apt-get
	chmod +x stub/apt-get
}

@test "make demo / make check: a missing package stops them with the one apt-get line, or is installed as root" {
	run make -C "$ROOT" --no-print-directory demo DEPS_INSTALL=no DEMO_PACKAGES="build-essential schednav-test-no-such-package"
	assert_failure 2
	assert_line "make demo: missing Debian packages: schednav-test-no-such-package; run this, then 'make demo' again:"
	assert_line "  sudo apt-get install -y --no-install-recommends schednav-test-no-such-package"
	refute_output --partial "demo: import"
	run make -C "$ROOT" --no-print-directory check DEPS_INSTALL=no CHECK_PACKAGES="bats schednav-test-a schednav-test-b"
	assert_failure 2
	assert_line "  sudo apt-get install -y --no-install-recommends schednav-test-a schednav-test-b"
	refute_output --partial "unit: "
	# as root (or DEPS_INSTALL=yes) the missing ones are installed first
	stub_tools
	run env PATH="$PWD/stub:$PATH" "$ROOT/pipelines/need-packages.sh" demo build-essential schednav-test-a
	assert_success
	assert_output "make demo: installing the missing Debian packages: schednav-test-a"
	run -0 cat apt.log
	assert_line --index 0 "apt-get update -qq"
	assert_line --index 1 "apt-get install -y -qq --no-install-recommends schednav-test-a"
	# nothing missing: silent, nothing installed; PACKAGE:COMMAND is satisfied by COMMAND
	rm apt.log
	run env PATH="$PWD/stub:$PATH" "$ROOT/pipelines/need-packages.sh" demo build-essential schednav-test-sh:sh
	assert_success
	assert_output ""
	[ ! -e apt.log ]
	run env DEPS_INSTALL=no "$ROOT/pipelines/need-packages.sh" check schednav-test-x:schednav-no-such-command
	assert_failure 1
	assert_line "  sudo apt-get install -y --no-install-recommends schednav-test-x"
	run env DEPS_INSTALL=maybe "$ROOT/pipelines/need-packages.sh" demo schednav-test-a
	assert_failure 2
}

@test "make demo needs no browser; make check names what the tests use" {
	local demo check
	demo=$(make -C "$ROOT" --no-print-directory -pn help | sed -n 's/^DEMO_PACKAGES := //p')
	check=$(make -C "$ROOT" --no-print-directory -pn help | sed -n 's/^CHECK_PACKAGES := //p')
	[ -n "$demo" ] || fail "no DEMO_PACKAGES"
	[[ " $demo " != *" chromium "* ]] || fail "the demo pulls a browser: $demo"
	[[ " $demo " != *" bats "* ]] || fail "the demo pulls bats: $demo"
	local p
	for p in pkgconf libyajl-dev libxxhash-dev libzstd-dev libssl-dev gnuplot-nox; do
		[[ " $demo " == *" $p "* ]] || fail "the demo does not pull $p"
	done
	for p in bats bats-assert bats-support python3-jsonschema chromium jq zstd parallel gnuplot-nox; do
		[[ " $check " == *" $p "* ]] || fail "make check does not pull $p"
	done
}

@test "the build names a missing library (pkg-config) before compiling" {
	run make -C "$ROOT" --no-print-directory BUILD="$BATS_TEST_TMPDIR/b" OUT="$BATS_TEST_TMPDIR/o" PKGS="yajl schednav-test-nolib"
	assert_failure 2
	assert_output --partial "schednav: the build needs these libraries, found through pkg-config: schednav-test-nolib"
	assert_output --partial "apt-get install pkgconf"
	[ ! -e "$BATS_TEST_TMPDIR/o" ]
}
