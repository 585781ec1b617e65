#!/usr/bin/env bash
# test/bench/run.sh - `make bench`: builds and runs every benchmark of test/bench, then
# prints one summary table of the ratios and targets they report.
#
# To add a benchmark:
#   - a C program test/bench/<name>.c: add <name> to C_BENCHES. It is linked with
#     datagen.c and build/$MODE/libtfnano.a (-lz -lm), and, when also listed in
#     PEER_BENCHES, with the C++ libprotobuf peer (peer_protobuf.cc + generated code).
#   - a Python script test/bench/<name>.py: add it to PY_BENCHES. It runs with the
#     interpreter in $BENCH_PYTHON (default: build/venv-tf, /tmp/tfvenv, build/venv,
#     python3; the first that exists), with ROOT/bindings/python and build/bench/gen
#     (example_pb2) on PYTHONPATH, and must skip what it cannot import.
# Every program prints its own table; lines starting with "summary:" are collected.
#
# Environment: MODE (library build, default release), BENCH_QUICK=1 (smoke run),
# BENCH_BUDGET / BENCH_RUNS (see bench_util.h), BENCH_ONLY="bench_example bench_example.py ..." (run a subset),
# BENCH_NO_PYTHON=1, BENCH_CALLGRIND=1 (after the timed runs, run the C programs again
# under valgrind --tool=callgrind on smaller data and print instructions per item for
# every case: a second, load-independent comparison).
set -euo pipefail
cd "$(dirname "$0")/../.."

C_BENCHES=(bench_example)
PEER_BENCHES=(bench_example)
PY_BENCHES=(bench_example.py bench_python.py)
C_BENCHES+=(bench_record)
C_BENCHES+=(bench_pad)
C_BENCHES+=(bench_varint)
PY_BENCHES+=(bench_record.py)
PY_BENCHES+=(bench_image.py)
PY_BENCHES+=(bench_seed_image.py)
PY_BENCHES+=(bench_pipeline.py)
PY_BENCHES+=(bench_scale.py)
PY_BENCHES+=(bench_arrow.py)
PY_BENCHES+=(bench_frameworks.py)
PY_BENCHES+=(bench_torch.py)
PY_BENCHES+=(bench_ops_map.py)
# Scripts that need a virtualenv of their own (made by `make <its name>`, never by
# make test): run with its interpreter, skipped with the reason printed when it is absent.
declare -A PY_BENCH_VENV=([bench_scale.py]=build/venv-bench-scale
                          [bench_arrow.py]=build/venv-ray
                          [bench_frameworks.py]=build/venv-bench-frameworks
                          [bench_torch.py]=build/venv-torch)

MODE=${MODE:-release}
LIB=build/$MODE/libtfnano.a
OUT=build/bench
GEN=$OUT/gen
CC=${CC:-cc}
CXX=${CXX:-g++}
BENCH_CFLAGS="-std=c11 -O2 -g -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
mkdir -p "$OUT" "$GEN"

if [ ! -f "$LIB" ]; then
    echo "run.sh: $LIB missing: run 'make bench' (or 'make lib MODE=$MODE') first" >&2
    exit 1
fi

selected() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }
in_list() { local x=$1; shift; [[ " $* " == *" $x "* ]]; }

