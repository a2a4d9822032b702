#!/bin/sh
# run.sh - what produced this folder: the GPU test of PyTorch problems on
# one H200 (torch 2.11.0+cu130, Python 3.12, libpython3.12.so embedded in
# the worker). From a kevo bundle next to tests/ and examples/torch/:
#   OUT=$PWD/gpu KEVO=$PWD/bundle/kevo sh tests/gpu/torchprob.sh > torchprob.txt
# torch.compile ran with mode "default" (KEVO_TORCH_COMPILE, the script's
# default) to keep the run short; kevo's own default is
# max-autotune-no-cudagraphs.
set -eu
OUT=${OUT:-$PWD/gpu} KEVO=${KEVO:?set KEVO} sh "$(dirname "$0")/../../../tests/gpu/torchprob.sh"
