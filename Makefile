# mbsim - one readable Makefile.  `make` builds build/mbsim.
#   make run      install deps if needed, build, run the default deck
#   make test     unit tests (cmocka) and deck tests, every one even after a
#                 failure; the last line is the total "N passed, N failed,
#                 N skipped" (tests/run-tests.sh; MBSIM_NO_SKIP=1 fails on a skip)
#   make asan     the test suite under AddressSanitizer + UBSan
#   make bench    whole-process timings (not part of test)
#   make fuzz     libFuzzer campaigns, FUZZ_TIME seconds per target (clang;
#                 see tests/fuzz/README.md)
#   make study-000  regenerate docs/results/000 (Fang et al. 2023, figures; not part of test)
#   make study-001  regenerate docs/results/001 (Sandu et al. 2001, Tables 1-4, Figs. 2 and 5; not part of test)
#   make study-004  regenerate docs/results/004 (doi:10.1007/s11044-021-09806-9 §4 spectral figures; not part of test)
#   make study-004-flex  regenerate docs/results/004/flex (doi:10.1007/s11044-021-09806-9 §5.2-5.4, the beams; not part of test)
#   make study-002  regenerate docs/results/002 (doi:10.1007/s11012-021-01433-0: stiff pendulum, Andrews, IFToMM; not part of test)
#   make study-003  regenerate docs/results/003 (Arnold 2013, Fig. 2, BDF steps against m1/m2; not part of test)
#   make wp-simbody  work-precision against Simbody (docs/results/wp_simbody.md;
#                 needs tools/install-deps --study; not part of test)
#   make matrix   every deck x scheme x formulation against a reference, and
#                 1000 random models (docs/results/matrix.md; not part of test)
#   make install PREFIX=/usr/local

PREFIX ?= /usr/local
BUILD ?= build
CC ?= cc
# Debian's serial HDF5 by name: with ParaView installed, "hdf5" is the
# OpenMPI build (an alternative), whose headers do not match the serial
# library the binary links
HDF5_PC := $(shell pkg-config --exists hdf5-serial 2>/dev/null && echo hdf5-serial || echo hdf5)
PKGS = yaml-0.1 $(HDF5_PC) muparser
# cmocka apart: the unit tests' alone, and absent after a plain
# tools/install-deps (pkg-config prints nothing when one package is missing)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(shell pkg-config --cflags cmocka 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs yaml-0.1 $(HDF5_PC) muparser 2>/dev/null)
OPT ?= -O2
CFLAGS ?= $(OPT) -g
WARN = -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter \
	-Wstrict-prototypes -Wmissing-prototypes -Werror=implicit-function-declaration
ALL_CFLAGS = $(WARN) $(CFLAGS) $(PKG_CFLAGS) -I/usr/include/suitesparse -Isrc -MMD -MP
LIBS = $(PKG_LIBS) -lsundials_cvode -lsundials_ida -lsundials_arkode -lsundials_nvecserial -lklu -lbtf -lumfpack -lcholmod -lamd -lsuitesparseconfig -lccd -llapack -lblas -lm
# The mbsim binary links HDF5, libyaml, SuiteSparse and the single-threaded
# OpenBLAS statically when Debian's static archives are there (STATIC=0 to
# link all dynamically).  Dynamic, the process spends ~10 ms of a short
# run loading 55 shared objects (HDF5 brings libcurl and its TLS stack),
# and OpenBLAS's pthread build starts a thread that spins on the second core.
# Static, only the objects referenced are linked: no libcurl.
LIBDIR := /usr/lib/$(shell $(CC) -print-multiarch)
STATIC_A := $(LIBDIR)/libsundials_cvode.a $(LIBDIR)/libsundials_ida.a $(LIBDIR)/libsundials_arkode.a $(LIBDIR)/libsundials_nvecserial.a \
	$(LIBDIR)/hdf5/serial/libhdf5.a $(LIBDIR)/libsz.a $(LIBDIR)/libaec.a $(LIBDIR)/libz.a \
	$(LIBDIR)/libyaml.a $(LIBDIR)/libklu.a $(LIBDIR)/libbtf.a $(LIBDIR)/libumfpack.a $(LIBDIR)/libcholmod.a $(LIBDIR)/libamd.a \
	$(LIBDIR)/libcolamd.a $(LIBDIR)/libcamd.a $(LIBDIR)/libccolamd.a \
	$(LIBDIR)/libsuitesparseconfig.a $(LIBDIR)/openblas-serial/libopenblas.a \
	$(shell $(CC) -print-file-name=libgfortran.a) $(shell $(CC) -print-file-name=libquadmath.a)
# CHOLMOD's METIS has no static archive in Debian: its shared object by name
STATIC_SO := $(LIBDIR)/libmetis.so.5
STATIC ?= $(if $(filter-out $(wildcard $(STATIC_A) $(STATIC_SO)),$(STATIC_A) $(STATIC_SO)),0,1)
# Two link options cut the dynamic loader's work at every start (bench/
# README.md "Fixed cost of a run"): libstdc++ first among the shared
# objects (muparser's; the loader then finds its ~1700 references to its
# own symbols in the second object searched, not the seventh), and a
# position-dependent executable (no 15000 relative relocations of the
# static archives' data at each start).
ifeq ($(STATIC),1)
BIN_LIBS = $(STATIC_A) -Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state -lmuparser \
	$(STATIC_SO) -lccd -lgomp -lm -lpthread
