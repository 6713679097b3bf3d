#!/bin/sh
# Installs the Debian packages the test suite drives, when they are missing.
# kubectl: Debian's kubernetes-client. chromium: for the Playwright browser journeys.
set -e
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v kubectl >/dev/null 2>&1 || missing="$missing kubernetes-client"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "Need root to install:$missing (tests that use them will skip)" >&2; exit 0
  fi
fi
echo "Installing Debian packages:$missing"
${SUDO:-} apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq $missing >/dev/null ||
  echo "Could not install:$missing (tests that use them will skip)" >&2
