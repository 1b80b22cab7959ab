/* KG_API marks what libkinegraph exports. The library is built with
 * -fvisibility=hidden, so a function is part of the shared library's ABI only
 * when its declaration in include/kinegraph/ carries KG_API; everything else
 * (the builder, arenas, parsers' helpers) stays inside the library, and the
 * test tests/check_symbols.py fails when a symbol without it is exported.
 * The static library keeps every symbol linkable (the tests use internals). */
#ifndef KINEGRAPH_API_H
#define KINEGRAPH_API_H

#if defined(__GNUC__) || defined(__clang__)
#define KG_API __attribute__((visibility("default")))
#define KG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KG_API
#define KG_PRINTF(a, b)
#endif

/* C linkage for C++ consumers. */
#ifdef __cplusplus
#define KG_BEGIN_DECLS extern "C" {
#define KG_END_DECLS }
#else
#define KG_BEGIN_DECLS
#define KG_END_DECLS
#endif

#endif
