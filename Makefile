# kevo: one non-recursive Makefile.
#   make            build build/kevo (installs missing Debian packages first)
#   make run        build, then `kevo run $(ARGS)` (the main job)
#   make test       unit + CLI tests, no GPU needed          (SAN=1: ASan/UBSan)
#   make gpu-test   GPU tests, run on a machine with an NVIDIA GPU
#   make bundle     build/bundle/: kevo + the non-system .so files it needs
#   make bench-engine   engine overhead per evaluation (population 1000)
#   make bench-pool     the compile pool's bookkeeping per generation (no GPU)
#   make bench-search   kevo vs random search on the recorded tables
#                       (bench/tables/: run dirs or .jsonl; TABLES=...; no GPU)
#   make MPI=1      build/mpi/kevo: kevo run/resume as one MPI job (mpirun,
#                   srun); needs Open MPI's mpicc (README: Several hosts)
#   make mpi-test   the MPI path under mpirun with the test evaluator
#   V=1 shows full commands, DEBUG=1 builds with -O0 -g and asserts.

CUDA    ?= /usr/local/cuda
CC      ?= cc
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow \
           -Wstrict-prototypes -Wmissing-prototypes -Wvla \
           -Wno-format-truncation
CSTD    := -std=c11 -D_GNU_SOURCE
LAYERS  := util core gpu llm run search engine mpi cli
INC     := $(addprefix -Isrc/,$(LAYERS)) -Ifitness -Imutators -Itests/support -I$(CUDA)/include -I/usr/include/cjson
ifeq ($(DEBUG),1)
OPT     := -O0 -g
else
OPT     := -O2 -g -DNDEBUG
endif
BUILD   := build
ifeq ($(SAN),1)
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
           -fno-sanitize-recover=undefined
BUILD   := build/san
endif
GIT_COMMIT := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
CFLAGS  += $(CSTD) $(OPT) $(WARN) $(INC) -MMD -MP -pthread \
           -DKEVO_GIT_COMMIT='"$(GIT_COMMIT)"' 
# RPATH (not RUNPATH) so that libraries copied next to the binary in the
# bundle also resolve each other's dependencies from $ORIGIN.
LDFLAGS += -pthread -L$(CUDA)/lib64 \
           -Wl,--disable-new-dtags,-rpath,'$$ORIGIN',-rpath,$(CUDA)/lib64
