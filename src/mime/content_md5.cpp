// Content-MD5 (include/mhtml/mime/content_md5.hpp).

#include "mhtml/mime/content_md5.hpp"

#include <openssl/evp.h>

#include "mhtml/mime/base64.hpp"

namespace mhtml::mime {

md5_digest::md5_digest() : ctx_(EVP_MD_CTX_new()) {
    EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_md5(), nullptr);
}

md5_digest::~md5_digest() {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
}

void md5_digest::update(std::string_view s) {
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), s.data(), s.size());
}

void md5_digest::update_text(std::string_view s) {
    static constexpr std::string_view crlf = "\r\n";
    std::size_t run = 0;  // start of the octets not yet fed
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (pending_cr_) {
            pending_cr_ = false;
            if (c == '\n') {  // the CR before was fed as CRLF: this LF belongs to it
                run = i + 1;
                continue;
            }
        }
        if (c == '\r') {
            update(s.substr(run, i - run));
            update(crlf);
            if (i + 1 < s.size()) {
                if (s[i + 1] == '\n') ++i;
            } else {
                pending_cr_ = true;
            }
            run = i + 1;
        } else if (c == '\n') {
            update(s.substr(run, i - run));
            update(crlf);
            run = i + 1;
        }
    }
    update(s.substr(run));
}

std::string md5_digest::base64() {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), d, &n);
    return base64_encode(std::string_view(reinterpret_cast<const char*>(d), n), 0);
}

std::string content_md5(std::string_view decoded, bool text) {
    md5_digest h;
    if (text)
        h.update_text(decoded);
    else
        h.update(decoded);
    return h.base64();
}

std::optional<bool> content_md5_matches(std::string_view value, std::string_view decoded,
                                        bool text) {
    // The value without white space and comments around it.
    std::string v;
    int depth = 0;
    for (const char c : value) {
        if (c == '(') {
            ++depth;
        } else if (c == ')' && depth > 0) {
            --depth;
        } else if (depth == 0 && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            v += c;
        }
    }
    std::string digest, ours;
    if (v.size() != 24 || !base64_decode(v, digest).clean() || digest.size() != 16)
        return std::nullopt;
    // The 16 octets compared, not the text: a value whose unused low bits differ is the same.
    base64_decode(content_md5(decoded, text), ours);
    return ours == digest;
}

}  // namespace mhtml::mime
