# The build tool src/tools/embed (the Makefile turns kernel and launcher
# text files into C arrays with it): the array holds the file's bytes
# exactly, minus "//!" note lines, with "//@ NAME" starting NAME_ arrays;
# quotes, backslashes, "??" (no trigraphs), tabs, CR, non-ASCII and a
# last line without a newline survive; bad input fails clearly.
. tests/cli/lib.inc
E="$BUILD/tools/embed"
[ -x "$E" ] || { fail "embed tool missing at $E"; finish; }
S="$SCRATCH"
printf '//! a note, not embedded\nsay "hi" \\ back\\\\slash ??= ??/ ?\n\ttab\r\n\303\251t\303\251 \001\177\n//!x\nend without newline' >"$S/in.cu"
# what the array must hold: the input without its //! lines
printf 'say "hi" \\ back\\\\slash ??= ??/ ?\n\ttab\r\n\303\251t\303\251 \001\177\nend without newline' >"$S/want"
cat >"$S/dump.c" <<'C'
#include <stdio.h>
#include "out.h"
int main(int argc, char **argv)
{
    FILE *f = argc == 3 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 1;
    fwrite(tricky, 1, sizeof tricky - 1, f);
    fclose(f);
    f = fopen(argv[2], "wb");
    fwrite(two_first, 1, sizeof two_first - 1, f);
    fwrite("|", 1, 1, f);
    fwrite(two_second, 1, sizeof two_second - 1, f);
    return fclose(f);
}
C
printf '//! sections\n//@ first\nint a;\n//! between\n\n//@ second\n}\n' >"$S/two.c.in"
"$E" tricky "$S/in.cu" "$S/out.h" && "$E" two "$S/two.c.in" "$S/two.h" \
    && cat "$S/two.h" >>"$S/out.h" \
    && cc -std=c11 -Wall -Wextra -Werror -o "$S/dump" "$S/dump.c" -I"$S" 2>"$S/cc" \
    && "$S/dump" "$S/got" "$S/got2" \
    && ok "embedded text compiles under -std=c11 -Werror" \
    || { fail "embed + compile"; cat "$S/cc"; }
cmp -s "$S/want" "$S/got" && ok "the array holds the file's bytes minus //! lines" \
    || { fail "embedded bytes differ"; od -c "$S/got" | head; }
[ "$(cat "$S/got2")" = "$(printf 'int a;\n\n|}\n')" ] \
    && ok "//@ NAME starts the array <name>_NAME" || fail "sections: $(cat "$S/got2")"
expect_fail "a missing input is named" "cannot open '$S/none.cu'" "$E" x "$S/none.cu" "$S/x.h"
printf '//@ bad-name\n' >"$S/bad.in"
expect_fail "a bad section name is named with its line" "bad.in:1:" "$E" x "$S/bad.in" "$S/x.h"
[ ! -e "$S/x.h" ] && [ ! -e "$S/x.h.tmp" ] && ok "a failed run leaves no output file" || fail "output left behind"
expect_fail "usage without arguments" "usage: embed" "$E"
finish
