#!/usr/bin/env bash
# Packs what the GPU device machine needs to run hstorm's GPU checks. That
# machine has no Node and no package registry, and one call carries at most
# 64 MiB, so we carry:
#   .device/node.xz               this machine's node binary, xz-compressed (~24 MB)
#   .device/node_modules.tar.xz   production node_modules, other platforms' binaries removed
#   .gl/*.deb                     the Vulkan/GL loaders for amd64 (Dawn needs libvulkan1)
# and dist/ (built here). On the device (carry: .device, .gl, dist):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   xz -dc .device/node.xz > /tmp/node && chmod +x /tmp/node
#   tar -xJf .device/node_modules.tar.xz
#   /tmp/node dist/bench/main.js gpu-bolt --json > $OUT/gpu-bolt.json
# Usage: bash scripts/device-bundle.sh   (run from anywhere; needs xz, apt-get)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .git/info
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
grep -qx '/.gl/' .git/info/exclude 2>/dev/null || echo '/.gl/' >> .git/info/exclude
mkdir -p .device .gl

npm run build --silent
xz -T0 -6 -c "$(command -v node)" > .device/node.xz

# Production dependencies only, in a scratch copy, pruned of binaries for other platforms.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp package.json package-lock.json "$stage"/
(cd "$stage" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --silent)
find "$stage/node_modules" \( -path '*/prebuilds/darwin*' -o -path '*/prebuilds/win32*' -o -path '*/prebuilds/android*' \
  -o -path '*/prebuilds/linux-arm*' -o -path '*/build/darwin*' -o -path '*/build/win32*' -o -name 'darwin-*.node' -o -name 'win32-*.node' \) -prune -exec rm -rf {} +
rm -rf "$stage/node_modules/@esbuild" "$stage/node_modules/esbuild" "$stage/node_modules/zeromq/src" "$stage/node_modules/zeromq/script"
tar -C "$stage" -cJf .device/node_modules.tar.xz node_modules

# The Vulkan and GL loaders (amd64), as the device README describes.
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial
# shellcheck disable=SC2086
apt-get $o update -qq
# shellcheck disable=SC2086
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)

du -sh .device/* .gl dist | sed 's/^/  /'
echo "total to carry (must stay under 64 MiB): $(du -cm .device .gl dist | tail -1 | cut -f1) MiB"
