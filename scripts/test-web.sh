#!/usr/bin/env bash
# The browser tests (issue 33): builds the bundle (scripts/build-web.sh), serves web/ on a free
# local port and opens web/test.html in headless Chromium on SwiftShader's WebGPU, driven by
# puppeteer-core (scripts/web_test.mjs): every case of web/test.js must agree with the CPU twins.
# Installs what is missing: Chromium (Debian's package) and puppeteer-core (npm, into
# target/web-node/). Writes the page's results and a screenshot under target/web-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-web.sh
CHROME="${CHROME:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$CHROME" ]; then
  echo "test-web.sh: installing chromium"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  CHROME="$(command -v chromium)"
fi
NODE_DIR=target/web-node
PUPPETEER_VERSION=24.43.1
if [ ! -f "$NODE_DIR/node_modules/puppeteer-core/package.json" ]; then
  mkdir -p "$NODE_DIR"
  npm install --silent --no-audit --no-fund --prefix "$NODE_DIR" "puppeteer-core@$PUPPETEER_VERSION"
fi
OUT=target/web-test
mkdir -p "$OUT"
# a static server for web/ on a free port, stopped on exit
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory web "$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
NODE_PATH="$NODE_DIR/node_modules" CHROME="$CHROME" node scripts/web_test.mjs "http://127.0.0.1:$PORT" "$OUT" "$PWD/assets/sample.png"
