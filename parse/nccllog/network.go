package nccllog

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
)

// Network is what a log says about the network NCCL used between nodes
// and why: the net plugin it looked for, the IB and socket devices it
// found, the network it chose ("Using network IB"), whether GPUDirect RDMA
// (GDR) was possible per NIC and allowed per GPU/NIC pair, and the
// transports its connections took. Lines repeated by every rank are kept
// once.
type Network struct {
	// Plugin is the external net plugin NCCL loaded (its path, or the name
	// it printed, e.g. "IBext"); empty when it found none.
	Plugin string `json:"plugin,omitempty"`
	// PluginFound is true when an external net plugin (libnccl-net.so or a
	// named one) was loaded; PluginSearched when the log shows NCCL looking
	// for one at all.
	PluginFound    bool `json:"plugin_found"`
	PluginSearched bool `json:"plugin_searched,omitempty"`
	// PluginNotes are the NET/Plugin lines as printed ("Could not find:
	// libnccl-net.so", "No plugin found (libnccl-net.so), using internal
	// implementation", ...).
	PluginNotes []string `json:"plugin_notes,omitempty"`
	// Initialized and Failed name the NET plugins (internal ones included:
	// "IB", "Socket") that NCCL 2.2x says it initialised or failed to.
	Initialized []string `json:"initialized,omitempty"`
	Failed      []string `json:"failed,omitempty"`
	// IBDevices are the `NET/IB : Using [0]mlx5_0:1/IB ...` entries
	// ("mlx5_0:1/IB", "mlx5_1:1/RoCE"); NoIBDevice is set by "NET/IB : No
	// device found.".
	IBDevices  []string `json:"ib_devices,omitempty"`
	NoIBDevice bool     `json:"no_ib_device,omitempty"`
	// VerbsMissing is set by "Failed to open libibverbs.so[.1]", at
	// INFO level (RCCL, NCCL's IB probe) or WARN.
	VerbsMissing bool `json:"verbs_missing,omitempty"`
	// SocketDevices are the `NET/Socket : Using [0]eth0:192.0.2.2<0>`
	// entries ("eth0:192.0.2.2<0>").
	SocketDevices []string `json:"socket_devices,omitempty"`
	// OOB is the interface NET/IB uses for its out-of-band handshake.
	OOB string `json:"oob,omitempty"`
	// Using is the network of "Using network IB" ("IB", "IBext",
	// "Socket", ...); several distinct ones are joined with ", ".
	Using string `json:"using,omitempty"`
	// GDRLevel is NCCL_NET_GDR_LEVEL (or the older NCCL_IB_GDR_LEVEL) when
	// set by environment.
	GDRLevel string `json:"gdr_level,omitempty"`
	// GDR is per NIC: whether the NIC can read and write GPU memory at all
	// (`NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'`).
	GDR []GDRNIC `json:"gdr,omitempty"`
	// GDRPaths is per GPU and NIC: whether NCCL allowed GDR for the pair
	// given their PCI distance (`GPU Direct RDMA Disabled for GPU 42000 /
	// HCA 0 (distance 6 > 4)`).
	GDRPaths []GDRPath `json:"gdr_paths,omitempty"`
	// Transports counts connections per transport kind: the text after
	// "via" with device numbers dropped ("P2P/CUMEM/read", "P2P/direct
	// pointer", "SHM/direct/direct", "NET/IB/GDRDMA", "NET/Socket").
	Transports map[string]int `json:"transports,omitempty"`
	// NICs counts the network connections per NIC and how many of them
	// used GDR ("via NET/IB/1/GDRDMA" against "via NET/IB/1").
	NICs []NICUse `json:"nics,omitempty"`
	// Warnings are the WARN lines about the network (IB verbs, sockets,
	// plugins, GDR), as printed.
	Warnings []string `json:"warnings,omitempty"`
	// Why says in plain words which network NCCL used and why, and what
	// that means for inter-node traffic.
	Why string `json:"why"`
}

