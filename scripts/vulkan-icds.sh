#!/usr/bin/env bash
# Lists the Vulkan ICDs (drivers) the loader can find, each labelled: lavapipe and SwiftShader are CPUs behind the
# Vulkan API and are named so — never a GPU — and the NVIDIA ICD, where the image has one, is named on its own line
# (the device README puts it under /usr/local/nvidia/share/vulkan/icd.d). Used by scripts/device-first-run.sh and
# scripts/device-gpu-checks.sh for machine.txt.
# Usage: bash scripts/vulkan-icds.sh   (HSTORM_VULKAN_ICD_DIRS=dir:dir… looks elsewhere; the unit test does)
set -uo pipefail
IFS=: read -r -a icd_dirs <<< "${HSTORM_VULKAN_ICD_DIRS:-/usr/share/vulkan/icd.d:/etc/vulkan/icd.d:/usr/local/nvidia/share/vulkan/icd.d}"
echo "## Vulkan ICDs"
for d in "${icd_dirs[@]}"; do
  for f in "$d"/*.json; do
    [ -f "$f" ] || continue
    case "$(basename "$f") $(grep -o '"library_path"[^,}]*' "$f" 2>/dev/null)" in
      *lvp*|*lavapipe*) kind="software (Mesa lavapipe): a CPU, not a GPU" ;;
      *swiftshader*|*SwiftShader*) kind="software (SwiftShader): a CPU, not a GPU" ;;
      *nvidia*) kind="NVIDIA" ;;
      *intel*|*radeon*|*amd*|*nouveau*|*asahi*|*freedreno*|*panfrost*) kind="Mesa hardware driver: answers only where its board is present" ;;
      *) kind="other: WebGPU's adapter report says whether it is a GPU" ;;
    esac
    echo "$f — $kind"
  done
done
nvidia=$(for d in "${icd_dirs[@]}"; do ls "$d"/nvidia*.json 2>/dev/null; done | head -1)
echo "## NVIDIA ICD: ${nvidia:-none (WebGPU cannot reach an NVIDIA GPU: the benchmarks run on CPU backends and any software adapter, labelled)}"
