#!/usr/bin/env bash
# tplcc.sh - check a kevo template (see src/core/tpl.h) at one point of its
# parameter space without kevo: reads the "// kevo:" directives, evaluates
# the constraints, writes the instantiated source (prelude for the dtype as
# in fitness/*.c, one #define per parameter and per shape fact, at the
# --emu/--gpu shape or the problem's default, the template text) and compiles
# it with nvcc (or NVRTC, as kevo does), printing registers, spills and
# shared memory per kernel. It can also count the valid points, list sample
# points, and run the instance through tests/gpu/tpl_selftest.cu, on the GPU
# (--gpu) or on a CPU emulation (--emu, g++ with ASan/UBSan). A developer's
# tool: kevo's own parser is src/core/tpl.c; when they disagree, tpl.c rules.
#
# usage: scripts/tplcc.sh [options] TEMPLATE.cu [NAME=VALUE ...]
#   -t DTYPE        fp32 | fp16 | bf16 (default: first of the template's dtypes)
#   -E              print the instantiated source and stop
#   -o FILE         also write the instantiated source to FILE
#   --no-compile    skip the compile (with --emu: just run it)
#   --nvrtc         compile with NVRTC instead of nvcc
#   --ptx           count the PTX's global/shared accesses by width (nvcc)
#   --force         allow values outside the declared lists
#   --space [N]     count the valid points; with N, print N sample points
#   --emu SHAPE     run on the CPU emulator, e.g. --emu 100x70x33
#   --gpu SHAPE     build and run the self-test on the GPU ("-": a default
#                   shape for the problem)
#   --misalign      (--emu/--gpu) shift every buffer by one element
#   --trials N      (--emu/--gpu) launches with fresh inputs (default 3 on
#                   --emu, 5 on --gpu)
#   --expect        (--emu/--gpu) compare the verdict with the file's
#                   "// expect: <verdict>" line; exit 0 when they match
# exit status: 0 ok, 1 bad point / compile error / bad verdict, 2 usage,
# 3 compiled but spilled (listed on stderr)
# environment: CUDA (/usr/local/cuda), ARCH (sm_90a), TPLCC_DIR (work dir)
set -euo pipefail

CUDA=${CUDA:-/usr/local/cuda}
ARCH=${ARCH:-sm_90a}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SELFTEST=$ROOT/tests/gpu/tpl_selftest.cu

die() { echo "tplcc: $*" >&2; exit 2; }

dtype= ; print_src=0 ; out_file= ; compile=1 ; use_nvrtc=0 ; show_ptx=0
force=0 ; space=0 ; space_n=0 ; emu_shape= ; gpu_shape= ; misalign=0
trials= ; expect=0 ; tpl= ; overrides=()
while [ $# -gt 0 ]; do
    case $1 in
    -t) dtype=$2; shift ;;
    -E) print_src=1 ;;
    -o) out_file=$2; shift ;;
    --no-compile) compile=0 ;;
    --nvrtc) use_nvrtc=1 ;;
    --ptx) show_ptx=1 ;;
    --force) force=1 ;;
    --space) space=1
        if [ $# -gt 1 ] && [[ $2 =~ ^[0-9]+$ ]]; then space_n=$2; shift; fi ;;
    --emu) emu_shape=$2; shift ;;
    --gpu) gpu_shape=$2; shift ;;
    --misalign) misalign=1 ;;
    --trials) trials=$2; shift ;;
    --expect) expect=1 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *=*) overrides+=("$1") ;;
    *) [ -z "$tpl" ] || die "two templates: '$tpl' and '$1'"; tpl=$1 ;;
    esac
    shift
