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
#   private directory, and makes a copy of the node on PATH whose ELF
#   interpreter and rpath point there (patchelf). Child processes started
#   with process.execPath — hstorm's workers — inherit that copy. Each node
#   binary gets its own copy (node-<hash of the binary>), all sharing the one
#   libc: `bash scripts/with-node.sh 26 bash scripts/webgpu-runtime.sh`
#   prints a Node 26 that loads Dawn.
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
# Options: --dir DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/hstorm/webgpu; earlier versions,
#          with one node copy rebuilt at every change of node, used .../webgpu-runtime),
#          --software-adapter, --mirror URL (default http://deb.debian.org/debian), --debs DIR.
set -euo pipefail

dir="${XDG_CACHE_HOME:-$HOME/.cache}/hstorm/webgpu"
software=0
mirror="http://deb.debian.org/debian"
debs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --software-adapter) software=1; shift ;;
    --mirror) mirror="$2"; shift 2 ;;
    --debs) debs="$(cd "$2" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# glibc < 2.38: a private newer libc (shared) and, per node binary, a copy of that node that uses it —
# one for each node this runs under (the machine's, and the LTS lines scripts/with-node.sh fetches), so
# switching nodes neither downloads the libc again nor breaks a copy another run is using.
root="$dir/root"
patched="$dir/node-$(sha256sum "$node_bin" | cut -c1-16)"
if [ -x "$patched" ] && "$patched" -e 0 2>/dev/null; then
  echo "$patched"
  exit 0
fi
mkdir -p "$dir"

lib="$root/usr/lib/x86_64-linux-gnu"
if [ ! -e "$root/.complete" ]; then
  log "glibc $glibc is older than the 2.38 Dawn needs: preparing a private runtime in $dir"
  work=$(mktemp -d "$dir/.root.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/debs" "$work/root"
  if [ -n "$debs" ]; then
    for p in libc6 libstdc++6 libgcc-s1; do
      ls "$debs/${p}_"*.deb >/dev/null 2>&1 || fail "--debs $debs has no ${p}_*.deb"
      cp "$debs/${p}_"*.deb "$work/debs/"
    done
  else
    command -v apt-get >/dev/null || fail "apt-get is needed to download Debian 13's libc (none here; or pass --debs DIR)"
    mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
    echo "deb $mirror trixie main" > "$work/apt/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
      -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || fail "cannot read Debian 13 (trixie) package lists from $mirror"
    (cd "$work/debs" && apt-get "${apt_opts[@]}" download libc6 libstdc++6 libgcc-s1 >/dev/null 2>&1) || fail "cannot download libc6, libstdc++6, libgcc-s1 from Debian 13"
  fi
  for f in "$work"/debs/*.deb; do dpkg -x "$f" "$work/root"; done
  [ -e "$work/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] || fail "Debian 13's libc6 has no usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  touch "$work/root/.complete"
  # In place by a rename; where another run got there first, its copy stays (patched nodes in use point into it).
  if [ ! -e "$root/.complete" ]; then
    rm -rf "$root" # half a runtime, or an earlier version's
    mv "$work/root" "$root" || [ -e "$root/.complete" ] || fail "cannot move the runtime into $root"
  fi
  rm -rf "$work"
  trap - EXIT
fi

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

tmp_node=$(mktemp "$patched.XXXXXX")
cp "$node_bin" "$tmp_node"
"$patchelf_bin" --set-interpreter "$lib/ld-linux-x86-64.so.2" --set-rpath "$lib" "$tmp_node"
chmod 755 "$tmp_node"
"$tmp_node" -e 0 || { rm -f "$tmp_node"; fail "the patched node does not start"; }
mv -f "$tmp_node" "$patched"
log "ready: $patched (node $("$patched" -v), glibc $("$patched" -p 'process.report.getReport().header.glibcVersionRuntime'))"
echo "$patched"
