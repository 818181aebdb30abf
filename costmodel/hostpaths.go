package costmodel

import "fmt"

// NCCLSocketLink is how NCCL's topology rates the link between two CPU
// sockets (its SYS paths), by CPU: the speed its graph search and tuner
// give every path that crosses it.
type NCCLSocketLink struct {
	// CPU names the processors; Match how NCCL recognises them (the XML
	// topology's arch, vendor, family and model ids).
	CPU   string
	Match string
	// Constant is the name in NCCL's source; GBps its value, one way.
	Constant string
	GBps     float64 `unit:"GB/s"`
}

const srcNCCLSocket = "NVIDIA/nccl v2.28.9-1: src/graph/topo.h (the *_BW constants) and src/graph/topo.cc " +
	"(ncclTopoGetInterCpuBw; Intel models from family 6 model ids in ncclTopoAddCpu)"

// NCCLSocketLinks lists NCCL's inter-socket rates (NVIDIA/nccl v2.28.9-1,
// src/graph/topo.h and topo.cc). A SYS path in `nvidia-smi topo -m` is
// worth this much to NCCL, whatever the socket link's datasheet says.
func NCCLSocketLinks() []NCCLSocketLink {
	return []NCCLSocketLink{
		{"Intel up to Broadwell, and any Intel not of family 6", "x86, Intel, family 6 model below 0x55, or another family", "BDW_QPI_BW", 6},
		{"Intel from Skylake-SP (model 0x55)", "x86, Intel, family 6 model 0x55 to 0x8e", "SKL_QPI_BW", 10},
		{"Intel from Sapphire Rapids (model 0x8f)", "x86, Intel, family 6 model 0x8f to 0xce", "SRP_QPI_BW", 22},
		{"Intel from Emerald Rapids (model 0xcf)", "x86, Intel, family 6 model 0xcf and above", "ERP_QPI_BW", 40},
		{"AMD (all x86 models)", "x86, AMD", "AMD_BW", 16},
		{"Zhaoxin", "x86, Zhaoxin", "ZPI_BW", 6},
		{"Zhaoxin Yongfeng", "x86, Zhaoxin, family 7 model 0x5b", "YONGFENG_ZPI_BW", 9},
		{"IBM POWER9", "ppc64", "P9_BW", 32},
		{"Arm", "arm64", "ARM_BW", 6},
	}
}

// NCCLSocketLinkSource names where NCCLSocketLinks comes from.
func NCCLSocketLinkSource() string { return srcNCCLSocket }

// NCCLSocketLinkForIntel returns NCCL's rate for an Intel CPU by its
// family and model id (as /proc/cpuinfo and NCCL's topology XML print them
// in decimal: "model : 207" is 0xcf), sorted the way ncclTopoAddCpu sorts
// them: family 6 by model, any other family as Broadwell.
func NCCLSocketLinkForIntel(family, model int) (NCCLSocketLink, error) {
	rows := NCCLSocketLinks()
	if family < 0 || model < 0 {
		return NCCLSocketLink{}, fmt.Errorf("%w: family %d model %d", ErrParams, family, model)
	}
	if family != 6 {
		return rows[0], nil
	}
	switch {
	case model >= 0xcf:
		return rows[3], nil
	case model >= 0x8f:
		return rows[2], nil
	case model >= 0x55:
		return rows[1], nil
	}
	return rows[0], nil
}

// PublishedRegistration is one published measurement of how long memory
// registration took (ibv_reg_mr, or a library calling it).
type PublishedRegistration struct {
	What    string
	Bytes   float64 `unit:"B"`
	Seconds float64 `unit:"s"`
	Source  string
}

// PerGB is the registration time per 10^9 bytes.
func (r PublishedRegistration) PerGB() float64 { return r.Seconds / (r.Bytes / 1e9) }

// PerPage is the registration time per page of pageBytes.
func (r PublishedRegistration) PerPage(pageBytes float64) float64 {
	return r.Seconds / (r.Bytes / pageBytes)
}

// RegistrationMeasurements lists published registration times of host
// memory, each with its source. Sizes are read as printed: "GB" as 10^9
// bytes (the posts do not say; 2^30 would make the per-byte cost 7% lower).
func RegistrationMeasurements() []PublishedRegistration {
	return []PublishedRegistration{
		{What: "256 GB of host memory, libfabric's verbs provider (fi_mr_reg over ibv_reg_mr), one call",
			Bytes: 256e9, Seconds: 20,
			Source: "ofiwg/libfabric issue #4738, 2019-01-14: \"more than 20 seconds to register 256 GB memory\" (a lower bound)"},
		{What: "500 GB of allocated, touched host memory, Mooncake's transfer engine, one buffer after another",
			Bytes: 500e9, Seconds: 49.198,
			Source: "kvcache-ai/Mooncake pull request #855, 2025-09-17: register_memory 49.198 s sequential, 11.662 s in parallel"},
		{What: "the same 500 GB registered in parallel (several threads)",
			Bytes: 500e9, Seconds: 11.662,
			Source: "kvcache-ai/Mooncake pull request #855, 2025-09-17"},
	}
}
