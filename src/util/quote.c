/*
 * quote.c - untrusted text written safely into comments, string literals
 * and terminals (see quote.h).
 */
#include "quote.h"

#include <stdlib.h>
#include <string.h>

size_t quote_utf8_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n;
    unsigned cp;
    if (u[0] < 0x80)
        return u[0] ? 1 : 0;
    if (u[0] >= 0xc2 && u[0] <= 0xdf)
        n = 2, cp = u[0] & 0x1f;
    else if (u[0] >= 0xe0 && u[0] <= 0xef)
        n = 3, cp = u[0] & 0x0f;
    else if (u[0] >= 0xf0 && u[0] <= 0xf4)
        n = 4, cp = u[0] & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (u[i] & 0x3f);
    }
    /* overlong, surrogate or past U+10FFFF */
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

void quote_c_comment(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '*' && s[1] == '/')
            fputs("*\\", f);
        else if (c == '?' && s[1] == '?') /* no trigraph (??/ splices) */
            fputs("?\\", f);
        else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            fputc('.', f);
        else
            fputc(c, f);
    }
}

void quote_c_string(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\%03o", c);
        else
            fputc(c, f);
    }
}

void quote_py_string(FILE *f, const char *s, int keep_nl)
{
    while (*s) {
        unsigned char c = (unsigned char)*s;
        size_t n = quote_utf8_len(s);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs(keep_nl ? "\n" : "\\n", f);
        else if (n > 1 && !(c == 0xc2 && (unsigned char)s[1] < 0xa0)) {
            fwrite(s, 1, n, f);
            s += n;
            continue;
        } else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
        s++;
    }
}

char *quote_term(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    if (!cap)
        return out;
    while (*s) {
        unsigned char c = (unsigned char)*s;
        size_t n = quote_utf8_len(s);
        char esc[8];
        const char *put = s;
        /* C1 controls are U+0080..U+009F: 0xc2 0x80..0x9f */
        if ((n == 1 && (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f) ||
            (n > 1 && !(c == 0xc2 && (unsigned char)s[1] < 0xa0))) {
            /* kept as is */
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            put = esc;
            n = 1;
        }
        size_t len = put == s ? n : strlen(esc);
        if (o + len >= cap)
            break;
        memcpy(out + o, put, len);
        o += len;
        s += n;
    }
    out[o] = '\0';
    return out;
}

char *quote_term_dup(const char *s)
{
    size_t cap = strlen(s) * 4 + 1; /* "\xNN" per byte at most */
    char *out = malloc(cap);
    return out ? quote_term(s, out, cap) : NULL;
}

const char *quote_check_text(const char *text, size_t len, int *line)
{
    *line = 1;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        size_t n = c ? quote_utf8_len(text + i) : 1;
        if (!c)
            return "contains a NUL byte";
        if (!n || i + n > len)
            return "is not UTF-8";
        if ((n == 1 && c < 0x20 && c != '\t' && c != '\r' && c != '\n') ||
            c == 0x7f || (c == 0xc2 && (unsigned char)text[i + 1] < 0xa0))
            return "contains a control character";
        *line += c == '\n';
        i += n;
    }
    return NULL;
}
