/*
 * ident.c - names a problem may not give its buffers and sizes (see
 * ident.h): every such name becomes a parameter of the kernel ABI and of
 * the exported launchers, so one that is a keyword, a built-in or a name
 * kevo generates would not compile or, worse, would quietly name the
 * wrong thing.
 */
#include "ident.h"

#include <string.h>
#include <strings.h>

/* C11 and C++17 keywords and alternative tokens, the CUDA built-in
 * variables, and the names the kernel ABI and harness define. */
static const char *const taken[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
    "bitor", "bool", "break", "case", "catch", "char", "char16_t",
    "char32_t", "class", "compl", "const", "const_cast", "constexpr",
    "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern",
    "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected",
    "public", "register", "reinterpret_cast", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast",
    "struct", "switch", "template", "this", "thread_local", "throw",
    "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
    "using", "virtual", "void", "volatile", "wchar_t", "while", "xor",
    "xor_eq",
    /* CUDA built-in variables and types every kernel may use */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
    /* the ABI: the workspace argument, the element type; C's NULL */
    "ws", "elem_t", "NULL",
};

const char *ident_check(const char *name)
{
    size_t np = strlen(IDENT_RESERVED_PREFIX);
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
        if (!strcmp(name, taken[i]))
            return "is a C/C++ keyword or a name every kernel already uses "
                   "(ws, elem_t, threadIdx, ...)";
    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' &&
                                              name[1] <= 'Z')))
        return "is reserved in C and C++ (starts with __ or _ and a "
               "capital)";
    if (!strncasecmp(name, IDENT_RESERVED_PREFIX, np))
        return "starts with '" IDENT_RESERVED_PREFIX "', reserved for the "
               "names kevo generates";
    return NULL;
}
