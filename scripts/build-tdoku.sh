#!/usr/bin/env bash
# Builds ../shared/anchors/tdoku as target/tdoku/libtdoku.so (never writing into ../shared),
# unless it is up to date, and prints its path. Exits 3, saying so, when the anchor is not
# beside the clone. CXX: clang++ if present (what tdoku's own figures use), else g++.
# MARCH: the -march it is built for, default native; another (x86-64-v3 for the AVX2 paths
# Valgrind can run) is built as target/tdoku/libtdoku-MARCH.so.
set -euo pipefail
cd "$(dirname "$0")/.."
tdoku_src=../shared/anchors/tdoku
if [ ! -f "$tdoku_src/src/solver_dpll_triad_simd.cc" ]; then
    echo "skipped: ../shared/anchors/tdoku is needed beside the clone" >&2
    exit 3
fi
cxx=${CXX:-$(command -v clang++ || echo g++)}
march=${MARCH:-native}
if [ "$march" = native ]; then
    lib=target/tdoku/libtdoku.so
else
    lib=target/tdoku/libtdoku-$march.so
fi
sources=("$tdoku_src/src/solver_dpll_triad_simd.cc" "$tdoku_src/src/util.cc")
mkdir -p target/tdoku
compiler=$("$cxx" --version | head -n 1)
stale=no
[ -f "$lib" ] && [ "$(cat "$lib.compiler" 2>/dev/null)" = "$compiler" ] || stale=yes
for f in "${sources[@]}" "$tdoku_src"/src/*.h; do
    [ "$f" -nt "$lib" ] && stale=yes
done
if [ "$stale" = yes ]; then
    echo "== building $lib with $cxx -march=$march" >&2
    "$cxx" -O3 -march="$march" -std=c++17 -shared -fPIC -I"$tdoku_src/src" "${sources[@]}" -o "$lib"
    echo "$compiler" > "$lib.compiler"
fi
echo "$lib"
