#!/usr/bin/env bash
# Counts the project's own functions, files and packages one request runs.
#
# The gateway is built with coverage counters on every package of the
# module and run twice against mockupstream (an OpenAI-compatible server)
# as the provider "up". Run A sends one warm-up request; run B sends the
# warm-up and then the traced request. A counter block whose count is
# higher in B than in A ran for the traced request; the functions holding
# such blocks are the request's path. Start-up, shutdown and background
# work run in both runs and cancel out (a timer that fires in one run only
# can add a function or two: run it twice and take the lower figure).
#
# Usage: bench/tracepath/run.sh [ENDPOINT [BODY]]
# Default: a streamed /v1/messages request for model up/mock-chat.
# Prints the counts, then the functions with their file, to stdout.
#
# With TRACEPATH_MAX_FUNCS and TRACEPATH_MAX_FILES set (CI sets them), it
# also checks the path: it exits 1 when the request runs more functions
# or files than those, or looks its route up or waits for the gateway
# more than once.
set -euo pipefail
cd "$(dirname "$0")/../.."

endpoint=${1:-/v1/messages}
body=${2:-'{"model":"up/mock-chat","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hello there"}]}'}

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

go build -cover -covermode=atomic -coverpkg=github.com/modelgate/modelgate/... -o "$work/modelgate" ./cmd/modelgate
go build -o "$work/mockupstream" ./cmd/mockupstream

# free_port prints a loopback port that nothing listens on and that is not
# in $taken, below Linux's ephemeral range (32768 and up): a port there may
# be the local end of an outgoing connection, which a listener cannot bind.
taken=" "
free_port() {
	local p
	while :; do
		p=$((10000 + RANDOM % 20000))
		case $taken in *" $p "*) continue ;; esac
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}
up_port=$(free_port)
taken+="$up_port "
gw_port=$(free_port)
taken+="$gw_port "
admin_port=$(free_port)

"$work/mockupstream" -listen "127.0.0.1:$up_port" >"$work/mockupstream.log" 2>&1 &

cat >"$work/Caddyfile" <<CONF
{
	admin 127.0.0.1:$admin_port
	modelgate {
		storage $work/data/modelgate.db
		provider up {
			type openai
			api_key test-key
			base_url http://127.0.0.1:$up_port/v1
		}
	}
}
http://127.0.0.1:$gw_port {
	modelgate
}
CONF

# wait_up PORT PATH LOG: up to 60 s for the server on PORT to answer PATH
# with a success; when it does not, LOG's end goes to stderr.
wait_up() {
	for _ in $(seq 1200); do
		curl -sf -o /dev/null "http://127.0.0.1:$1$2" && return 0
		sleep 0.05
	done
	echo "server on port $1 did not answer $2 within 60 s; the end of its log:" >&2
	tail -n 20 "$3" >&2
	return 1
}
wait_up "$up_port" /v1/models "$work/mockupstream.log"

request() {
	curl -sf -o /dev/null -N "http://127.0.0.1:$gw_port$endpoint" \
		-H 'Content-Type: application/json' -H 'anthropic-version: 2023-06-01' -d "$body"
}

# run DIR N: start the gateway with coverage into DIR, send N requests, stop.
run() {
	mkdir -p "$1"
	rm -rf "$work/data"
	GOCOVERDIR="$1" "$work/modelgate" run --config "$work/Caddyfile" --adapter caddyfile >"$work/gateway.log" 2>&1 &
	local pid=$!
	wait_up "$gw_port" /v1/models "$work/gateway.log"
	for _ in $(seq "$2"); do request; done
	kill -INT "$pid"
	wait "$pid" || true
}
run "$work/a" 1
run "$work/b" 2

go tool covdata textfmt -i="$work/a" -o "$work/a.txt"
go tool covdata textfmt -i="$work/b" -o "$work/b.txt"

# The traced request's profile: each block counted by how much more it ran
# in B than in A.
awk 'NR == FNR { if (FNR > 1) a[$1 " " $2] += $3; next }
     FNR == 1 { print; next }
     { k = $1 " " $2; b[k] += $3 }
     END { for (k in b) { d = b[k] - a[k]; print k, (d > 0 ? d : 0) } }' \
	"$work/a.txt" "$work/b.txt" >"$work/trace.txt"

go tool cover -func="$work/trace.txt" | awk '$1 != "total:" && $NF != "0.0%" { print $1, $2 }' |
	sed 's/:[0-9]*:$//; s/:[0-9]*:\t/ /' | sort -u >"$work/funcs.txt"

funcs=$(wc -l <"$work/funcs.txt")
files=$(awk '{ sub(/:.*/, "", $1); print $1 }' "$work/funcs.txt" | sort -u | wc -l)
pkgs=$(awk '{ sub(/\/[^\/]*$/, "", $1); print $1 }' "$work/funcs.txt" | sort -u | wc -l)
# How often the traced request ran a function: the count of the block that
# opens its body (the block starting on the line the function is declared).
calls() {
	local file=$1 name=$2 line
	line=$(go tool cover -func="$work/trace.txt" | awk -v f="$file" -v n="$name" '!done && index($1, f ":") == 1 && $2 == n { split($1, a, ":"); print a[2]; done = 1 }')
	awk -v f="$file" -v l="$line" 'index($1, f ":" l ".") == 1 { print $NF; found = 1; exit } END { if (!found) print 0 }' "$work/trace.txt"
}
lookups=$(calls github.com/modelgate/modelgate/internal/request/routes/lookup.go Lookup)
waits=$(calls github.com/modelgate/modelgate/internal/glue/caddymodule/runtime.go Ready)
echo "request: POST $endpoint"
echo "own functions: $funcs in $files files and $pkgs packages"
echo "route lookups: $lookups"
echo "readiness waits: $waits"
cat "$work/funcs.txt"

if [ -n "${TRACEPATH_MAX_FUNCS:-}" ] || [ -n "${TRACEPATH_MAX_FILES:-}" ]; then
	fail=""
	if [ "$funcs" -gt "${TRACEPATH_MAX_FUNCS:-$funcs}" ]; then
		fail+=" $funcs functions (at most $TRACEPATH_MAX_FUNCS);"
	fi
	if [ "$files" -gt "${TRACEPATH_MAX_FILES:-$files}" ]; then
		fail+=" $files files (at most $TRACEPATH_MAX_FILES);"
	fi
	if [ "$lookups" -ne 1 ]; then fail+=" $lookups route lookups (1);"; fi
	if [ "$waits" -ne 1 ]; then fail+=" $waits readiness waits (1);"; fi
	if [ -n "$fail" ]; then
		echo "the traced request's path grew:$fail" >&2
		exit 1
	fi
fi
