#!/usr/bin/env bash
# Quick start, part 2: install what is missing, then build and run every test:
#   1. Release build with GCC: the GoogleTest suite, the Python comparison and the headless
#      Chromium tests (tests/browser) under ctest
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build with clang: the same suite but the
#      browser tests (they exercise the CLI, which step 1 already ran them against)
#   3. libFuzzer targets (clang, ASan+UBSan), each run for a bounded time over its seeds
#   4. install into a temporary prefix; a consumer project finds it with find_package(mhtml)
#      and with pkg-config, builds and runs
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
cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
      -DCMAKE_C_COMPILER=gcc -DMHTML_WERROR=ON >/dev/null
cmake --build "$root/build/release" -j"$jobs"
step "Tests, Release"
ctest --test-dir "$root/build/release" --output-on-failure -j"$jobs"

step "ASan+UBSan build (clang)"
cmake -S "$root" -B "$root/build/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_C_COMPILER=clang -DMHTML_SANITIZE=ON -DMHTML_WERROR=ON -DMHTML_BROWSER_TESTS=OFF \
      >/dev/null
cmake --build "$root/build/asan" -j"$jobs"
step "Tests, ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build/asan" --output-on-failure -j"$jobs"

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

step "Install and consume (find_package and pkg-config)"
prefix=$(mktemp -d)
trap 'status=$?; rm -rf "$prefix"; (exit $status); report_times' EXIT
cmake --install "$root/build/release" --prefix "$prefix" >/dev/null
# A fresh consumer build each time: a cached mhtml_DIR would find an older install.
rm -rf "$root/build/install-consumer"
cmake -S "$root/tests/install" -B "$root/build/install-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$root/build/install-consumer" -j"$jobs"
"$root/build/install-consumer/consumer" "$root/samples/chromium__page_with_image_ie.mht"
pcdir=$(dirname "$(find "$prefix" -name mhtml.pc | head -1)")
g++ -o "$root/build/install-consumer/consumer_pc" "$root/tests/install/consumer.cpp" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static mhtml)
"$root/build/install-consumer/consumer_pc" "$root/samples/chromium__page_with_image_ie.mht"
"$prefix/bin/mhtml" --version
rm -rf "$prefix"

end_stage
printf '\n=== All tests passed\n'
