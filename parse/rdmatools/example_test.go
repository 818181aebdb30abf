package rdmatools_test

import (
	"fmt"
	"strings"

	"github.com/commlab/commlab/parse/rdmatools"
)

// A chapter reads a pasted show_gids table (IBM SpectrumScale pull
// request #4) and asks which GID index NCCL_IB_GID_INDEX should name.
func ExampleParse() {
	out := "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n" +
		"---     ----    -----   ---                                     ------------    ---     ---\n" +
		"mlx5_0  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v1      ens1f0\n" +
		"mlx5_0  1       1       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v2      ens1f0\n" +
		"mlx5_0  1       4       0000:0000:0000:0000:0000:ffff:ac13:003c 172.19.0.60     v1      ens1f0\n" +
		"mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:ac13:003c 172.19.0.60     v2      ens1f0\n" +
		"n_gids_found=4\n"
	rep, err := rdmatools.Parse(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range rep.RoCEv2IPv4() {
		fmt.Println(g)
	}
	if idx, ok, _ := rep.NCCLGIDIndex(); ok {
		fmt.Printf("NCCL_IB_GID_INDEX=%d\n", idx)
	}
	// Output:
	// mlx5_0 port 1 GID[5] RoCE v2 172.19.0.60 (ens1f0)
	// NCCL_IB_GID_INDEX=5
}

// ibstat from NVIDIA/l2fwd-nv issue #6: which ports are up, and how fast.
func ExampleParseIBStat() {
	out := "CA 'mlx5_0'\n" +
		"        CA type: MT4125\n" +
		"        Number of ports: 1\n" +
		"        Firmware version: 22.32.2004\n" +
		"        Port 1:\n" +
		"                State: Active\n" +
		"                Physical state: LinkUp\n" +
		"                Rate: 100\n" +
		"                Base lid: 0\n" +
		"                LMC: 0\n" +
		"                SM lid: 0\n" +
		"                Capability mask: 0x00010000\n" +
		"                Port GUID: 0x0e42a1fffe1dd12a\n" +
		"                Link layer: Ethernet\n"
	rep, err := rdmatools.ParseIBStat(strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range rep.ActivePorts() {
		fmt.Printf("%s (rate printed %q = %g Gb/s)\n", p, p.Rate, p.RateGbps)
	}
	// Output:
	// mlx5_0/1 ACTIVE LINK_UP Ethernet 100 Gb/s (rate printed "100" = 100 Gb/s)
}

// What chapter 3 shows of a paste: its ports and GIDs, and that the paste
// was cut short when Parse says so.
func ExampleReport_Reading() {
	out := "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n" +
		"---     ----    -----   ---                                     ------------    ---     ---\n" +
		"mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:ac13:003c 172.19.0.60     v2      ens1f0\n" +
		"n_gids_found=1\n"
	rep, _ := rdmatools.Parse(strings.NewReader(out))
	fmt.Print(rep.Reading(true))
	// Output:
	// mlx5_0 port 1 GID[3] RoCE v2 172.19.0.60 (ens1f0)
	//     (the paste ends inside the last block above; what follows it was not posted)
}
