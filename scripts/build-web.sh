#!/usr/bin/env bash
# Builds the web playground's bundle (issue 33): crates/texelflow-web for wasm32-unknown-unknown
# (release), then wasm-bindgen's JavaScript glue into web/pkg/ (git-ignored). Installs what is
# missing: the wasm32 target (rustup) and the wasm-bindgen CLI of the crate's pinned version
# (cargo install, into target/tools/). Prints the bundle's size, raw and gzipped.
#   scripts/build-web.sh            then serve web/ (e.g. python3 -m http.server -d web 8000)
set -euo pipefail
cd "$(dirname "$0")/.."
BINDGEN_VERSION=0.2.130   # = crates/texelflow-web's wasm-bindgen
rustup target list --installed | grep -q wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
TOOLS=target/tools
if ! "$TOOLS/bin/wasm-bindgen" --version 2>/dev/null | grep -q "$BINDGEN_VERSION"; then
  echo "build-web.sh: installing wasm-bindgen-cli $BINDGEN_VERSION into $TOOLS (once)"
  # not --locked: its lock names crates newer than some registry mirrors hold
  cargo install -q --root "$TOOLS" wasm-bindgen-cli --version "$BINDGEN_VERSION"
fi
cargo build -q --profile web --locked -p texelflow-web --target wasm32-unknown-unknown
"$TOOLS/bin/wasm-bindgen" --target web --no-typescript --out-dir web/pkg \
  target/wasm32-unknown-unknown/web/texelflow_web.wasm
wasm=web/pkg/texelflow_web_bg.wasm
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
js=$(gzip -9 -c web/pkg/texelflow_web.js | wc -c)
echo "build-web.sh: web/pkg: wasm $((raw / 1024)) KiB ($((gz / 1024)) KiB gzipped), glue $((js / 1024)) KiB gzipped"