done
[ -n "$tpl" ] || die "no template (try --help)"
[ -r "$tpl" ] || die "cannot read '$tpl'"
name=$(basename "$tpl" .cu)
W=${TPLCC_DIR:-${TMPDIR:-/tmp}/kevo-tplcc-$(id -u)}/$name.$$
mkdir -p "$W/inc/kevo"
trap 'rm -rf "$W"' EXIT
# kevo's own headers (kevo hands them to NVRTC in memory, src/core/kvhdr.c)
cp "$ROOT/templates/include/kevo_sm90.cuh" "$W/inc/kevo/sm90.cuh"

# ---- directives -------------------------------------------------------
problem= ; dtypes= ; nondet=0 ; workspace=
pnames=() ; pvals=() ; pdefs=()
cons=() ; cons_line=() ; reqs=() ; reqs_line=() ; fnames=() ; fexprs=()
anames=() ; aexprs=()
lk=() ; lgrid=() ; lblock=() ; lsmem=() ; lcluster=()
while IFS=$'\t' read -r dir line arg; do
    nl=${#lk[@]}
    case $dir in
    problem) problem=$arg ;;
    dtypes) dtypes=$arg ;;
    param)
        read -r -a w <<<"$arg"
        pn=${w[0]} ; vals= ; def=
        for t in "${w[@]:1}"; do
            case $t in
            default=*) def=${t#default=} ;;
            *) [[ $t =~ ^-?([0-9]+|0x[0-9a-fA-F]+)$ ]] ||
                   die "$tpl:$line: bad value '$t' of $pn"
               vals+=" $t" ;;
            esac
        done
        vals=${vals# }
        [ -n "$vals" ] || die "$tpl:$line: param $pn has no values"
        [ -n "$def" ] || def=${vals%% *}
        [[ " $vals " == *" $def "* ]] ||
            die "$tpl:$line: default $def of $pn is not among its values"
        pnames+=("$pn") ; pvals+=("$vals") ; pdefs+=("$def") ;;
    constraint) cons+=("$arg") ; cons_line+=("$line") ;;
    requires) reqs+=("$arg") ; reqs_line+=("$line") ;;
    fact) fnames+=("${arg%%[[:space:]]*}")
          fexprs+=("$(sed -E 's/^[^[:space:]]+[[:space:]]+//' <<<"$arg")") ;;
    arg) anames+=("${arg%%[[:space:]]*}")
         aexprs+=("$(sed -E 's/^[^[:space:]]+[[:space:]]+//' <<<"$arg")") ;;
    launch) lk+=("$arg") ; lgrid+=("1") ; lblock+=("1") ; lsmem+=("0")
            lcluster+=("") ;;
    grid|block|smem|cluster)
        [ "$nl" -gt 0 ] || die "$tpl:$line: '$dir' before any 'launch'"
        i=$((nl - 1))
        case $dir in
        grid) lgrid[$i]=$arg ;; block) lblock[$i]=$arg ;;
        smem) lsmem[$i]=$arg ;; cluster) lcluster[$i]=$arg ;;
        esac ;;
    workspace) workspace=$arg ;;
    nondeterministic) nondet=1 ;;
    *) die "$tpl:$line: unknown directive '$dir'" ;;
    esac
done < <(awk 'match($0, /^[ \t]*\/\/[ \t]*kevo:[ \t]*/) {
        rest = substr($0, RLENGTH + 1); sub(/[ \t\r]+$/, "", rest)
        d = rest; sub(/[ \t].*$/, "", d)
        a = substr(rest, length(d) + 1); sub(/^[ \t]+/, "", a)
        printf "%s\t%d\t%s\n", d, NR, a }' "$tpl")

[ -n "$problem" ] || die "$tpl: no 'problem' directive"
[ -n "$dtypes" ] || die "$tpl: no 'dtypes' directive"
[ ${#lk[@]} -gt 0 ] || die "$tpl: no 'launch' directive"
case $problem in
gemm) sizes=(M N K) ; def_shape=200x136x72 ;;
softmax) sizes=(ROWS COLS) ; def_shape=257x1000 ;;
*) die "$tpl: unknown problem '$problem'" ;;
esac
[ -n "$dtype" ] || dtype=${dtypes%% *}
[[ " $dtypes " == *" $dtype "* ]] || die "$tpl does not support dtype $dtype"
for k in "${lk[@]}"; do
    grep -Eq "extern[[:space:]]+\"C\"[[:space:]]+__global__.*[^A-Za-z0-9_]$k[[:space:]]*\(" \
        "$tpl" || grep -Eq "^[[:space:]]*$k[[:space:]]*\(" "$tpl" ||
        die "$tpl: kernel '$k' is not defined"