# ---------------------------------------------------------------- build
peer_objs=()
build_peer() {
    [ ${#peer_objs[@]} -eq 0 ] || return 0
    test/tools/ensure-deps.sh libprotobuf-dev protobuf-compiler g++
    protoc -Ilib/example/proto --cpp_out="$GEN" lib/example/proto/example.proto
    local pbflags
    pbflags=$(pkg-config --cflags protobuf)
    $CXX -std=c++17 -O2 -g $pbflags -I"$GEN" -c "$GEN/example.pb.cc" -o "$OUT/example.pb.o"
    $CXX -std=c++17 -O2 -g -Wall -Wextra $pbflags -Iinclude -Itest/bench -I"$GEN" \
        -c test/bench/peer_protobuf.cc -o "$OUT/peer_protobuf.o"
    peer_objs=("$OUT/example.pb.o" "$OUT/peer_protobuf.o")
}

$CC $BENCH_CFLAGS -Iinclude -c test/bench/datagen.c -o "$OUT/datagen.o"
programs=()
for b in "${C_BENCHES[@]}"; do
    selected "$b" || continue
    echo "== building $OUT/$b"
    $CC $BENCH_CFLAGS -Iinclude -Itest/bench -c "test/bench/$b.c" -o "$OUT/$b.o"
    if in_list "$b" "${PEER_BENCHES[@]}"; then
        build_peer
        $CXX -o "$OUT/$b" "$OUT/$b.o" "$OUT/datagen.o" "${peer_objs[@]}" "$LIB" \
            $(pkg-config --libs protobuf) -lz -lm
    else
        $CC -o "$OUT/$b" "$OUT/$b.o" "$OUT/datagen.o" "$LIB" -lz -lm
    fi
    programs+=("$b")
done

# ---------------------------------------------------------------- run
summary=$OUT/summary.txt
: > "$summary"
status=0
echo
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- lib include 2>/dev/null || echo ' (lib/include modified)')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

run_one() { # name, command...
    local name=$1; shift
    echo
    echo "################ $name"
    if "$@" 2>&1 | tee "$OUT/$name.out"; then
        grep '^summary:' "$OUT/$name.out" | sed "s/^summary: /[$name] /" >> "$summary" || true
    else
        echo "[$name] FAILED (exit status ${PIPESTATUS[0]})" >> "$summary"
        status=1
    fi
}

for b in "${programs[@]}"; do
    run_one "$b" "$OUT/$b"
done

if [ -z "${BENCH_NO_PYTHON:-}" ]; then
    py=${BENCH_PYTHON:-}
    if [ -z "$py" ]; then
        for cand in build/venv-tf/bin/python /tmp/tfvenv/bin/python build/venv/bin/python; do
            if [ -x "$cand" ]; then py=$cand; break; fi
        done
        py=${py:-python3}
    fi
    if command -v protoc >/dev/null; then
        protoc -Ilib/example/proto --python_out="$GEN" lib/example/proto/example.proto
    fi
    for s in "${PY_BENCHES[@]}"; do
        selected "$s" || continue
        spy=$py
        venv=${PY_BENCH_VENV[$s]:-}
        if [ -n "$venv" ]; then
            spy=$venv/bin/python
            if [ ! -x "$spy" ]; then
                echo
                echo "################ $s"
                echo "skipped: $venv is absent (make ${venv#build/} creates it)"
                echo "[$s] skipped: $venv is absent (make ${venv#build/})" >> "$summary"
                continue
            fi
        fi
        PYTHONPATH="$PWD/bindings/python:$PWD/$GEN${PYTHONPATH:+:$PYTHONPATH}" \
            TFN_LIB="$PWD/build/$MODE/libtfnano.so" \
            run_one "${s%.py}.py" "$spy" "test/bench/$s"
    done
fi

# Instruction counts: each case dumps its counts under its own name (bench_util.h), the
# program prints "callgrind-case <items> <name>"; dumps are numbered in the same order.
if [ -n "${BENCH_CALLGRIND:-}" ]; then
    test/tools/ensure-deps.sh valgrind
    for b in "${programs[@]}"; do
        cg=$OUT/callgrind/$b
        rm -rf "$cg" && mkdir -p "$cg"
        echo
        echo "################ $b under callgrind (instructions per item, load-independent)"
        BENCH_W1_N=${BENCH_W1_N:-1024} BENCH_W2_N=${BENCH_W2_N:-40} \
            valgrind -q --tool=callgrind --collect-atstart=no --callgrind-out-file="$cg/out" \
            "$OUT/$b" > "$cg/stdout" 2>&1 || { echo "[$b callgrind] FAILED" >> "$summary"; status=1; continue; }
        k=0
        while IFS=$'\t' read -r tag items name; do
            [ "$tag" = callgrind-case ] || continue
            k=$((k + 1))
            ir=$(sed -n 's/^totals: //p' "$cg/out.$k")
            awk -v n="$name" -v ir="$ir" -v it="$items" \
                'BEGIN { printf "  %-56s %12.0f Ir/item\n", n, ir / it }'
        done < "$cg/stdout" | tee "$cg/table"
        sed "s/^  /[$b callgrind] /" "$cg/table" >> "$summary"
    done
fi

echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "================ summary (ratios of best times within each program's run)"
cat "$summary"
exit $status