ifeq ($(SAN),1)
LDFLAGS += -fsanitize=address,undefined
endif
LDLIBS  := -lnvrtc -lcjson -lpcre2-8 -lcurl -ldl -lm
# ---- MPI=1: src/mpi/ compiled in (KEVO_MPI), flags from Open MPI's mpicc,
# objects in their own folder; without it src/mpi/ is headers only
MPICC   ?= mpicc
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
ifeq ($(MPI_LIBS),)
$(error make MPI=1 needs Open MPI's mpicc (apt-get install openmpi-bin libopenmpi-dev))
endif
CFLAGS  += -DKEVO_MPI $(MPI_CFLAGS)
LDLIBS  += $(MPI_LIBS)
override BUILD := $(BUILD)/mpi
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# src/ has one folder per layer, lowest first in LAYERS (README "Layout";
# tests/cli/layers.sh checks that includes only point down).
LIB_SRC := $(filter-out src/cli/main.c $(if $(filter 1,$(MPI)),,src/mpi/%),$(wildcard $(addsuffix /*.c,$(addprefix src/,$(LAYERS))))) \
           $(wildcard mutators/*.c) $(wildcard fitness/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/src/cli/main.o
SUPPORT_SRC := $(wildcard tests/support/*.c)
SUPPORT_OBJ := $(SUPPORT_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%)
KEVO    := $(BUILD)/kevo

# ---- embedded text: kernels and fixed launcher text live in these files;
# each becomes $(BUILD)/gen/<file name>.h holding
# `static const char <name up to the first dot>[]` (src/util/tools/embed.c: no
# xxd or ld -b binary needed), included by its user. File names must be
# unique across the folders. The .o files wait for every header once;
# after that their .d files name the header they include.
EMBED_SRC := $(wildcard src/gpu/kernels/*.cu fitness/*.cu fitness/*.py \
                           src/cli/export/*.in templates/include/*.cuh)
EMBED_H := $(addprefix $(BUILD)/gen/,$(addsuffix .h,$(notdir $(EMBED_SRC))))
EMBED   := $(BUILD)/tools/embed
CFLAGS  += -I$(BUILD)/gen

.PHONY: all deps run test unit-test cli-test mpi-test gpu-test bundle \
        bench-engine bench-pool bench-search clean format

all: $(KEVO)

# ---- Debian packages: installed when missing, so a fresh machine needs
# only `make` / `make test`.
DEPS_STAMP := build/.deps-ok
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	$(Q)scripts/install-deps.sh
	$(Q)mkdir -p build && touch $@

$(BUILD)/%.o: %.c | $(DEPS_STAMP) $(EMBED_H)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# cupti_profiler_host.h includes <string>: an empty one for C (gpu/prof.c)
$(BUILD)/src/gpu/prof.o: CFLAGS += -Isrc/gpu/cshim

$(BUILD)/libkevo.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(KEVO): $(MAIN_OBJ) $(BUILD)/libkevo.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(SUPPORT_OBJ) $(BUILD)/libkevo.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/tools/%.o $(SUPPORT_OBJ) $(BUILD)/libkevo.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.SECONDARY:

$(EMBED): src/util/tools/embed.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CSTD) $(OPT) $(WARN) -o $@ $<

define embed_rule
$(BUILD)/gen/$(notdir $(1)).h: $(1) $(EMBED)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  EMBED   $(1)")
	$$(Q)$$(EMBED) $(firstword $(subst ., ,$(notdir $(1)))) $(1) $$@
endef
$(foreach f,$(EMBED_SRC),$(eval $(call embed_rule,$(f))))

# the commit is baked into version.o: rebuild it every time (it is tiny)
$(BUILD)/src/util/version.o: .FORCE
.PHONY: .FORCE

# ---- the main job: make run ARGS="--problem gemm --shape 4096x4096x4096"
ARGS ?= --problem gemm --dtype fp32 --shape 4096x4096x4096 --time 1h
run: $(KEVO)
	$(KEVO) run $(ARGS)

# ---- tests
# (mpi-test too where Open MPI's mpicc is installed; not under SAN=1)
test: unit-test cli-test $(if $(SAN),,$(if $(shell command -v $(MPICC)),mpi-test))

unit-test: $(TEST_BIN) $(TOOL_BIN) $(KEVO)
	$(Q)KEVO=$(abspath $(KEVO)) BUILD=$(abspath $(BUILD)) \
	    tests/run-unit.sh $(TEST_BIN)

cli-test: $(KEVO) $(TOOL_BIN)
	$(Q)KEVO=$(abspath $(KEVO)) BUILD=$(abspath $(BUILD)) \
	    tests/run-cli.sh

# the MPI build's kevo_test under mpirun, 2-4 ranks (tests/cli/mpi.sh)
ifeq ($(MPI),1)
mpi-test: $(KEVO) $(TOOL_BIN)
	$(Q)KEVO=$(abspath $(KEVO)) BUILD=$(abspath $(BUILD)) sh tests/cli/mpi.sh
else
mpi-test:
	$(Q)$(MAKE) --no-print-directory MPI=1 mpi-test
endif

# the GPU suite, then (where PyTorch is installed) the torch exports of
# shipped, TMA and LLM-born winners checked as torch custom ops against torch
gpu-test: $(KEVO)
	$(Q)KEVO=$(abspath $(KEVO)) tests/gpu/run.sh
	$(Q)KEVO=$(abspath $(KEVO)) sh tests/gpu/profile.sh
	$(Q)if python3 -c 'import torch' 2>/dev/null; then \
	    KEVO=$(abspath $(KEVO)) tests/gpu/export_torch.sh && \
	    KEVO=$(abspath $(KEVO)) sh tests/gpu/torchprob.sh; \
	else echo "gpu-test: no PyTorch here, torch exports and problems not checked"; fi

bench-engine: $(BUILD)/tests/bench_engine
	$(Q)$(BUILD)/tests/bench_engine

# the compile pool's bookkeeping per generation (tests/tools/bench_pool.c),
# on the batches of a 14-generation softmax run of the test evaluator
bench-pool: $(BUILD)/tests/bench_pool $(BUILD)/tests/kevo_test
	$(Q)d=$$(mktemp -d) && KEVO_TEST_EVIDENCE=1 KEVO_TEST_DROP=1 \
	    KEVO_TEST_IDLE_MS=100 KEVO_TEST_PHASE_MS=40,2.5,1.3 \
	    KEVO_TEST_COMPILERS=16 $(BUILD)/tests/kevo_test run --evaluator test \
	    --problem softmax --dtype fp32 --shape 4096x4096 --seed 11 \
	    --generations 14 --runs-dir $$d --name a --quiet && \
	    $(BUILD)/tests/bench_pool $$d/a; rc=$$?; rm -rf $$d; exit $$rc

TABLES ?= $(wildcard bench/tables/*.jsonl) \
          $(patsubst %/journal.jsonl,%,$(wildcard bench/tables/*/journal.jsonl))
bench-search: $(KEVO)
	$(Q)$(if $(TABLES),,echo "no tables: bench/tables/*.jsonl (kevo table RUN)"; exit 1)
	$(Q)set -e; for t in $(TABLES); do echo "== $$t"; $(KEVO) bench-search $$t; done

bundle: $(KEVO)
	$(Q)scripts/bundle.sh $(KEVO) build/bundle

format:
	clang-format -i src/*/*.[ch] mutators/*.[ch] fitness/*.[ch] tests/*/*.[ch]

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
