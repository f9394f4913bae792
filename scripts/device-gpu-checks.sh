#!/usr/bin/env bash
# Runs on a GPU machine lent by the `device` tool, from what
# scripts/device-bundle.sh packed (carry: .device, .gl, dist): unpacks node,
# node_modules and the Vulkan loader, prepares Dawn's glibc when the machine's
# is older than 2.38 (scripts/webgpu-runtime.sh --debs), records what the
# machine is, then runs the GPU benchmarks — gpu-bolt, bolt-latency (64²–1024²),
# hybrid-vs-single and windows (GpuWindowedBolt vs per-tuple GpuBolt) — with
# every result under $OUT:
#   machine.txt, gpu-bolt.json, bolt-latency.json, hybrid-vs-single.json, windows.json,
#   bench-results.tar.gz (CSV, SVG plots and summaries), log.txt
# Usage (device run): bash scripts/device-gpu-checks.sh [--quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/hstorm-gpu-checks}"
mkdir -p "$out"
quick="${1:-}"
exec > >(tee -a "$out/log.txt") 2>&1

for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
xz -dc .device/node.xz > /tmp/node && chmod +x /tmp/node
[ -d node_modules ] || tar -xJf .device/node_modules.tar.xz
export PATH="/tmp:$PATH" XDG_RUNTIME_DIR=/tmp
# Some images install the NVIDIA Vulkan ICD outside the loader's default search path.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then export VK_DRIVER_FILES="$icd"; fi

{
  echo "## uname"; uname -a
  echo "## glibc"; getconf GNU_LIBC_VERSION
  echo "## nvidia-smi"; nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,memory.total,clocks.max.sm,compute_cap --format=csv 2>&1
  echo "## Vulkan ICDs"; ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1
  echo "## VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
} > "$out/machine.txt"

node=$(bash scripts/webgpu-runtime.sh --debs .device/webgpu-debs --dir /tmp/hstorm-webgpu-runtime) || { echo "no WebGPU runtime; the benchmarks run without it"; node=/tmp/node; }
echo "node for WebGPU: $node"

"$node" dist/bench/main.js gpu-bolt $quick --json > "$out/gpu-bolt.json"
"$node" dist/bench/main.js bolt-latency $quick --json > "$out/bolt-latency.json"
"$node" dist/bench/main.js hybrid-vs-single --quick --json > "$out/hybrid-vs-single.json"
"$node" dist/bench/main.js windows --quick --json > "$out/windows.json"
tar -czf "$out/bench-results.tar.gz" bench-results
echo "done"