// GDRNIC is one NIC's GPUDirect RDMA support as NCCL reported it.
type GDRNIC struct {
	// Net is the transport that printed it ("IB", "Socket", "IBext", ...).
	Net string `json:"net"`
	// Index is the NIC's number in that transport, -1 when the line named
	// only the device.
	Index   int    `json:"index"`
	Device  string `json:"device"`
	Enabled bool   `json:"enabled"`
	// Reason is NCCL's own parenthesised reason, when it gave one (older
	// builds: "no module or not supported by GPU").
	Reason string `json:"reason,omitempty"`
}

// GDRPath is NCCL's GPUDirect RDMA decision for one GPU and NIC: enabled
// when their PCI path distance is at most the limit (NCCL_NET_GDR_LEVEL,
// by default PXB). Distances are NCCL's path types as numbers, which
// changed between versions (PHB is 6 in 2.16, 8 in 2.23+).
type GDRPath struct {
	GPU      string `json:"gpu"`
	NIC      int    `json:"nic"`
	Distance int    `json:"distance"`
	Limit    int    `json:"limit"`
	Enabled  bool   `json:"enabled"`
	// Read is NCCL's "read" flag (GDR for sends too), -1 when not printed.
	Read int    `json:"read"`
	Mode string `json:"mode,omitempty"`
	// Count is how many times the log printed this decision.
	Count int `json:"count"`
}

// NICUse is how many network connections went through one NIC of one
// transport, and how many of them with GPUDirect RDMA.
type NICUse struct {
	Net         string `json:"net"`
	Dev         int    `json:"dev"`
	Connections int    `json:"connections"`
	GDR         int    `json:"gdr"`
}

var (
	reNetUsing    = regexp.MustCompile(`^NET/(\w+) ?: Using (.*?)(?:\s*;\s*OOB (\S+))?\s*$`)
	reNetEntry    = regexp.MustCompile(`\[(\d+)\](\S+)`)
	reGDRNIC      = regexp.MustCompile(`^NET/(\S+) ?: GPU Direct RDMA (?:\([^)]*\) )?(Enabled|Disabled|enabled|disabled) for HCA (\d+) '([^']*)'`)
	reGDROld      = regexp.MustCompile(`^NET/(\S+) ?: GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) / HCA (\S+)(?: \(([^)]*)\))?`)
	reGDRPath     = regexp.MustCompile(`^GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) / HCA (\d+) \(distance (\d+) ?(<=|>) ?(\d+)\)(?:, read (\d+))?(?: mode (\w+))?`)
	reUsingNet    = regexp.MustCompile(`^Using (?:internal )?[Nn]etwork (.+?)\s*$`)
	reNetPluginOp = regexp.MustCompile(`^(Initialized|Failed to initialize|Assigned) NET plugin (\S+)`)
	rePluginPath  = regexp.MustCompile(`^Plugin Path : (\S+)`)
	reP2PPlugin   = regexp.MustCompile(`^P2P plugin (\S+)`)
	reLoadedNet   = regexp.MustCompile(`^NET/Plugin ?: Loaded net plugin (.+?)\s*$`)
)

// netState collects network lines while parsing.
type netState struct {
	n       Network
	seen    map[string]bool
	gdrPath map[GDRPath]int
	any     bool
	// namedByNCCL: Plugin is the name NCCL printed for the plugin it
	// loaded, not one read from the plugin's own lines.
	namedByNCCL bool
}

func (p *parser) netInfo() *netState {
	if p.net == nil {
		p.net = &netState{seen: map[string]bool{}, gdrPath: map[GDRPath]int{}}
	}
	p.net.any = true
	return p.net
}

// firstTime reports whether key is new, and marks it seen: NCCL repeats
// its network lines on every rank and communicator.
func (ns *netState) firstTime(key string) bool {
	if ns.seen[key] {
		return false
	}
	ns.seen[key] = true
	return true
}

// addOnce appends s to *list unless key was added before.
func (ns *netState) addOnce(list *[]string, key, s string) {
	if ns.firstTime(key) {
		*list = append(*list, s)
	}
}

