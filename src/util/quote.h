/*
 * quote.h - writes untrusted text (a run's name, a GPU's name, a problem
 * file's words, an LLM answer) into a target that would otherwise read
 * part of it as code or as a command: a C comment, a C string literal, a
 * Python string literal, a terminal. Each function writes s so that the
 * target shows it as text and cannot be ended or escaped by it. Knows
 * nothing of kevo's data.
 */
#ifndef KEVO_QUOTE_H
#define KEVO_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence (1-4 bytes, shortest form, no
 * surrogates) at s, or 0 if s does not start one (or at the NUL). */
size_t quote_utf8_len(const char *s);
/* Writes s for the inside of a C block comment: a closing star-slash is
 * broken ("*\/"), so are trigraphs ("?\?"), control characters other than
 * newline and tab become '.'. */
void quote_c_comment(FILE *f, const char *s);
/* Writes s for the inside of a C/C++ string literal ("..."): quote,
 * backslash and '?' (trigraphs) escaped, anything but printable ASCII as
 * a three-digit octal escape. */
void quote_c_string(FILE *f, const char *s);
/* Writes s for the inside of a Python string literal, "..." or """...""",
 * not raw: quote and backslash escaped, valid UTF-8 kept, other
 * non-printable bytes as \xNN; a newline is kept when keep_nl (a
 * docstring), else written \n. */
void quote_py_string(FILE *f, const char *s, int keep_nl);
/*
 * Copies s into out[cap] (always NUL-terminated, cut at a character)
 * safe to print on a terminal: valid UTF-8 and newline/tab kept, every
 * other control character, DEL, the C1 controls and each invalid byte
 * written as "\xNN", so no escape sequence reaches the terminal. Returns
 * out.
 */
char *quote_term(const char *s, char *out, size_t cap);
/* quote_term into a new string (caller frees); NULL if out of memory. */
char *quote_term_dup(const char *s);
/*
 * Checks len bytes of text that is meant to be readable text (a problem
 * file): NULL if it is UTF-8 with no control character but tab, CR and
 * newline; else a fixed reason ("contains a NUL byte", "is not UTF-8",
 * "contains a control character") and the 1-based line of the first bad
 * byte in *line.
 */
const char *quote_check_text(const char *text, size_t len, int *line);

#endif
