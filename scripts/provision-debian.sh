#!/usr/bin/env bash
# Installs the Debian packages the tests use, when they are missing (needs root; prints the command otherwise).
set -euo pipefail
# Beyond the services: git (the tower, publish and chain tests), python3 (commands in tests), procps (ps, pgrep),
# util-linux (setpriv for the fork-bomb test), build-essential (native modules: keytar, better-sqlite3) and strace
# (test/store/fsync-tiers.test.ts counts the store's fsyncs with it) and ffmpeg (video frames and audio for the media tools).
packages=(xvfb x11-utils openbox libxtst-dev libsecret-1-dev pkg-config gnome-keyring dbus-x11 chromium fonts-liberation ripgrep bubblewrap at sqlite3 at-spi2-core zenity gtk-3-examples dunst libnotify-bin poppler-utils qpdf xdotool git python3 procps util-linux build-essential strace ffmpeg)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "Missing Debian packages: ${missing[*]}. Install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
