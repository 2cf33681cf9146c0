#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build (Release), and read a bundled sample
# archive: its parts (`mhtml ls`), its references and what they name (`mhtml refs`) and
# its conformance (`mhtml check`). Run from anywhere, as root on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build/release" -j"$(nproc)"
echo
cd "$root"
echo "\$ mhtml ls samples/chromium__page_with_image_ie.mht"
build/release/tools/mhtml/mhtml ls samples/chromium__page_with_image_ie.mht
echo
echo "\$ mhtml refs samples/chromium__page_with_image_ie.mht"
build/release/tools/mhtml/mhtml refs samples/chromium__page_with_image_ie.mht
echo
echo "\$ mhtml check samples/chromium__page_with_image_ie.mht"
build/release/tools/mhtml/mhtml check samples/chromium__page_with_image_ie.mht
