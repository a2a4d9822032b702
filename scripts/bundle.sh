#!/bin/sh
# Makes a self-contained bundle for a GPU machine that lacks cJSON and
# libcurl: the kevo binary, every shared library it needs that is not part
# of the base system or the CUDA toolkit/driver, and the template library.
# The binary's RPATH is $ORIGIN, so the copies are found next to it.
# usage: scripts/bundle.sh build/kevo build/bundle
set -eu
bin=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
cp "$bin" "$out/kevo"
# base-system and CUDA libraries stay behind: the target has its own
# and so does an MPI build's Open MPI stack (mpirun there must match it)
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libgcc_s|libstdc\+\+|libcuda|libnvrtc|libcupti|libcublas|libmpi|libopen-(rte|pal)|libhwloc|libevent|libpmix|libfabric|libucx|libuc[mpst]|libibverbs|librdmacm|libpsm|libnl-)'
ldd "$bin" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    if echo "$name" | grep -Eq "$skip"; then continue; fi
    cp -L "$path" "$out/$name"
done
cp -r templates "$out/templates"
mkdir -p "$out/mutators" && cp -r mutators/prompts "$out/mutators/prompts"
[ -d tests/gpu ] && mkdir -p "$out/tests" && cp -r tests/gpu "$out/tests/gpu"
# the user-defined example problems (bench/suite.json names them by path)
[ -d examples/problems ] && mkdir -p "$out/examples" &&
    cp -r examples/problems "$out/examples/problems"
[ -f bench/suite.json ] && mkdir -p "$out/bench" && cp bench/suite.json "$out/bench/"
echo "bundle: $out ($(du -sh "$out" | cut -f1)): $(ls "$out" | tr '\n' ' ')"
