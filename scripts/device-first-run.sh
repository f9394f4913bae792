#!/usr/bin/env bash
# The first command to run on a GPU machine lent by the `device` tool (carry: .device, .gl, dist — see
# scripts/device-bundle.sh). The GPU machine's image is not this one: before anything else it records what the
# image offers for WebGPU, before anything is unpacked, into $OUT/machine.txt (and the call's output) —
#   glibc (Dawn needs ≥ 2.38; older gets the carried private runtime),
#   the Vulkan loader (ldconfig -p | grep 'libvulkan\.so'; the carried one is unpacked only when it is missing),
#   the Vulkan ICDs, the NVIDIA one included (/usr/share/vulkan/icd.d, /etc/vulkan/icd.d,
#   /usr/local/nvidia/share/vulkan/icd.d), and nvidia-smi
# — then runs scripts/device-gpu-checks.sh, which unpacks node and node_modules and runs the GPU benchmarks, ending
# with summary.txt: the adapter WebGPU ran on ("GPU" only for a hardware one; lavapipe and SwiftShader are labelled
# "a CPU behind WebGPU, NOT a GPU"), and a problem, exit status 1, where nvidia-smi lists a GPU WebGPU did not reach.
# scripts/device-bundle-proof.sh runs exactly this in a bare Debian root with no network, on the software adapter.
# Usage (device run): bash scripts/device-first-run.sh [--quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/hstorm-gpu-checks}"
mkdir -p "$out"

{
  echo "# The image, before anything was unpacked (device-first-run.sh)"
  echo "## glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"
  echo "## Vulkan loader in the image"
  # libvulkan.so.1 is the loader; Mesa's drivers are libvulkan_<name>.so and do not count.
  ldconfig -p | grep 'libvulkan\.so' || echo "none: the carried libvulkan1 (.gl) will be unpacked"
  bash scripts/vulkan-icds.sh
  echo "## nvidia-smi"
  if command -v nvidia-smi >/dev/null; then nvidia-smi -L 2>&1; else echo "no nvidia-smi"; fi
} | tee "$out/machine.txt"

# device-gpu-checks.sh appends what it finds after unpacking to machine.txt rather than starting it afresh.
HSTORM_DEVICE_FIRST_RUN=1 exec bash scripts/device-gpu-checks.sh "$@"
