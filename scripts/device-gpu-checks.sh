#!/usr/bin/env bash
# Runs on a GPU machine lent by the `device` tool, from what
# scripts/device-bundle.sh packed (carry: .device, .gl, dist): unpacks node,
# node_modules and — only where the image has none — the Vulkan loader and xz,
# prepares Dawn's glibc when the machine's is older than 2.38
# (scripts/webgpu-runtime.sh --debs), records what the machine is, then runs
# the GPU benchmarks — gpu-bolt, bolt-latency (64²–1024²), hybrid-vs-single and
# windows (GpuWindowedBolt vs per-tuple GpuBolt) — with every result under $OUT:
#   machine.txt, gpu-bolt.json, bolt-latency.json, hybrid-vs-single.json, windows.json,
#   bench-results.tar.gz (CSV, SVG plots and summaries), summary.txt, log.txt
# — eight files, the most a device call brings back.
# summary.txt (dist/bench/device-results.js) names the adapter WebGPU ran on and
# says "GPU" only for a hardware one: a software adapter (lavapipe, SwiftShader)
# is labelled "software adapter — not a GPU". Exit status 1 when a benchmark's
# result is missing or a software adapter was reported as a GPU.
# Start with scripts/device-first-run.sh, which records the image first.
# Usage (device run): bash scripts/device-gpu-checks.sh [--quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/hstorm-gpu-checks}"
mkdir -p "$out"
quick="${1:-}"
exec > >(tee -a "$out/log.txt") 2>&1

# The Vulkan/GL loaders, only where the image lacks them: the image's own loader knows its drivers best.
for f in .gl/*.deb; do
  case "$(basename "$f")" in
    libvulkan1_*) lib=libvulkan.so.1 ;;
    libegl1_*) lib=libEGL.so.1 ;;
    libglvnd0_*) lib=libGLdispatch.so.0 ;;
    libopengl0_*) lib=libOpenGL.so.0 ;;
    libgl1_*) lib=libGL.so.1 ;;
    libglx0_*) lib=libGLX.so.0 ;;
    libgles2_*) lib=libGLESv2.so.2 ;;
    *) lib= ;;
  esac
  if [ -n "$lib" ] && ldconfig -p | grep -qF "$lib"; then echo "image has $lib: $(basename "$f") not unpacked"; continue; fi
  echo "unpacking $(basename "$f")"
  dpkg -x "$f" /
done
ldconfig
# Ubuntu's container images and Debian's minbase have liblzma but no xz: the bundle carries it.
if ! command -v xz >/dev/null; then
  dpkg -x .device/tool-debs/xz-utils_*.deb /tmp/hstorm-tools && export PATH="/tmp/hstorm-tools/usr/bin:$PATH"
  echo "no xz in the image: using the carried xz-utils"
fi
xz -dc .device/node.xz > /tmp/node && chmod +x /tmp/node && /tmp/node -e 0 || { echo "cannot unpack or start the carried node"; exit 1; }
[ -d node_modules ] || tar -xJf .device/node_modules.tar.xz || { echo "cannot unpack the carried node_modules"; exit 1; }
export PATH="/tmp:$PATH" XDG_RUNTIME_DIR=/tmp
# Some images install the NVIDIA Vulkan ICD outside the loader's default search path.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then export VK_DRIVER_FILES="$icd"; fi

# After device-first-run.sh, machine.txt already holds the image as it was before this script unpacked anything.
[ -n "${HSTORM_DEVICE_FIRST_RUN:-}" ] || : > "$out/machine.txt"
{
  echo "# After unpacking the bundle (device-gpu-checks.sh)"
  echo "## uname"; uname -a
  echo "## glibc"; getconf GNU_LIBC_VERSION
  echo "## nvidia-smi"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L 2>&1
    nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,memory.total,clocks.max.sm,compute_cap --format=csv 2>&1
  else echo "no nvidia-smi"; fi
  # device-first-run.sh listed them already; unpacking the loader adds none.
  [ -n "${HSTORM_DEVICE_FIRST_RUN:-}" ] || bash scripts/vulkan-icds.sh
  echo "## VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
} >> "$out/machine.txt"

node=$(bash scripts/webgpu-runtime.sh --debs .device/webgpu-debs --dir /tmp/hstorm-webgpu-runtime) || { echo "no WebGPU runtime; the benchmarks run without it"; node=/tmp/node; }
echo "node for WebGPU: $node"

# Each benchmark's seconds go to the log: the time on a GPU machine is short, the next run may need to plan around them.
bench() {
  local name=$1 start=$SECONDS
  shift
  "$node" dist/bench/main.js "$name" "$@" --json > "$out/$name.json"
  echo "$name: exit $?, $((SECONDS - start)) s"
}
bench gpu-bolt $quick
bench bolt-latency $quick
bench hybrid-vs-single --quick
bench windows --quick
tar -czf "$out/bench-results.tar.gz" bench-results
"$node" dist/bench/device-results.js "$out" | tee "$out/summary.txt"
status=${PIPESTATUS[0]}
echo "done in $SECONDS s"
exit "$status"