// addGDR keeps g unless the same NIC's support was reported before.
func (ns *netState) addGDR(g GDRNIC) {
	if ns.firstTime(fmt.Sprintf("gdr:%+v", g)) {
		ns.n.GDR = append(ns.n.GDR, g)
	}
}

// networkLine handles the lines about net plugins, devices, the chosen
// network and GPUDirect RDMA. It reports whether one matched.
func (p *parser) networkLine(trimmed string) bool {
	switch {
	case strings.HasPrefix(trimmed, "Failed to open libibverbs"):
		p.netInfo().n.VerbsMissing = true
		return true
	case strings.HasPrefix(trimmed, "NET/"):
		return p.netSlashLine(trimmed)
	}
	for _, l := range netLines {
		if !l.is(trimmed) {
			continue
		}
		m := l.re.FindStringSubmatch(trimmed)
		if m == nil {
			return false
		}
		l.read(p.netInfo(), m, trimmed)
		return true
	}
	return false
}

// netLine is one kind of network line outside "NET/": which lines are of
// the kind (is), the pattern that reads one, and what it records. The
// first kind a line is of reads it; a line of the kind that does not fit
// the pattern is not a network line.
type netLine struct {
	is   func(trimmed string) bool
	re   *regexp.Regexp
	read func(ns *netState, m []string, trimmed string)
}

func hasPrefix(prefix string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, prefix) }
}

var netLines = []netLine{
	{hasPrefix("GPU Direct RDMA "), reGDRPath, func(ns *netState, m []string, _ string) {
		g := GDRPath{GPU: m[2], NIC: parse.Int(m[3]), Distance: parse.Int(m[4]), Limit: parse.Int(m[6]), Enabled: m[1] == "Enabled", Read: -1, Mode: m[8]}
		if m[7] != "" {
			g.Read = parse.Int(m[7])
		}
		if i, ok := ns.gdrPath[g]; ok {
			ns.n.GDRPaths[i].Count++
		} else {
			ns.gdrPath[g] = len(ns.n.GDRPaths)
			g.Count = 1
			ns.n.GDRPaths = append(ns.n.GDRPaths, g)
		}
	}},
	// "Using network IB"; 2.3 said "Using internal Network IB".
	{func(s string) bool {
		return strings.HasPrefix(s, "Using network ") || strings.HasPrefix(s, "Using internal Network ")
	}, reUsingNet, func(ns *netState, m []string, _ string) {
		// Only a plugin brings a network other than IB and Socket ("AWS
		// Libfabric", "GPUDirectTCPX_v7", "FasTrak").
		if !internalNets[m[1]] && !strings.HasPrefix(m[1], "IBext") {
			ns.n.PluginFound = true
			if ns.n.Plugin == "" {
				ns.n.Plugin = m[1]
			}
		}
		if ns.firstTime("using:" + m[1]) {
			if ns.n.Using != "" {
				ns.n.Using += ", "
			}
			ns.n.Using += m[1]
		}
	}},
	{func(s string) bool { return strings.Contains(s, "NET plugin ") }, reNetPluginOp, func(ns *netState, m []string, _ string) {
		switch m[1] {
		case "Initialized":
			ns.addOnce(&ns.n.Initialized, "init:"+m[2], m[2])
		case "Failed to initialize":
			ns.addOnce(&ns.n.Failed, "fail:"+m[2], m[2])
		}
		// "Assigned NET plugin X to comm" repeats "Using network X".
	}},
	{hasPrefix("Plugin Path : "), rePluginPath, func(ns *netState, m []string, trimmed string) {
		ns.n.PluginSearched = true
		if strings.Contains(m[1], "net") {
			ns.n.PluginFound = true
			ns.n.Plugin = m[1]
		}
		ns.addOnce(&ns.n.PluginNotes, "note:"+trimmed, trimmed)
	}},
	{hasPrefix("P2P plugin "), reP2PPlugin, func(ns *netState, m []string, trimmed string) {
		ns.n.PluginFound = true
		ns.n.PluginSearched = true
		if ns.n.Plugin == "" {
			ns.n.Plugin = m[1]
		} else if !strings.Contains(ns.n.Plugin, m[1]) {
			ns.n.Plugin = m[1] + " (" + ns.n.Plugin + ")"
		}
		ns.addOnce(&ns.n.PluginNotes, "note:"+trimmed, trimmed)
	}},
}

