#!/usr/bin/env bash
# Proves, without a GPU, that what scripts/device-bundle.sh packs is all a GPU machine needs. It
#   1. builds the bundle (unless --keep-bundle),
#   2. makes a fresh bare Debian root with debootstrap (minbase: no Node, no npm, no xz, no Vulkan loader),
#   3. gives that root only Mesa's software Vulkan driver (lavapipe) as the stand-in for the GPU's ICD — its loader,
#      libvulkan1, purged again so that the carried one must do,
#   4. copies in what a device call carries (the working tree's tracked and untracked-not-ignored files, then
#      dist, .device and .gl),
#   5. runs scripts/device-first-run.sh in it with chroot, in a fresh network namespace (loopback only: no registry),
# and checks: no Node, npm or xz in the root beforehand; the carried loader and xz were unpacked; WebGPU ran, on the
# software adapter, and every output calls it a software adapter, never a GPU (summary.txt's verdict); every benchmark
# wrote its result; $OUT holds no more than the 8 files a device call brings back. The timings and sizes go to <out>/proof.txt. Not part of `npm test`: it needs root, debootstrap,
# the Debian mirror and a few minutes.
#
# Usage (root): bash scripts/device-bundle-proof.sh [--suite bookworm] [--root DIR] [--out DIR] [--keep-bundle] [--full]
#   --suite  the Debian release of the bare root (bookworm: glibc 2.36, so Dawn needs the carried runtime — the
#            harder case; trixie has 2.41)
#   --root   where the bare root is made (default /tmp/hstorm-bare-root; replaced on every run)
#   --full   the checks without --quick (as a GPU machine would run them; slower on a CPU)
set -euo pipefail
cd "$(dirname "$0")/.."
suite=bookworm
root=/tmp/hstorm-bare-root
out=/tmp/hstorm-bundle-proof
keep_bundle=0
quick=--quick
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) suite=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep-bundle) keep_bundle=1; shift ;;
    --full) quick=; shift ;;
    *) echo "unknown argument '$1' (allowed: --suite NAME, --root DIR, --out DIR, --keep-bundle, --full)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
for c in debootstrap unshare chroot ip; do command -v "$c" >/dev/null || { echo "needs $c (apt-get install debootstrap iproute2 util-linux)" >&2; exit 2; }; done
root=$(realpath -m "$root")
[ "$root" != / ] || { echo "--root / would replace this machine's root" >&2; exit 2; }

declare -A took
step() { echo "== $*"; step_start=$SECONDS; }
lap() { took[$1]=$((SECONDS - step_start)); }

unmount_root() { { grep -o " $root/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done; }
trap unmount_root EXIT

if [ "$keep_bundle" = 0 ] || [ ! -f .device/node.xz ] || [ ! -d .device/tool-debs ]; then
  step "device-bundle.sh"
  bash scripts/device-bundle.sh
  lap bundle
fi
bundle_bytes=$(du -cb .device .gl dist | tail -1 | cut -f1)
tree_bytes=$(git ls-files -co --exclude-standard -z | du -cb --files0-from=- | tail -1 | cut -f1)

# A fresh root every time: an earlier proof unpacked the loader and node into it.
unmount_root
if [ -e "$root" ]; then
  [ -e "$root/.hstorm-bare-root" ] || { echo "$root exists and was not made by this script: choose another --root" >&2; exit 2; }
  if grep -q " $root/" /proc/mounts; then echo "$root still has mounts: unmount them first" >&2; exit 2; fi
  rm -rf "$root"
fi
step "debootstrap $suite (minbase) into $root"
debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >/dev/null
touch "$root/.hstorm-bare-root"
lap debootstrap
# rslave: unmounting the root's copies later must not reach this machine's /dev and /sys.
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"

step "the stand-in for the GPU's driver: lavapipe, without its loader"
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers >/dev/null
chroot "$root" dpkg --force-depends --purge libvulkan1 >/dev/null 2>&1
chroot "$root" apt-get clean
lap driver

echo "== the bare root has no Node, npm, xz or Vulkan loader"
for c in node nodejs npm xz; do
  if chroot "$root" sh -c "command -v $c"; then echo "FAIL: $c is in the bare root" >&2; exit 1; fi
done
if chroot "$root" sh -c 'ldconfig -p | grep "libvulkan\.so"'; then echo "FAIL: the bare root has a Vulkan loader" >&2; exit 1; fi
ls "$root"/usr/share/vulkan/icd.d/

step "copying what a device call carries"
mkdir -p "$root/hstorm" "$root/out"
git ls-files -co --exclude-standard -z | tar --null -cT - | tar -x -C "$root/hstorm"
cp -a dist .device .gl "$root/hstorm/"
lap copy

step "device-first-run.sh ${quick:-(full)} in the bare root, no network"
rc=0
unshare -n sh -c "ip link set lo up && chroot '$root' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root OUT=/out bash /hstorm/scripts/device-first-run.sh $quick" || rc=$?
lap first_run
unmount_root

rm -rf "$out" && cp -a "$root/out" "$out"
echo "== results in $out (device-first-run.sh exit $rc)"
fail=0
check() { if grep -q "$2" "$out/$1"; then echo "ok: $3"; else echo "FAIL: $3 ($1 has no '$2')"; fail=1; fi; }
check machine.txt 'none: the carried libvulkan1' "the preflight found no Vulkan loader in the image"
check machine.txt 'lvp_icd.*software (Mesa lavapipe): a CPU, not a GPU' "the preflight labels lavapipe's ICD a CPU"
check log.txt 'unpacking libvulkan1' "the carried Vulkan loader was unpacked"
check log.txt 'using the carried xz-utils' "the carried xz unpacked node"
check summary.txt '^WebGPU adapter: webgpu (software adapter: .*NOT a GPU' "WebGPU ran on the software adapter, labelled not a GPU"
check summary.txt '^verdict: the checks ran, on no GPU' "summary.txt: no problem, no GPU claimed"
for b in gpu-bolt bolt-latency hybrid-vs-single windows; do check summary.txt "^$b: [1-9][0-9]* rows" "$b.json has rows"; done
n=$(find "$out" -type f | wc -l)
if [ "$n" -le 8 ]; then echo "ok: $n files in \$OUT (a device call brings back 8 at most)"; else echo "FAIL: $n files in \$OUT, a device call brings back 8"; fail=1; fi
[ "$rc" = 0 ] && echo "ok: device-first-run.sh exited 0" || { echo "FAIL: device-first-run.sh exited $rc"; fail=1; }

{
  echo "suite: $suite; checks: ${quick:-full}"
  echo "bundle (.device, .gl, dist): $((bundle_bytes / 1048576)) MiB ($bundle_bytes bytes); working tree: $((tree_bytes / 1048576)) MiB; one call carries at most 64 MiB"
  for k in bundle debootstrap driver copy first_run; do if [ -n "${took[$k]:-}" ]; then echo "$k: ${took[$k]} s"; fi; done
  echo "total: $SECONDS s"
} | tee "$out/proof.txt"
[ "$fail" = 0 ] && echo "PROOF PASSED: the bundle alone ran the GPU checks in a bare $suite root, on the software adapter (not a GPU)" || echo "PROOF FAILED"
exit "$fail"
