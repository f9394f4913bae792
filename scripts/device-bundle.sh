#!/usr/bin/env bash
# Packs what the GPU device machine needs to run hstorm's GPU checks. That
# machine has no Node and no package registry, and one call carries at most
# 64 MiB, so we carry:
#   .device/node.xz               this machine's node binary, xz-compressed (~24 MB)
#   .device/node_modules.tar.xz   production node_modules, other platforms' binaries removed
#   .device/webgpu-debs/*.deb     Debian 13's libc6, libstdc++6, libgcc-s1 and Debian's patchelf:
#                                 Dawn needs glibc ≥ 2.38; where the device's is older,
#                                 scripts/webgpu-runtime.sh --debs builds the private runtime from them
#   .device/tool-debs/xz-utils_*.deb  xz, to unpack the two above where the image has none (Debian's
#                                 minbase and Ubuntu's container images have only liblzma)
#   .gl/*.deb                     the Vulkan/GL loaders for amd64 (Dawn needs libvulkan1), unpacked
#                                 on the device only where its image has no loader of its own
# and dist/ (built here). On the device (carry: .device, .gl, dist):
#   bash scripts/device-first-run.sh      (records the image's Vulkan loader and ICDs, then
#                                          scripts/device-gpu-checks.sh unpacks all this and runs
#                                          the GPU benchmarks into $OUT)
# scripts/device-bundle-proof.sh proves the bundle alone is enough, in a bare Debian root.
# Usage: bash scripts/device-bundle.sh   (run from anywhere; needs xz, apt-get)
set -euo pipefail
cd "$(dirname "$0")/.."
# In a worktree .git is a file: ask git where the exclude file is.
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.device/' "$exclude" 2>/dev/null || echo '/.device/' >> "$exclude"
grep -qx '/.gl/' "$exclude" 2>/dev/null || echo '/.gl/' >> "$exclude"
mkdir -p .device .gl

npm run build --silent
xz -T0 -6 -c "$(command -v node)" > .device/node.xz

# Production dependencies only, in a scratch copy, pruned of binaries for other platforms.
# `npm ci`: exactly the locked versions, and it never writes a lock file (the committed one is only read, copied).
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp package.json package-lock.json "$stage"/
(cd "$stage" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --silent)
find "$stage/node_modules" \( -path '*/prebuilds/darwin*' -o -path '*/prebuilds/win32*' -o -path '*/prebuilds/android*' \
  -o -path '*/prebuilds/linux-arm*' -o -path '*/build/darwin*' -o -path '*/build/win32*' -o -name 'darwin-*.node' -o -name 'win32-*.node' \) -prune -exec rm -rf {} +
rm -rf "$stage/node_modules/@esbuild" "$stage/node_modules/esbuild" "$stage/node_modules/zeromq/src" "$stage/node_modules/zeromq/script"
tar -C "$stage" -cJf .device/node_modules.tar.xz node_modules

# The Vulkan and GL loaders (amd64), as the device README describes.
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64 -oAPT::Sandbox::User=root'
mkdir -p /tmp/amd64/partial
# shellcheck disable=SC2086
apt-get $o update -qq
rm -f .gl/*.deb
# shellcheck disable=SC2086
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
rm -rf .device/tool-debs && mkdir -p .device/tool-debs
# shellcheck disable=SC2086
(cd .device/tool-debs && apt-get $o download xz-utils >/dev/null)

# Dawn's glibc: Debian 13's libc for devices older than glibc 2.38, and patchelf to point a node copy at it.
rm -rf .device/webgpu-debs && mkdir -p .device/webgpu-debs /tmp/hstorm-trixie/lists/partial /tmp/hstorm-trixie/cache/archives/partial
echo 'deb http://deb.debian.org/debian trixie main' > /tmp/hstorm-trixie/sources.list
t=(-o Dir::Etc::SourceList=/tmp/hstorm-trixie/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=/tmp/hstorm-trixie/lists
  -o Dir::Cache=/tmp/hstorm-trixie/cache -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root)
apt-get "${t[@]}" update -qq
(cd .device/webgpu-debs && apt-get "${t[@]}" download libc6 libstdc++6 libgcc-s1 >/dev/null)
# shellcheck disable=SC2086
(cd .device/webgpu-debs && apt-get $o download patchelf >/dev/null)

du -sh .device/* .gl dist | sed 's/^/  /'
# The device call carries the working tree too (tracked and untracked-not-ignored files): it counts towards 64 MiB.
tree=$(git ls-files -co --exclude-standard -z | du -cb --files0-from=- | tail -1 | cut -f1)
carried=$(du -cb .device .gl dist | tail -1 | cut -f1)
echo "bundle (.device, .gl, dist): $((carried / 1048576)) MiB; with the working tree: $(((carried + tree) / 1048576)) MiB (a call carries at most 64 MiB)"
[ $((carried + tree)) -le $((64 * 1048576)) ] || { echo "too large for one device call: prune node_modules further or carry less" >&2; exit 1; }
