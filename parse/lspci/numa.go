package lspci

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/parse/internal/textinput"
)

// sysfsNUMARE matches one line of `grep . /sys/bus/pci/devices/*/numa_node`
// (or of a loop printing "path value"): the device's address, then its
// node, -1 on machines (and virtual machines) that do not report one.
var sysfsNUMARE = regexp.MustCompile(`devices/((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])/numa_node[:\s]+(-?[0-9]+)\s*$`)

// ParseNUMA reads which NUMA node each PCI function belongs to, from
// either of the two places a person can copy it from: the "NUMA node: N"
// line lspci -v (and -vv, -vvv) prints under each function on machines
// with more than one node, or the kernel's own files, listed with
// `grep . /sys/bus/pci/devices/*/numa_node`. Addresses get the domain
// lspci leaves out. A function the kernel gives no node (-1) is left out
// of the map. Input with neither form is an error wrapping
// parse.ErrFormat; so is an lspci output that prints no NUMA node at all
// (a machine with one node, or a virtual machine, where every device
// belongs to node 0 or to none).
func ParseNUMA(r io.Reader) (map[string]int, error) {
	data, err := textinput.ReadClean(r)
	if err != nil {
		return nil, fmt.Errorf("lspci: %w", err)
	}
	numa := map[string]int{}
	sysfsLines := 0
	for _, line := range strings.Split(string(data), "\n") {
		m := sysfsNUMARE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		sysfsLines++
		if n, err := strconv.Atoi(m[2]); err == nil && n >= 0 {
			numa[normalize(m[1])] = n
		}
	}
	if sysfsLines > 0 {
		return numa, nil
	}
	rep, err := Parse(bytes.NewReader(data))
	if err != nil {
		return nil, &parse.Error{Format: "lspci", Msg: "neither lspci -v output nor a /sys/bus/pci/devices/*/numa_node listing", Err: parse.ErrFormat}
	}
	for _, d := range rep.Devices {
		if d.NUMA >= 0 {
			numa[d.Address] = d.NUMA
		}
	}
	if len(numa) == 0 {
		return nil, &parse.Error{Format: "lspci", Msg: fmt.Sprintf("%d devices but no \"NUMA node:\" line (lspci prints it only where the machine has more than one node)", len(rep.Devices)), Err: parse.ErrFormat}
	}
	return numa, nil
}
