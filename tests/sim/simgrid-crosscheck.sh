#!/bin/sh
# Cross-check orrery-sim's engine against SimGrid's CM02 max-min model.
# Skips (77) when SimGrid is not installed (Debian: libsimgrid-dev, a
# test-time dependency only).  Builds tests/sim/simgrid_crosscheck.cpp
# against the engine library of this build tree.
set -u
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
pkg-config --exists simgrid 2>/dev/null || {
	echo "SimGrid not installed (apt-get install libsimgrid-dev): skipped"
	exit 77
}
exe=$top_builddir/tests/sim/simgrid_crosscheck
core=$top_builddir/contrib/sim/.libs/libsimcore.a
[ -f "$core" ] || { echo "no $core"; exit 99; }
${CXX:-g++} -std=c++17 -O2 -o "$exe" "$srcdir/tests/sim/simgrid_crosscheck.cpp" \
	-I"$srcdir/contrib/sim" -I"$srcdir/lib" \
	$(pkg-config --cflags simgrid) "$core" \
	-L"$top_builddir/lib/.libs" -lorrery \
	-Wl,-rpath,"$(cd "$top_builddir/lib/.libs" && pwd)" \
	$(pkg-config --libs simgrid) || exit 99
rc=0
for k in $("$exe" list | cut -d' ' -f1); do
	"$exe" "$k" --log=root.thres:critical || rc=1
done
exit $rc
