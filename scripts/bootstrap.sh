#!/usr/bin/env bash
# Installs the Debian packages clarity needs to build and test. As root it runs apt-get;
# otherwise it prints the exact line to run and stops, so nothing is half-installed.
set -euo pipefail
build_pkgs="build-essential pkg-config libsimdjson-dev libzstd-dev liblz4-dev libsnappy-dev liblzf-dev zlib1g-dev libxxhash-dev libsqlite3-dev libmicrohttpd-dev"
# clang and libclang-rt-14-dev: the libFuzzer harnesses (tests/fuzz); chromium: the headless
# browser that renders `clarity report` pages (tests/report); curl and wrk: clarity serve's
# tests (tests/serve) and load figures; sqlite3 and python3-distributed: tests/fleet reads the
# store with the sqlite3 shell and runs a Dask LocalCluster
test_pkgs="curl wrk libcriterion-dev default-jdk-headless liblz4-java libsnappy-java libcompress-lzf-java libzstd-jni-java jq zstd time python3 clang libclang-rt-14-dev chromium sqlite3 python3-distributed"
want="$build_pkgs"
[ "${1:-}" = "--test" ] && want="$build_pkgs $test_pkgs"
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = "0" ]; then
  echo "bootstrap: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "bootstrap: missing Debian packages. Run:" >&2
  echo "  sudo apt-get install -y$missing" >&2
  exit 1
fi
