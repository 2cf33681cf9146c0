#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build (Release), and read a bundled sample
# archive: its parts (`mhtml ls`), its references and what they name (`mhtml refs`), its
# conformance (`mhtml check`), and open it: as a folder (`mhtml extract`) and as one HTML
# file (`mhtml inline`), both written under build/demo/. Run from anywhere, as root on
# Debian 12.
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
echo
echo "\$ mhtml extract --force samples/chromium__page_with_image_ie.mht -o build/demo/extracted"
build/release/tools/mhtml/mhtml extract --force samples/chromium__page_with_image_ie.mht \
  -o build/demo/extracted
echo
echo "\$ mhtml inline samples/chromium__page_with_image_ie.mht -o build/demo/page.html"
build/release/tools/mhtml/mhtml inline samples/chromium__page_with_image_ie.mht -o build/demo/page.html
