#!/usr/bin/env bash
# Try perftest (ib_write_bw) on the GPU machine, without installing anything into /.
#   usage: bash probes/gpubench/tools/setup-perftest.sh OUTDIR  (from the repository root)        (OUTDIR is created; all logs go there)
# Steps:
#   1. dpkg -x the bookworm amd64 debs in .tools/debs (rdma-core 44 user space: libibverbs1,
#      ibverbs-providers, librdmacm1, libibumad3, ibverbs-utils; perftest 4.5; iproute2's `rdma`
#      + small libs) into /tmp/rdma.
#   2. Relocation: libibverbs reads its provider list from the compiled-in /etc/libibverbs.d/*.driver
#      (no env override for that dir) and dlopen()s /usr/lib/x86_64-linux-gnu/libibverbs/lib<name>-rdmav34.so.
#      We therefore set RDMAV_DRIVERS to absolute provider paths (an entry starting with '/' is
#      dlopen'ed as "<entry>-rdmav34.so"), and also put the provider dir on LD_LIBRARY_PATH (libibverbs
#      falls back to dlopen("lib<name>-rdmav34.so") via the normal search path).
#   3. Diagnostics: /sys/class/infiniband, /dev/infiniband, rdma/rxe/siw modules, ibv_devices, ibv_devinfo,
#      `rdma link show`, capabilities.
#   4. If no RDMA device: try `modprobe rdma_rxe` and `rdma link add rxe0 type rxe netdev <iface>`
#      (soft-RoCE), then siw as a fallback. A link created here is deleted at the end (KEEP_RDMA_LINK=1 keeps it).
#   5. If a device exists: loopback ib_write_bw server+client on 127.0.0.1 (-s 65536 -n 1000), retrying with
#      a RoCEv2 GID index (-x) and with rdma_cm (-R) if needed, then a short sweep (-a -n 200).
# Everything runs under `timeout`; the script always exits 0 and ends with a one-line RESULT.
# Env: SKIP_CREATE=1 (do not try modprobe / rdma link add), RDMA_IFACE=<netdev>, KEEP_RDMA_LINK=1.
set -u

OUT="${1:-/tmp/perftest-out}"
mkdir -p "$OUT" || { echo "cannot create $OUT"; exit 0; }
OUT="$(cd "$OUT" && pwd)"
DEBS="$(pwd)/${COMMLAB_TOOLS_DIR:-.tools}/debs"
R=/tmp/rdma
RESULT="RESULT: unknown"

