#!/usr/bin/env bash
# Prepares what the `webgpu` package (Dawn, which gpu.js's WebGPU backend
# uses) needs to load here, and prints on its last line of stdout the node
# binary to run hstorm with for WebGPU kernels:
#
#   node=$(bash scripts/webgpu-runtime.sh) && "$node" bin/hstorm.js local examples/matmul -c topology.gpu.backend=webgpu
#
# - glibc ≥ 2.38: nothing to prepare; prints the node on PATH.
# - older glibc (Debian 12 has 2.36): Dawn's prebuilt linux-x64.dawn.node needs
#   GLIBC_2.38, so this downloads Debian 13's libc6, libstdc++6 and libgcc-s1
#   with a private apt configuration (own sources list, lists and cache: the
#   system's apt state is not touched), unpacks them with `dpkg -x` into a
#   private directory, and makes a copy of node whose ELF interpreter and
#   rpath point there (patchelf). Child processes started with
#   process.execPath — hstorm's workers — inherit that copy.
# - --software-adapter: also makes sure a Vulkan loader and Mesa's software
#   Vulkan driver (lavapipe) are installed, so that a machine without a GPU
#   still has a WebGPU adapter. hstorm labels it "software adapter" everywhere
#   and never offers it as a GPU slot; the test suite uses it to run the
#   WebGPU path on every commit.
#
# - --debs DIR: offline, from .deb files downloaded elsewhere (libc6,
#   libstdc++6 and libgcc-s1 from Debian 13, and patchelf if this machine has
#   none): what scripts/device-bundle.sh carries to a GPU machine with no
#   package registry.
#
# Exit status: 0 ready (node path on stdout); 3 the runtime cannot be prepared
# here (the reason on stderr, e.g. no apt, no route to the Debian mirror).
# Options: --dir DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/hstorm/webgpu-runtime),
#          --software-adapter, --mirror URL (default http://deb.debian.org/debian), --debs DIR.
set -euo pipefail

dir="${XDG_CACHE_HOME:-$HOME/.cache}/hstorm/webgpu-runtime"
software=0
mirror="http://deb.debian.org/debian"
debs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --software-adapter) software=1; shift ;;
    --mirror) mirror="$2"; shift 2 ;;
    --debs) debs="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "webgpu-runtime: unknown option '$1' (allowed: --dir DIR, --software-adapter, --mirror URL, --debs DIR)" >&2; exit 2 ;;
  esac
done

fail() { echo "webgpu-runtime: $*" >&2; exit 3; }
log() { echo "webgpu-runtime: $*" >&2; }

node_bin=$(command -v node) || fail "node is not on PATH"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || fail "only linux-x64 is prepared here (this is $(uname -s)-$(uname -m)); Dawn ships its own binaries for other platforms"

# Only as root with apt can we install system packages; everything else is private.
can_apt=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && command -v dpkg >/dev/null; then can_apt=1; fi

apt_install() {
  [ "$can_apt" = 1 ] || fail "needs the Debian packages '$*' (run as root on Debian/Ubuntu, or install them yourself)"
  log "installing $* ..."
  # `apt-get update` only when a first try finds no candidate: it is slow and the lists may be fresh.
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || fail "apt-get update failed (no route to the Debian mirror?)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 || fail "apt-get install $* failed"
  fi
}

if [ "$software" = 1 ]; then
  missing=()
  ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || missing+=(libvulkan1)
  ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || missing+=(mesa-vulkan-drivers)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
fi

glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
[ -n "$glibc" ] || fail "cannot tell the glibc version (getconf GNU_LIBC_VERSION); musl systems are not supported by Dawn's prebuilt binary"
if [ "$(printf '%s\n2.38\n' "$glibc" | sort -V | head -1)" = "2.38" ]; then
  echo "$node_bin"
  exit 0
fi

# glibc < 2.38: a private newer libc and a node copy that uses it.
root="$dir/root"
patched="$dir/node"
stamp="$dir/stamp"
want="$(sha256sum "$node_bin" | cut -c1-16) $glibc"
if [ -x "$patched" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && "$patched" -e 0 2>/dev/null; then
  echo "$patched"
  exit 0
fi

log "glibc $glibc is older than the 2.38 Dawn needs: preparing a private runtime in $dir"
rm -rf "$dir"
mkdir -p "$dir/debs" "$root"
if [ -n "$debs" ]; then
  for p in libc6 libstdc++6 libgcc-s1; do
    ls "$debs/${p}_"*.deb >/dev/null 2>&1 || fail "--debs $debs has no ${p}_*.deb"
    cp "$debs/${p}_"*.deb "$dir/debs/"
  done
else
  command -v apt-get >/dev/null || fail "apt-get is needed to download Debian 13's libc (none here; or pass --debs DIR)"
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
  echo "deb $mirror trixie main" > "$dir/apt/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
    -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || fail "cannot read Debian 13 (trixie) package lists from $mirror"
  (cd "$dir/debs" && apt-get "${apt_opts[@]}" download libc6 libstdc++6 libgcc-s1 >/dev/null 2>&1) || fail "cannot download libc6, libstdc++6, libgcc-s1 from Debian 13"
fi
for f in "$dir"/debs/*.deb; do dpkg -x "$f" "$root"; done
rm -rf "$dir/apt" "$dir/debs"

# patchelf: the system's, else one from --debs (unpacked privately), else Debian's package.
patchelf_bin=$(command -v patchelf || true)
if [ -z "$patchelf_bin" ] && [ -n "$debs" ] && ls "$debs"/patchelf_*.deb >/dev/null 2>&1; then
  dpkg -x "$(ls "$debs"/patchelf_*.deb | head -1)" "$dir/tools"
  patchelf_bin="$dir/tools/usr/bin/patchelf"
fi
if [ -z "$patchelf_bin" ]; then
  apt_install patchelf
  patchelf_bin=$(command -v patchelf)
fi

lib="$root/usr/lib/x86_64-linux-gnu"
[ -e "$lib/ld-linux-x86-64.so.2" ] || fail "Debian 13's libc6 has no $lib/ld-linux-x86-64.so.2"
cp "$node_bin" "$patched"
"$patchelf_bin" --set-interpreter "$lib/ld-linux-x86-64.so.2" --set-rpath "$lib" "$patched"
"$patched" -e 0 || fail "the patched node does not start"
echo "$want" > "$stamp"
log "ready: $patched (node $("$patched" -v), glibc $("$patched" -p 'process.report.getReport().header.glibcVersionRuntime'))"
echo "$patched"