done

# ---- the point ----------------------------------------------------------
pval=("${pdefs[@]}")
for o in "${overrides[@]+"${overrides[@]}"}"; do
    on=${o%%=*} ; ov=${o#*=} ; found=0
    for i in "${!pnames[@]}"; do
        [ "${pnames[$i]}" = "$on" ] || continue
        found=1
        if [ $force = 0 ] && [[ " ${pvals[$i]} " != *" $ov "* ]]; then
            die "$on=$ov is not among its values (${pvals[$i]}); --force"
        fi
        pval[$i]=$ov
    done
    [ $found = 1 ] || die "no parameter '$on' in $tpl"
done
point=
for i in "${!pnames[@]}"; do point+="${pnames[$i]}=${pval[$i]} "; done
point=${point% }

# Expressions are C; the functions get a kv_ prefix (defined below).
cexpr() {
    sed -E 's/\b(cdiv|min|max|log2|ispow2|align)[[:space:]]*\(/kv_\1(/g' <<<"$1"
}
# Splits "a, f(b, c), d" at top-level commas, one item per line.
split_top() {
    awk '{ n = length($0); depth = 0; item = ""
        for (i = 1; i <= n; i++) { ch = substr($0, i, 1)
            if (ch == "(") depth++
            if (ch == ")") depth--
            if (ch == "," && depth == 0) { print item; item = "" } else item = item ch }
        print item }' <<<"$1"
}
kv_funcs='typedef long long i64;
static i64 kv_cdiv(i64 a, i64 b) { return (a + b - 1) / b; }
static i64 kv_min(i64 a, i64 b) { return a < b ? a : b; }
static i64 kv_max(i64 a, i64 b) { return a > b ? a : b; }
static i64 kv_log2(i64 a) { i64 r = 0; while (a > 1) { a >>= 1; r++; } return r; }
static i64 kv_ispow2(i64 a) { return a > 0 && !(a & (a - 1)); }
static i64 kv_align(i64 a, i64 b) { return kv_cdiv(a, b) * b; }
static void fpe(int s) { (void)s; puts("error\tdivision by zero"); _exit(3); }
'

# ---- --space: enumerate ---------------------------------------------------
if [ $space = 1 ]; then
    {
        echo '#include <stdio.h>'
        echo '#include <signal.h>'
        echo '#include <unistd.h>'
        echo "$kv_funcs"
        echo 'int main(void) {'
        echo '  const i64 SMS = 132, SMEM_OPTIN = 232448, L2_BYTES = 52428800;'
        echo '  (void)SMS; (void)SMEM_OPTIN; (void)L2_BYTES; signal(SIGFPE, fpe);'
        echo '  unsigned long long raw = 0, valid = 0, seen = 0, rng = 1;'
        echo "  enum { NS = $space_n > 0 ? $space_n : 1 };"
        echo "  static i64 samp[NS][${#pnames[@]}];"
        for i in "${!pnames[@]}"; do
            echo "  static const i64 v_$i[] = {$(sed 's/ /, /g' <<<"${pvals[$i]}")};"
        done
        for i in "${!pnames[@]}"; do
            echo "  for (unsigned i_$i = 0; i_$i < sizeof v_$i / sizeof *v_$i; i_$i++) {"
            echo "  const i64 ${pnames[$i]} = v_$i[i_$i];"
        done
        echo '  raw++;'
        echo '  if (1'
        for c in "${cons[@]+"${cons[@]}"}"; do echo "    && ($(cexpr "$c"))"; done
        echo '  ) {'
        echo '    valid++; seen++;'
        echo '    rng = rng * 6364136223846793005ull + 1442695040888963407ull;'
        echo "    unsigned long long slot = seen <= NS ? seen - 1 : (rng >> 33) % seen;"
        echo '    if (slot < NS) {'
        for i in "${!pnames[@]}"; do echo "      samp[slot][$i] = ${pnames[$i]};"; done
        echo '    }'
        echo '  }'
        for i in "${!pnames[@]}"; do echo '  }'; done
        echo '  printf("points %llu valid %llu\n", raw, valid);'
        echo "  for (unsigned long long s = 0; s < $space_n && s < valid; s++) {"
        for i in "${!pnames[@]}"; do
            echo "    printf(\"%s${pnames[$i]}=%lld\", $([ "$i" = 0 ] && echo '""' || echo '" "'), samp[s][$i]);"
        done
        echo '    printf("\n");'
        echo '  }'
        echo '  return 0;'
        echo '}'
    } >"$W/space.c"
    cc -O1 -w -o "$W/space" "$W/space.c" || die "cannot build the space counter"
    "$W/space"
    exit 0
