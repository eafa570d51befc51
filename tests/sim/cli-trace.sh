#!/bin/sh
# orrery-sim end to end on a small trace: two 2-node jobs with an explicit
# 50%-duty pattern placed in one rack each cross no uplink, so every policy
# must give exactly iterations x period, and the files must be written.
set -eu
top_builddir=${top_builddir:-.}
sim=$top_builddir/contrib/sim/orrery-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.csv" <<'CSV'
arrival_s,nodes,profile,iterations
0,2,"period=100ms;up=50ms+50ms@50Gbps",1000
0,2,"period=100ms;up=50ms+50ms@50Gbps",1000
CSV
"$sim" --trace "$tmp/t.csv" --seeds 1 --quiet \
	--policies ideal,default,orrery-place,orrery --out "$tmp/out" > "$tmp/table"
for p in ideal default orrery-place orrery; do
	f=$tmp/out/jobs-$p-s1.csv
	[ -s "$f" ] || { echo "no $f"; exit 1; }
	# jct_s is field 6: 1000 x 0.1 s (orrery: plus at most one gate period).
	awk -F, -v p=$p 'NR > 1 { if ($6 < 99.999 || $6 > 100.101) { print p ": job " $1 " jct " $6; bad = 1 } }
		END { exit bad }' "$f"
done
grep -q "ratio to default" "$tmp/table"
# A malformed trace is an error naming the line.
printf '0,2,resnet50\n' > "$tmp/bad.csv"
if "$sim" --trace "$tmp/bad.csv" --quiet 2> "$tmp/err"; then
	echo "bad trace accepted"; exit 1
fi
grep -q "bad.csv:1" "$tmp/err"
