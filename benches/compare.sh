#!/usr/bin/env bash
# Side by side: Wyrd's tick against bonsai-bt 0.14 and, when
# benches/peers/bevy_behave exists and builds, bevy_behave 0.5 (bevy 0.18), on
# the reference tree and load (BENCH_REFERENCE.md). Builds everything in
# release, runs the criterion groups and the bevy_behave peer in rounds (ours
# and theirs alternate within each round, so machine speed drifts hit both),
# and prints one markdown table: per agent count the peers, Wyrd's runtime
# alone and Wyrd's full plugin path (one compute thread; at 100,000 also two),
# in ns per agent-tick (best median over the rounds), and the ratios (the
# peer's figure over Wyrd's plugin path).
#
#   benches/compare.sh [ROUNDS]     (default 2)
#
# The bevy_behave peer is a cargo project of its own (a second bevy build,
# long the first time) built into $target/peers; if it fails to build or run,
# its columns show "-" and a line says why.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
target="${CARGO_TARGET_DIR:-target}"
crit="$target/criterion"
sizes="1000 10000 100000"

cargo bench -p wyrd_bt --no-run >/dev/null 2>&1 || cargo bench -p wyrd_bt --no-run

# The bevy_behave peer (optional).
peer_dir=benches/peers/bevy_behave
peer_bin=""
peer_note=""
if [ -d "$peer_dir" ]; then
  mkdir -p "$target/peers"
  peer_log="$target/peers/build.log"
  echo "building the bevy_behave peer (bevy 0.18; log: $peer_log) ..." >&2
  if cargo build --release --manifest-path "$peer_dir/Cargo.toml" \
      --target-dir "$target/peers" >"$peer_log" 2>&1; then
    peer_bin="$target/peers/release/wyrd-peer-bevy-behave"
  else
    tail -n 20 "$peer_log" >&2 || true
    peer_note="bevy_behave 0.5: the peer failed to build, not compared (log: $peer_log)"
  fi
else
  peer_note="bevy_behave 0.5: not built here (see BENCHMARKS.md)"
fi

declare -A best
declare -A behave_done
have_done=false
median_ns() { # group size -> median ns per iteration
  python3 - "$crit/$1/$2/new/estimates.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["median"]["point_estimate"])
PY
}
keep_best() { # key value
  if [ -z "${best[$1]:-}" ] || python3 -c "import sys; sys.exit(0 if $2 < ${best[$1]} else 1)"; then
    best[$1]=$2
  fi
}

for round in $(seq 1 "$rounds"); do
  for n in $sizes; do
    for group in runtime bonsai plugin; do
      cargo bench -p wyrd_bt --bench tick -- --noplot "^$group/$n\$" >/dev/null 2>&1
      ns=$(median_ns "$group" "$n")
      per=$(python3 -c "print($ns / $n)")
      keep_best "$group/$n" "$per"
    done
  done
  # The 30 Hz budget: 100,000 agents, full plugin path, both cores.
  cargo bench -p wyrd_bt --bench tick -- --noplot "^plugin_both_cores/100000\$" >/dev/null 2>&1
  keep_best "both/100000" "$(median_ns plugin_both_cores 100000)"
  if [ -n "$peer_bin" ]; then
    # One line per size: bevy_behave N ns_per_agent_tick completed allocs heap
    # shellcheck disable=SC2086
    if out=$("$peer_bin" $sizes 2>/dev/null); then
      while read -r lib n per done_per _; do
        [ "$lib" = bevy_behave ] || continue
        keep_best "behave/$n" "$per"
        behave_done[$n]=$done_per
        have_done=true
      done <<<"$out"
    else
      peer_note="bevy_behave 0.5: the peer's run failed (round $round), not compared"
      peer_bin=""
    fi
  fi
done

both=${best[both/100000]}

# One table, as issue 18 asks: ns per agent-tick, best median of the rounds;
# the ratios are the peer's figure over Wyrd's in the same run.
fmt() { python3 -c "import sys; v=float(sys.argv[1]); print(f'{v:,.1f}')" "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.1f}x')" "$1" "$2"; }
echo "| N | bonsai-bt 0.14 | bevy_behave 0.5 | Wyrd runtime | Wyrd plugin, 1 thread | plugin vs bonsai-bt | plugin vs bevy_behave |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
  r=${best[runtime/$n]}
  p=${best[plugin/$n]}
  t=${best[bonsai/$n]}
  b=${best[behave/$n]:-}
  extra=""
  if [ "$n" = 100000 ]; then
    extra="; 2 threads $(fmt "$(python3 -c "print($both / 100000)")") ($(python3 -c "print(f'{$both / 1e6:.2f}')") ms per tick, $(python3 -c "print(f'{$p * 100000 / $both:.2f}')")x one thread)"
  fi
  if [ -n "$b" ]; then
    echo "| $n | $(fmt "$t") | $(fmt "$b") | $(fmt "$r") | $(fmt "$p")$extra | $(ratio "$t" "$p") | $(ratio "$b" "$p") |"
  else
    echo "| $n | $(fmt "$t") | - | $(fmt "$r") | $(fmt "$p")$extra | $(ratio "$t" "$p") | - |"
  fi
done
if $have_done; then
  line="bevy_behave completed actions per agent-tick (last round; non-reactive tree):"
  for n in $sizes; do
    line="$line $n: ${behave_done[$n]:--}"
  done
  echo "$line"
fi
if [ -n "$peer_note" ]; then
  echo "$peer_note"
fi