fi

# ---- constraints and shape facts at the point ------------------------------
# Facts take the values of the shape run on (--emu/--gpu), else of the
# problem's default shape.
fact_shape=${emu_shape:-${gpu_shape:-$def_shape}}
[ "$fact_shape" = - ] && fact_shape=$def_shape
IFS=x read -r -a fact_dims <<<"$fact_shape"
{
    echo '#include <stdio.h>'
    echo '#include <signal.h>'
    echo '#include <unistd.h>'
    echo "$kv_funcs"
    echo 'int main(void) {'
    echo '  const i64 SMS = 132, SMEM_OPTIN = 232448, L2_BYTES = 52428800;'
    echo '  (void)SMS; (void)SMEM_OPTIN; (void)L2_BYTES; signal(SIGFPE, fpe);'
    for i in "${!pnames[@]}"; do
        echo "  const i64 ${pnames[$i]} = ${pval[$i]}; (void)${pnames[$i]};"
    done
    for i in "${!cons[@]}"; do
        echo "  printf(\"constraint\t${cons_line[$i]}\t%lld\n\", (i64)($(cexpr "${cons[$i]}")));"
    done
    for i in "${!sizes[@]}"; do
        echo "  const i64 ${sizes[$i]} = ${fact_dims[$i]:-0}; (void)${sizes[$i]};"
    done
    for i in "${!fnames[@]}"; do
        echo "  printf(\"fact\t$i\t%lld\n\", (i64)($(cexpr "${fexprs[$i]}")));"
    done
    echo '  return 0;'
    echo '}'
} >"$W/point.c"
cc -O0 -w -o "$W/point" "$W/point.c" ||
    die "cannot evaluate the constraints (bad expression?)"
bad=0 ; fval=()
while IFS=$'\t' read -r kind line v; do
    [ "$kind" = error ] && die "$point: $line"
    if [ "$kind" = fact ]; then fval[$line]=$v; continue; fi
    if [ "$v" = 0 ]; then
        echo "tplcc: $point violates $tpl:$line: $(sed -n "${line}p" "$tpl" |
            sed -E 's/^.*kevo:[[:space:]]*//')" >&2
        bad=1
    fi
done < <("$W/point")
[ $bad = 0 ] || exit 1

