#!/bin/sh
# Prints the template call 1's sweep points were built from:
# templates/gemm/hgemm_packed.cu at 4f80321 (with the BT flag fix) without
# its two exclusion constraints. Run from the repository root. Each point
# pNN.cu (points.txt) is this text with the point's values as defaults.
git show 4f80321:templates/gemm/hgemm_packed.cu | grep -v -x -F \
    -e '// kevo: constraint !(CLN || BT) || (CLUSTER == 2 && CONSUMERS == 2 && BM == 128 && EPI == 1 && SK == 0 && !FUSE && !EPO && !FOLD && !PDLT)' \
    -e '// kevo: constraint SK != 3 || BN != 256'