func (p *parser) netSlashLine(trimmed string) bool {
	if strings.HasPrefix(trimmed, "NET/Plugin") {
		ns := p.netInfo()
		ns.n.PluginSearched = true
		note := strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(trimmed, "NET/Plugin"), " :"))
		if m := reLoadedNet.FindStringSubmatch(trimmed); m != nil {
			ns.n.PluginFound = true
			ns.n.Plugin = m[1]
			ns.namedByNCCL = true
		}
		// NCCL looks for a plugin's CollNet symbols only after it loaded
		// the plugin's net symbols (net.cc, plugin/net.cc in every release
		// since 2.6): a CollNet miss says a net plugin is loaded.
		if strings.Contains(note, "ncclCollNetPlugin") {
			ns.n.PluginFound = true
		}
		ns.addOnce(&ns.n.PluginNotes, "note:"+note, note)
		return true
	}
	if strings.HasPrefix(trimmed, "NET/IB") && strings.HasSuffix(strings.TrimSpace(trimmed), "No device found.") {
		p.netInfo().n.NoIBDevice = true
		return true
	}
	if m := reGDRNIC.FindStringSubmatch(trimmed); m != nil {
		ns := p.netInfo()
		g := GDRNIC{Net: m[1], Index: parse.Int(m[3]), Device: m[4], Enabled: strings.EqualFold(m[2], "Enabled")}
		ns.addGDR(g)
		return true
	}
	if m := reGDROld.FindStringSubmatch(trimmed); m != nil {
		// 2.4 to 2.11: "NET/IB : GPU Direct RDMA Disabled for GPU 0 / HCA
		// mlx5_0 (no module or not supported by GPU)".
		ns := p.netInfo()
		g := GDRNIC{Net: m[1], Index: -1, Device: m[4], Enabled: m[2] == "Enabled", Reason: m[5]}
		if n, err := strconv.Atoi(m[4]); err == nil {
			g.Index, g.Device = n, ""
		}
		ns.addGDR(g)
		return true
	}
	if m := reNetUsing.FindStringSubmatch(trimmed); m != nil && !isPluginNet(m[1]) {
		ns := p.netInfo()
		for _, e := range reNetEntry.FindAllStringSubmatch(m[2], -1) {
			switch m[1] {
			case "Socket":
				ns.addOnce(&ns.n.SocketDevices, "sock:"+e[2], e[2])
			default:
				ns.addOnce(&ns.n.IBDevices, "ib:"+e[2], e[2])
			}
		}
		if m[3] != "" && ns.n.OOB == "" {
			ns.n.OOB = m[3]
		}
		return true
	}
	if m := reNetOldDevice.FindStringSubmatch(trimmed); m != nil {
		// 2.3 listed its devices one a line: "NET/IB: [0] mlx5_1:1/IB".
		ns := p.netInfo()
		if m[1] == "Socket" {
			ns.addOnce(&ns.n.SocketDevices, "sock:"+m[2], m[2])
		} else {
			ns.addOnce(&ns.n.IBDevices, "ib:"+m[2], m[2])
		}
		return true
	}
	if m := rePluginBanner.FindStringSubmatch(trimmed); m != nil && isPluginNet(m[1]) {
		// An external plugin's own lines: "NET/OFI Initializing
		// aws-ofi-nccl 1.14.2", "NET/GPUDirectTCPX ver. 3.1.8.",
		// "NET/FasTrak ...", "NET/UCX ...".
		ns := p.netInfo()
		ns.n.PluginFound = true
		name := pluginNames[m[1]]
		if name == "" {
			name = m[1]
		}
		v := rePluginVersion.FindStringSubmatch(trimmed)
		if v != nil {
			name += " " + strings.TrimSuffix(v[1], ".")
		}
		// NCCL's own "Loaded net plugin X" name stays; a banner with its
		// version names the plugin better than "Using network X" did.
		if ns.n.Plugin == "" || (v != nil && !ns.namedByNCCL) {
			ns.n.Plugin = name
		}
		return true
	}
	return false
}