# ---- the instance -----------------------------------------------------------
prelude() {
    case $1 in
    fp16) printf '%s\n' '#include <cuda_fp16.h>' 'typedef __half elem_t;' \
              '#define TO_F32(x) __half2float(x)' \
              '#define FROM_F32(x) __float2half_rn(x)' ;;
    bf16) printf '%s\n' '#include <cuda_bf16.h>' 'typedef __nv_bfloat16 elem_t;' \
              '#define TO_F32(x) __bfloat162float(x)' \
              '#define FROM_F32(x) __float2bfloat16_rn(x)' ;;
    *) printf '%s\n' 'typedef float elem_t;' '#define TO_F32(x) (x)' \
           '#define FROM_F32(x) (x)' ;;
    esac
}
{
    echo "// kevo: $name $point"
    prelude "$dtype"
    for i in "${!pnames[@]}"; do echo "#define ${pnames[$i]} ${pval[$i]}"; done
    for i in "${!fnames[@]}"; do echo "#define ${fnames[$i]} ${fval[$i]}"; done
    echo "#line 1 \"$tpl\""
    cat "$tpl"
} >"$W/inst.cu"
[ -z "$out_file" ] || cp "$W/inst.cu" "$out_file"
if [ $print_src = 1 ]; then cat "$W/inst.cu"; exit 0; fi
echo "$name [$dtype] $point"
if [ $compile = 0 ] && [ -z "$emu_shape$gpu_shape" ]; then
    echo "point ok"; exit 0
fi

# ---- compile ----------------------------------------------------------------
summarize_ptxas() {
    awk '
    /Compiling entry function/ { match($0, /function .[A-Za-z0-9_]+/);
        k = substr($0, RSTART + 10, RLENGTH - 10) }
    /bytes stack frame/ { match($0, /[0-9]+ bytes stack frame/); st = substr($0, RSTART) + 0
        match($0, /[0-9]+ bytes spill stores/); ss = substr($0, RSTART) + 0
        match($0, /[0-9]+ bytes spill loads/); sl = substr($0, RSTART) + 0 }
    /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); r = substr($0, RSTART + 5, RLENGTH - 5)
        sm = 0; if (match($0, /[0-9]+ bytes smem/)) sm = substr($0, RSTART, RLENGTH - 11)
        printf "  %-20s regs %3d  spill stores %s loads %s  stack %s  static smem %s\n", k, r, ss, sl, st, sm
        if (ss + sl > 0) spills = 1 }
    END { exit spills ? 3 : 0 }'
}
want=$(sed -nE '1s,^//[[:space:]]*expect:[[:space:]]*([a-z_]+).*,\1,p' "$tpl")
compile_failed() {
    echo "verdict: compile_error"
    [ $expect = 1 ] || exit 1
    [ "$want" = compile_error ] && { echo "PASS $name: compile_error"; exit 0; }
    echo "FAIL $name: compile_error, expected ${want:-?}"; exit 1
}
rc=0
if [ $compile = 0 ]; then
    :
elif [ $use_nvrtc = 1 ]; then
    chk=${TPLCC_DIR:-${TMPDIR:-/tmp}/kevo-tplcc-$(id -u)}/nvrtc_check
    if [ ! -x "$chk" ] || [ "$chk" -ot "$0" ]; then
        cat >"$W/nvrtc_check.c" <<'EOF'
/* nvrtc_check SRC ARCH INCDIR KEVOINC: compiles SRC to a cubin as kevo
 * would (kevo's headers from KEVOINC instead of memory) */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *src = calloc(1, n + 1);
    if (fread(src, 1, n, f) != (size_t)n) return 2;
    char arch[64], inc[512], kinc[512];
    snprintf(arch, sizeof arch, "--gpu-architecture=%s", argv[2]);
    snprintf(inc, sizeof inc, "--include-path=%s", argv[3]);
    snprintf(kinc, sizeof kinc, "--include-path=%s", argv[4]);
    const char *opts[] = {arch, inc, kinc, "--std=c++17", "--ptxas-options=-v"};
    nvrtcProgram p;
    if (nvrtcCreateProgram(&p, src, "instance.cu", 0, NULL, NULL)) return 2;
    nvrtcResult r = nvrtcCompileProgram(p, 5, opts);
    size_t ln;
    nvrtcGetProgramLogSize(p, &ln);
    char *log = malloc(ln + 1);
    nvrtcGetProgramLog(p, log);
    fputs(log, stderr);
    return r == NVRTC_SUCCESS ? 0 : 1;
}
EOF
        cc -O1 -I"$CUDA/include" -o "$chk" "$W/nvrtc_check.c" \
            -L"$CUDA/lib64" -Wl,-rpath,"$CUDA/lib64" -lnvrtc ||
            die "cannot build the NVRTC checker"
    fi
    if ! "$chk" "$W/inst.cu" "$ARCH" "$CUDA/include" "$W/inc" 2>"$W/log"; then
        cat "$W/log" >&2 ; compile_failed
    fi
