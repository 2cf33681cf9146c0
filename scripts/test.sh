#!/usr/bin/env bash
# Quick start, part 2: install what is missing, then build and run every test:
#   1. Release build with GCC: the GoogleTest suite, the Python comparison and the headless
#      Chromium tests (tests/browser) under ctest
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build with clang: the same suite but the
#      browser tests (they exercise the CLI, which step 1 already ran them against)
#   3. libFuzzer targets (clang, ASan+UBSan), each run for a bounded time over its seeds
#   4. install the static library (step 1) and a shared one (built here: library and tool)
#      into temporary prefixes; a consumer project finds each with find_package(mhtml) and
#      with pkg-config, builds and runs, and is checked to load what it should (ldd); the
#      shared library exports only the public API (tests/install/check_exports.py)
# Environment: FUZZ_SECONDS (default 20) per fuzzer; JOBS (default: nproc); REPEAT (default
# 1): how many times the browser tests render each page (tests/browser/views_test.py).
# The time each stage took is printed at the end, and on failure up to the failing stage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-20}

stage="" stage_start=$SECONDS timings=()
end_stage() {
  [ -n "$stage" ] && timings+=("$(printf '%6d s  %s' $((SECONDS - stage_start)) "$stage")")
  stage=""
}
step() { end_stage; stage=$*; stage_start=$SECONDS; printf '\n=== %s\n' "$*"; }
report_times() {
  local status=$?
  end_stage
  printf '\n=== Time per stage%s\n' "$([ "$status" -eq 0 ] || echo ", up to the one that failed")"
  printf '%s\n' "${timings[@]}"
  printf '%6d s  in all\n' "$SECONDS"
}
trap report_times EXIT

step "Packages (scripts/setup-deps.sh)"
bash "$root/scripts/setup-deps.sh"

step "Release build (GCC)"
# Every option the suite needs is given: scripts/demo.sh configures the same folder without
# tests, and a setting made by hand stays cached too.
cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
      -DCMAKE_C_COMPILER=gcc -DMHTML_WERROR=ON -DMHTML_BUILD_TESTS=ON -DMHTML_BUILD_TOOLS=ON \
      -DMHTML_BUILD_PYTHON=ON -DMHTML_BROWSER_TESTS=ON -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build "$root/build/release" -j"$jobs"
# The Python module where Debian's python3 finds it (as scripts/demo.sh does).
cmake --install "$root/build/release" --component python >/dev/null
step "Tests, Release"
ctest --test-dir "$root/build/release" --output-on-failure --no-tests=error -j"$jobs"

step "ASan+UBSan build (clang)"
cmake -S "$root" -B "$root/build/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_C_COMPILER=clang -DMHTML_SANITIZE=ON -DMHTML_WERROR=ON -DMHTML_BROWSER_TESTS=OFF \
      -DMHTML_BUILD_TESTS=ON >/dev/null
cmake --build "$root/build/asan" -j"$jobs"
step "Tests, ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build/asan" --output-on-failure --no-tests=error -j"$jobs"

step "Fuzzers (clang, ASan+UBSan), ${fuzz_seconds}s each"
cmake -S "$root" -B "$root/build/fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_C_COMPILER=clang -DMHTML_SANITIZE=ON -DMHTML_BUILD_FUZZ=ON -DMHTML_BUILD_TESTS=OFF \
      -DMHTML_BUILD_TOOLS=OFF >/dev/null
cmake --build "$root/build/fuzz" -j"$jobs"
fuzz_pass=0; fuzz_fail=0
for f in "$root"/build/fuzz/fuzz/fuzz_*; do
  name=$(basename "$f"); name=${name#fuzz_}
  work=$(mktemp -d)
  seeds=()
  [ -d "$root/fuzz/seeds/$name" ] && seeds+=("$root/fuzz/seeds/$name")
  [ "$name" = parser ] && seeds+=("$root/tests/data/corpus")
  if (cd "$work" && "$f" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -timeout=10 \
        -max_len=65536 "$work" "${seeds[@]}" >"$work/log" 2>&1); then
    echo "fuzz_$name: ok, $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$work/log" | tail -1 || true)"
    fuzz_pass=$((fuzz_pass + 1))
  else
    echo "fuzz_$name: FAILED"; tail -40 "$work/log"
    fuzz_fail=$((fuzz_fail + 1))
  fi
  rm -rf "$work"
