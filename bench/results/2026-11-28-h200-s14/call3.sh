#!/bin/bash
# Session 14, device call 3 (H200, the machine of call 2 still warm): the
# torch-op export cases call 2's time limit cut off: a TMA template
# (hgemm_wgmma, bf16, tensor maps encoded by the C launcher the op calls)
# and an LLM-born two-launch split-K template with a workspace (answers
# replayed from tests/data/llm-recorded/splitk), each checked by
# tests/gpu/export_torch.sh. The command, as run from the repository root:
K=$PWD/build/bundle/kevo; export KEVO_TEMPLATES=$PWD/templates KEVO_CACHE_DIR=/tmp/kc; mkdir -p /tmp/nt/templates/none
(timeout 60 $K run --problem gemm --dtype bf16 --shape 1024x768x512 --generations 1 --template hgemm_wgmma --islands 1 --population 4 --offspring 4 --runs-dir /tmp/r --name tma --quiet
 timeout 60 $K run --problem gemm --dtype fp32 --shape 1024x768x512 --generations 2 --islands 2 --population 4 --offspring 8 --templates-dir /tmp/nt/templates --llm replay:$PWD/tests/data/llm-recorded/splitk --runs-dir /tmp/r --name llm-splitk --quiet
 grep '"template"' /tmp/r/*/best.json
 OUT=$OUT KEVO=$K timeout 100 sh tests/gpu/export_torch.sh /tmp/r/tma /tmp/r/llm-splitk) 2>&1 | grep -v "^sanitizer pass" | tail -40
