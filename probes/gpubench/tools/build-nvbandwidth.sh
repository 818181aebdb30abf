#!/usr/bin/env bash
# Build NVIDIA nvbandwidth (v0.8 sources in .tools/nvbandwidth) on the GPU machine.
# Run from the repository root:   bash probes/gpubench/tools/build-nvbandwidth.sh
#
# What it does (nothing is installed into / ; everything goes to /tmp and .tools/bin):
#   1. dpkg -x the Debian bookworm amd64 debs from .tools/debs into /tmp/boost
#      (Boost 1.74 headers + program_options static/shared lib + CMake configs,
#       jsoncpp 1.9.5 headers + shared lib + CMake config).
#   2. Copies the sources to /tmp/nvbw-src (outside any git work tree, so the
#      upstream `git describe` step cannot pick up THIS repo's commit) and applies
#      the one documented COMMLAB patch to CMakeLists.txt (use Debian jsoncpp instead
#      of the amalgamated json/jsoncpp.cpp, which could not be obtained; see
#      .tools/nvbandwidth/COMMLAB-PATCHES.txt).
#   3. cmake (Ninja if present, else Makefiles), CUDA arch 90, build dir /tmp/nvbw-build.
#   4. Copies the binary to .tools/bin/nvbandwidth, prints ldd + the LD_LIBRARY_PATH
#      to use, and runs `nvbandwidth --help` and `--list` as a smoke test.
# Env overrides: NVCC (default /usr/local/cuda/bin/nvcc), JOBS (default 16),
#                CUDA_ARCH (default 90), PREFIX (default /tmp/boost).
set -euo pipefail

die() { echo "BUILD-NVBANDWIDTH ERROR: $*" >&2; exit 1; }
trap 'rc=$?; if [ $rc -ne 0 ]; then echo "BUILD-NVBANDWIDTH FAILED (exit $rc)" >&2; fi' EXIT

REPO_ROOT="$(pwd)"
TOOLS="$REPO_ROOT/${COMMLAB_TOOLS_DIR:-.tools}"
SRC="$TOOLS/nvbandwidth"
DEBS="$TOOLS/debs"
PREFIX="${PREFIX:-/tmp/boost}"
WSRC=/tmp/nvbw-src
BUILD=/tmp/nvbw-build
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
JOBS="${JOBS:-16}"
CUDA_ARCH="${CUDA_ARCH:-90}"
LIBDIR="$PREFIX/usr/lib/x86_64-linux-gnu"

[ -f "$SRC/CMakeLists.txt" ] || die "run from the repo root; $SRC/CMakeLists.txt not found"
[ -d "$DEBS" ] || die "$DEBS not found"
command -v dpkg >/dev/null || die "dpkg not found (needed for dpkg -x)"
command -v cmake >/dev/null || die "cmake not found"
[ -x "$NVCC" ] || die "nvcc not found at $NVCC (set NVCC=...)"
CXX_BIN="${CXX:-$(command -v g++ || command -v c++ || true)}"
[ -n "$CXX_BIN" ] || die "no host C++ compiler (g++/c++) found"

echo "== tool versions"
cmake --version | head -1
"$NVCC" --version | tail -2
"$CXX_BIN" --version | head -1
command -v ninja >/dev/null && echo "ninja $(ninja --version)" || echo "ninja: not found (will use make)"

echo "== 1. extracting debs into $PREFIX"
rm -rf "$PREFIX"
mkdir -p "$PREFIX"
shopt -s nullglob
n=0
for deb in "$DEBS"/libboost1.74-dev_*_amd64.deb \
           "$DEBS"/libboost-program-options1.74-dev_*_amd64.deb \
           "$DEBS"/libboost-program-options1.74.0_*_amd64.deb \
           "$DEBS"/libjsoncpp-dev_*_amd64.deb \
           "$DEBS"/libjsoncpp25_*_amd64.deb; do
    echo "   dpkg -x $(basename "$deb")"
    dpkg -x "$deb" "$PREFIX"
    n=$((n+1))
done
[ "$n" -eq 5 ] || die "expected 5 boost/jsoncpp debs in $DEBS, found $n"
[ -f "$PREFIX/usr/include/boost/program_options.hpp" ] || die "boost headers missing after extraction"
[ -f "$LIBDIR/libboost_program_options.a" ] || die "libboost_program_options.a missing"
[ -f "$LIBDIR/cmake/Boost-1.74.0/BoostConfig.cmake" ] || die "BoostConfig.cmake missing"
[ -f "$LIBDIR/cmake/jsoncpp/jsoncppConfig.cmake" ] || die "jsoncppConfig.cmake missing"
[ -f "$PREFIX/usr/include/jsoncpp/json/json.h" ] || die "jsoncpp headers missing"

