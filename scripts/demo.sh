#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build (Release), and read a bundled sample
# archive: its parts (`mhtml ls`), its references and what they name (`mhtml refs`), its
# conformance (`mhtml check`), and open it: as a folder (`mhtml extract`) and as one HTML
# file (`mhtml inline`), both written under build/demo/; then the same archive from Python
# (the module is installed for Debian's python3). Run from anywhere, as root on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release -DMHTML_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build/release" -j"$(nproc)"
# The Python module (import mhtml) where Debian's python3 finds it: /usr/local/lib/python3.N/dist-packages.
cmake --install "$root/build/release" --component python >/dev/null
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
echo
echo "\$ python3 -c 'import mhtml; d = mhtml.parse(\"samples/chromium__page_with_image_ie.mht\"); ...'"
/usr/bin/python3 -c '
import mhtml
d = mhtml.parse("samples/chromium__page_with_image_ie.mht")
print("root:", d.root.path, d.root.content_type, d.root.resolved_location)
for r in d.references():
    print(" ", r.url, "->", "part " + r.target if r.target else "external")
'
