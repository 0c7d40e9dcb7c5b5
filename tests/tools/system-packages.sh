#!/usr/bin/env bash
# The Debian packages the test suite drives for real (ssh-keygen, headless Chromium, jq), installed
# once before pytest starts its workers, so that two workers never race for apt's lock. A machine
# that has them skips this; without root the tests themselves name what is missing.
set -euo pipefail
need=()
command -v ssh-keygen >/dev/null || need+=(openssh-client)
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v jq >/dev/null || need+=(jq)
[ "${#need[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "system-packages: missing ${need[*]} and cannot install them (needs root and apt-get)" >&2
    exit 0
fi
echo "system-packages: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