echo "== 2. preparing source copy in $WSRC (+ COMMLAB jsoncpp patch)"
rm -rf "$WSRC"
mkdir -p "$WSRC"
cp -a "$SRC/." "$WSRC/"
rm -f "$WSRC/PROVENANCE.txt" "$WSRC/COMMLAB-PATCHES.txt"
CM="$WSRC/CMakeLists.txt"
grep -qx '    json/jsoncpp.cpp' "$CM" || die "unexpected CMakeLists.txt: line '    json/jsoncpp.cpp' not found; patch not applicable"
cp "$CM" "$CM.orig"
# (a) drop the amalgamated jsoncpp source from the source list
grep -vx '    json/jsoncpp.cpp' "$CM.orig" > "$CM"
# (b) link the Debian jsoncpp 1.9.5 library instead (same jsoncpp version as upstream's amalgamation)
cat >> "$CM" <<'EOF'

# COMMLAB patch: json/jsoncpp.cpp (amalgamated jsoncpp 1.9.5) was not obtainable;
# use Debian bookworm libjsoncpp-dev 1.9.5 (headers provide <json/json.h>) instead.
find_package(jsoncpp CONFIG REQUIRED)
target_link_libraries(nvbandwidth JsonCpp::JsonCpp)
EOF
echo "--- diff of CMakeLists.txt (upstream -> built):"
diff -u "$CM.orig" "$CM" || true
[ ! -e "$WSRC/json/json.h" ] || die "unexpected $WSRC/json/json.h would shadow Debian's header"

echo "== 3. configure + build in $BUILD"
rm -rf "$BUILD"
GEN=()
if command -v ninja >/dev/null; then GEN=(-G Ninja); fi
LDFLAGS_EXTRA=""
for d in /usr/local/cuda/lib64/stubs /usr/local/cuda/targets/x86_64-linux/lib/stubs; do
    # lets the linker resolve -lnvidia-ml / -lcuda even if the driver ships only the .so.1 names;
    # the stubs carry SONAME libnvidia-ml.so.1 / libcuda.so.1, so the real driver libs are used at run time
    [ -d "$d" ] && LDFLAGS_EXTRA="$LDFLAGS_EXTRA -L$d"
done
set -x
cmake -S "$WSRC" -B "$BUILD" "${GEN[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CXX_COMPILER="$CXX_BIN" \
    -DCMAKE_CUDA_HOST_COMPILER="$CXX_BIN" \
    -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" \
    -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
    -DBOOST_ROOT="$PREFIX/usr" \
    -DBoost_DIR="$LIBDIR/cmake/Boost-1.74.0" \
    -DBoost_INCLUDE_DIR="$PREFIX/usr/include" \
    -DBoost_LIBRARY_DIR="$LIBDIR" \
    -DBoost_NO_SYSTEM_PATHS=ON \
    -Djsoncpp_DIR="$LIBDIR/cmake/jsoncpp" \
    -DCMAKE_BUILD_RPATH="$LIBDIR" \
    -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS_EXTRA"
cmake --build "$BUILD" -j "$JOBS"
set +x

BIN="$BUILD/nvbandwidth"
[ -x "$BIN" ] || die "build finished but $BIN not found"

echo "== 4. install to $TOOLS/bin/nvbandwidth"
mkdir -p "$TOOLS/bin"
cp -f "$BIN" "$TOOLS/bin/nvbandwidth"
export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "--- ldd:"
ldd "$TOOLS/bin/nvbandwidth" || true
if ldd "$TOOLS/bin/nvbandwidth" | grep -q 'not found'; then
    die "unresolved shared libraries (see ldd above)"
fi
echo "--- smoke test: --help"
timeout 60 "$TOOLS/bin/nvbandwidth" --help || die "nvbandwidth --help failed"
echo "--- smoke test: --list (first lines)"
timeout 120 "$TOOLS/bin/nvbandwidth" --list | head -20 || true

cat <<EOF

BUILD-NVBANDWIDTH OK
binary : $TOOLS/bin/nvbandwidth   (also $BIN)
runtime: Boost program_options is linked statically; jsoncpp is a shared lib in $LIBDIR
         (RPATH points there too, but /tmp/boost must still exist). Before running use:
export LD_LIBRARY_PATH=$LIBDIR\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
example: $TOOLS/bin/nvbandwidth -t host_to_device_memcpy_ce device_to_host_memcpy_ce -j
EOF
