#!/usr/bin/env bash
# What CI runs on the LTS Node lines, besides the whole suite (`npm test`) on
# the machine's node: under each line (scripts/with-node.sh fetches it), with
# the node_modules installed here (zeromq and msgpackr-extract load through
# N-API, so the same build serves every line):
#   - the unit suite;
#   - the README's runs: a short local word count, the matmul main job, and
#     a .ts topology module given by path (examples/matmul/cpu.ts), each
#     checked for acked tuples and none failed;
#   - the suite's test of a TypeScript module from outside the package
#     (esbuild bundle, stack traces at its .ts lines);
#   - the WebGPU smoke test (test/integration/webgpu.test.ts: Dawn on Mesa's
#     software adapter, under the node scripts/webgpu-runtime.sh patches for
#     that line; reported pending, with why, where it cannot be prepared).
# Usage: bash scripts/test-lts.sh [MAJOR...]     (default: 26 24 — the active and the maintenance LTS)
# Took 3 min 40 s for 26 and 24 together on the 2-core dev machine, beside other builds (2026-11-25).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --on-this-node ]]; then
  # One line's checks, run by the loop below under scripts/with-node.sh.
  echo "=== Node $(node --version): unit suite"
  npx mocha --no-config --timeout 60000 --exit 'dist/test/unit/**/*.test.js' --reporter dot

  # `hstorm local … --json`; fails unless tuples were acked and none failed.
  run_local() {
    local what=$1
    shift
    echo "=== Node $(node --version): hstorm local $what $*"
    local out
    out=$(npx hstorm local "$what" --json "$@")
    printf '%s\n' "$out" | tail -n 1 | node -e '
      let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
        const r = JSON.parse(s);
        console.log(`    ${r.topology}: ${r.acked} acked, ${r.failed} failed, ${r.throughputPerSec}/s`);
        if (!(r.acked > 0) || r.failed !== 0) { console.error(`    expected acked tuples and none failed`); process.exit(1); }
      });'
  }
  run_local examples/word-count --duration 5
  run_local examples/matmul --duration 10
  run_local examples/matmul/cpu.ts --duration 5 -c matmul.dim=32

  echo "=== Node $(node --version): a TypeScript module from outside the package"
  npx mocha --no-config --timeout 60000 --exit dist/test/integration/local-mode.test.js --grep 'TypeScript module'
  echo "=== Node $(node --version): WebGPU smoke test"
  npx mocha --no-config --timeout 180000 --exit dist/test/integration/webgpu.test.js
  exit 0
fi

majors=("$@")
[[ ${#majors[@]} -gt 0 ]] || majors=(26 24)
npm run build --silent
for m in "${majors[@]}"; do
  start=$SECONDS
  bash scripts/with-node.sh "$m" bash "$0" --on-this-node
  echo "=== Node $m: passed in $((SECONDS - start)) s"
done