else
    if ! "$CUDA/bin/nvcc" -arch="$ARCH" -cubin -Xptxas -v -I"$W/inc" \
            -o "$W/k.cubin" "$W/inst.cu" 2>"$W/log"; then
        cat "$W/log" >&2 ; compile_failed
    fi
fi
if [ $compile = 1 ]; then
    grep -E 'warning|error' "$W/log" | grep -v 'ptxas info' >&2 || true
    summarize_ptxas <"$W/log" || rc=$?
    [ $rc = 0 ] || echo "tplcc: spills" >&2
fi
if [ $show_ptx = 1 ]; then
    "$CUDA/bin/nvcc" -arch="$ARCH" -ptx -I"$W/inc" -o "$W/k.ptx" "$W/inst.cu"
    echo "  PTX global/shared access counts:"
    grep -oE '(ld|st|cp\.async)[.a-z0-9]*(global|shared)[.a-z0-9]*' "$W/k.ptx" |
        sort | uniq -c | sed 's/^/   /'
fi

# ---- run: CPU emulation or GPU ---------------------------------------------
[ -n "$emu_shape$gpu_shape" ] || exit $rc
shape=${emu_shape:-$gpu_shape}
[ "$shape" = - ] && shape=$def_shape
{
    echo "/* generated by tplcc.sh for $name $point */"
    echo "#define KEVO_N_LAUNCHES ${#lk[@]}"
    printf 'static const char *kevo_kernel_names[] = {'
    printf '"%s", ' "${lk[@]}" ; echo '};'
    printf 'static const struct kevo_kernel kevo_kernels[] = {'
    printf 'KEVO_KERNEL(%s), ' "${lk[@]}" ; echo '};'
    echo "#define KEVO_N_ARGS ${#anames[@]}" 
    locals() {
        for i in "${!sizes[@]}"; do
            echo "  const long long ${sizes[$i]} = d[$i]; (void)${sizes[$i]};"
        done
        echo '  const long long SMS = dev->sms, SMEM_OPTIN = dev->smem_optin,'
        echo '      L2_BYTES = dev->l2_bytes;'
        echo '  (void)SMS; (void)SMEM_OPTIN; (void)L2_BYTES;'
    }
    echo 'static int kevo_requires(const long long *d, const struct kevo_dev *dev,'
    echo '                         char *why, size_t cap) {'
    locals
    for i in "${!reqs[@]}"; do
        echo "  if (!($(cexpr "${reqs[$i]}"))) {"
        echo "    snprintf(why, cap, \"requires %s (line ${reqs_line[$i]})\", \"$(sed 's/["\\]/\\&/g' <<<"${reqs[$i]}")\");"
        echo '    return 0;'
        echo '  }'
    done
    echo '  (void)why; (void)cap; return 1;'
    echo '}'
    echo 'static int kevo_plan(const long long *d, const struct kevo_dev *dev,'
    echo '    struct kevo_launch *L, long long *ws, char *why, size_t cap) {'
    locals
    for i in "${!lk[@]}"; do
        mapfile -t g < <(split_top "$(cexpr "${lgrid[$i]}")")
        mapfile -t b < <(split_top "$(cexpr "${lblock[$i]}")")
        for j in 0 1 2; do
            echo "  L[$i].grid[$j] = (${g[$j]:-1});"
            echo "  L[$i].block[$j] = (${b[$j]:-1});"
        done
        echo "  L[$i].smem = ($(cexpr "${lsmem[$i]}"));"
        [ -z "${lcluster[$i]}" ] ||
            echo "  fprintf(stderr, \"note: cluster dims are ignored by the self-test\\n\");"
        echo "  for (int j = 0; j < 3; j++)"
        echo "    if (L[$i].grid[j] < 1 || L[$i].block[j] < 1 || L[$i].smem < 0 ||"
        echo "        L[$i].block[0] * L[$i].block[1] * L[$i].block[2] > 1024 ||"
        echo "        L[$i].smem > SMEM_OPTIN) {"
        echo "      snprintf(why, cap, \"launch ${lk[$i]}: bad plan\"); return -1; }"
    done
    echo "  *ws = ($(if [ -n "$workspace" ]; then cexpr "$workspace"; else echo 0; fi));"
    echo '  (void)why; (void)cap; return 0;'
    echo '}'
    echo 'static void kevo_args(const long long *d, const struct kevo_dev *dev,'
    echo '                      int *a) {'
    locals
    for i in "${!anames[@]}"; do
        echo "  a[$i] = (int)($(cexpr "${aexprs[$i]}")); /* ${anames[$i]} */"
    done
    echo '  (void)a;'
    echo '}'
} >"$W/plan.h"
bf16=0 ; [ "$dtype" = bf16 ] && bf16=1
pmacro=KEVO_PROBLEM_$(tr a-z A-Z <<<"$problem")
defs=(-D"$pmacro"=1 -DKEVO_DTYPE_BF16=$bf16 -DKEVO_INSTANCE="\"$W/run.cu\""
      -DKEVO_PLAN="\"$W/plan.h\"")
