package costmodel

import (
	"errors"
	"math"
	"testing"
)

func TestNCCLSocketLinkForIntel(t *testing.T) {
	for _, tt := range []struct {
		family, model int
		want          string
		gbps          float64
	}{
		{6, 0x4f, "BDW_QPI_BW", 6},  // Broadwell-EP
		{6, 0x55, "SKL_QPI_BW", 10}, // Skylake-SP, Cascade Lake
		{6, 0x6a, "SKL_QPI_BW", 10}, // Ice Lake-SP
		{6, 0x8f, "SRP_QPI_BW", 22}, // Sapphire Rapids
		{6, 207, "ERP_QPI_BW", 40},  // the H200 machines' CPU: "model 207" in lscpu, NCCL logs model 4 (ERP)
		{19, 1, "BDW_QPI_BW", 6},    // not family 6: NCCL's default
	} {
		got, err := NCCLSocketLinkForIntel(tt.family, tt.model)
		if err != nil || got.Constant != tt.want || got.GBps != tt.gbps {
			t.Errorf("family %d model %#x: %+v %v, want %s %g", tt.family, tt.model, got, err, tt.want, tt.gbps)
		}
	}
	if _, err := NCCLSocketLinkForIntel(-1, 0); !errors.Is(err, ErrParams) {
		t.Errorf("negative family: %v", err)
	}
	if len(NCCLSocketLinks()) != 9 || NCCLSocketLinkSource() == "" {
		t.Error("table or source missing")
	}
}

func TestRegistrationMeasurements(t *testing.T) {
	rows := RegistrationMeasurements()
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	// libfabric#4738: 20 s for 256 GB is 78 ms per GB, 0.32 µs per 4 KiB page.
	if got := rows[0].PerGB(); math.Abs(got-0.078125) > 1e-9 {
		t.Errorf("per GB %v", got)
	}
	if got := rows[0].PerPage(4096); math.Abs(got-0.32e-6) > 0.001e-6 {
		t.Errorf("per page %v", got)
	}
	for _, r := range rows {
		if r.Source == "" || !(r.Seconds > 0) || !(r.Bytes > 0) {
			t.Errorf("row %+v", r)
		}
	}
}
