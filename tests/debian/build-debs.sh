#!/bin/bash
# tests/debian/build-debs.sh - build the .deb packages from a copy of this
# tree with dpkg-buildpackage and check what they hold and depend on.
#
# usage: tests/debian/build-debs.sh [SLURM_SOURCE]
#   SLURM_SOURCE: configured Slurm source tree of the installed version
#   (default $ORRERY_SLURM_SOURCE; else contrib/slurm-source/fetch makes one
#   under /var/tmp/orrery-debian, which needs root and the Debian archive).
# Needs dpkg-dev and debhelper and the Build-Depends of debian/control.
# The tree is copied (tracked and untracked files git does not ignore), so
# the checkout and its build directories are left alone.  Unit tests are not
# run (DEB_BUILD_OPTIONS=nocheck): `make check` covers them.
# ORRERY_KEEP=1 keeps the temporary directory (build.log, the .debs).
# Prints one "ok"/"FAIL" line per check, then "N passed, M failed".
set -u

pass=0 failed=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
finish() { echo "$pass passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

top=$(cd "$(dirname "$0")/../.." && pwd)
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
plugindir=usr/lib/$arch/slurm-wlm
slurm_version=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins 2>/dev/null)
[ -n "$slurm_version" ] || { bad "slurm-wlm-basic-plugins is installed"; finish; }
majmin=$(echo "$slurm_version" | sed -E 's/^([0-9]+:)?([0-9]+\.[0-9]+).*/\2/')

src=${1:-${ORRERY_SLURM_SOURCE:-}}
if [ -z "$src" ]; then
	arg=$("$top/contrib/slurm-source/fetch" /var/tmp/orrery-debian/src) ||
		{ bad "contrib/slurm-source/fetch made a Slurm source tree"; finish; }
	src=${arg#--with-slurm-source=}
fi

work=$(mktemp -d /tmp/orrery-debs.XXXXXX)
[ "${ORRERY_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir "$work/orrery"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	rsync -a --from0 --files-from=- ./ "$work/orrery/")

echo "# dpkg-buildpackage in $work/orrery (log: build.log there)"
if (cd "$work/orrery" &&
    ORRERY_SLURM_SOURCE=$src DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -b -uc -us) >"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -b"
else
	bad "dpkg-buildpackage -b"; tail -n 30 "$work/build.log"
fi

deb() { ls "$work/$1"_*.deb 2>/dev/null | head -n 1; }
for p in liborrery1 liborrery-dev orrery-tools slurm-spank-orrery slurm-select-orrery; do
	check "$p built" test -n "$(deb $p)"
done
[ -n "$(deb slurm-select-orrery)" ] && [ -n "$(deb slurm-spank-orrery)" ] || finish

# has PACKAGE PATH: the package ships PATH (exactly).
has() { dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | grep -x "./$2" >/dev/null; }
check "spank_orrery.so in $plugindir" has slurm-spank-orrery "$plugindir/spank_orrery.so"
check "plugstack snippet in /etc/slurm/plugstack.conf.d" \
	has slurm-spank-orrery etc/slurm/plugstack.conf.d/orrery.conf
check "plugstack snippet is a conffile" sh -c \
	"dpkg-deb -I '$(deb slurm-spank-orrery)' conffiles | grep -qx /etc/slurm/plugstack.conf.d/orrery.conf"
check "select_orrery_cons_tres.so in $plugindir" \
	has slurm-select-orrery "$plugindir/select_orrery_cons_tres.so"
check "liborrery.so.1 in liborrery1" has liborrery1 "usr/lib/$arch/liborrery.so.1"
check "orrery.h in liborrery-dev" has liborrery-dev usr/include/orrery.h
check "orrery.pc in liborrery-dev" has liborrery-dev "usr/lib/$arch/pkgconfig/orrery.pc"
check "orrery-query in orrery-tools" has orrery-tools usr/bin/orrery-query
check "orrery-query.1 in orrery-tools" has orrery-tools usr/share/man/man1/orrery-query.1.gz
check "select-orrery.8 in slurm-select-orrery" \
	has slurm-select-orrery usr/share/man/man8/select-orrery.8.gz
check "no libtool archives shipped" sh -c \
	"! for d in '$work'/*.deb; do dpkg-deb -c \"\$d\"; done | grep '[.]la\$' >/dev/null"

# The shipped binaries run from the packages alone, with no RPATH left
# pointing into the build tree (libtool relinks at install time).
x=$work/extracted
for p in liborrery1 orrery-tools slurm-spank-orrery slurm-select-orrery; do
	dpkg-deb -x "$(deb $p)" "$x"
done
no_rpath() { ! readelf -d "$1" | grep -E 'RPATH|RUNPATH' >/dev/null; }
for f in "$x/$plugindir"/*.so "$x"/usr/bin/orrery-query "$x"/usr/bin/orrery-sim; do
	check "no RPATH in ${f#$x/}" no_rpath "$f"
done
check "packaged orrery-query runs with the packaged liborrery" sh -c \
	"LD_LIBRARY_PATH='$x/usr/lib/$arch' '$x/usr/bin/orrery-query' --help 2>&1 | grep Usage >/dev/null"

# Without a Slurm source tree the build must stop and say what to set.
refuses() {
	local out
	out=$(cd "$work/orrery" &&
	      ORRERY_SLURM_SOURCE= debian/rules override_dh_auto_configure 2>&1) && return 1
	grep -q "set ORRERY_SLURM_SOURCE" <<<"$out"
}
check "debian/rules refuses to configure without ORRERY_SLURM_SOURCE" refuses
sel=$(dpkg-deb -f "$(deb slurm-select-orrery)" Depends)
spk=$(dpkg-deb -f "$(deb slurm-spank-orrery)" Depends)
echo "# slurm-select-orrery Depends: $sel"
echo "# slurm-spank-orrery Depends: $spk"
check "select plugin depends on slurm-wlm-basic-plugins (= $slurm_version)" \
	grep -qF "slurm-wlm-basic-plugins (= $slurm_version)" <<<"$sel"
check "SPANK plugin depends on Slurm $majmin.x" \
	grep -qF "slurm-wlm-basic-plugins (>= $majmin)" <<<"$spk"
check "select plugin depends on liborrery1" grep -qF liborrery1 <<<"$sel"
check "SPANK plugin depends on liborrery1" grep -qF liborrery1 <<<"$spk"
finish
