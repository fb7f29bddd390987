#!/bin/sh
# speed.sh — issue 13's speed figures, side by side in one run (the machine
# may be shared: compare the ratios, not the absolute times).
#
#   scripts/speed.sh [WAITSIM] [ROUNDS]
#
# WAITSIM is the command to measure (default out/bin/waitsim, built by
# `make bin`); ROUNDS (default 3) is how many times each pair is timed,
# alternating, the median kept. It prints, with the median of each:
#   1. `waitsim mutate --no-cache` against `--no-cache --all-killers`
#      (kill first: goal at most 1/3);
#   2. a warm `waitsim run` against the bare suite binary running the same
#      table (build once: goal at most 1.5×);
#   3. `waitsim mutate --no-cache --measure-gremlins`: waitsim's and
#      gremlins' wall ms per mutant (goal: waitsim at least 15× cheaper).
# Nothing in the tree changes; results go to a temporary directory. Do not
# edit the tree while it runs (a campaign whose inputs change fails).
# SPEED_MUTATE_ARGS adds flags to every `waitsim mutate` (e.g.
# --no-operators for a shorter run); SPEED_NO_GREMLINS=1 skips 3.
set -eu
WAITSIM=${1:-out/bin/waitsim}
ROUNDS=${2:-3}
MARGS=${SPEED_MUTATE_ARGS:-}
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/waitsim-speed-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$(pwd)

# ms runs a command and prints its wall time in ms (its output goes to $tmp/log).
ms() {
	s=$(date +%s%N)
	"$@" >>"$tmp/log" 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

allkillers=no
if "$WAITSIM" mutate -h 2>&1 | grep -q -- '-all-killers'; then allkillers=yes; fi

echo "waitsim: $WAITSIM ($(git rev-parse --short HEAD 2>/dev/null || echo '?')); load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

# 1. kill first against every killer.
: >"$tmp/kf"
: >"$tmp/ak"
i=0
while [ $i -lt "$ROUNDS" ]; do
	ms "$WAITSIM" mutate $MARGS --no-cache --progress off --out "$tmp/kf.json" >>"$tmp/kf"
	if [ $allkillers = yes ]; then
		ms "$WAITSIM" mutate $MARGS --no-cache --all-killers --progress off --out "$tmp/ak.json" >>"$tmp/ak"
	fi
	i=$((i + 1))
done
kf=$(median <"$tmp/kf")
if [ $allkillers = yes ]; then
	ak=$(median <"$tmp/ak")
	echo "mutate --no-cache: ${kf} ms; --no-cache --all-killers: ${ak} ms; ratio $(ratio "$kf" "$ak") (goal ≤ 0.33)"
	# The same verdicts, mutant by mutant.
	if command -v jq >/dev/null 2>&1 && [ -s "$tmp/kf.json" ] && [ -s "$tmp/ak.json" ]; then
		a=$(jq -c '[.mutants[] | [.id, .status]] | sort' "$tmp/kf.json")
		b=$(jq -c '[.mutants[] | [.id, .status]] | sort' "$tmp/ak.json")
		if [ "$a" = "$b" ]; then echo "  verdicts: identical ($(jq '.mutants | length' "$tmp/kf.json") mutants)"; else echo "  verdicts: DIFFER"; fi
	else
		echo "  a campaign wrote no result:"; tail -5 "$tmp/log"
	fi
else
	echo "mutate --no-cache: ${kf} ms (this waitsim has no --all-killers: every run finds every killer)"
fi

# 2. warm `waitsim run` against the bare suite binary on the same table.
go test -c -o "$tmp/scenarios.test" ./scenarios/ >>"$tmp/log" 2>&1
"$WAITSIM" run >/dev/null 2>&1 || true # warms whatever it caches
: >"$tmp/run"
: >"$tmp/bare"
i=0
while [ $i -lt "$ROUNDS" ]; do
	ms "$WAITSIM" run >>"$tmp/run"
	printf '{"version":1,"paths":["%s"],"results":"%s"}\n' "$root/scenarios/table" "$tmp/bare.json" >"$tmp/params.json"
	(cd scenarios && WAITSIM_PARAMS="$tmp/params.json" ms "$tmp/scenarios.test" -test.run '^TestTable$' -test.count=1) >>"$tmp/bare"
	i=$((i + 1))
done
run=$(median <"$tmp/run")
bare=$(median <"$tmp/bare")
echo "waitsim run (warm): ${run} ms; bare suite binary: ${bare} ms; ratio $(ratio "$run" "$bare") (goal ≤ 1.5)"

# 3. per mutant, against gremlins' own campaign, in one run.
[ "${SPEED_NO_GREMLINS:-}" = 1 ] && exit 0
"$WAITSIM" mutate $MARGS --no-cache --measure-gremlins --progress off --out "$tmp/g.json" >>"$tmp/log" 2>&1 || true
if command -v jq >/dev/null 2>&1 && [ -s "$tmp/g.json" ]; then
	jq -r '"measure-gremlins: waitsim \(.wallMs / ([.mutants | length, 1] | max) | floor) ms per mutant (campaign wall / mutants; median \(.medianMutantMs) ms), gremlins \(.gremlins.perMutantMs | floor) ms per mutant; ratio \((.gremlins.perMutantMs / (.wallMs / ([.mutants | length, 1] | max))) * 10 | floor / 10)× (goal ≥ 15×)"' "$tmp/g.json"
else
	echo "measure-gremlins: no result (see the log)"; tail -20 "$tmp/log"
fi