BIN_LDFLAGS = -no-pie
else
BIN_LIBS = $(LIBS)
BIN_LDFLAGS =
endif
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

LIB_SRC := $(sort $(filter-out src/cli/main.c,$(wildcard src/*/*.c)))
CLI_SRC := src/cli/main.c
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_HELP := $(BUILD)/tests/testutil.o

.PHONY: all run test unit asan bench install clean matrix study-000 study-001 study-002 study-003 study-004 study-004-flex fuzz fuzz-build wp-simbody
all: $(BUILD)/mbsim

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DMBSIM_VERSION='"$(VERSION)"' -c $< -o $@

# the tree formulation's f (O(N) small dense products, seed 003): -O3
# vectorizes them; no -ffast-math, so the same numbers as -O2 (all of
# tree*.c, as when they were one file)
$(BUILD)/src/form/tree.o $(BUILD)/src/form/tree_kin.o $(BUILD)/src/form/tree_rec.o \
$(BUILD)/src/form/tree_ode.o: OPT = -O3
# rp's analytic Jacobians and the kernels under them (rows of right sides
# at once, small fixed-size products): -O3, the same numbers as -O2 (rn4
# on hmmwv14, lms2 on the chain, genalpha on Bricard, hi on the
# slider-crank compared bit for bit), about 5-10 % off rn4's vehicle run
# (kkt: all of kkt*.c, as when they were one file; the predictor's
# extrapolation in integ/kernel.c, row by row over the values); the beams'
# kernels (copied-out KLU factors, the element and its tangents, SO(3),
# dae3's Newton): 8 % fewer instructions on the flexible four-bar, the
# three flexible benchmarks bit for bit with lms2 and genalpha (issue 36);
# the constraint rows' evaluation and the steps of hi and of the index-3
# schemes, whose per-row calls -O3 inlines: 5 % of the slider-crank's
# instructions a step, 4 % of the double four-bar's, same results (issue 33)
$(BUILD)/src/form/rp_jac.o $(BUILD)/src/model/prim.o $(BUILD)/src/la/spf.o $(BUILD)/src/la/kkt.o \
$(BUILD)/src/la/kkt_schur.o $(BUILD)/src/la/kkt_rank.o $(BUILD)/src/integ/kernel.o \
$(BUILD)/src/la/klu_ex.o $(BUILD)/src/model/beam.o $(BUILD)/src/form/ra_beam.o \
$(BUILD)/src/util/so3.o $(BUILD)/src/integ/dae3_solve.o $(BUILD)/src/form/ra.o \
$(BUILD)/src/integ/hi.o $(BUILD)/src/integ/dae3_step.o: OPT = -O3

$(BUILD)/libmbsim.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/mbsim: $(CLI_OBJ) $(BUILD)/libmbsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(BIN_LDFLAGS) -o $@ $^ $(BIN_LIBS)

$(BUILD)/bench/tree_f: bench/tree_f.c $(BUILD)/libmbsim.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(BIN_LIBS)

$(BUILD)/tests/testutil.o: tests/unit/testutil.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(TEST_HELP) $(BUILD)/libmbsim.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $^ $(LIBS) -lcmocka

run: 
	tools/install-deps
	$(MAKE) all
	$(BUILD)/mbsim run decks/double_pendulum.yaml -o $(BUILD)/double_pendulum.h5

unit: $(TEST_BIN)
	@sh tests/run-tests.sh --units-only $(TEST_BIN)

test: all $(TEST_BIN)
	@MBSIM=$(BUILD)/mbsim sh tests/run-tests.sh $(TEST_BIN)

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test

# Coverage-guided fuzzing (tests/fuzz/README.md): the library built by
# clang with libFuzzer's coverage and ASan/UBSan, one binary per target
# in build-fuzz/, each run for FUZZ_TIME seconds on a corpus in
# build-fuzz/corpus/TARGET that starts from the committed seeds.  A crash
# leaves build-fuzz/crash-TARGET-* and fails the target.
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= deck expr h5 curve mesh readers sweep
FUZZ_FLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=clang STATIC=0 CFLAGS="$(FUZZ_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" $(patsubst %,build-fuzz/fuzz/fuzz_%,$(filter-out sweep,$(FUZZ_TARGETS))) \
	  build-fuzz/mbsim

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libmbsim.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  MBSIM=build-fuzz/mbsim sh tests/fuzz/run.sh $$t $(FUZZ_TIME); done

bench: all
	MBSIM=$(BUILD)/mbsim sh bench/run.sh

# Regenerate docs/results/000 (seed 000 §3, Figs. 2-9) with the mbsim CLI;
# a few minutes, not part of test.  STUDY_ARGS e.g. "--reps 3 --chain-max 256".
study-000: all
	/usr/bin/python3 tools/study000.py --mbsim $(BUILD)/mbsim --out docs/results/000 $(STUDY_ARGS)

# Regenerate docs/results/001 (seed 001 §5: Tables 1-2 and Fig. 2 on the stiff
# double pendulum with rn4, Tables 3-4 and Fig. 5 on the HMMWV with adams and
# rn4) with the mbsim CLI; about a minute, not part of test.
study-001: all
	/usr/bin/python3 tools/study001_tables.py --mbsim $(BUILD)/mbsim --method rn4 --out docs/results/001
	/usr/bin/python3 tools/study001_vehicle.py --mbsim $(BUILD)/mbsim --out docs/results/001
	/usr/bin/python3 tools/study001_stiffness.py --mbsim $(BUILD)/mbsim --out docs/results/001

# Regenerate docs/results/002 (seed 002 §§3, 5-7: stiff pendulum, Andrews,
# double four-bar and Bricard) with the mbsim CLI; about a minute, not part of test.
study-002: all
	/usr/bin/python3 tools/study002.py --mbsim $(BUILD)/mbsim --out docs/results/002 $(STUDY_ARGS)

# Regenerate docs/results/003 (seed 003 §2.2 Fig. 2: bdf steps on the coupled
# oscillators for m1/m2 = 1e-1 .. 1e-8 and m1 = 0, and the distance of each
# solution from the m1 = 0 one) with the mbsim CLI; about a minute (the
# atol = 1e-9 error runs), not part of test.
study-003: all
	/usr/bin/python3 tools/study003.py --mbsim $(BUILD)/mbsim --out docs/results/003 $(STUDY_ARGS)

study-004: all
	/usr/bin/python3 tools/spectral_plots.py --mbsim $(BUILD)/mbsim --out docs/results/004 $(STUDY_ARGS)

study-004-flex: all
	/usr/bin/python3 tools/study004_flex.py --mbsim $(BUILD)/mbsim --out docs/results/004/flex $(STUDY_ARGS)

# Work-precision of mbsim's adaptive schemes against Simbody's integrators on
# the double pendulum and the spherical chain (issue 37): the C++ harness
# bench/simbody/wp_simbody.cpp links Debian's libsimbody-dev (installed by
# tools/install-deps --study, never linked into mbsim); about half an hour
# of CPU, not part of test.  STUDY_ARGS e.g. "--models dp,8 --rounds 1".
$(BUILD)/bench/wp_simbody: bench/simbody/wp_simbody.cpp
	@pkg-config --exists simbody || { echo "make: Simbody is missing: tools/install-deps --study" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CXX) -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs simbody)

wp-simbody: all $(BUILD)/bench/wp_simbody
	nice /usr/bin/python3 tools/wp_simbody.py --mbsim $(BUILD)/mbsim --harness $(BUILD)/bench/wp_simbody \
	  --out docs/results $(STUDY_ARGS)

# The cross-validation matrix and the random models (tools/matrix.py,
# tools/randmodel.py; docs/results/matrix.md, which gives its CPU time).
MATRIX_SEEDS ?= 0:1000
matrix: all
	@st=0; /usr/bin/python3 tools/matrix.py --mbsim $(BUILD)/mbsim --out docs/results/matrix.md \
	  $(MATRIX_ARGS) || st=1; \
	/usr/bin/python3 tools/randmodel.py --check --mbsim $(BUILD)/mbsim --seeds $(MATRIX_SEEDS) \
	  --results $(BUILD)/randmodel || st=1; exit $$st

# The manual pages name decks/*.yaml, tests/statics/*.yaml and
# schema/deck.schema.json: they go to $(PREFIX)/share/mbsim under the same
# names, with the result tools in tools/ (mbsim(1), FILES); the tools find
# the installed mbsim beside them (sweep: ../../bin/mbsim).
INSTALL_TOOLS = tools/sweep tools/animate.py tools/xdmf_render.py $(wildcard tools/plot.py)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	  $(DESTDIR)$(PREFIX)/share/mbsim/decks $(DESTDIR)$(PREFIX)/share/mbsim/schema
	install -m 755 $(BUILD)/mbsim $(DESTDIR)$(PREFIX)/bin/mbsim
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -d $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 644 decks/*.yaml $(DESTDIR)$(PREFIX)/share/mbsim/decks/
	install -m 644 schema/deck.schema.json $(DESTDIR)$(PREFIX)/share/mbsim/schema/
	install -d $(DESTDIR)$(PREFIX)/share/mbsim/tests/statics $(DESTDIR)$(PREFIX)/share/mbsim/tools
	install -m 644 tests/statics/*.yaml $(DESTDIR)$(PREFIX)/share/mbsim/tests/statics/
	install -m 755 $(INSTALL_TOOLS) $(DESTDIR)$(PREFIX)/share/mbsim/tools/
	install -m 644 tools/mbsimlib.py $(DESTDIR)$(PREFIX)/share/mbsim/tools/

clean:
	rm -rf build build-asan build-fuzz

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
