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

/* Line `line` of src as the compiler numbers it: after a "#line N"
 * directive (tpl_instantiate puts one before the template text), the
 * next line is N. */
static int logical_line(const char *src, int line)
{
    int phys = 1, at = 0, base = 1;
    for (const char *p = src; *p && phys < line; phys++) {
        const char *q = p + strspn(p, " \t");
        if (*q == '#') {
            q += 1 + strspn(q + 1, " \t");
            if (!strncmp(q, "line", 4) && (q[4] == ' ' || q[4] == '\t')) {
                at = phys;
                base = atoi(q + 5);
            }
        }
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    return at ? base + (line - at - 1) : line;
}

/* Checks a directive that may start at p (a '#', %: or ??= there, then
 * an include-like word); 0 if there is none or it is allowed. */
static int check_at(const char *src, const char *s, const int *lines,
                    const char *p, char *why, size_t cap)
{
    if (p[0] == '\xef' && p[1] == '\xbb' && p[2] == '\xbf')
        p = skip_blanks(p + 3); /* a UTF-8 byte order mark */
    size_t h = hash_len(p);
    if (!h)
        return 0;
    const char *w = skip_blanks(p + h);
    const char *dir = directive_at(w);
    if (!dir)
        return 0;
    return check_operand(dir, w + strlen(dir),
                         logical_line(src, lines[p - s]), why, cap);
}

int jitpolicy_check_includes(const char *src, char *why, size_t cap)
{
    int *lines = NULL;
    char *s = splice(src, &lines);
    if (!s) {
        snprintf(why, cap, "out of memory screening #include lines");
        return 1;
    }
    /* Where a directive can start: first on a line (blanks and block
     * comments before it are blanks), and, because a block comment may
     * have begun on an earlier line, just after a line's first "*" "/".
     * Every line counts, whatever a scanner would say it lies in (a
     * comment, a raw string): no reading of the text by the preprocessor
     * is missed, and words in the middle of a comment line are free. */
    int bad = 0;
    for (const char *p = s; *p && !bad; p += *p == '\n') {
        const char *end = p + strcspn(p, "\n");
        const char *close = memmem(p, (size_t)(end - p), "*/", 2);
        bad = check_at(src, s, lines, skip_blanks(p), why, cap);
        if (!bad && close)
            bad = check_at(src, s, lines, skip_blanks(close + 2), why, cap);
        p = end;
    }
    free(s);
    free(lines);
    return bad;
}
