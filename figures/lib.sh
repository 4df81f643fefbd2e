# lib.sh — the shell helpers the figure steps share; sourced, not run.
# Every step runs from the repository root with F (the scratch directory,
# build/figures) and AVRR (an absolute path to avrr) in its environment.
set -eu
: "${F:?F names the scratch directory}" "${AVRR:?AVRR names the avrr binary}"

# say TEXT: progress on stderr.
say() { printf '[figures] %s\n' "$*" >&2; }

# sql DB QUERY: CSV with a header on stdout.
sql() { sqlite3 -bail -csv -header "$1" "$2"; }
# val DB QUERY: one bare value.
val() { sqlite3 -bail -list "$1" "$2"; }

# The median of column X over rows of Q, per group G (SQLite has no median).
# Usage in SQL text: $(median 'SELECT g, x FROM ...').  The subquery must
# name its columns g and x.
median() {
	printf '%s' "SELECT g, avg(x) AS median FROM (SELECT g, x,
		row_number() OVER (PARTITION BY g ORDER BY x) AS r,
		count(*) OVER (PARTITION BY g) AS n FROM ($1))
		WHERE r IN ((n + 1) / 2, (n + 2) / 2) GROUP BY g"
}

# paper_selector FW: the paper's selector for FW, as selector.sh wrote it.
paper_selector() { cat "$F/$1.sel"; }

# sweep OUT ARGS...: `avrr sweep ARGS -o OUT` in $F; with SWEEP_SHARDS=N,
# as N shards merged into OUT (docs/sweep.md), each started through
# $SWEEP_LAUNCH (a command prefix such as "srun -N1 -n1", all at once), or
# here one after another without it.  OUT appears only when complete.
sweep() {
	out=$1
	shift
	if [ -z "${SWEEP_SHARDS:-}" ]; then
		(cd "$F" && "$AVRR" sweep "$@" -o "$out.tmp")
		mv "$F/$out.tmp" "$F/$out"
		return
	fi
	k=1 parts="" pids=""
	while [ $k -le "$SWEEP_SHARDS" ]; do
		parts="$parts $out.$k"
		if [ -n "${SWEEP_LAUNCH:-}" ]; then
			(cd "$F" && $SWEEP_LAUNCH "$AVRR" sweep "$@" --shard $k/$SWEEP_SHARDS \
				-o "$out.$k") &
			pids="$pids $!"
		else
			(cd "$F" && "$AVRR" sweep "$@" --shard $k/$SWEEP_SHARDS -o "$out.$k")
		fi
		k=$((k + 1))
	done
	for pid in $pids; do
		wait "$pid"
	done
	# shellcheck disable=SC2086
	(cd "$F" && "$AVRR" sweep merge $parts -o "$out.tmp")
	mv "$F/$out.tmp" "$F/$out"
}
