#!/usr/bin/env bash
# Fault injection (issue 20): the attacks that need a process, replayed
# against the built binary, each bounded in time:
#
#   scripts/faults.sh out/bin/waitsim     (make faults; make test runs it)
#
#   bad-case       a case id the file does not have: exit 2, naming the
#                  file's cases (this first server builds, or finds in the
#                  cache, the test binary that serves every later one)
#   null-stdio     a tools/call whose arguments are null, over stdio: answered,
#                  and the server goes on answering (it used to exit 2)
#   null-http      the same over HTTP
#   origin         Origin http://evil.example: 403; a loopback Origin: 200
#   flood          1000 initializes at once, --max-sessions 100: 100 sessions,
#                  900 × 503, the processes (waitsim serve and the test binary
#                  that serves) grow by less than 64 MB
#   stderr         stderr a pipe nobody reads: 400 calls (about 4× the 64 KiB
#                  a pipe holds of their log) answered, SIGTERM still stops it
#   bad-addr       a malformed --http address: exit 2 (usage)
#   full-tmp       waitsim mutate with its temp dir on a full disk (a 1 MiB
#                  tmpfs in a mount namespace of its own; without one, a
#                  stand-in go command that fails as the linker does on a
#                  full disk): exit 6, nothing cached or written; then, with
#                  room, the true verdicts
#   two-campaigns  a second campaign in a tree where one runs: refused (exit
#                  6, naming the first one's pid), nothing written
#   sigkill-run    SIGKILL of the first campaign's process group while a
#                  mutant's test runs: no process of it left; the next
#                  campaign runs and removes what the killed one left in the
#                  temp dir
#   sigkill-build  the same while a mutant builds, the build's own child
#                  alive (a stand-in go command whose build waits on a child
#                  of its own, as go waits on its linker): none left
#
# Every process it starts is stopped, every file it makes is under one
# temporary directory, removed at the end; the children's TMPDIR is inside
# it, and no waitsim-* may be left there. Exit 0 when every step held, 1
# otherwise, 2 on a usage error (KEEP=1 keeps the directory to look at). About 10 s (small campaigns on
# mutants/testdata/fixture), more when bad-case builds the serving test
# binary; every wait is bounded, so that a binary that fails every step still
# ends within about five minutes.
set -uo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: scripts/faults.sh WAITSIM_BINARY" >&2
	exit 2
fi
for tool in curl jq setsid timeout mkfifo; do
	if ! command -v "$tool" >/dev/null; then
		echo "scripts/faults.sh: needs $tool" >&2
		exit 2
	fi
done
W=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
START=$SECONDS
T=$(mktemp -d "${TMPDIR:-/tmp}/faults.XXXXXX")
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

PIDS=()   # processes to stop at the end
GROUPS_=() # process groups to stop at the end
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for g in "${GROUPS_[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'echo "faults: interrupted" >&2; exit 130' INT
trap 'echo "faults: terminated" >&2; exit 143' TERM
trap 'exit 129' HUP
trap 'exit 141' PIPE # a closed stdout: clean up all the same

FAILED=0
ok() { printf 'ok   %-14s %s\n' "$STEP" "$*"; }
fail() {
	printf 'FAIL %-14s %s\n' "$STEP" "$*"
	FAILED=1
}

# waitexit PID SECONDS: waits for PID to exit (a child of this shell) and
# sets CODE; CODE=timeout when it did not.
waitexit() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1" 2>/dev/null
			CODE=$?
			return
		fi
		sleep 0.05
	done
	CODE=timeout
}

# The case every server serves: a call on a completed agent answers at once.
cat >"$T/done.yaml" <<'EOF'
# protects: nothing (scripts/faults.sh's server)
name: faults
agents:
  - {id: d, state: completed, messages: [d-one]}
callers:
  - name: A
    args: {timeoutMs: 1000, sessionIds: [d]}
