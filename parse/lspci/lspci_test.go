package lspci

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/commlab/commlab/internal/golden"
	"github.com/commlab/commlab/parse"
	"github.com/commlab/commlab/probes"
)

func parseFile(t *testing.T, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHGXSwitchACS(t *testing.T) {
	r := parseFile(t, "testdata/hgx_switch_acs_on.txt")
	if len(r.Devices) != 6 {
		t.Fatalf("%d devices, want 6", len(r.Devices))
	}
	nic := r.Devices[5]
	if nic.Address != "0000:19:00.0" || nic.Class != "Infiniband controller" || !nic.Downgraded ||
		nic.LinkSta.GenCurrent != 4 || nic.LinkCap.GenCurrent != 5 || nic.LinkSta.WidthCurrent != 16 || nic.IOMMUGroup != 25 || nic.Driver != "mlx5_core" {
		t.Errorf("NIC = %+v", nic)
	}
	f := r.Facts()
	if !f.ACSRead || len(f.ACS) != 3 {
		t.Fatalf("facts ACS = %+v", f.ACS)
	}
	var redirecting []string
	for _, a := range f.ACS {
		if a.Ctl.Redirects() {
			redirecting = append(redirecting, a.Address)
		}
	}
	if !slices.Equal(redirecting, []string{"0000:17:00.0", "0000:17:01.0"}) {
		t.Errorf("redirecting bridges = %v", redirecting)
	}
	if got := f.Chains["0000:18:00.0"]; !slices.Equal(got, []string{"0000:15:01.0", "0000:16:00.0", "0000:17:00.0"}) {
		t.Errorf("GPU chain = %v", got)
	}
	between, ok := f.BridgesBetween("0000:18:00.0", "0000:19:00.0")
	if !ok || !slices.Equal(between, []string{"0000:16:00.0", "0000:17:00.0", "0000:17:01.0"}) {
		t.Errorf("between GPU and NIC: %v %v", between, ok)
	}
	if f.IOMMU.Groups != 6 || f.IOMMU.Mode != probes.IOMMUUnknown {
		t.Errorf("IOMMU = %+v", f.IOMMU)
	}
}

func TestNotRoot(t *testing.T) {
	r := parseFile(t, "testdata/not_root.txt")
	if r.AccessDenied != 1 || r.Facts().ACSRead {
		t.Errorf("access denied %d, ACSRead %v: want 1 and false", r.AccessDenied, r.Facts().ACSRead)
	}
}

func TestNotLspci(t *testing.T) {
	_, err := Parse(strings.NewReader("# nccl-tests\n#  size count type\n"))
	if !errors.Is(err, parse.ErrFormat) {
		t.Errorf("err = %v, want ErrFormat", err)
	}
}

func TestGolden(t *testing.T) {
	for _, in := range golden.Inputs(t, 2, "testdata/*.txt", "testdata/public/*.txt") {
		r := parseFile(t, in)
		b, err := json.MarshalIndent(struct {
			Report *Report
			Facts  *probes.PCIFacts
		}{r, r.Facts()}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden", append(b, '\n'))
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range golden.Inputs(f, 2, "testdata/*.txt", "testdata/public/*.txt") {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(strings.NewReader(string(data)))
		if err == nil {
			r.Facts()
		}
	})
}
