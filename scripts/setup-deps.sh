#!/usr/bin/env bash
# Installs the Debian 12 packages mhtml needs to build and test, and only those that are
# missing. Run as root (or through sudo). Safe to run again.
#   scripts/setup-deps.sh            build + test dependencies
#   scripts/setup-deps.sh --bench    also the peer readers for ../shared/bench (GMime, mimetic, VMime)
#                                    wrk, nginx and curl for bench/serve_peers.sh, notmuch and sqlite3
#                                    for bench/index_peers.sh
set -euo pipefail

packages=(
  build-essential cmake git pkg-config ca-certificates   # toolchain (GCC 12, CMake 3.25)
  clang libclang-rt-14-dev llvm-14                        # clang 14, libFuzzer, sanitizer runtimes, symbolizer
  libgtest-dev libgmock-dev                               # GoogleTest / GoogleMock
  libbenchmark-dev                                        # Google Benchmark
  libcli11-dev                                            # CLI11 (command line)
  libboost-url1.81-dev                                    # Boost.URL (RFC 3986 references and resolution)
  libboost1.81-dev                                        # Boost.Beast and Asio (mhtml serve; also pulled in by Boost.URL)
  nlohmann-json3-dev                                      # JSON reader for the spec vectors in tests
  libssl-dev                                              # OpenSSL libcrypto (SHA-256, MD5)
  zlib1g-dev libbrotli-dev                                # HTTP Content-Encoding gzip/deflate and br (pack writer)
  libcurl4-openssl-dev                                    # libcurl: pack::fetch_collect (http/https sources)
  libsqlite3-dev                                          # SQLite: the message index (mhtml index, --store)
  libmimalloc-dev                                         # mimalloc: the mhtml tool's allocator (huge pages)
  python3-dev pybind11-dev python3-pytest                 # the Python module (python/) and its tests
  python3-dask python3-distributed python3-pandas         # mhtml.dask (python/mhtml/dask.py) and its LocalCluster test
  python3 python3-pyftpdlib                               # Python's email package: reference reader in tests; a loopback FTP server (tests/support/ftp_server.py)
  libgmime-3.0-dev                                        # GMime 3: second reference reader of pack's outputs in tests
  chromium fonts-liberation fonts-dejavu-core fontconfig-config  # headless Chromium and its (pinned) fonts: tests/browser
)
if [ "${1:-}" = "--bench" ]; then
  packages+=(time libmimetic-dev libvmime-dev libgumbo-dev wrk nginx-light curl notmuch sqlite3)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
