#!/usr/bin/env bash
# `npm test`: build, make sure a ZooKeeper, a chromium and the connectors'
# servers (Redis, PostgreSQL, RabbitMQ) are installed for the integration
# suite (Debian's packages; installed here when missing and we are root),
# prepare the WebGPU runtime
# (scripts/webgpu-runtime.sh: Dawn and a software Vulkan adapter, so the
# WebGPU path runs on every commit), then run every mocha suite and the core of
# the fault suite. Needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

# The integration suite's servers, each started by the tests on a free port in a temporary directory:
# ZooKeeper (test/helpers/zookeeper.ts), chromium for the web UI (playwright-core, no browser download), and the
# connectors' Redis, PostgreSQL and RabbitMQ (test/helpers/servers/). What is missing is installed in one apt-get
# run. Measured on the 2-core dev machine with the .debs cached (2026-11-25): redis-server 7 s, rabbitmq-server with
# its Erlang 7 s, postgresql 10 s (timed as a reinstall); to download ~1, 33 and 18 MB. Starting one per test file:
# Redis 0.15 s, PostgreSQL 0.9 s with its initdb, RabbitMQ 4-8 s. The packages' own services are not used. The tests
# that use them (test-servers, connectors, connectors-exact-count, connector-bolts, example-redis-to-postgres) take
# ~3 min together on the 2-core machine at load average 10.
missing=()
hints=()
need() { # need PACKAGE HINT: the package is missing; HINT says how to point the tests at another installation
  missing+=("$1")
  hints+=("$2")
}
[ -d /usr/share/zookeeper ] || [ -n "${ZOOKEEPER_HOME:-}" ] || need zookeeper "or set ZOOKEEPER_HOME"
command -v chromium >/dev/null || [ -n "${HSTORM_CHROMIUM:-}" ] || need chromium "or set HSTORM_CHROMIUM to a chromium binary"
command -v redis-server >/dev/null || [ -n "${REDIS_SERVER:-}" ] || need redis-server "or set REDIS_SERVER to a redis-server binary"
[ -d /usr/lib/postgresql ] || [ -n "${PG_BIN:-}" ] || need postgresql "or set PG_BIN to PostgreSQL's bin directory"
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || [ -n "${RABBITMQ_SCRIPTS:-}" ] ||
  need rabbitmq-server "or set RABBITMQ_SCRIPTS to the directory of its rabbitmq-server script"
# iptables, for the partition trials (test/faults/partition.test.ts, link-heal.test.ts): they cut links with rules inside
# network namespaces, which needs root; without root they are skipped with the reason printed, so only root needs it.
# libnetfilter-queue1 (and python3) for the slow-link trial's NFQUEUE delayer (test/faults/nfqueue-delayer.py), which
# `npm run test:faults` runs; ~30 KB.
if [ "$(id -u)" = 0 ]; then
  command -v iptables >/dev/null || need iptables "or run as non-root to skip the partition trials"
  ldconfig -p | grep libnetfilter_queue.so.1 >/dev/null || need libnetfilter-queue1 "or the slow-link trial is skipped"
  command -v python3 >/dev/null || need python3 "or the slow-link trial is skipped"
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${missing[*]} (Debian packages) for the integration tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    for i in "${!missing[@]}"; do
      echo "${missing[$i]} is missing: run 'sudo apt-get install ${missing[$i]}' (${hints[$i]})" >&2
    done
    exit 1
  fi
fi

# The WebGPU tests run under the node this prints; when it cannot be prepared they are reported pending, with why.
if webgpu_node=$(bash scripts/webgpu-runtime.sh --software-adapter); then
  echo "WebGPU runtime: $webgpu_node"
else
  echo "WebGPU runtime unavailable: the WebGPU tests will be reported pending (see the reason above)"
fi

npm run build --silent
npx mocha "$@"

# The exact-count fault suite (test/faults/, docs/faults.md) takes ~6 min in all on a 2-core machine, too long for
# every CI run: `npm test` runs its core subset — bad input on every port and in znodes, kill -9 of a worker and of
# nimbus, ~3 min under load, plus (as root, with namespaces) a worker link healing across an iptables cut (~15 s) and
# node C of three cut off for 15 s (~1 min) — and `npm run test:faults` runs every fault and partition. Skipped when mocha was given its own arguments.
if [ $# -eq 0 ]; then
  npx mocha --no-config --timeout 600000 --exit --fgrep '(core)' 'dist/test/faults/**/*.test.js'
fi
