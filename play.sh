#!/usr/bin/env sh
# Set up and start Fray: install the libraries the window needs at run time
# (X11 and a Vulkan driver), then build and open the game at its main menu.
# Extra arguments go to fray, e.g. ./play.sh play assets/scenarios/duel.ron --human Wardens
set -e
cd "$(dirname "$0")"
PACKAGES="libx11-6 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0 libvulkan1 mesa-vulkan-drivers"
if ! dpkg -s $PACKAGES >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y $PACKAGES
fi
exec cargo run -- "$@"
