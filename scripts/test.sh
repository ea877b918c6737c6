#!/usr/bin/env bash
# The whole test suite: provisions what the tests need (Debian packages, X server, D-Bus + gnome-keyring), builds,
# type-checks, lints, then runs the unit/integration suite and the Electron shell on its fake (vitest projects `unit`
# and `shell`), the browser e2e suite (Playwright), the Electron smoke test (skipped, in one line, without a binary)
# and one round of every benchmark; the closing summary fails the run on any skip test/expected-skips.json does not
# expect, and on a run that tested less than the tree holds (a missing result file, a suite that did not run, an error
# outside any test such as a focused test). Each stage has a wall-clock limit (scripts/stage.sh): a hang fails the run
# instead of hanging CI (the whole suite takes 15–40 minutes on 2 cores, by machine; CI allows 90). Each stage prints what it took.
# Used as-is by `npm test` and by CI (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/provision-debian.sh

if [ -z "${DESKHAND_TEST_INNER:-}" ]; then
  # Re-enter inside a private D-Bus session with an unlocked gnome-keyring (the vault tests use the real keyring).
  export DESKHAND_TEST_INNER=1
  exec dbus-run-session -- bash "$0" "$@"
fi

export XDG_DATA_HOME=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d)
chmod 700 "$XDG_RUNTIME_DIR"
eval "$(printf ci-pass | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ -z "${DISPLAY:-}" ]; then
  display=99
  while [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ]; do display=$((display + 1)); done
  Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  pids+=($!)
  export DISPLAY=":$display"
  for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X$display" ] && break; sleep 0.1; done
  openbox >/dev/null 2>&1 &
  pids+=($!)
fi

# Scheduling (test/schedule/): the real atd runs the OS jobs that `deskhand fire`. The tests also start it when it is
# missing (and their own private D-Bus bus and dunst as the notification server); starting it once here keeps test
# files running in parallel from racing to start it.
if [ -x /usr/sbin/atd ] && ! pgrep -x atd >/dev/null; then
  /usr/sbin/atd -f &
  pids+=($!)
fi
# Computer use: test/computer/world.ts starts its own Xvfb, private D-Bus session, openbox and at-spi-bus-launcher
# (at-spi2-core) per test file, with zenity and gtk3-widget-factory (gtk-3-examples); nothing to start here.

export CHROMIUM_PATH=${CHROMIUM_PATH:-/usr/bin/chromium}
# Results of an earlier run must not stand in for a stage that did not write this time.
rm -rf .test-results
mkdir -p .test-results

npm run build
npm run typecheck
npm run lint

status=0
# Each config is named: a missing one fails the stage (and the summary's floor) instead of skipping it.
bash scripts/stage.sh vitest 30m npx vitest run --config vitest.config.ts --reporter=default --reporter=json --outputFile.json=.test-results/vitest.json || status=$?
PLAYWRIGHT_JSON_OUTPUT_NAME=.test-results/playwright.json bash scripts/stage.sh playwright 30m npx playwright test --config playwright.config.ts --reporter=list,json || status=$?
# The real app in real Electron where a binary exists; elsewhere one line saying it was skipped.
bash scripts/stage.sh smoke:electron 5m npm run --silent smoke:electron || status=$?
# One round of every benchmark (the build above is current): a bench that throws, or whose real part is missing,
# fails the run instead of rotting until someone runs it.
bash scripts/stage.sh bench 8m node --import tsx bench/run.ts --smoke || status=$?
# Every skip must be in test/expected-skips.json with a condition that holds here (and no listed one may run where
# its condition holds): a skip nobody would notice fails the run.
node scripts/test-summary.mjs || status=1
exit $status
