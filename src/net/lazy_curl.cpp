#include "net/lazy_curl.hpp"

#include <dlfcn.h>

#include <mutex>

namespace mhtml::detail::lazy_curl {

namespace {

struct table {
    bool loaded = false;
    std::string why;
    CURLcode (*global_init)(long) = nullptr;
    CURL* (*easy_init)() = nullptr;
    void (*easy_cleanup)(CURL*) = nullptr;
    const char* (*easy_strerror)(CURLcode) = nullptr;
    raw::easy_setopt_fn easy_setopt = nullptr;
    raw::easy_getinfo_fn easy_getinfo = nullptr;
    CURLM* (*multi_init)() = nullptr;
    CURLMcode (*multi_cleanup)(CURLM*) = nullptr;
    CURLMcode (*multi_add_handle)(CURLM*, CURL*) = nullptr;
    CURLMcode (*multi_remove_handle)(CURLM*, CURL*) = nullptr;
    CURLMcode (*multi_perform)(CURLM*, int*) = nullptr;
    CURLMcode (*multi_poll)(CURLM*, curl_waitfd*, unsigned, int, int*) = nullptr;
    CURLMsg* (*multi_info_read)(CURLM*, int*) = nullptr;
    raw::multi_setopt_fn multi_setopt = nullptr;
    curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
    void (*slist_free_all)(curl_slist*) = nullptr;
};

template <class F>
bool resolve(void* lib, const char* name, F& f, std::string& why) {
    f = reinterpret_cast<F>(::dlsym(lib, name));
    if (!f && why.empty()) why = std::string("libcurl has no ") + name;
    return f != nullptr;
}

const table& get() {
    static table t;
    static std::once_flag once;
    std::call_once(once, [] {
        // The library of the package the project builds with (libcurl4, SONAME libcurl.so.4),
        // never unloaded.
        void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* e = ::dlerror();
            t.why = std::string("libcurl could not be loaded (") + (e ? e : "libcurl.so.4") +
                    "); install the libcurl4 package";
            return;
        }
        std::string why;
        bool ok = resolve(lib, "curl_global_init", t.global_init, why);
        ok &= resolve(lib, "curl_easy_init", t.easy_init, why);
        ok &= resolve(lib, "curl_easy_cleanup", t.easy_cleanup, why);
        ok &= resolve(lib, "curl_easy_strerror", t.easy_strerror, why);
        ok &= resolve(lib, "curl_easy_setopt", t.easy_setopt, why);
        ok &= resolve(lib, "curl_easy_getinfo", t.easy_getinfo, why);
        ok &= resolve(lib, "curl_multi_init", t.multi_init, why);
        ok &= resolve(lib, "curl_multi_cleanup", t.multi_cleanup, why);
        ok &= resolve(lib, "curl_multi_add_handle", t.multi_add_handle, why);
        ok &= resolve(lib, "curl_multi_remove_handle", t.multi_remove_handle, why);
        ok &= resolve(lib, "curl_multi_perform", t.multi_perform, why);
        ok &= resolve(lib, "curl_multi_poll", t.multi_poll, why);
        ok &= resolve(lib, "curl_multi_info_read", t.multi_info_read, why);
        ok &= resolve(lib, "curl_multi_setopt", t.multi_setopt, why);
        ok &= resolve(lib, "curl_slist_append", t.slist_append, why);
        ok &= resolve(lib, "curl_slist_free_all", t.slist_free_all, why);
        if (!ok) {
            t.why = why;
            return;
        }
        t.loaded = true;
    });
    return t;
}

// The table of a library that is loaded: every function below that gets a handle was given
// one that an initialising function made, so libcurl is loaded there.
const table& loaded() {
    return get();
}

}  // namespace

std::string why() {
    return get().why;
}

CURLcode global_init(long flags) {
    const table& t = get();
    return t.loaded ? t.global_init(flags) : CURLE_FAILED_INIT;
}

CURL* easy_init() {
    const table& t = get();
    return t.loaded ? t.easy_init() : nullptr;
}

void easy_cleanup(CURL* h) {
    if (h) loaded().easy_cleanup(h);
}

const char* easy_strerror(CURLcode c) {
    const table& t = get();
    return t.loaded ? t.easy_strerror(c) : "libcurl is not available";
}

CURLM* multi_init() {
    const table& t = get();
    return t.loaded ? t.multi_init() : nullptr;
}

CURLMcode multi_cleanup(CURLM* m) {
    return m ? loaded().multi_cleanup(m) : CURLM_BAD_HANDLE;
}

CURLMcode multi_add_handle(CURLM* m, CURL* h) {
    return m ? loaded().multi_add_handle(m, h) : CURLM_BAD_HANDLE;
}

CURLMcode multi_remove_handle(CURLM* m, CURL* h) {
    return m ? loaded().multi_remove_handle(m, h) : CURLM_BAD_HANDLE;
}

CURLMcode multi_perform(CURLM* m, int* running) {
    if (!m) {
        if (running) *running = 0;
        return CURLM_BAD_HANDLE;
    }
    return loaded().multi_perform(m, running);
}

CURLMcode multi_poll(CURLM* m, curl_waitfd* extra, unsigned extra_count, int timeout_ms, int* ret) {
    return m ? loaded().multi_poll(m, extra, extra_count, timeout_ms, ret) : CURLM_BAD_HANDLE;
}

CURLMsg* multi_info_read(CURLM* m, int* left) {
    if (!m) {
        if (left) *left = 0;
        return nullptr;
    }
    return loaded().multi_info_read(m, left);
}

curl_slist* slist_append(curl_slist* list, const char* s) {
    const table& t = get();
    return t.loaded ? t.slist_append(list, s) : nullptr;
}

void slist_free_all(curl_slist* list) {
    if (list) loaded().slist_free_all(list);
}

namespace raw {

// Handles come from easy_init/multi_init, so these are reached only once libcurl is loaded;
// a null handle (an init that failed) is given libcurl's own answer to one.
namespace {
CURLcode no_easy(CURL*, CURLoption, ...) {
    return CURLE_FAILED_INIT;
}
CURLcode no_info(CURL*, CURLINFO, ...) {
    return CURLE_FAILED_INIT;
}
CURLMcode no_multi(CURLM*, CURLMoption, ...) {
    return CURLM_BAD_HANDLE;
}
}  // namespace

easy_setopt_fn easy_setopt() {
    const table& t = get();
    return t.loaded ? t.easy_setopt : &no_easy;
}

easy_getinfo_fn easy_getinfo() {
    const table& t = get();
    return t.loaded ? t.easy_getinfo : &no_info;
}

multi_setopt_fn multi_setopt() {
    const table& t = get();
    return t.loaded ? t.multi_setopt : &no_multi;
}

}  // namespace raw

}  // namespace mhtml::detail::lazy_curl