EOF

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"faults","version":"1"}}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'
NULLCALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"orchestration_wait_agents","arguments":null}}'
PING='{"jsonrpc":"2.0","id":3,"method":"ping"}'

# serve_http LOG ARGS…: starts `waitsim serve --http 127.0.0.1:0 ARGS…` with
# its stderr to LOG and sets SRV (its pid) and URL; false when it did not
# listen within 10 s.
serve_http() {
	local log=$1 i
	shift
	: >"$log"
	"$W" serve "$T/done.yaml" --http 127.0.0.1:0 "$@" 2>"$log" &
	SRV=$!
	PIDS+=("$SRV")
	URL=
	for ((i = 0; i < 200; i++)); do
		URL=$(sed -n 's/^waitsim serve: listening on \([^ ]*\).*/\1/p' "$log")
		[ -n "$URL" ] && return 0
		kill -0 "$SRV" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

# post URL BODY [HEADER…]: one JSON-RPC POST; prints "STATUS SESSION" and
# leaves the body in $T/body.
post() {
	local url=$1 body=$2
	shift 2
	local h=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
	for x in "$@"; do h+=(-H "$x"); done
	curl -s --max-time 5 -D "$T/headers" -o "$T/body" -w '%{http_code}' "${h[@]}" -d "$body" "$url" 2>/dev/null || true
	printf ' %s\n' "$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([^[:space:]]*\).*/\1/p' "$T/headers" 2>/dev/null)"
}

# why LOG: the panic a server's log holds, or its last lines.
why() {
	grep -m1 -E '^panic:|panic while handling' "$1" 2>/dev/null || tail -c 200 "$1" 2>/dev/null | tr '\n' ' '
}

# rss PID: the resident set in KiB of PID and its children (waitsim serve
# and the test binary that serves).
rss() {
	local total=0 p kb
	for p in "$1" $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)
		total=$((total + ${kb:-0}))
	done
	echo "$total"
}

# ------------------------------------------------------------------ bad-case
STEP=bad-case
out=$(timeout 180 "$W" serve "$T/done.yaml" --case nope 2>&1 </dev/null)
code=$?
if [[ $code == 2 && $out == *'has no case "nope"; its cases: faults'* ]]; then
	ok "--case nope: exit 2, naming the file's cases"
else
	fail "--case nope: exit $code, want 2 naming the file's cases: ${out:0:300}"
fi

# ---------------------------------------------------------------- null-stdio
STEP=null-stdio
coproc STDIO { exec "$W" serve "$T/done.yaml" 2>"$T/stdio.log"; }
SPID=$STDIO_PID
PIDS+=("$SPID")
exec {SIN}>&"${STDIO[1]}" {SOUT}<&"${STDIO[0]}"
eval "exec ${STDIO[1]}>&- ${STDIO[0]}<&-"
# (in a subshell that ignores SIGPIPE: the server may be gone)
(
	trap '' PIPE
	printf '%s\n%s\n%s\n%s\n' "$INIT" "$INITIALIZED" "$NULLCALL" "$PING" >&"$SIN"
) 2>/dev/null
# The replies, in the order they come (the ping's may pass the call's).
R2= R3=
for _ in 1 2 3; do
	read -r -t 5 line <&"$SOUT" || break
	case $line in
	*'"id":2'*) R2=$line ;;
	*'"id":3'*) R3=$line ;;
	esac
done
exec {SIN}>&- # the client closes its end: the server stops
waitexit "$SPID" 5
if [[ $R2 == *'"id":2'* && $R2 == *'"result"'* && $R2 != *'"error"'* && $R3 == *'"id":3'* && $R3 == *'"result"'* && $CODE == 0 ]]; then
	ok "null arguments answered (${R2:0:70}…), ping after it answered, exit 0 when the client closed"
else
	fail "call: ${R2:-no reply}; ping: ${R3:-no reply}; exit $CODE; log: $(why "$T/stdio.log")"
fi
exec {SOUT}<&-

