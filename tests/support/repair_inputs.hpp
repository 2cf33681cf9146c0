// Inputs that repair's unit and CLI tests share.
#pragma once

#include <string>

namespace mhtml::test {

/// A root of 3 MB of text (a window of its own), then a frame without a label whose reference
/// resolves against another base in the output (thismessage:/ here, MHT-5.6; Chromium gives it
/// none): planning finds that the output widens only when it reads the frame, once the
/// streaming thread may have begun writing the root (how far it got depends on the timing).
/// Every label is absolute: none widens it before. Repaired, the frame's reference is written
/// `thismessage:/a.png`.
inline std::string widens_late() {
    return "MIME-Version: 1.0\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\n"
           "Content-Type: multipart/related; boundary=\"b\"\r\n\r\n"
           "--b\r\nContent-Type: text/html\r\nContent-Location: http://x.example/\r\n\r\n"
           "<iframe src=\"cid:f@x\"></iframe><p>" +
           std::string(3 << 20, 'x') +
           "</p>\r\n"
           "--b\r\nContent-Type: text/html\r\nContent-ID: <f@x>\r\n\r\n<img src=\"a.png\">\r\n"
           "--b\r\nContent-Type: image/png\r\nContent-Location: thismessage:/a.png\r\n\r\n"
           "PNG\r\n--b--\r\n";
}

}  // namespace mhtml::test
