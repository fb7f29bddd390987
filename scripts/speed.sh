#!/bin/sh
# speed.sh — issue 21's speed goals for the mutation gate, side by side in
# one run (the machine may be shared: compare the ratios, not the absolute
# times; the load average is printed with every figure).
#
#   scripts/speed.sh [WAITSIM] [ROUNDS]
#
# WAITSIM is the command to measure (default out/bin/waitsim, built by
# `make bin`); ROUNDS (default 1) is how many times each figure is timed,
# alternating, the median kept. BEFORE, when set, is another waitsim
# (e.g. one built from main) whose campaign is timed in the same rounds.
# It prints:
#   1. a warm `waitsim run` of the table (its test binary kept);
#   2. `waitsim mutate --no-cache` (the hot runner; binaries and gremlins'
#      enumeration kept while their inputs are unchanged) against 1.
#      (goal: at most 4×), its median mutant (goal: under 40 ms), and the
#      same campaign with --runner cold (a process per mutant) and, with
#      BEFORE, BEFORE's, with their ratios; then whether their verdicts are
#      the same, mutant by mutant (table and generator);
#   3. `waitsim mutate --no-cache --measure-gremlins`: waitsim's and
#      gremlins' wall ms per mutant on the same target (goal: waitsim at
#      least 50× cheaper);
#   4. in a scratch clone of HEAD, warmed by a campaign there, a one-line
#      change of waittool/ committed, then `waitsim mutate --diff HEAD~1`:
#      the first run after the change and a second one (goal: under 5 s
#      warm).
# SPEED_ISSUE13=1 adds issue 13's figures (kill first against
# --all-killers, a warm run against the bare suite binary).
# Nothing in the tree changes; results go to a temporary directory. Do not
# edit the tree while it runs (a campaign whose inputs change fails).
# SPEED_MUTATE_ARGS adds flags to every `waitsim mutate`; SPEED_NO_GREMLINS=1
# skips 3, SPEED_NO_DIFF=1 skips 4.
set -eu
WAITSIM=${1:-out/bin/waitsim}
ROUNDS=${2:-1}
MARGS=${SPEED_MUTATE_ARGS:-}
BEFORE=${BEFORE:-}
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/waitsim-speed-XXXXXX")
root=$(pwd)
trap 'rm -rf "$tmp"' EXIT
case $WAITSIM in /*) ;; *) WAITSIM=$root/$WAITSIM ;; esac

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }
# ms runs a command and prints its wall time in ms (its output goes to $tmp/log).
ms() {
	s=$(date +%s%N)
	"$@" >>"$tmp/log" 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
verdicts() { jq -c '[.mutants[] | [.id, .status, (.generator // "")]] | sort' "$1"; }

echo "waitsim: $WAITSIM ($(git rev-parse --short HEAD 2>/dev/null || echo '?')); load: $(load)"

# Warm everything once: the suite binary, the schemata binary, the
# enumeration (the first campaign of a tree builds them).
"$WAITSIM" run >/dev/null 2>&1 || true
"$WAITSIM" mutate $MARGS --no-cache --progress off --out "$tmp/warm.json" >>"$tmp/log" 2>&1 || true

: >"$tmp/run"
: >"$tmp/hot"
: >"$tmp/cold"
: >"$tmp/before"
i=0
while [ $i -lt "$ROUNDS" ]; do
	ms "$WAITSIM" run >>"$tmp/run"
	echo "  round $((i + 1)): warm run done, load $(load)"
	ms "$WAITSIM" mutate $MARGS --no-cache --progress off --out "$tmp/hot.json" >>"$tmp/hot"
	echo "  round $((i + 1)): hot campaign done, load $(load)"
	ms "$WAITSIM" mutate $MARGS --no-cache --runner cold --progress off --out "$tmp/cold.json" >>"$tmp/cold"
	echo "  round $((i + 1)): cold campaign done, load $(load)"
	if [ -n "$BEFORE" ]; then
		ms "$BEFORE" mutate $MARGS --no-cache --progress off --out "$tmp/before.json" >>"$tmp/before"
		echo "  round $((i + 1)): BEFORE's campaign done, load $(load)"
	fi
	i=$((i + 1))
done
run=$(median <"$tmp/run")
hot=$(median <"$tmp/hot")
cold=$(median <"$tmp/cold")
echo "1. waitsim run (warm): ${run} ms"
if [ ! -s "$tmp/hot.json" ] || ! command -v jq >/dev/null 2>&1; then
	echo "a campaign wrote no result (or no jq):"
	tail -20 "$tmp/log"
	exit 1
fi
n=$(jq '.mutants | length' "$tmp/hot.json")
echo "2. mutate --no-cache (hot): ${hot} ms for ${n} mutants, $(ratio "$hot" "$run")× the warm run (goal ≤ 4×); median mutant $(jq .medianMutantMs "$tmp/hot.json") ms (goal < 40); $(jq '[.mutants[] | select(.runner == "hot")] | length' "$tmp/hot.json") judged in a hot process"
echo "   mutate --no-cache --runner cold: ${cold} ms, $(ratio "$cold" "$run")×; median mutant $(jq .medianMutantMs "$tmp/cold.json") ms"
if [ -n "$BEFORE" ] && [ -s "$tmp/before.json" ]; then
	before=$(median <"$tmp/before")
	echo "   BEFORE ($BEFORE) mutate --no-cache: ${before} ms, $(ratio "$before" "$run")×; median mutant $(jq .medianMutantMs "$tmp/before.json") ms"
fi
if [ "$(verdicts "$tmp/hot.json")" = "$(verdicts "$tmp/cold.json")" ]; then
	echo "   verdicts hot = cold: identical (${n} mutants, table and generator)"
else
	echo "   verdicts hot = cold: DIFFER"
fi
if [ -n "$BEFORE" ] && [ -s "$tmp/before.json" ]; then
	if [ "$(verdicts "$tmp/hot.json")" = "$(verdicts "$tmp/before.json")" ]; then
		echo "   verdicts hot = BEFORE: identical"
	else
		echo "   verdicts hot = BEFORE: DIFFER"
	fi
fi

# 3. per mutant, against gremlins' own campaign, in one run.
if [ "${SPEED_NO_GREMLINS:-}" != 1 ]; then
	"$WAITSIM" mutate $MARGS --no-cache --measure-gremlins --progress off --out "$tmp/g.json" >>"$tmp/log" 2>&1 || true
	if [ -s "$tmp/g.json" ]; then
		jq -r '"3. measure-gremlins: waitsim \(.wallMs / ([.mutants | length, 1] | max) | floor) ms per mutant (campaign wall / mutants), gremlins \(.gremlins.perMutantMs | floor) ms per mutant; ratio \((.gremlins.perMutantMs / (.wallMs / ([.mutants | length, 1] | max))) * 10 | floor / 10)× (goal ≥ 50×)"' "$tmp/g.json"
		echo "   load $(load)"
	else
		echo "3. measure-gremlins: no result (see the log)"
		tail -20 "$tmp/log"
	fi
fi

# 4. a one-line change in waittool/, answered with --diff against its parent.
if [ "${SPEED_NO_DIFF:-}" != 1 ]; then
	git clone -q "$root" "$tmp/wt" >>"$tmp/log" 2>&1
	(
		cd "$tmp/wt"
		# Warm, as a tree one works in is: the go command's build cache
		# for its path, and the campaign's kept binaries, before the edit.
		"$WAITSIM" mutate $MARGS --no-cache --diff HEAD --progress off --out "$tmp/d0.json" >>"$tmp/log" 2>&1 || true
		# The same comparison, written the other way round: one line of
		# code with an operator on it, its meaning unchanged.
		sed -i 's/^\tif d > c.cost {$/\tif c.cost < d {/' waittool/tool.go
		git -c user.name=speed -c user.email=speed@localhost commit -qam "speed: a one-line change"
		git show --stat HEAD | tail -2 | head -1
		d1=$(ms "$WAITSIM" mutate $MARGS --no-cache --diff HEAD~1 --progress off --out "$tmp/d1.json")
		l1=$(load)
		d2=$(ms "$WAITSIM" mutate $MARGS --no-cache --diff HEAD~1 --progress off --out "$tmp/d2.json")
		echo "4. --diff HEAD~1 after a one-line change of waittool/tool.go: first run ${d1} ms (load $l1), again ${d2} ms (load $(load)) (goal < 5000 warm); $(jq '[.mutants[] | select(.source != "sanity")] | length' "$tmp/d2.json") mutants on the changed line"
	)
fi
echo "load at the end: $(load)"

if [ "${SPEED_ISSUE13:-}" = 1 ]; then
	ak=$(ms "$WAITSIM" mutate $MARGS --no-cache --all-killers --progress off --out "$tmp/ak.json")
	echo "issue 13: mutate --no-cache --all-killers: ${ak} ms; kill first (hot) ${hot} ms: ratio $(ratio "$hot" "$ak") (goal ≤ 0.33); verdicts $([ "$(verdicts "$tmp/hot.json")" = "$(verdicts "$tmp/ak.json")" ] && echo identical || echo DIFFER)"
	go test -c -o "$tmp/scenarios.test" ./scenarios/ >>"$tmp/log" 2>&1
	printf '{"version":1,"paths":["%s"],"results":"%s"}\n' "$root/scenarios/table" "$tmp/bare.json" >"$tmp/params.json"
	bare=$(cd scenarios && WAITSIM_PARAMS="$tmp/params.json" ms "$tmp/scenarios.test" -test.run '^TestTable$' -test.count=1)
	echo "issue 13: waitsim run (warm) ${run} ms; bare suite binary ${bare} ms; ratio $(ratio "$run" "$bare") (goal ≤ 1.5)"
fi
