package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	topoHGX       = "probes/parse/nvidiasmi/testdata/topo/hgx-h20-8gpu-8nic.txt"
	topoTruncated = "probes/parse/nvidiasmi/testdata/topo/synthetic-truncated-h20.txt"
	smiH100       = "probes/parse/nvidiasmi/testdata/query/h100-sxm-8gpu-first-gpu-only.txt"
	smiOld        = "probes/parse/nvidiasmi/testdata/query/synthetic-old-power-readings.txt"
)

func TestParseTopoCLI(t *testing.T) {
	code, out, errs := topoRunCLI("parse", "topo", topoHGX)
	if code != 0 || !strings.Contains(out, "GPU pairs by path: NV18=28") || !strings.Contains(out, "nearest NIC NIC3 (PIX)") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, out, _ = topoRunCLI("parse", "topo", "--json", topoHGX)
	var one parsedTopo
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil || len(one.Topology.NICs) != 8 {
		t.Errorf("--json: exit %d\n%.300s", code, out)
	}
	code, out, errs = topoRunCLI("parse", "topo", topoHGX, topoTruncated, "--json")
	var many []parsedTopo
	if code != 1 || json.Unmarshal([]byte(out), &many) != nil || len(many) != 2 || !strings.Contains(many[1].Error, "line 7") {
		t.Errorf("two files: exit %d %s\n%.300s", code, errs, out)
	}
	if !strings.Contains(errs, "synthetic-truncated-h20.txt: topom: line 7") {
		t.Errorf("stderr %q should name the file and line", errs)
	}
	code, out, _ = topoRunCLI("parse", "topo", topoHGX, topoTruncated)
	if code != 1 || strings.Count(out, "== ") != 2 {
		t.Errorf("two files text: exit %d\n%s", code, out)
	}
	if code, _, errs := topoRunCLI("parse", "topo", "no-such-file.txt"); code != 1 || !strings.Contains(errs, "no-such-file.txt") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
	if code, out, _ := topoRunCLI("parse", "topo", smiH100); code != 1 || out != "" {
		t.Errorf("foreign input: exit %d, printed %q", code, out)
	}
}

func TestParseSMICLI(t *testing.T) {
	code, out, errs := topoRunCLI("parse", "smi", smiOld)
	if code != 0 || !strings.Contains(out, "Tesla P40, 22919 MiB, PCIe Gen1 x16 (max Gen3 x16)") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, out, errs = topoRunCLI("parse", "smi", "--json", smiH100)
	var one parsedSMI
	if code != 1 || json.Unmarshal([]byte(out), &one) != nil || one.Report.GPUs[0].PCIeGenMax != 5 || !strings.Contains(errs, "1 of 8") {
		t.Errorf("truncated: exit %d %s\n%.300s", code, errs, out)
	}
}
