#!/bin/bash
# Records this machine's topology facts for commlab's probes testdata.
out=${OUT:-/tmp/out}
B=.topobin/commlab
{ date -u; uname -a; nvidia-smi 2>&1 | head -4; } > $out/info.txt 2>&1
nvidia-smi topo -m > $out/nvidia-smi-topo-m.txt 2>&1
nvidia-smi -q > $out/nvidia-smi-q.txt 2>&1
$B probe topo > $out/probe-topo.txt 2>&1; echo "exit $?" >> $out/probe-topo.txt
$B probe topo --json --svg $out/probe-topo.svg > $out/probe-topo.json 2>> $out/info.txt
emit() { [ -r "$1" ] && [ -f "$1" ] && printf '%s\t%s\n' "${1#/}" "$(head -c 4096 "$1" 2>/dev/null | tr '\n' '\036' | sed 's/\x1e*$//')"; }
{
  find /sys/devices -regextype posix-extended -regex '.*/[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]/(class|vendor|device|numa_node|current_link_speed|current_link_width|max_link_speed|max_link_width)' -type f 2>/dev/null | sort | while read f; do emit "$f"; done
  for f in /sys/devices/system/node/node*/cpulist; do emit "$f"; done
  for d in /sys/class/infiniband/*; do
    [ -e "$d" ] || continue
    emit "$d/device/uevent"
    for p in $d/ports/*; do for k in state phys_state rate link_layer gids/0 gids/1 gids/2 gids/3; do emit "$p/$k"; done; done
  done
  emit /sys/module/nvidia/version; emit /sys/module/nvidia_peermem/version
  [ -d /sys/module/nvidia_peermem ] && printf 'sys/module/nvidia_peermem/.present\t1\n'
  emit /proc/sys/kernel/osrelease; emit /proc/driver/nvidia/version
} > $out/sysfs-manifest.txt
ls -la $out; head -c 600 $out/probe-topo.txt; wc -l $out/sysfs-manifest.txt
