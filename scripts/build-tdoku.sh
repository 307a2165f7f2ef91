#!/usr/bin/env bash
# Builds ../shared/anchors/tdoku as target/tdoku/libtdoku.so (never writing into ../shared),
# unless it is up to date, and prints its path. Exits 3, saying so, when the anchor is not
# beside the clone. CXX: clang++ if present (what tdoku's own figures use), else g++.
set -euo pipefail
cd "$(dirname "$0")/.."
tdoku_src=../shared/anchors/tdoku
if [ ! -f "$tdoku_src/src/solver_dpll_triad_simd.cc" ]; then
    echo "skipped: ../shared/anchors/tdoku is needed beside the clone" >&2
    exit 3
fi
cxx=${CXX:-$(command -v clang++ || echo g++)}
lib=target/tdoku/libtdoku.so
sources=("$tdoku_src/src/solver_dpll_triad_simd.cc" "$tdoku_src/src/util.cc")
mkdir -p target/tdoku
compiler=$("$cxx" --version | head -n 1)
stale=no
[ -f "$lib" ] && [ "$(cat "$lib.compiler" 2>/dev/null)" = "$compiler" ] || stale=yes
for f in "${sources[@]}" "$tdoku_src"/src/*.h; do
    [ "$f" -nt "$lib" ] && stale=yes
done
if [ "$stale" = yes ]; then
    echo "== building $lib with $cxx" >&2
    "$cxx" -O3 -march=native -std=c++17 -shared -fPIC -I"$tdoku_src/src" "${sources[@]}" -o "$lib"
    echo "$compiler" > "$lib.compiler"
fi
echo "$lib"
