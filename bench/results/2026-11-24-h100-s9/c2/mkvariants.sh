#!/bin/sh
# Writes the sgemm_warptile variants that call 2 evaluated into DIR, from
# the repository's history: sw_a_old = the template at a0387a5, sw_b_new =
# at 4bb8c5b (three shape facts), and edits of sw_b_new: c (a misaligned B
# traps), d (the checked 16-byte loop kept), e (no generic_tile: the
# scalar-B loop is the fallback), f_o1 / f_o2 (ORDER defaults to 1 / 2).
# usage: mkvariants.sh DIR   (run inside the repository)
set -eu
out=$1
mkdir -p "$out"
git show a0387a5:templates/gemm/sgemm_warptile.cu >"$out/sw_a_old.cu"
git show 4bb8c5b:templates/gemm/sgemm_warptile.cu >"$out/sw_b_new.cu"
python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
s = open(out + '/sw_b_new.cu').read()
gen = """        if (!b_vec && BVEC)
            generic_tile(acc, A, B, kt_beg, kt_end, M, N, K, m0, n0, arow,
                         bcol);
"""
assert gen in s
def w(name, t):
    open(out + '/' + name, 'w').write(t)
w('sw_c_trap.cu', s.replace(gen, "        if (!b_vec && BVEC)\n            __trap();\n"))
w('sw_d_tt.cu', s.replace("        else if (KFULL && interior)\n",
                          "        else if (interior && K % BK == 0)\n"))
w('sw_e_ft.cu', s.replace(gen + "        else if (!b_vec)\n", "        if (!b_vec)\n"))
for o in (1, 2):
    w('sw_f_o%d.cu' % o, re.sub(r'(// kevo: param ORDER 0 1 2 default=)0',
                                r'\g<1>%d' % o, s))
PY