args=("$shape")
[ $misalign = 1 ] && args+=(--misalign)
if [ -n "$emu_shape" ]; then
    # dynamic shared memory becomes a pointer into the emulator's buffer
    sed -E '/extern[[:space:]]+__shared__/ s/__align__\([0-9]+\)[[:space:]]*//g' \
        "$W/inst.cu" |
        sed -E 's/^([[:space:]]*)extern[[:space:]]+__shared__[[:space:]]+(.*[^[:space:]])[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\[[[:space:]]*\][[:space:]]*;/\1\2 *\3 = (\2 *)kevo_emu_dyn_smem;/' \
        >"$W/run.cu"
    g++ -std=c++17 -O1 -g -fno-omit-frame-pointer -w -pthread \
        -fsanitize=address,undefined -fno-sanitize-recover=undefined \
        -DKEVO_EMU "${defs[@]}" -I"$CUDA/include" -x c++ "$SELFTEST" \
        -o "$W/emu" || die "emulator build failed"
    args+=(--trials "${trials:-3}")
    run=(env ASAN_OPTIONS=detect_leaks=0 "$W/emu")
else
    cp "$W/inst.cu" "$W/run.cu"
    "$CUDA/bin/nvcc" -O2 -gencode=arch=compute_${ARCH#sm_},code=$ARCH -w \
        -I"$W/inc" "${defs[@]}" -o "$W/gpu" "$SELFTEST" ||
        die "self-test build failed"
    args+=(--trials "${trials:-5}")
    run=("$W/gpu")
fi
set +e
"${run[@]}" "${args[@]}" 2>&1 | tee "$W/out"
st=${PIPESTATUS[0]}
set -e
if [ $expect = 1 ]; then
    got=$(sed -nE 's/^verdict: //p' "$W/out" | tail -1)
    [ -n "$got" ] || got="no verdict (exit $st)"
    [ "$got" = "$want" ] && { echo "PASS $name: $got"; exit 0; }
    echo "FAIL $name: $got, expected ${want:-?}"
    exit 1
fi
exit $st