main() {
    echo "== setup-perftest $(date -u +%FT%TZ) host=$(hostname) kernel=$(uname -r)"
    echo "OUT=$OUT DEBS=$DEBS R=$R"

    # ---------- 1. extract ----------
    if ! command -v dpkg >/dev/null; then
        RESULT="RESULT: NO-RDMA-TEST (dpkg not available to extract debs)"; return
    fi
    rm -rf "$R"; mkdir -p "$R"
    local n=0 deb
    shopt -s nullglob
    for deb in "$DEBS"/libibverbs1_*_amd64.deb "$DEBS"/ibverbs-providers_*_amd64.deb "$DEBS"/librdmacm1_*_amd64.deb \
               "$DEBS"/libibumad3_*_amd64.deb "$DEBS"/ibverbs-utils_*_amd64.deb "$DEBS"/perftest_*_amd64.deb \
               "$DEBS"/libpci3_*_amd64.deb "$DEBS"/libnl-3-200_*_amd64.deb "$DEBS"/libnl-route-3-200_*_amd64.deb \
               "$DEBS"/iproute2_*_amd64.deb "$DEBS"/libmnl0_*_amd64.deb "$DEBS"/libbsd0_*_amd64.deb \
               "$DEBS"/libmd0_*_amd64.deb "$DEBS"/libcap2_*_amd64.deb; do
        dpkg -x "$deb" "$R" && n=$((n+1)) || echo "WARN: dpkg -x failed for $deb"
    done
    echo "extracted $n debs into $R"

    # ---------- 2. environment ----------
    local PROV="$R/usr/lib/x86_64-linux-gnu/libibverbs"
    export LD_LIBRARY_PATH="$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu:$PROV${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    local drivers="" so
    for so in "$PROV"/lib*-rdmav34.so; do
        drivers="${drivers:+$drivers:}${so%-rdmav34.so}"
    done
    export RDMAV_DRIVERS="$drivers"
    export IBV_SHOW_WARNINGS=1
    IBV_DEVICES="$R/usr/bin/ibv_devices"; IBV_DEVINFO="$R/usr/bin/ibv_devinfo"; WRITE_BW="$R/usr/bin/ib_write_bw"
    RDMA="$(command -v rdma || true)"; [ -n "$RDMA" ] || RDMA="$R/usr/bin/rdma"
    [ -x "$RDMA" ] || RDMA="$R/sbin/rdma"
    {
        echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
        echo "export RDMAV_DRIVERS=$RDMAV_DRIVERS"
        echo "export IBV_SHOW_WARNINGS=1"
    } > "$OUT/rdma-env.sh"
    echo "env written to $OUT/rdma-env.sh; rdma tool: $RDMA"
    for b in "$IBV_DEVICES" "$WRITE_BW" "$RDMA"; do
        [ -x "$b" ] || echo "WARN: missing $b"
        ldd "$b" 2>/dev/null | grep 'not found' && echo "WARN: unresolved libs for $b"
    done

    # ---------- 3. diagnostics ----------
    diag "id" id
    diag "capabilities (CapEff etc.)" grep -E '^Cap' /proc/self/status
    diag "/sys/class/infiniband" ls -la /sys/class/infiniband
    diag "/sys/class/infiniband_verbs" ls -la /sys/class/infiniband_verbs
    diag "/dev/infiniband" ls -la /dev/infiniband
    diag "rdma-related modules in /proc/modules" grep -E '^(rdma_rxe|siw|ib_core|ib_uverbs|rdma_ucm|rdma_cm|mlx5_ib|mlx4_ib|irdma|bnxt_re|efa|ib_umad)\b' /proc/modules
    diag "rxe/siw module files" sh -c "ls /lib/modules/$(uname -r)/kernel/drivers/infiniband/sw/*/ 2>&1"
    diag "modprobe present?" sh -c 'command -v modprobe || echo "no modprobe"'
    diag "network interfaces" sh -c 'for i in /sys/class/net/*; do echo "$(basename $i) type=$(cat $i/type) oper=$(cat $i/operstate) mtu=$(cat $i/mtu)"; done'
    diag "default route (/proc/net/route)" cat /proc/net/route
    diag "system /etc/libibverbs.d" ls /etc/libibverbs.d
    if command -v ibv_devices >/dev/null; then diag "SYSTEM ibv_devices" ibv_devices; fi
    diag "ibv_devices (extracted rdma-core 44)" "$IBV_DEVICES"
    diag "ibv_devinfo (extracted)" "$IBV_DEVINFO"
    diag "rdma link show" "$RDMA" link show
    diag "rdma dev show" "$RDMA" dev show
    diag "rdma system show" "$RDMA" system show

    # ---------- 4. soft-RoCE if needed ----------
    CREATED=""
    if ! has_ibdev; then
        if [ "${SKIP_CREATE:-0}" = 1 ]; then
            echo "no RDMA device; SKIP_CREATE=1 so not trying soft-RoCE"
        else
            try_create
        fi
    fi
    diag "/sys/class/infiniband after create attempt" ls -la /sys/class/infiniband
    if ! has_ibdev; then
        RESULT="RESULT: NO-RDMA: no device in /sys/class/infiniband and soft-RoCE/siw could not be created (see $OUT/setup-perftest.log: create attempts / modules / capabilities)"
        cleanup; return
    fi

    # ---------- 5. loopback ib_write_bw ----------
    local DEV
    if [ -n "$CREATED" ] && [ -e "/sys/class/infiniband/$CREATED" ]; then DEV="$CREATED"; else DEV="$(ls /sys/class/infiniband | head -1)"; fi
    echo "using device $DEV"
    diag "ibv_devinfo -v -d $DEV" "$IBV_DEVINFO" -v -d "$DEV"
    diag "ibv_devices (after)" "$IBV_DEVICES"
    local LL; LL="$(cat /sys/class/infiniband/$DEV/ports/1/link_layer 2>/dev/null || echo unknown)"
    echo "link_layer(port1)=$LL"
    diag "gids port1" sh -c "for g in /sys/class/infiniband/$DEV/ports/1/gids/*; do i=\$(basename \$g); v=\$(cat \$g 2>/dev/null); t=\$(cat /sys/class/infiniband/$DEV/ports/1/gid_attrs/types/\$i 2>/dev/null); [ \"\$v\" != 0000:0000:0000:0000:0000:0000:0000:0000 ] && echo \"\$i \$v \$t\"; done"
    local GIDX; GIDX="$(pick_gid "$DEV")"
    echo "RoCEv2 IPv4 GID index: ${GIDX:-none}"

    local base=(-d "$DEV" -F --report_gbits) ok="" extra attempt=0 success=0
    local -a variants=("")
    [ -n "$GIDX" ] && variants+=("-x $GIDX")
    variants+=("-R")
    [ -n "$GIDX" ] && variants+=("-R -x $GIDX")
    for extra in "${variants[@]}"; do
        attempt=$((attempt+1))
        # shellcheck disable=SC2206
        local ex=($extra)
        if run_pair "single$attempt" 60 $((18515+attempt)) "${base[@]}" "${ex[@]}" -s 65536 -n 1000; then
            ok="$extra"; success=1; break
        fi
    done
    if [ "$success" != 1 ]; then
        RESULT="RESULT: DEVICE-PRESENT ($DEV, link_layer=$LL) but loopback ib_write_bw failed in all ${#variants[@]} variants (see $OUT/single*.txt)"
        cleanup; return
    fi
    # shellcheck disable=SC2206
    local ex2=($ok)
    echo "single-size run OK with extra args: '${ok}'"
    local single; single="$(grep -A1 'BW average' "$OUT/single$attempt.client.txt" | tail -1)"
    # sweep (cheap): all sizes 2B..8MB, 200 iterations each
    if run_pair "sweep" 240 18600 "${base[@]}" "${ex2[@]}" -a -n 200; then
        RESULT="RESULT: OK device=$DEV link_layer=$LL created=${CREATED:-no} extra='${ok}' 64KiB: $single ; sweep in $OUT/sweep.client.txt"
    else
        RESULT="RESULT: PARTIAL device=$DEV link_layer=$LL created=${CREATED:-no} extra='${ok}' 64KiB: $single ; sweep failed (see $OUT/sweep.*.txt)"
    fi
    cleanup
}

