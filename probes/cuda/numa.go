package cuda

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Linux's mbind(2) policy and flags (linux/mempolicy.h).
const (
	mpolBind     = 2
	mpolMFStrict = 1 << 0
	mpolMFMove   = 1 << 1
)

// pinnedOnNode returns n bytes of pinned host memory whose pages sit on
// NUMA node (mapOnNode), pinned with cudaHostRegister. cudaMallocHost
// places pages wherever the allocating thread's policy puts them, usually
// its own node, which is what a near-and-far comparison must control.
// free unpins and unmaps.
func pinnedOnNode(n int64, node int) (p unsafe.Pointer, free func() error, err error) {
	mem, err := mapOnNode(n, node)
	if err != nil {
		return nil, nil, err
	}
	p = unsafe.Pointer(&mem[0])
	if err := hostRegister(p, n); err != nil {
		unix.Munmap(mem)
		return nil, nil, err
	}
	return p, func() error {
		err := hostUnregister(p)
		if uerr := unix.Munmap(mem); err == nil {
			err = uerr
		}
		return err
	}, nil
}

// mapOnNode maps n bytes anonymous, binds them to NUMA node with mbind(2)
// before any page is touched, and touches every page, so each lands on the
// node (or the call fails: MPOL_MF_STRICT).
func mapOnNode(n int64, node int) ([]byte, error) {
	const maxNodes = 1024
	if node < 0 || node >= maxNodes || n <= 0 {
		return nil, fmt.Errorf("cuda: %d bytes on NUMA node %d: want a positive size and a node below %d", n, node, maxNodes)
	}
	mem, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("cuda: mmap of %d bytes: %w", n, err)
	}
	var mask [maxNodes / 64]uint64
	mask[node/64] |= 1 << (node % 64)
	if _, _, e := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&mem[0])), uintptr(n), mpolBind,
		uintptr(unsafe.Pointer(&mask[0])), uintptr(maxNodes+1), mpolMFStrict|mpolMFMove); e != 0 {
		unix.Munmap(mem)
		return nil, fmt.Errorf("cuda: mbind to NUMA node %d: %w (is it online? /sys/devices/system/node/online)", node, e)
	}
	for i := 0; i < len(mem); i += 4096 { // fault every page in on the bound node
		mem[i] = 1
	}
	return mem, nil
}