# ----------------------------------------------------------------- null-http
STEP=null-http
if serve_http "$T/http.log"; then
	read -r code sid < <(post "$URL" "$INIT")
	post "$URL" "$INITIALIZED" "Mcp-Session-Id: $sid" >/dev/null
	read -r ccode _ < <(post "$URL" "$NULLCALL" "Mcp-Session-Id: $sid")
	cbody=$(cat "$T/body")
	read -r pcode _ < <(post "$URL" "$PING" "Mcp-Session-Id: $sid")
	if [[ $code == 200 && -n $sid && $ccode == 200 && $cbody == *'"result"'* && $cbody != *'"error"'* && $pcode == 200 ]] && kill -0 "$SRV" 2>/dev/null; then
		ok "null arguments answered 200 with a result, ping after it 200, the server runs on"
	else
		fail "initialize $code, call $ccode (${cbody:0:200}), ping $pcode; log: $(why "$T/http.log")"
	fi

	kill -TERM "$SRV" 2>/dev/null
	waitexit "$SRV" 5
else
	fail "the server did not listen: $(why "$T/http.log")"
fi

# -------------------------------------------------------------------- origin
STEP=origin
if serve_http "$T/origin.log"; then
	read -r evil esid < <(post "$URL" "$INIT" "Origin: http://evil.example")
	read -r loc lsid < <(post "$URL" "$INIT" "Origin: http://localhost:6274")
	read -r lo _ < <(post "$URL" "$INIT" "Origin: http://127.0.0.1:3000")
	if [[ $evil == 403 && -z $esid && $loc == 200 && -n $lsid && $lo == 200 ]]; then
		ok "http://evil.example 403 (no session), http://localhost:6274 200, http://127.0.0.1:3000 200"
	else
		fail "http://evil.example $evil (session '$esid'), http://localhost:6274 $loc, http://127.0.0.1:3000 $lo"
	fi
	kill -TERM "$SRV" 2>/dev/null
	waitexit "$SRV" 5
else
	fail "the server did not listen: $(why "$T/origin.log")"
fi

# --------------------------------------------------------------------- flood
STEP=flood
if serve_http "$T/flood.log" --max-sessions 100; then
	before=$(rss "$SRV")
	: >"$T/flood.cfg"
	for ((i = 0; i < 1000; i++)); do
		[ $i -gt 0 ] && echo next >>"$T/flood.cfg"
		printf 'url = "%s"\nheader = "Content-Type: application/json"\nheader = "Accept: application/json, text/event-stream"\ndata = "%s"\noutput = "/dev/null"\nmax-time = 20\nwrite-out = "%%{http_code}\\n"\n' \
			"$URL" "${INIT//\"/\\\"}" >>"$T/flood.cfg"
	done
	timeout 20 curl -s -Z --parallel-max 100 -K "$T/flood.cfg" >"$T/flood.codes" 2>/dev/null
	n200=$(grep -c '^200$' "$T/flood.codes")
	n503=$(grep -c '^503$' "$T/flood.codes")
	after=$(rss "$SRV")
	grown=$(((after - before) / 1024))
	if [[ $n200 == 100 && $n503 == 900 && $grown -lt 64 ]] && kill -0 "$SRV" 2>/dev/null; then
		ok "1000 initializes at once, cap 100: 100 sessions, 900 × 503; RSS $((before / 1024)) → $((after / 1024)) MB"
	else
		fail "1000 initializes at once, cap 100: $n200 × 200, $n503 × 503, others: $(grep -v -c -e '^200$' -e '^503$' "$T/flood.codes"); RSS $((before / 1024)) → $((after / 1024)) MB"
	fi
	kill -TERM "$SRV" 2>/dev/null
	waitexit "$SRV" 5
else
	fail "the server did not listen: $(why "$T/flood.log")"
fi

