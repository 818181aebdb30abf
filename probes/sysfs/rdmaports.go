package sysfs

// This file reads what the doctor's RoCE and port-counter checks need of
// each RDMA port, in the layout the kernel documents in
// Documentation/ABI/stable/sysfs-class-infiniband:
// ports/N/{state,phys_state,link_layer,rate}, ports/N/gids/I with
// ports/N/gid_attrs/types/I ("IB/RoCE v1" or "RoCE v2") and
// ports/N/gid_attrs/ndevs/I (the netdev of a RoCE GID), and the counters
// under ports/N/counters/ and ports/N/hw_counters/. sysfs has no active
// MTU file; for a RoCE port it follows from the netdev's MTU
// (sys/class/net/DEV/mtu).

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"

	"github.com/commlab/commlab/probes"
)

// PortGID is one non-zero entry of a port's GID table.
type PortGID struct {
	Index int    `json:"index"`
	GID   string `json:"gid"`
	// Type is gid_attrs/types/I as the kernel prints it: "IB/RoCE v1" or
	// "RoCE v2"; "" when the file is absent (kernels before 4.5).
	Type string `json:"type,omitempty"`
	// Netdev is gid_attrs/ndevs/I, the interface a RoCE GID belongs to.
	Netdev string `json:"netdev,omitempty"`
}

// PortDetail is one RDMA port with its GID table and counters.
type PortDetail struct {
	Device    string `json:"device"`
	Port      int    `json:"port"`
	State     string `json:"state,omitempty"`      // "ACTIVE"
	PhysState string `json:"phys_state,omitempty"` // "LinkUp"
	LinkLayer string `json:"link_layer,omitempty"` // "InfiniBand", "Ethernet"
	Rate      string `json:"rate,omitempty"`
	// Netdev is the first netdev the GID table names, NetdevMTU its MTU
	// and ActiveMTU the RDMA MTU that gives (RoCE only; 0 when unknown).
	Netdev    string    `json:"netdev,omitempty"`
	NetdevMTU int       `json:"netdev_mtu,omitempty"`
	ActiveMTU int       `json:"active_mtu,omitempty"`
	GIDs      []PortGID `json:"gids,omitempty"`
	// Counters are the files of counters/ and hw_counters/ by their names
	// ("symbol_error", "port_rcv_errors", "np_cnp_sent"); a name in both
	// keeps counters/'s value.
	Counters map[string]uint64 `json:"counters,omitempty"`
}

// maxPortGIDs bounds the GIDs kept per port, as maxGIDs does for the
// topology; the RoCE GIDs NCCL picks sit among the first few.
const maxPortGIDs = 64

// RDMAPortDetails reads every port of every device under
// sys/class/infiniband. It returns an error wrapping
// probes.ErrUnavailable when that folder is absent or empty: this machine
// has no RDMA device (or the RDMA drivers are not loaded).
func (s *Source) RDMAPortDetails() ([]PortDetail, error) {
	devs, err := fs.ReadDir(s.FS, "sys/class/infiniband")
	if err != nil {
		return nil, fmt.Errorf("sysfs: %w: /sys/class/infiniband is absent (no RDMA device, or its driver is not loaded)", probes.ErrUnavailable)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("sysfs: %w: /sys/class/infiniband is empty (no RDMA device, or its driver is not loaded)", probes.ErrUnavailable)
	}
	var out []PortDetail
	for _, d := range devs {
		base := "sys/class/infiniband/" + d.Name() + "/ports"
		ports, _ := fs.ReadDir(s.FS, base)
		sort.Slice(ports, func(i, j int) bool { return atoi(ports[i].Name()) < atoi(ports[j].Name()) })
		for _, p := range ports {
			n, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			out = append(out, s.portDetail(d.Name(), n, base+"/"+p.Name()))
		}
	}
	return out, nil
}

func (s *Source) portDetail(dev string, port int, pb string) PortDetail {
	pd := PortDetail{
		Device: dev, Port: port,
		State:     afterColon(s.read(pb + "/state")),
		PhysState: afterColon(s.read(pb + "/phys_state")),
		LinkLayer: s.read(pb + "/link_layer"),
		Rate:      s.read(pb + "/rate"),
	}
	gids, _ := fs.ReadDir(s.FS, pb+"/gids")
	sort.Slice(gids, func(i, j int) bool { return atoi(gids[i].Name()) < atoi(gids[j].Name()) })
	for _, g := range gids {
		idx, err := strconv.Atoi(g.Name())
		if err != nil {
			continue
		}
		v := s.read(pb + "/gids/" + g.Name())
		if v == "" || isZeroGID(v) {
			continue
		}
		e := PortGID{Index: idx, GID: v, Type: s.read(pb + "/gid_attrs/types/" + g.Name()), Netdev: s.read(pb + "/gid_attrs/ndevs/" + g.Name())}
		if pd.Netdev == "" {
			pd.Netdev = e.Netdev
		}
		if len(pd.GIDs) < maxPortGIDs {
			pd.GIDs = append(pd.GIDs, e)
		}
	}
	if pd.Netdev != "" {
		pd.NetdevMTU, _ = strconv.Atoi(s.read("sys/class/net/" + pd.Netdev + "/mtu"))
		pd.ActiveMTU = RoCEMTU(pd.NetdevMTU)
	}
	for _, dir := range []string{"hw_counters", "counters"} {
		files, _ := fs.ReadDir(s.FS, pb+"/"+dir)
		for _, f := range files {
			if f.IsDir() {
				continue
			}
			v, err := strconv.ParseUint(s.read(pb+"/"+dir+"/"+f.Name()), 10, 64)
			if err != nil {
				continue // lifespan and other settings, or a counter root alone may read
			}
			if pd.Counters == nil {
				pd.Counters = map[string]uint64{}
			}
			pd.Counters[f.Name()] = v
		}
	}
	return pd
}

// RoCEMTU is the RDMA MTU a RoCE port runs at over a netdev of the given
// MTU: the largest IB MTU (256 to 4096) that fits once the GRH, UDP, BTH,
// extended and ICRC headers (96 bytes) are taken off, as the kernel's
// iboe_get_mtu (include/rdma/ib_addr.h) computes it; 0 for an unknown MTU.
func RoCEMTU(netdevMTU int) int {
	if netdevMTU <= 0 {
		return 0
	}
	room := netdevMTU - 96
	for _, m := range []int{4096, 2048, 1024, 512, 256} {
		if room >= m {
			return m
		}
	}
	return 0
}
