#!/usr/bin/env bash
# Side by side: Wyrd's tick against bonsai-bt 0.14 on the reference tree and
# load (BENCH_REFERENCE.md). Builds everything in release, runs the criterion
# groups in rounds (ours and theirs alternate within each round, so machine
# speed drifts hit both), and prints one line per case: ours, theirs, ratio,
# in ns per agent-tick (best median over the rounds).
#
#   benches/compare.sh [ROUNDS]     (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
target="${CARGO_TARGET_DIR:-target}"
crit="$target/criterion"

cargo bench -p wyrd_bt --no-run >/dev/null 2>&1 || cargo bench -p wyrd_bt --no-run

declare -A best
median_ns() { # group size -> median ns per iteration
  python3 - "$crit/$1/$2/new/estimates.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["median"]["point_estimate"])
PY
}

for round in $(seq 1 "$rounds"); do
  for n in 1000 10000 100000; do
    for group in runtime bonsai plugin; do
      cargo bench -p wyrd_bt --bench tick -- --noplot "^$group/$n\$" >/dev/null 2>&1
      ns=$(median_ns "$group" "$n")
      per=$(python3 -c "print($ns / $n)")
      key="$group/$n"
      if [ -z "${best[$key]:-}" ] || python3 -c "import sys; sys.exit(0 if $per < ${best[$key]} else 1)"; then
        best[$key]=$per
      fi
    done
  done
done

printf '%-22s %14s %14s %10s\n' "case (ns/agent-tick)" "wyrd" "bonsai-bt" "ratio"
for n in 1000 10000 100000; do
  for ours in runtime plugin; do
    o=${best[$ours/$n]}
    t=${best[bonsai/$n]}
    printf '%-22s %14.1f %14.1f %9.1fx\n' "$ours/$n" "$o" "$t" "$(python3 -c "print($t / $o)")"
  done
done
if [ ! -d benches/peers/bevy_behave ]; then
  echo "bevy_behave 0.5: not built here (see BENCHMARKS.md)"
fi