done
echo "fuzz: $fuzz_pass passed, $fuzz_fail failed"
[ "$fuzz_fail" -eq 0 ]

step "Install and consume: static and shared (find_package and pkg-config)"
# Each install goes to its own temporary prefix; a consumer project finds it with
# find_package(mhtml) and, compiled by hand, with pkg-config, and both run on a sample.
prefixes=()
trap 'status=$?; rm -rf "${prefixes[@]}"; (exit $status); report_times' EXIT
sample="$root/samples/chromium__page_with_image_ie.mht"
linked_mhtml() { ldd "$1" | awk '/libmhtml/ {print $3}'; }  # the libmhtml.so it loads, if any
consume() {  # KIND (static|shared) BUILD_DIR
  local kind=$1 build=$2 prefix out pcdir libdir
  prefix=$(mktemp -d); prefixes+=("$prefix")
  out="$root/build/install-consumer-$kind"
  cmake --install "$build" --prefix "$prefix" >/dev/null
  libdir=$(dirname "$(find "$prefix" -name 'libmhtml.*' -print -quit)")
  pcdir="$libdir/pkgconfig"
  # A fresh consumer build each time: a cached mhtml_DIR would find an older install.
  rm -rf "$out"
  cmake -S "$root/tests/install" -B "$out" -DCMAKE_PREFIX_PATH="$prefix" \
        -DMHTML_EXPECT_SHARED="$([ "$kind" = shared ] && echo ON || echo OFF)" >/dev/null
  cmake --build "$out" -j"$jobs"
  if [ "$kind" = static ]; then
    g++ -o "$out/consumer_pc" "$root/tests/install/consumer.cpp" \
      $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static mhtml)
  else
    g++ -o "$out/consumer_pc" "$root/tests/install/consumer.cpp" \
      $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs mhtml) -Wl,-rpath,"$libdir"
  fi
  for exe in "$out/consumer" "$out/consumer_pc" "$prefix/bin/mhtml"; do
    local loaded; loaded=$(linked_mhtml "$exe")
    if [ "$kind" = static ] && [ -n "$loaded" ]; then
      echo "$exe: loads $loaded, expected the static library"; return 1
    fi
    if [ "$kind" = shared ] && [ "$(realpath "${loaded:-/none}")" != "$(realpath "$libdir"/libmhtml.so.*.*.*)" ]; then
      echo "$exe: loads '${loaded}', expected the installed $libdir/libmhtml.so"; return 1
    fi
    # The library's own dependencies (libcrypto for Content-MD5, zlib, brotli) are private: a
    # consumer of the shared library does not link them itself.
    if [ "$kind" = shared ] && [ "$exe" != "$prefix/bin/mhtml" ] &&
       readelf -d "$exe" | grep NEEDED | grep -qE 'libcrypto|libcurl|libz\.|libbrotli'; then
      echo "$exe: links a private dependency of libmhtml itself"; return 1
    fi
    # libcurl is loaded when a fetch first needs it (src/net/lazy_curl.hpp), never at start-up.
    if ldd "$exe" | grep -q libcurl; then
      echo "$exe: loads libcurl at start-up"; return 1
    fi
  done
  "$out/consumer" "$sample"
  "$out/consumer_pc" "$sample"
  "$prefix/bin/mhtml" --version
  if [ "$kind" = shared ]; then
    local version soversion
    version=$(PKG_CONFIG_PATH="$pcdir" pkg-config --modversion mhtml)
    # SOVERSION: MAJOR.MINOR while MAJOR is 0, else MAJOR (CMakeLists.txt).
    if [ "${version%%.*}" = 0 ]; then soversion=${version%.*}; else soversion=${version%%.*}; fi
    python3 "$root/tests/install/check_exports.py" "$libdir/libmhtml.so.$version" \
      "$prefix/include" --soname "libmhtml.so.$soversion"
  fi
  echo "install ($kind): find_package and pkg-config consumers ok"
}
consume static "$root/build/release"
# The shared library and the tool only (the Release build above ran the tests).
cmake -S "$root" -B "$root/build/install-shared" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
      -DCMAKE_C_COMPILER=gcc -DMHTML_WERROR=ON -DBUILD_SHARED_LIBS=ON -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build/install-shared" -j"$jobs"
consume shared "$root/build/install-shared"
rm -rf "${prefixes[@]}"

end_stage
printf '\n=== All tests passed\n'