# -------------------------------------------------------------------- stderr
STEP=stderr
mkfifo "$T/err.fifo"
exec {ERR}<>"$T/err.fifo" # held open, read only up to the listening line
"$W" serve "$T/done.yaml" --http 127.0.0.1:0 2>"$T/err.fifo" &
SRV=$!
PIDS+=("$SRV")
URL=
while read -r -t 10 line <&"$ERR"; do
	case $line in "waitsim serve: listening on "*)
		URL=${line#waitsim serve: listening on }
		URL=${URL%% *}
		break
		;;
	esac
done
if [ -n "$URL" ]; then
	read -r _ sid < <(post "$URL" "$INIT")
	post "$URL" "$INITIALIZED" "Mcp-Session-Id: $sid" >/dev/null
	: >"$T/calls.cfg"
	for ((i = 0; i < 400; i++)); do
		[ $i -gt 0 ] && echo next >>"$T/calls.cfg"
		call='{"jsonrpc":"2.0","id":'$((100 + i))',"method":"tools/call","params":{"name":"orchestration_wait_agents","arguments":{}}}'
		printf 'url = "%s"\nheader = "Content-Type: application/json"\nheader = "Accept: application/json, text/event-stream"\nheader = "Mcp-Session-Id: %s"\ndata = "%s"\noutput = "%s/call.%d"\nmax-time = 10\nwrite-out = "%%{http_code}\\n"\n' \
			"$URL" "$sid" "${call//\"/\\\"}" "$T" "$i" >>"$T/calls.cfg"
	done
	t0=$SECONDS
	timeout 20 curl -s -Z --parallel-max 8 -K "$T/calls.cfg" >"$T/calls.codes" 2>/dev/null
	took=$((SECONDS - t0))
	answered=$(grep -l '"result"' "$T"/call.* 2>/dev/null | wc -l)
	kill -TERM "$SRV" 2>/dev/null
	waitexit "$SRV" 5
	if [[ $answered == 400 && $CODE == 0 ]]; then
		ok "stderr unread: 400 calls of 400 answered in ${took} s, SIGTERM stopped it (exit 0)"
	else
		fail "stderr unread: $answered calls of 400 answered in ${took} s; on SIGTERM: exit $CODE"
	fi
else
	fail "the server did not listen"
fi
exec {ERR}<&-

# ------------------------------------------------------------------ bad-addr
STEP=bad-addr
codes=
for a in 'a b:80' 127.0.0.1 127.0.0.1:99999; do
	timeout 10 "$W" serve "$T/done.yaml" --http "$a" 2>/dev/null </dev/null
	codes+="${codes:+, }'$a' $?"
done
if [[ $codes == "'a b:80' 2, '127.0.0.1' 2, '127.0.0.1:99999' 2" ]]; then
	ok "--http $codes (usage)"
else
	fail "--http $codes; want 2 each"
fi

# ------------------------------------------------------------------ full-tmp
STEP=full-tmp
cp -r "$ROOT/mutants/testdata/fixture" "$T/fx"
# Binaries kept by earlier campaigns would spare the builds these steps
# break: the campaigns here keep theirs in a directory of their own.
export WAITSIM_SUITEBIN_DIR="$T/suitebin"
FX=(--root "$T/fx" --pkg ./calc/ --target ./calc/ --catalog catalog --config gremlins.yaml --equivalents none.yaml --no-operators --workers 1)
mkdir -p "$T/full"
if unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1m tmpfs "$1"' sh "$T/full" 2>/dev/null; then
	how="a 1 MiB tmpfs"
	timeout 60 unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1m tmpfs "$1" && shift && TMPDIR=$0 exec "$@"' \
		"$T/full" "$T/full" "$W" mutate "${FX[@]}" --progress off --only add-subtracts --cache "$T/full-cache.json" --out "$T/full.json" >"$T/full.out" 2>"$T/full.err"
	code=$?
else
	# A stand-in: the go command fails every test build as the linker does
	# on a full disk.
	how="a stand-in go command (no mount namespace here)"
	mkdir -p "$T/fakego"
	real_go=$(command -v go)
	cat >"$T/fakego/go" <<EOF
#!/bin/sh
case " \$* " in *" test -c "*) echo '# example.com/fixture/calc.test' >&2; echo 'link: mapping output file failed: no space left on device' >&2; exit 1;; esac
exec "$real_go" "\$@"
EOF
	chmod +x "$T/fakego/go"
	PATH="$T/fakego:$PATH" timeout 60 "$W" mutate "${FX[@]}" --progress off --only add-subtracts --cache "$T/full-cache.json" --out "$T/full.json" >"$T/full.out" 2>"$T/full.err"
	code=$?
