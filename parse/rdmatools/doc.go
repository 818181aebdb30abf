// Package rdmatools reads what the RDMA command-line tools print, so a
// chapter or `commlab parse rdma` can describe a machine that has a NIC
// from what a person pasted:
//
//   - ibstat (infiniband-diags): "CA 'mlx5_0'" blocks with CA type,
//     firmware, GUIDs and "Port N:" blocks (State, Physical state, Rate,
//     Base lid, LMC, SM lid, Capability mask, Port GUID, Link layer);
//   - ibv_devinfo and ibv_devinfo -v (rdma-core): "hca_id:" blocks with
//     transport, fw_ver, GUIDs, vendor and board ids, every max_* line of
//     -v, and "port: N" blocks (state, MTUs, LIDs, link_layer,
//     active_width, active_speed, phys_state) with -v's "GID[ n]:" lines,
//     typed ("RoCE v2") by rdma-core since 2020; also the lines of
//     `ibv_devinfo -v | grep GID` pasted alone;
//   - show_gids (the MLNX_OFED script): the DEV PORT INDEX GID IPv4 VER
//     DEV table and its n_gids_found=N footer;
//   - rdma link (iproute2): "link mlx5_0/1 state ACTIVE physical_state
//     LINK_UP netdev eth0" lines, with any further "key value" pairs
//     (subnet_prefix, lid, sm_lid, lmc on InfiniBand ports) kept as printed.
//
// One package reads the four because they describe the same things
// (devices, ports, GIDs) and a chapter asks the same questions of each:
// which ports are ACTIVE, and which GID index is RoCE v2 with an IPv4
// address (what NCCL_IB_GID_INDEX should be). All four return a *Report;
// Parse tells the tools apart (Detect) and calls the right parser.
//
// Values are kept as the tool printed them beside their typed forms: a
// port's Rate is ibstat's "Rate: 100" text and RateGbps the number
// (ibv_devinfo prints no rate: RateGbps is active_width x active_speed);
// State and PhysState are normalised to ibv_devinfo's words (ACTIVE,
// DOWN, INIT, ARMED; LINK_UP, DISABLED, POLLING) with the printed text in
// StateText and PhysStateText. A GID's IPv4 is the address show_gids
// printed, or the IPv4 mapped into the GID (::ffff:a.b.c.d).
//
// Lines before the first one a tool prints (a shell prompt, ibwarn
// messages) and after its last (another command's output pasted after
// it, `ibstat -p`'s GUIDs) are skipped and kept as warnings; pdsh's
// "host: " labels are removed and name each device's Host. Input that is
// none of these tools returns an error wrapping parse.ErrFormat; input cut
// short wraps ErrTruncated; a line inside the output that cannot be read
// wraps ErrMalformed and reading goes on past it; all are *parse.Error
// naming the line, returned with everything read.
//
// The package owns parsing only: it runs no tool, reads no sysfs
// (probes/sysfs does) and imports only the standard library and
// parse.
package rdmatools
