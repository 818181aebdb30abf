package child

import (
	"slices"
	"strconv"
	"strings"

	"github.com/commlab/commlab/probes/cuda"
	"github.com/commlab/commlab/probes/nccl"
	"github.com/commlab/commlab/units"
)

// Command is the command a person types for the same run, "commlab probe
// bandwidth -b 64M -e 256M -f 4": the settings that differ from the
// verb's defaults, as its flags. It is display text (banners, the doctor's
// sources, launch plans), derived here alone; Run does not execute it.
func (r Request) Command() []string {
	c := []string{commlabBinary, "probe", string(r.Probe)}
	switch r.Probe {
	case Bandwidth:
		if len(r.Bandwidth.Sizes) > 0 && !slices.Equal(r.Bandwidth.Sizes, cuda.DefaultSizes()) {
			c = append(c, sizeFlags(r.Bandwidth.Sizes)...)
		}
		c = append(c, deviceFlag(r.Bandwidth.Devices)...)
	case NCCL:
		cfg := r.NCCL
		if cols := strings.Join(cfg.Collectives, ","); cols != "" && cols != nccl.DefaultSettings().Collectives {
			c = append(c, "--coll", cols)
		}
		if def, _ := units.Sweep(nccl.DefaultMinBytes, nccl.DefaultMaxBytes, nccl.DefaultFactor); len(cfg.Sizes) > 0 && !slices.Equal(cfg.Sizes, def) {
			c = append(c, sizeFlags(cfg.Sizes)...)
		}
		c = append(c, deviceFlag(cfg.Devices)...)
		if s, ok := cfg.Env["NCCL_DEBUG_SUBSYS"]; ok && s != nccl.DefaultDebugSubsys {
			c = append(c, "--debug-subsys", s)
		}
		if r.TopologyEdit != "" {
			c = append(c, "--topo-edit", r.TopologyEdit)
		}
	case NCCLTests:
		c = append(c, "--")
		c = append(c, r.Tool.Args...)
	case TorchScript:
		c = []string{commlabBinary, "probe", "torch", "--script"}
	case C10d:
		for _, f := range []struct{ name, value string }{{"--backend", r.C10d.Backend}, {"--parts", r.C10d.Parts}} {
			if f.value != "" {
				c = append(c, f.name, f.value)
			}
		}
		if len(r.C10d.ScriptArgs) > 0 {
			c = append(append(c, "--"), r.C10d.ScriptArgs...)
		}
	}
	return c
}

// CommandFor is Command with exe, a path to the commlab binary, in place
// of "commlab": what a launch plan runs on every node.
func (r Request) CommandFor(exe string) []string {
	return append([]string{exe}, r.Command()[1:]...)
}

// sizeFlags are -b, -e and -f for a geometric sweep, else --sizes.
func sizeFlags(sizes []int64) []string {
	if len(sizes) > 1 && sizes[0] > 0 && sizes[1]%sizes[0] == 0 {
		f := sizes[1] / sizes[0]
		if sweep, err := units.Sweep(sizes[0], sizes[len(sizes)-1], f); err == nil && slices.Equal(sweep, sizes) {
			return []string{"-b", flagSize(sizes[0]), "-e", flagSize(sizes[len(sizes)-1]), "-f", strconv.FormatInt(f, 10)}
		}
	}
	list := make([]string, len(sizes))
	for i, s := range sizes {
		list[i] = flagSize(s)
	}
	return []string{"--sizes", strings.Join(list, ",")}
}

// flagSize writes a size as nccl-tests' flags take it: 8, 4K, 64M, 1G.
func flagSize(n int64) string {
	for _, u := range []struct {
		suffix string
		bytes  int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// deviceFlag is --devices for a run on some of the GPUs.
func deviceFlag(devices []int) []string {
	if len(devices) == 0 {
		return nil
	}
	list := make([]string, len(devices))
	for i, d := range devices {
		list[i] = strconv.Itoa(d)
	}
	return []string{"--devices", strings.Join(list, ",")}
}