// internalNets are the networks NCCL (and RCCL) build in; any other
// NET/<name> line comes from an external plugin. IBext is the IB of
// NVIDIA's own net plugin (nccl-rdma-sharp-plugins, HPC-X), read like IB.
var internalNets = map[string]bool{"IB": true, "Socket": true, "Plugin": true, "IBext": true}

// pluginNames are the names the plugins go by, for the prefixes they
// print: aws-ofi-nccl prints "NET/OFI", Google's GPUDirect-TCPXO plugin
// (nccl-net-gcp) "NET/FasTrak".
var pluginNames = map[string]string{"OFI": "aws-ofi-nccl", "FasTrak": "GPUDirect-TCPXO (FasTrak)", "GPUDirectTCPX": "GPUDirect-TCPX"}

func isPluginNet(name string) bool {
	return !internalNets[name] && !strings.HasPrefix(name, "IBext")
}

var (
	rePluginBanner  = regexp.MustCompile(`^NET/([A-Za-z][\w-]*)`)
	reNetOldDevice  = regexp.MustCompile(`^NET/(\w+): \[\d+\] (\S+)\s*$`)
	rePluginVersion = regexp.MustCompile(`(?:aws-ofi-nccl|ver\.) v?(\d+\.\d+(?:\.\d+)?[\w.-]*)`)
)

