#pragma once
/// MHTML_EXPORT marks what libmhtml.so exports: the classes and functions of the public
/// headers (include/mhtml/). The library is compiled with -fvisibility=hidden and
/// -fvisibility-inlines-hidden, so everything else, the helpers in src/ included, stays
/// inside it. A static library ignores visibility; the mark is then harmless.

#if defined(__GNUC__) || defined(__clang__)
#define MHTML_EXPORT __attribute__((visibility("default")))
#else
#define MHTML_EXPORT
#endif
