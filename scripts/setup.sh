#!/usr/bin/env bash
# Install what building and testing scorebench needs, skipping whatever is already there at the
# right version. Safe to run again: with everything present it takes well under a second.
#
#   Rust target wasm32-unknown-unknown   (rustup, from rust-toolchain.toml)
#   trunk 0.21.14                        (cargo install; 0.22 needs a newer rustc)
#   wasm-bindgen-cli = the wasm-bindgen version in Cargo.lock
#   wasm-opt (npm binaryen) + playwright-core   (tools/node_modules; Debian's binaryen is too old)
#   Debian chromium + chromium-driver    (end-to-end tests)
#   Debian brotli                        (precompressed app files, scripts/compress-dist.sh)
#   Debian bubblewrap + python3          (the SGI-Bench dry-experiment sandbox)
#   Debian make + gcc                    (the server's allocator, jemalloc, is built from C)
#
# Nothing is downloaded outside the package registries: trunk is told to use these tools.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
log() { printf 'setup: %s\n' "$*" >&2; }
export PATH="$HOME/.cargo/bin:$PATH"
apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# --- Rust target (the toolchain itself comes with the machine; rust-toolchain.toml pins it) ---
if ! rustup target list --installed | grep -x wasm32-unknown-unknown >/dev/null; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# --- trunk ---
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  log "installing trunk $TRUNK_VERSION (takes ~8 minutes on 2 cores)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# --- wasm-bindgen-cli, exactly the version the app links against ---
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WB_VERSION" ]; then
  log "Cargo.lock names no wasm-bindgen version"; exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WB_VERSION" ]; then
  log "installing wasm-bindgen-cli $WB_VERSION (takes ~4 minutes)"
  # --locked fails for some releases (its lockfile names a crate version the registry no longer serves).
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked \
    || cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

# --- a C toolchain for jemalloc (tikv-jemalloc-sys runs its configure and make) ---
if ! command -v make >/dev/null || ! command -v cc >/dev/null; then
  log "installing make and gcc from Debian"
  apt_install make gcc
fi

# --- node tools ---
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  log "installing node and npm from Debian"
  apt_install nodejs npm
fi
want_node_tools() {
  node -e '
    const want = require("./tools/package.json").dependencies;
    for (const [name, version] of Object.entries(want)) {
      const got = require("./tools/node_modules/" + name + "/package.json").version;
      if (got !== version) process.exit(1);
    }' 2>/dev/null
}
if ! want_node_tools; then
  log "installing node tools (binaryen, playwright-core, axe-core)"
  if [ -f tools/package-lock.json ]; then
    (cd tools && npm ci --no-audit --no-fund --loglevel=error)
  else
    (cd tools && npm install --no-audit --no-fund --loglevel=error)
  fi
fi

# --- Debian Chromium for the end-to-end tests ---
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  log "installing Debian chromium and chromium-driver"
  apt_install chromium chromium-driver
fi
# brotli, to precompress the built app (Trunk.toml's post_build hook runs scripts/compress-dist.sh).
if ! command -v brotli >/dev/null; then
  log "installing Debian brotli"
  apt_install brotli
fi
# CJK fonts, so Chinese labels render in charts and screenshots.
if ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then
  log "installing CJK fonts (fonts-noto-cjk)"
  apt_install fonts-noto-cjk
fi
# bubblewrap (+ util-linux prlimit, python3): the sandbox SGI-Bench dry experiments run in
# (server/src/sandbox.rs; `scorebench run sgi-dry-exec`).
if ! command -v bwrap >/dev/null || ! command -v prlimit >/dev/null || [ ! -x /usr/bin/python3 ]; then
  log "installing Debian bubblewrap, util-linux and python3 (the dry-experiment sandbox)"
  apt_install bubblewrap util-linux python3
fi
