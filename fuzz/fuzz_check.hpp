#pragma once
// MHTML_CHECK for the fuzz targets: a failed property aborts with the file and line, which
// libFuzzer reports as a crash and saves the input for.

#include <cstdio>
#include <cstdlib>

namespace mhtml::fuzz {

[[noreturn]] inline void check_failed(const char* file, int line, const char* what) {
    std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    std::abort();
}

}  // namespace mhtml::fuzz

#define MHTML_CHECK(cond)                                                    \
    do {                                                                     \
        if (!(cond)) ::mhtml::fuzz::check_failed(__FILE__, __LINE__, #cond); \
    } while (0)