fi
cached=$( [ -f "$T/full-cache.json" ] && jq '.entries | length' "$T/full-cache.json" || echo 0)
if [[ $code == 6 && $cached == 0 && ! -e $T/full.json ]] && grep -q 'environment error' "$T/full.err"; then
	timeout 60 "$W" mutate "${FX[@]}" --progress off --only add-subtracts --cache "$T/full-cache.json" --out "$T/full.json" >"$T/full2.out" 2>&1
	code2=$?
	verdicts=$(jq -r '[.mutants[] | "\(.id) \(.status)\(if .cached then " (cached)" else "" end)"] | join(", ")' "$T/full.json" 2>/dev/null)
	if [[ $code2 == 0 && $verdicts == *"add-subtracts killed"* && $verdicts != *cached* ]]; then
		ok "$how: exit 6 ($(grep -o 'no space left on device' "$T/full.err" | head -1)), nothing cached or written; with room: exit 0, $verdicts"
	else
		fail "$how: exit 6, nothing cached; with room: exit $code2, $verdicts: $(tail -c 300 "$T/full2.out")"
	fi
else
	fail "$how: exit $code, $cached cache entries, result $( [ -e "$T/full.json" ] && echo written || echo absent): $(head -c 400 "$T/full.err")"
fi

# marked NAME: the live processes (not zombies) whose environment holds
# FAULTS_MARK=NAME, the mark of a campaign and of everything it starts.
marked() {
	local p
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$$" ] && continue
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "FAULTS_MARK=$1" || continue
		grep -q ') Z ' "$p/stat" 2>/dev/null || echo "${p#/proc/} $({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | cut -c1-80)"
	done
}

# killgroup MARK PGID: SIGKILL to the process group PGID (its leader a child
# of this shell); sets LEFT to the processes of MARK still alive 5 s later
# (none: as soon as none is) and GONE to how long that took, in ms.
killgroup() {
	local i
	kill -KILL -- "-$2"
	wait "$2" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		LEFT=$(marked "$1")
		[ -z "$LEFT" ] && break
		sleep 0.05
	done
	GONE=$((i * 50))
}

# ------------------------------------------------------------- two-campaigns
STEP=two-campaigns
# The first campaign reaches its mutant that never ends (a 60 s timeout) and stays
# there; it runs in a process group of its own.
FAULTS_MARK=first setsid "$W" mutate "${FX[@]}" --progress plain --only sum-loops --timeout-floor 60s --mode overlay --no-cache --out "$T/first.json" >"$T/first.out" 2>"$T/first.err" &
FIRST=$!
PIDS+=("$FIRST")
GROUPS_+=("$FIRST")
for ((i = 0; i < 1200; i++)); do
	grep -q '^\[1/' "$T/first.err" 2>/dev/null && break
	kill -0 "$FIRST" 2>/dev/null || break
	sleep 0.05
