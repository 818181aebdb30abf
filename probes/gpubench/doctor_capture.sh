#!/bin/bash
# doctor_capture.sh records the raw facts commlab doctor's checks read on a
# real GPU machine: lspci -vvv (ACS capability and control per bridge, link
# width and speed), the IOMMU groups and the kernel command line (IOMMU mode),
# NVLink state, P2P capability, RDMA tools' output, loaded modules
# (nvidia_peermem), the environment variable names the installed PyTorch and
# NCCL read (strings of their libraries), and a one-GPU torch.distributed init
# with deprecated and masking variables set, so the linter's verdicts rest on
# what this PyTorch prints. Run from the repository root; writes everything
# under $OUT/h-doctor (or $1), one log per step, and never stops at a failing
# step. Finishes in well under 4 minutes.
set -u
dst=${1:-$OUT/h-doctor}
mkdir -p "$dst/logs"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
prov="$dst/PROVENANCE.txt"
: > "$prov"
# step NAME OUTFILE CMD...: runs CMD with a 60 s limit, stdout to OUTFILE,
# stderr to logs/NAME.err, and notes the command and exit status.
step() {
  local name=$1 out=$2; shift 2
  local t0=$(date +%s)
  timeout 60 bash -c "$*" > "$dst/$out" 2> "$dst/logs/$name.err"
  local rc=$?
  printf 'step %-16s rc=%-3s %3ss  %s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" "$*" >> "$prov"
}
{
  echo "script: probes/gpubench/doctor_capture.sh"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -r)"
  nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())' 2>&1
  python3 -c 'import nvidia.nccl, os; print("pip nccl:", os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>&1
  echo "whoami: $(id -un)"
  echo "--- steps"
} >> "$prov"
step lspci-vvv     lspci-vvv.txt     'lspci -vvv 2>&1 || sudo -n lspci -vvv'
# Raw PCI config space of every function (4096 bytes as root), for when
# lspci is absent: ACS control sits in the extended capability 0x000d.
step pci-config    pci-config.txt    'for d in /sys/bus/pci/devices/*; do echo "== $(basename $d) class=$(cat $d/class) vendor=$(cat $d/vendor) device=$(cat $d/device)"; od -An -v -tx1 $d/config; done'
step lspci-tree    lspci-tv.txt      'lspci -tv'
step lspci-nn      lspci-nn.txt      'lspci -nn -D'
step cmdline       proc-cmdline.txt  'cat /proc/cmdline'
step iommu-groups  iommu-groups.txt  'ls /sys/kernel/iommu_groups/ 2>&1; for g in /sys/kernel/iommu_groups/*/devices/*; do echo "$g"; done; for f in /sys/kernel/iommu_groups/*/type; do echo "$f: $(cat $f)"; done'
step iommu-class   iommu-class.txt   'ls -la /sys/class/iommu/ 2>&1; for d in /sys/bus/pci/devices/*; do echo "$(basename $d) iommu_group=$(basename $(readlink $d/iommu_group 2>/dev/null) 2>/dev/null)"; done'
step dmesg-iommu   dmesg-iommu.txt   'dmesg 2>&1 | grep -i -E "iommu|dmar|amd-vi|acs" | head -200'
step modules       modules.txt       'lsmod | grep -E "nvidia|ib_|mlx|rdma" ; ls /sys/module | grep -E "nvidia|ib_core|mlx"; cat /sys/module/nvidia/version; cat /proc/driver/nvidia/version; cat /proc/sys/kernel/osrelease'
step numa          numa.txt          'numactl -H 2>&1 || true; lscpu | head -30; for n in /sys/devices/system/node/node*; do echo "$n $(cat $n/cpulist)"; done'
step smi-topo      nvidia-smi-topo-m.txt 'nvidia-smi topo -m'
step smi-p2p-r     nvidia-smi-topo-p2p-r.txt 'nvidia-smi topo -p2p r'
step smi-p2p-w     nvidia-smi-topo-p2p-w.txt 'nvidia-smi topo -p2p w'
step smi-p2p-n     nvidia-smi-topo-p2p-n.txt 'nvidia-smi topo -p2p n'
step smi-nvlink    nvidia-smi-nvlink-s.txt 'nvidia-smi nvlink -s'
step smi-nvlink-c  nvidia-smi-nvlink-c.txt 'nvidia-smi nvlink -c'
step smi-pcie      nvidia-smi-q-pcie.txt 'nvidia-smi -q -d PCIE 2>&1 || nvidia-smi -q'
step smi-query     nvidia-smi-query.csv 'nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,driver_version --format=csv'
step rdma-tools    rdma.txt          'for t in ibv_devinfo ibstat ibdev2netdev show_gids; do echo "== $t: $(command -v $t || echo absent)"; command -v $t >/dev/null && $t 2>&1 | head -100; done; echo "== rdma link"; rdma link show 2>&1 | head; ls -la /sys/class/infiniband 2>&1'
step env-names     env.txt           'env | grep -E "^(NCCL|TORCH|CUDA|NVSHMEM|OMP|PYTORCH)_" | sort'
step torch-strings torch-env-names.txt 'd=$(python3 -c "import torch,os;print(os.path.join(os.path.dirname(torch.__file__),\"lib\"))"); echo "# $d"; for f in libtorch_cuda.so libtorch_cpu.so libtorch_python.so; do echo "## $f"; strings -n 8 "$d/$f" 2>/dev/null | grep -o -E "\b(TORCH_NCCL|TORCH_FR|TORCH_DIST|TORCH_GLOO)_[A-Z0-9_]+" | sort -u; done'
step nccl-strings  nccl-env-names.txt 'l=$(python3 -c "import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],\"lib\",\"libnccl.so.2\"))"); echo "# $l"; strings -n 6 "$l" | grep -o -E "^NCCL_[A-Z0-9_]+$" | sort -u; echo "# /usr/lib/x86_64-linux-gnu/libnccl.so.2"; strings -n 6 /usr/lib/x86_64-linux-gnu/libnccl.so.2 2>/dev/null | grep -o -E "^NCCL_[A-Z0-9_]+$" | sort -u | wc -l'
step torch-defaults torch-defaults.txt "python3 '$here/doctor_torch_env.py' defaults"
# One GPU, NCCL backend, deprecated and masking variables set: what this
# PyTorch and NCCL print about them (warnings, "set by environment" lines).
step torch-env-lint torch-env-lint.txt "MASTER_ADDR=127.0.0.1 MASTER_PORT=29533 RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 \
  TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_BLOCKING_WAIT=1 NCCL_ASYNC_ERROR_HANDLING=1 TORCH_NCCL_ENABLE_MONITORING=1 \
  TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=600 NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET \
  PYTHONUNBUFFERED=1 PYTHONWARNINGS=always timeout 90 python3 '$here/doctor_torch_env.py' run 2>&1"
echo "--- end $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$prov"
ls -la "$dst" >> "$prov"
