#!/usr/bin/env bash
# Side-by-side A/B of one benchmark on two builds of hstorm: runs it on the
# "before" checkout, then the "after" one, N times in turn, so each pair sees
# the same moment of a shared machine (single runs swing ±50 % here). Each
# checkout must be built (npm run build). One JSON line per run on stdout.
#   bash scripts/bench-ab.sh <before-dir> <after-dir> <bench> [pairs=3] [bench args...]
# e.g. git worktree add ../before <commit> && (cd ../before && npm ci && npm run build)
#      bash scripts/bench-ab.sh ../before . transport 5
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: bash scripts/bench-ab.sh <before-dir> <after-dir> <bench> [pairs=3] [bench args...]" >&2
  exit 2
fi
before=$1 after=$2 bench=$3 pairs=${4:-3}
shift $(( $# < 4 ? $# : 4 ))
for dir in "$before" "$after"; do
  [ -f "$dir/dist/bench/main.js" ] || { echo "$dir: no dist/bench/main.js (run npm run build there)" >&2; exit 2; }
done
for i in $(seq 1 "$pairs"); do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    # Some benches print their JSON over several lines: one line per run here.
    out=$(cd "$dir" && node dist/bench/main.js "$bench" --json "$@" | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.stringify(JSON.parse(s))))')
    echo "{\"pair\":$i,\"side\":\"$side\",\"at\":\"$(date +%T)\",\"result\":$out}"
  done
done
