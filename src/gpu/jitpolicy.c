/*
 * jitpolicy.c - the include rule for candidate sources (see jitpolicy.h):
 * a scan of the spliced source for include-like directives and a check of
 * each header name against the CUDA toolkit's folders. It does not run a
 * preprocessor: directive names cannot come from macros, so a '#' and the
 * word are always in the text; only the header name can, and a name that
 * is not a literal is refused.
 */
#include "jitpolicy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NAME_MAX_LEN 200

static const char *const directives[] = {"include", "include_next",
                                         "import", "embed"};

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* Length of a line splice at p (backslash or the ??/ trigraph, optional
 * blanks, then a newline: GCC and EDG accept blanks before it), else 0. */
static size_t splice_len(const char *p)
{
    size_t n = p[0] == '\\' ? 1 : !strncmp(p, "?\?/", 3) ? 3 : 0;
    if (!n)
        return 0;
    while (p[n] == ' ' || p[n] == '\t' || p[n] == '\r')
        n++;
    if (p[n] == '\n')
        return n + 1;
    return 0;
}

/* A copy of src with every line splice removed, and for each byte of it
 * the line number in src (lines[i]). NULL when out of memory. */
static char *splice(const char *src, int **lines)
{
    size_t n = strlen(src), k = 0;
    char *out = malloc(n + 1);
    int *ln = malloc((n + 1) * sizeof *ln);
    if (!out || !ln) {
        free(out);
        free(ln);
        return NULL;
    }
    int line = 1;
    for (size_t i = 0; i < n;) {
        size_t s = splice_len(src + i);
        if (s) {
            i += s;
            line++;
            continue;
        }
        ln[k] = line;
        if (src[i] == '\n')
            line++;
        out[k++] = src[i++];
    }
    out[k] = '\0';
    ln[k] = line;
    *lines = ln;
    return out;
}

/* Past blanks and block comments (which may span lines: a comment is one
 * space to the preprocessor) at p, not past a newline. */
static const char *skip_blanks(const char *p)
{
    for (;;) {
        if (*p == ' ' || *p == '\t' || *p == '\v' || *p == '\f' ||
            *p == '\r')
            p++;
        else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else
            return p;
    }
}

/* Length of a directive introducer at p: '#', the digraph %:, the
 * trigraph ??=; 0 if none. */
static size_t hash_len(const char *p)
{
    if (*p == '#')
        return 1;
    if (p[0] == '%' && p[1] == ':')
        return 2;
    if (!strncmp(p, "?\?=", 3))
        return 3;
    return 0;
}

/* The include-like directive word at p, or NULL. */
static const char *directive_at(const char *p)
{
    size_t n = 0;
    while (ident_char(p[n]))
        n++;
    for (size_t i = 0; i < sizeof directives / sizeof *directives; i++)
        if (strlen(directives[i]) == n && !memcmp(p, directives[i], n))
            return directives[i];
    return NULL;
}

static const char *cuda_root(void)
{
    const char *cuda = getenv("CUDA_HOME");
    if (!cuda || !*cuda)
        cuda = getenv("CUDA_PATH");
    return cuda && *cuda ? cuda : "/usr/local/cuda";
}

static int safe_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > NAME_MAX_LEN || name[0] == '/' || strstr(name, "..") ||
        strstr(name, "//") || !strncmp(name, "./", 2))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!ident_char(name[i]) && !strchr("./+-", name[i]))
            return 0;
    return 1;
}

int jitpolicy_header_allowed(const char *name)
{
    static const char *const dirs[] = {"include", "include/cccl"};
    if (!safe_name(name))
        return 0;
    if (!strncmp(name, "kevo/", 5))
        return 1;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char path[4096];
        struct stat st;
        int n = snprintf(path, sizeof path, "%s/%s/%s", cuda_root(), dirs[i],
                         name);
        if (n > 0 && (size_t)n < sizeof path && !stat(path, &st) &&
            S_ISREG(st.st_mode))
            return 1;
    }
    return 0;
}

/* Checks the header name of the directive dir whose operand starts at p;
 * 0 if allowed, else 1 with the reason. */
static int check_operand(const char *dir, const char *p, int line, char *why,
                         size_t cap)
{
    char name[NAME_MAX_LEN + 2];
    p = skip_blanks(p);
    char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
    if (!close) {
        snprintf(why, cap, "policy: line %d: '#%s' must name a header "
                 "literally (\"x\" or <x>), not through a macro", line, dir);
        return 1;
    }
    size_t n = strcspn(p + 1, close == '"' ? "\"\n" : ">\n");
    if (p[1 + n] != close || n > NAME_MAX_LEN) {
        snprintf(why, cap, "policy: line %d: '#%s' with a header name "
                 "that is not closed on its line or too long", line, dir);
        return 1;
    }
    memcpy(name, p + 1, n);
    name[n] = '\0';
    if (!jitpolicy_header_allowed(name)) {
        snprintf(why, cap, "policy: line %d: '#%s %c%s%c' is not allowed: "
                 "candidates may include only CUDA toolkit headers and "
                 "kevo/ headers, by relative name", line, dir, p[0], name,
                 close);
        return 1;
    }
    return 0;
}

int jitpolicy_check_includes(const char *src, char *why, size_t cap)
{
    int *lines = NULL;
    char *s = splice(src, &lines);
    if (!s) {
        snprintf(why, cap, "out of memory screening #include lines");
        return 1;
    }
    int bad = 0;
    for (const char *p = s; *p && !bad; p++) {
        size_t h = hash_len(p);
        if (!h)
            continue;
        const char *w = skip_blanks(p + h);
        const char *dir = directive_at(w);
        if (dir)
            bad = check_operand(dir, w + strlen(dir), lines[p - s], why, cap);
    }
    free(s);
    free(lines);
    return bad;
}