diag() {  # diag "title" cmd args...  (never hangs, never fails)
    local title="$1"; shift
    echo "---- $title: \$ $*"
    timeout -k 5 20 "$@" 2>&1 | head -200
    echo "---- (rc=${PIPESTATUS[0]})"
}

has_ibdev() { [ -d /sys/class/infiniband ] && [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; }

pick_iface() {
    if [ -n "${RDMA_IFACE:-}" ]; then echo "$RDMA_IFACE"; return; fi
    local i
    i="$(awk 'NR>1 && $2=="00000000" {print $1; exit}' /proc/net/route 2>/dev/null)"
    if [ -n "$i" ]; then echo "$i"; return; fi
    for i in /sys/class/net/*; do
        i="$(basename "$i")"
        [ "$i" = lo ] && continue
        [ "$(cat /sys/class/net/$i/type 2>/dev/null)" = 1 ] && { echo "$i"; return; }
    done
}

try_create() {
    local IF; IF="$(pick_iface)"
    echo "== trying soft-RoCE on netdev '${IF:-<none>}'"
    if command -v modprobe >/dev/null; then
        diag "modprobe rdma_rxe" modprobe rdma_rxe
    fi
    diag "rdma_rxe loaded?" grep -E '^rdma_rxe' /proc/modules
    if [ -z "$IF" ]; then echo "no suitable netdev found"; return; fi
    echo "\$ $RDMA link add rxe0 type rxe netdev $IF"
    timeout -k 5 30 "$RDMA" link add rxe0 type rxe netdev "$IF" 2>&1; local rc=$?
    echo "rc=$rc"
    if [ $rc -eq 0 ] && [ -e /sys/class/infiniband/rxe0 ]; then CREATED=rxe0; return; fi
    echo "== soft-RoCE failed; trying soft-iWARP (siw) on $IF"
    if command -v modprobe >/dev/null; then diag "modprobe siw" modprobe siw; fi
    echo "\$ $RDMA link add siw0 type siw netdev $IF"
    timeout -k 5 30 "$RDMA" link add siw0 type siw netdev "$IF" 2>&1; rc=$?
    echo "rc=$rc"
    if [ $rc -eq 0 ] && [ -e /sys/class/infiniband/siw0 ]; then CREATED=siw0; fi
}

pick_gid() {  # first RoCE v2 GID that is IPv4-mapped
    local dev="$1" g i v t
    for g in /sys/class/infiniband/$dev/ports/1/gids/*; do
        i="$(basename "$g")"; v="$(cat "$g" 2>/dev/null)"
        t="$(cat /sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i 2>/dev/null)"
        case "$v" in 0000:0000:0000:0000:0000:ffff:*) [ "$t" = "RoCE v2" ] && { echo "$i"; return; } ;; esac
    done
}

run_pair() {  # run_pair NAME TIMEOUT PORT args...   -> server+client on localhost
    local name="$1" to="$2" port="$3"; shift 3
    echo "== $name: ib_write_bw $* -p $port  (server & client 127.0.0.1, timeout ${to}s)"
    timeout -k 5 "$to" "$WRITE_BW" "$@" -p "$port" > "$OUT/$name.server.txt" 2>&1 &
    local spid=$!
    sleep 2
    timeout -k 5 "$to" "$WRITE_BW" "$@" -p "$port" 127.0.0.1 > "$OUT/$name.client.txt" 2>&1
    local crc=$?
    wait "$spid"; local src=$?
    echo "client rc=$crc server rc=$src"
    echo "-- client output:"; tail -n 40 "$OUT/$name.client.txt"
    echo "-- server output (tail):"; tail -n 8 "$OUT/$name.server.txt"
    [ $crc -eq 0 ] && grep -q 'BW average' "$OUT/$name.client.txt"
}

cleanup() {
    if [ -n "${CREATED:-}" ] && [ "${KEEP_RDMA_LINK:-0}" != 1 ]; then
        echo "== deleting link $CREATED created by this script (KEEP_RDMA_LINK=1 keeps it)"
        timeout -k 5 30 "$RDMA" link delete "$CREATED" 2>&1; echo "rc=$?"
    fi
}

run_all() { main; echo; echo "$RESULT"; }
run_all 2>&1 | tee "$OUT/setup-perftest.log"
grep -a '^RESULT:' "$OUT/setup-perftest.log" | tail -1 > "$OUT/summary.txt"
exit 0
