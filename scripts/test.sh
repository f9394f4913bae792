#!/usr/bin/env bash
# `npm test`: build, make sure a ZooKeeper, a chromium and the connectors'
# servers (Redis) are installed for the integration suite (Debian's
# `zookeeper`, `chromium` and `redis-server` packages; installed here when
# missing and we are root), prepare the WebGPU runtime
# (scripts/webgpu-runtime.sh: Dawn and a software Vulkan adapter, so the
# WebGPU path runs on every commit), then run every mocha suite and the core of
# the fault suite. Needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d /usr/share/zookeeper ] && [ -z "${ZOOKEEPER_HOME:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ZooKeeper (Debian package 'zookeeper') for the integration tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
  else
    echo "ZooKeeper is missing: run 'sudo apt-get install zookeeper' (or set ZOOKEEPER_HOME)" >&2
    exit 1
  fi
fi

# The web UI test drives Debian's chromium (playwright-core, no browser download).
if ! command -v chromium >/dev/null && [ -z "${HSTORM_CHROMIUM:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing chromium (Debian package 'chromium') for the web UI test..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: run 'sudo apt-get install chromium' (or set HSTORM_CHROMIUM to a chromium binary)" >&2
    exit 1
  fi
fi

# The connector tests and the state store's tests start their own Redis (test/helpers/servers/redis.ts).
# Installing it adds ~8 s to a fresh machine (~0.15 s to start one); the package's own service is not used.
if ! command -v redis-server >/dev/null && [ -z "${REDIS_SERVER:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Redis (Debian package 'redis-server') for the integration tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "redis-server is missing: run 'sudo apt-get install redis-server' (or set REDIS_SERVER to a redis-server binary)" >&2
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
# nimbus, ~3 min under load — and `npm run test:faults` runs every fault. Skipped when mocha was given its own arguments.
if [ $# -eq 0 ]; then
  npx mocha --no-config --timeout 600000 --exit --fgrep '(core)' 'dist/test/faults/**/*.test.js'
fi
