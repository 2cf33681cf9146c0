#pragma once
// libcurl, loaded on first use (dlopen of libcurl.so.4) instead of when the process starts.
//
// Only pack::fetch_collect and external retrieval speak to the network, and libcurl brings
// 25 shared libraries with it (TLS, Kerberos, LDAP, SSH, IDN...): loaded at start-up, they
// cost every run of the mhtml tool about 25 ms on a virtual machine of the project's kind
// (docs/PERFORMANCE.md, "Start-up"), whether it fetches or not. The functions below are
// libcurl's, called through pointers resolved when one of them is first needed; the headers
// are libcurl's own (libcurl4-openssl-dev), so types and constants are unchanged.
//
// When libcurl cannot be loaded, the initialising functions fail as libcurl's do when out of
// resources (null handles, CURLE_FAILED_INIT), why() says why, and the rest are never reached.

#include <curl/curl.h>

#include <string>
#include <type_traits>

namespace mhtml::detail::lazy_curl {

/// Why libcurl is not available ("" once it is loaded, or before anything tried to load it).
std::string why();

CURLcode global_init(long flags);
CURL* easy_init();
void easy_cleanup(CURL* h);
const char* easy_strerror(CURLcode c);
CURLM* multi_init();
CURLMcode multi_cleanup(CURLM* m);
CURLMcode multi_add_handle(CURLM* m, CURL* h);
CURLMcode multi_remove_handle(CURLM* m, CURL* h);
CURLMcode multi_perform(CURLM* m, int* running);
CURLMcode multi_poll(CURLM* m, curl_waitfd* extra, unsigned extra_count, int timeout_ms, int* ret);
CURLMsg* multi_info_read(CURLM* m, int* left);
curl_slist* slist_append(curl_slist* list, const char* s);
void slist_free_all(curl_slist* list);

namespace raw {
using easy_setopt_fn = CURLcode (*)(CURL*, CURLoption, ...);
using easy_getinfo_fn = CURLcode (*)(CURL*, CURLINFO, ...);
using multi_setopt_fn = CURLMcode (*)(CURLM*, CURLMoption, ...);
easy_setopt_fn easy_setopt();
easy_getinfo_fn easy_getinfo();
multi_setopt_fn multi_setopt();
}  // namespace raw

/// What libcurl's variadic functions take: a long, a curl_off_t, or a pointer (to an object,
/// a string or a callback). Anything else (an int, a bool, a lambda) would be read wrongly, and
/// libcurl's own type checks (typecheck-gcc.h) are for C only.
template <class T>
inline constexpr bool curl_argument = std::is_same_v<T, long> || std::is_same_v<T, curl_off_t> ||
                                      std::is_pointer_v<T> || std::is_null_pointer_v<T>;

/// curl_easy_setopt (variadic in libcurl: the one argument passed on as it is).
template <class T>
CURLcode easy_setopt(CURL* h, CURLoption o, T v) {
    static_assert(curl_argument<T>, "curl_easy_setopt takes a long, a curl_off_t or a pointer");
    return raw::easy_setopt()(h, o, v);
}
template <class T>
CURLcode easy_getinfo(CURL* h, CURLINFO i, T v) {
    static_assert(std::is_pointer_v<T>, "curl_easy_getinfo takes a pointer to the answer");
    return raw::easy_getinfo()(h, i, v);
}
template <class T>
CURLMcode multi_setopt(CURLM* m, CURLMoption o, T v) {
    static_assert(curl_argument<T>, "curl_multi_setopt takes a long, a curl_off_t or a pointer");
    return raw::multi_setopt()(m, o, v);
}

}  // namespace mhtml::detail::lazy_curl