done
if grep -q '^\[1/' "$T/first.err"; then
	t0=$SECONDS
	timeout 30 "$W" mutate "${FX[@]}" --progress off --only add-subtracts --no-cache --out "$T/second.json" >"$T/second.out" 2>"$T/second.err"
	code=$?
	if [[ $code == 6 && ! -e $T/second.json ]] && grep -q "pid $FIRST" "$T/second.err"; then
		ok "the second campaign refused in $((SECONDS - t0)) s, exit 6: $(head -c 160 "$T/second.err")…"
	else
		fail "the second campaign: exit $code, result $( [ -e "$T/second.json" ] && echo written || echo absent): $(head -c 300 "$T/second.err")"
	fi

	# ----------------------------------------------------------- sigkill-run
	STEP=sigkill-run
	busy=$(marked first | wc -l)
	killgroup first "$FIRST"
	dead=$(ls -d "$TMPDIR"/waitsim-* 2>/dev/null | wc -l)
	rm -f "$T/second.json"
	timeout 60 "$W" mutate "${FX[@]}" --progress off --only add-subtracts --no-cache --out "$T/second.json" >"$T/second.out" 2>"$T/second.err"
	code=$?
	remain=$(ls -d "$TMPDIR"/waitsim-* 2>/dev/null | wc -l)
	if [[ -z $LEFT && $code == 0 && $remain == 0 ]]; then
		ok "SIGKILL of its group while a mutant's test ran ($busy processes): none left after ${GONE} ms; the next campaign ran (exit 0) and removed the $dead run dir the killed one left"
	else
		fail "left ${GONE} ms after SIGKILL of the group: ${LEFT:-none}; the next campaign: exit $code ($(head -c 200 "$T/second.err")); waitsim-* left in the temp dir: $remain"
	fi
else
	fail "the first campaign did not reach its mutants: $(tail -c 400 "$T/first.err")"
	STEP=sigkill-run
	fail "no campaign to kill"
fi

# ----------------------------------------------------------- sigkill-build
STEP=sigkill-build
# A mutant's build starts a child and waits for it, as the go command waits
# for its compilers and linker (a stand-in go command: a real link is too
# short to hit).
mkdir -p "$T/buildgo"
real_go=$(command -v go)
cat >"$T/buildgo/go" <<EOF
#!/bin/sh
case " \$* " in *" test -c "*"-overlay="*) sleep 600 & echo \$! >"$T/grandchild.pid"; wait; exit 1;; esac
exec "$real_go" "\$@"
EOF
chmod +x "$T/buildgo/go"
FAULTS_MARK=build PATH="$T/buildgo:$PATH" setsid "$W" mutate "${FX[@]}" --progress off --only add-subtracts --mode overlay --no-cache --out "$T/build.json" >"$T/build.out" 2>"$T/build.err" &
BUILD=$!
PIDS+=("$BUILD")
GROUPS_+=("$BUILD")
for ((i = 0; i < 1200; i++)); do
	[ -s "$T/grandchild.pid" ] && break
	kill -0 "$BUILD" 2>/dev/null || break
	sleep 0.05
done
if [ -s "$T/grandchild.pid" ]; then
	PIDS+=("$(cat "$T/grandchild.pid")")
	busy=$(marked build | wc -l)
	killgroup build "$BUILD"
	if [ -z "$LEFT" ]; then
		ok "SIGKILL of its group while a mutant built ($busy processes, the build's child among them): none left after ${GONE} ms"
	else
		fail "SIGKILL of its group while a mutant built: alive ${GONE} ms later: $(echo "$LEFT" | tr '\n' ';')"
	fi
	# The next campaign removes the run dir the killed one left.
	timeout 60 "$W" mutate "${FX[@]}" --progress off --only add-subtracts --no-cache --out "$T/build.json" >"$T/build.out" 2>&1
else
	fail "no mutant build started: $(tail -c 400 "$T/build.err")"
fi

STEP=temp-dir
left=$(ls -d "$TMPDIR"/waitsim-* 2>/dev/null)
if [ -z "$left" ]; then
	ok "no waitsim-* left in the temp dir"
else
	fail "left in the temp dir: $left"
fi

echo "faults: $([ $FAILED = 0 ] && echo 'every step held' || echo 'a step FAILED') in $((SECONDS - START)) s"
exit $FAILED