// TransportKind is a transport with its device numbers dropped:
// "NET/IB/1/GDRDMA/Shared" -> "NET/IB/GDRDMA/Shared", "NET/Socket/0" ->
// "NET/Socket"; intra-node ones ("P2P/CUMEM/read") stay as they are.
func TransportKind(transport string) string {
	parts := strings.Split(transport, "/")
	out := parts[:0:0]
	for _, s := range parts {
		if _, err := strconv.Atoi(s); err == nil {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, "/")
}

// netTransport splits "NET/IB/1/GDRDMA" into the network ("IB"), the NIC
// (1) and whether GDR was used; ok is false for other transports.
func netTransport(transport string) (network string, dev int, gdr, ok bool) {
	parts := strings.Split(transport, "/")
	if len(parts) < 2 || parts[0] != "NET" {
		return "", 0, false, false
	}
	dev = -1
	network = parts[1]
	for _, s := range parts[2:] {
		if n, err := strconv.Atoi(s); err == nil && dev < 0 {
			dev = n
		}
		if s == "GDRDMA" {
			gdr = true
		}
	}
	return network, dev, gdr, true
}

// isNetworkWarning says whether a WARN line is about the network.
func isNetworkWarning(text string) bool {
	for _, k := range []string{"NET/", "IB", "ibv", "libibverbs", "Socket", "socket", "plugin", "Plugin", "GDR", "RDMA", "OOB"} {
		if strings.Contains(text, k) {
			return true
		}
	}
	return false
}

// finishNetwork builds Log.Network from the collected lines and the
// connections, when the log has either.
// networkWarning keeps a WARN line about the network, once per text, up
// to maxNetWarnings of them.
func (p *parser) networkWarning(text string) {
	if !isNetworkWarning(text) {
		return
	}
	p.netWarn = true
	if len(p.netWarnings) < maxNetWarnings && !slices.Contains(p.netWarnings, text) {
		p.netWarnings = append(p.netWarnings, text)
	}
}

// maxNetWarnings bounds the distinct network WARN texts kept: a large
// job prints one per rank, each with its own addresses.
const maxNetWarnings = 1000

func (p *parser) finishNetwork() {
	if p.net == nil && len(p.log.transports) == 0 && !p.netWarn {
		return
	}
	ns := p.net
	if ns == nil {
		ns = &netState{seen: map[string]bool{}}
	}
	n := ns.n
	for _, e := range p.log.Env {
		if e.Name == "NCCL_NET_GDR_LEVEL" || (e.Name == "NCCL_IB_GDR_LEVEL" && n.GDRLevel == "") {
			n.GDRLevel = strings.TrimSuffix(e.Value, ".")
		}
	}
	n.Warnings = append(n.Warnings, p.netWarnings...)
	// Every connection read counts, kept or not; (network, NIC) is unique,
	// so the sort below fixes the order.
	nicIdx := map[[2]string]int{}
	for transport, count := range p.log.transports {
		if n.Transports == nil {
			n.Transports = map[string]int{}
		}
		n.Transports[TransportKind(transport)] += count
		network, dev, gdr, ok := netTransport(transport)
		if !ok {
			continue
		}
		key := [2]string{network, strconv.Itoa(dev)}
		i, seen := nicIdx[key]
		if !seen {
			i = len(n.NICs)
			nicIdx[key] = i
			n.NICs = append(n.NICs, NICUse{Net: network, Dev: dev})
		}
		n.NICs[i].Connections += count
		if gdr {
			n.NICs[i].GDR += count
		}
	}
	slices.SortStableFunc(n.NICs, func(a, b NICUse) int {
		if c := strings.Compare(a.Net, b.Net); c != 0 {
			return c
		}
		return a.Dev - b.Dev
	})
	n.Why = explainNetwork(&n, p.log.Env, p.log.Library)
	p.log.Network = &n
}

// explainNetwork writes the one-paragraph "why" of a Network.
func explainNetwork(n *Network, env []EnvSetting, library string) string {
	var s []string
	netConns, gdrConns, intra := 0, 0, 0
	for _, u := range n.NICs {
		netConns += u.Connections
		gdrConns += u.GDR
	}
	for k, c := range n.Transports {
		if !strings.HasPrefix(k, "NET/") {
			intra += c
		}
	}
	using := n.Using
	if using == "" && len(n.NICs) > 0 {
		using = n.NICs[0].Net
	}
	envVal := func(name string) string {
		for _, e := range env {
			if e.Name == name {
				return strings.TrimSuffix(e.Value, ".")
			}
		}
		return ""
	}
	noVerbs := n.VerbsMissing || slices.ContainsFunc(n.Warnings, func(w string) bool { return strings.Contains(w, "libibverbs") })
	isSocket := using == "Socket"
	isIB := strings.HasPrefix(using, "IB")
	switch {
	case isSocket:
		var why string
		switch {
		case n.NoIBDevice:
			why = "NCCL found no InfiniBand or RoCE device (\"NET/IB : No device found\")"
		case noVerbs:
			why = "NCCL could not open libibverbs, the RDMA verbs library, so its IB transport was unavailable"
		case slices.Contains(n.Failed, "IB"):
			why = "NCCL's IB transport failed to initialise"
		case envVal("NCCL_IB_DISABLE") == "1":
			why = "NCCL_IB_DISABLE=1 turned the IB transport off"
		case n.Using == "":
			why = "The connections use the Socket transport (the log does not say why IB was not used)"
		default:
			why = "The log does not say why IB was not used"
		}
		over := ""
		if len(n.SocketDevices) > 0 {
			over = " over " + strings.Join(ifaceNames(n.SocketDevices), ", ")
		}
		so := ", so it used the Socket transport" + over
		if n.Using == "" {
			so = ""
		}
		s = append(s, fmt.Sprintf("%s%s: inter-node traffic goes through the kernel's TCP stack and host memory, with no RDMA and no GPUDirect.", why, so))
	case isIB:
		kind := "its built-in IB transport"
		switch {
		case n.Using == "":
			kind = "its " + using + " transport (named by the connections; the log has no \"Using network\" line)"
		case n.PluginFound || using != "IB":
			kind = "the " + using + " transport of its net plugin"
		}
		devs := ""
		if len(n.IBDevices) > 0 {
			devs = fmt.Sprintf(" over %d RDMA port(s) (%s)", len(n.IBDevices), strings.Join(n.IBDevices, ", "))
		}
		s = append(s, fmt.Sprintf("NCCL used %s%s: verbs RDMA on InfiniBand or RoCE, the NIC moving data without the CPU.", kind, devs))
	case using != "":
		s = append(s, fmt.Sprintf("NCCL used the %s network.", using))
	case len(n.Transports) > 0:
		s = append(s, "The log does not name the network NCCL chose (no \"Using network\" line).")
	default:
		s = append(s, "The log does not show which network NCCL chose (no \"Using network\" line and no connections: an excerpt, or NCCL_DEBUG_SUBSYS without INIT and NET).")
	}
	if noVerbs && !isSocket {
		s = append(s, "NCCL could not open libibverbs, the RDMA verbs library, so its IB transport was unavailable on at least one host.")
	}
	switch {
	case n.PluginFound && n.Plugin == "":
		s = append(s, "It loaded an external net plugin (the log does not name it; NCCL printed only that the plugin has no CollNet symbols).")
	case n.PluginFound:
		s = append(s, fmt.Sprintf("It loaded the external net plugin %s.", n.Plugin))
	case n.PluginSearched:
		lib, name := "libnccl-net.so", "NCCL"
		if library == "RCCL" {
			lib, name = "librccl-net.so", "RCCL"
		}
		s = append(s, fmt.Sprintf("No external net plugin (%s) was found, so %s used its own IB and Socket transports.", lib, name))
	}
	// GPUDirect RDMA.
	var on, off []string
	for _, g := range n.GDR {
		name := g.Device
		if name == "" {
			name = fmt.Sprintf("HCA %d", g.Index)
		}
		if g.Enabled {
			on = append(on, name)
		} else {
			off = append(off, name)
		}
	}
	if !isSocket || len(on) > 0 {
		switch {
		case len(off) > 0 && len(on) == 0:
			s = append(s, fmt.Sprintf("GPUDirect RDMA is unavailable on %s: NCCL found no way for the NIC to reach GPU memory (the nvidia-peermem module or DMA-BUF), so every network transfer is staged through host memory.", strings.Join(off, ", ")))
		case len(off) > 0:
			s = append(s, fmt.Sprintf("GPUDirect RDMA is available on %s but not on %s.", strings.Join(on, ", "), strings.Join(off, ", ")))
		case len(on) > 0:
			s = append(s, fmt.Sprintf("The NICs support GPUDirect RDMA (%s).", strings.Join(on, ", ")))
		}
	}
	var pathOn, pathOff []string
	for _, g := range n.GDRPaths {
		d := fmt.Sprintf("GPU %s / HCA %d (distance %d", g.GPU, g.NIC, g.Distance)
		if g.Enabled {
			pathOn = appendOnce(pathOn, fmt.Sprintf("%s <= %d)", d, g.Limit))
		} else {
			pathOff = appendOnce(pathOff, fmt.Sprintf("%s > %d)", d, g.Limit))
		}
	}
	level := "the limit (NCCL_NET_GDR_LEVEL, PXB by default)"
	if n.GDRLevel != "" {
		level = "the limit set by NCCL_NET_GDR_LEVEL=" + n.GDRLevel
	}
	if len(pathOff) > 0 {
		s = append(s, fmt.Sprintf("NCCL turned GPUDirect RDMA off for %s: the PCI path from GPU to NIC is longer than %s, so that traffic goes through host memory.", strings.Join(pathOff, ", "), level))
	}
	if len(pathOn) > 0 {
		s = append(s, fmt.Sprintf("It allowed GPUDirect RDMA for %s, within %s.", strings.Join(pathOn, ", "), level))
	}
	if netConns > 0 {
		switch gdrConns {
		case netConns:
			s = append(s, fmt.Sprintf("All %d network connection(s) use GDRDMA: the NIC reads and writes GPU memory directly.", netConns))
		case 0:
			if !isSocket {
				s = append(s, fmt.Sprintf("None of the %d network connection(s) uses GDRDMA: data crosses host memory on its way to the NIC.", netConns))
			}
		default:
			s = append(s, fmt.Sprintf("%d of %d network connections use GDRDMA; the rest are staged through host memory.", gdrConns, netConns))
		}
	} else if intra > 0 {
		s = append(s, fmt.Sprintf("No connection in the log goes through the network: all %d stay inside a node (%s).", intra, transportList(n.Transports)))
	} else if using != "" {
		s = append(s, "The log shows no connection, so nothing says whether any traffic used that network (one rank, or an excerpt).")
	}
	if len(n.Warnings) > 0 {
		s = append(s, fmt.Sprintf("%d network WARN line(s), the first: %q.", len(n.Warnings), n.Warnings[0]))
	}
	return strings.Join(s, " ")
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// ifaceNames turns "eth0:192.0.2.2<0>" into "eth0".
func ifaceNames(devs []string) []string {
	out := make([]string, 0, len(devs))
	for _, d := range devs {
		name, _, _ := strings.Cut(d, ":")
		out = appendOnce(out, name)
	}
	return out
}

// transportList prints transport counts as "P2P/CUMEM/read 56, SHM 8",
// most used first.
func transportList(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writeSummary writes the network section of Log.WriteSummary.
func (n *Network) writeSummary(w io.Writer) {
	using := n.Using
	if using == "" {
		using = "not named in the log"
	}
	fmt.Fprintf(w, "network: %s\n", using)
	switch {
	case n.PluginFound && n.Plugin == "":
		fmt.Fprintln(w, "  net plugin: loaded (its name not printed)")
	case n.PluginFound:
		fmt.Fprintf(w, "  net plugin: %s\n", n.Plugin)
	case n.PluginSearched:
		fmt.Fprintln(w, "  net plugin: none found (internal transports)")
	}
	if len(n.Initialized) > 0 || len(n.Failed) > 0 {
		fmt.Fprintf(w, "  NET plugins initialised: %s; failed: %s\n", orDash(n.Initialized), orDash(n.Failed))
	}
	switch {
	case len(n.IBDevices) > 0:
		fmt.Fprintf(w, "  IB devices: %s\n", strings.Join(n.IBDevices, " "))
	case n.NoIBDevice:
		fmt.Fprintln(w, "  IB devices: none found")
	}
	if len(n.SocketDevices) > 0 {
		fmt.Fprintf(w, "  socket interfaces: %s\n", strings.Join(n.SocketDevices, " "))
	}
	if n.GDRLevel != "" {
		fmt.Fprintf(w, "  NCCL_NET_GDR_LEVEL: %s\n", n.GDRLevel)
	}
	for _, g := range n.GDR {
		state := "disabled"
		if g.Enabled {
			state = "enabled"
		}
		name := fmt.Sprintf("HCA %d '%s'", g.Index, g.Device)
		if g.Index < 0 {
			name = fmt.Sprintf("HCA '%s'", g.Device)
		} else if g.Device == "" {
			name = fmt.Sprintf("HCA %d", g.Index)
		}
		reason := ""
		if g.Reason != "" {
			reason = " (" + g.Reason + ")"
		}
		fmt.Fprintf(w, "  GPUDirect RDMA %s on NET/%s %s%s\n", state, g.Net, name, reason)
	}
	for _, g := range n.GDRPaths {
		state, op := "disabled", ">"
		if g.Enabled {
			state, op = "enabled", "<="
		}
		read := ""
		if g.Read >= 0 {
			read = fmt.Sprintf(", read %d", g.Read)
		}
		fmt.Fprintf(w, "  GPUDirect RDMA %s for GPU %s / HCA %d: distance %d %s %d%s (x%d)\n", state, g.GPU, g.NIC, g.Distance, op, g.Limit, read, g.Count)
	}
	for _, u := range n.NICs {
		fmt.Fprintf(w, "  NIC NET/%s/%d: %d connections, %d with GDRDMA\n", u.Net, u.Dev, u.Connections, u.GDR)
	}
	if len(n.Transports) > 0 {
		fmt.Fprintf(w, "  transport kinds: %s\n", transportList(n.Transports))
	}
	fmt.Fprintf(w, "  why: %s\n", n.Why)
}

func orDash(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ", ")
}
