package cells

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commlab/commlab/doctor"
)

func TestPageLiveH200(t *testing.T) {
	ev, err := doctor.Recorded("h200x1")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := DoctorPage(&b, doctor.Diagnose(ev)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"launch and copy floor", "The machine", "GPU0 H200", "host-device-bandwidth"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestPageRecorded(t *testing.T) {
	ev, err := doctor.Recorded("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	r := doctor.Diagnose(ev)
	var b bytes.Buffer
	if err := DoctorPage(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range append(doctor.Questions[:0:0], "<svg", "all_reduce bus bandwidth", "pick against the tuner", "check-nccl-tuner-pick", "badge ok", "Flight Recorder") {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, q := range doctor.Questions {
		if !strings.Contains(page, strings.ReplaceAll(q, "'", "&#39;")) {
			t.Errorf("page lacks the question %q", q)
		}
	}
	for _, bad := range []string{`src="http`, "<link", "<script", "url(http", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("page loads from elsewhere: %q", bad)
		}
	}
	// The chapter column links each check to its chapter (a link is
	// followed by the reader, not loaded by the page).
	if !strings.Contains(page, `<a class="chapter" href="https://github.com/commlab/commlab/blob/main/chapters/06-nccl-tests.md">06-nccl-tests</a>`) {
		t.Error("the chapter column does not link to the chapter")
	}
	if dir := os.Getenv("DOCTOR_HTML_OUT"); dir != "" { // for looking at the page in a browser
		if err := os.WriteFile(dir+"/doctor-h200x2.html", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A hang whose ranks all stopped in one collective, and a Socket fallback
// with the GDR warning it explains: the page shows the tree marked on the
// hang and multi-node leaves and the gaps causes first.
func TestPageTreeAndGaps(t *testing.T) {
	ev, err := doctor.ReadFiles(doctor.Files{
		FlightRecorder: "../parse/flightrec/testdata/h200x4_timing_off",
		NCCLLog:        "../parse/nccllog/testdata/nccl398_2node_p2p_ipc_socket_excerpt.log",
	})
	if err != nil {
		t.Fatal(err)
	}
	ev.Env = map[string]string{"NCCL_IB_DISABLE": "1"}
	r := doctor.Diagnose(ev)
	var b bytes.Buffer
	if err := DoctorPage(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"The decision tree", "every rank stopped in the same collective", "Where to look first",
		`<a href="#check-hang-hang">hang/hang</a>`, "(follows from"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	i, j := strings.Index(page, "framework/env-masking</a>:"), strings.Index(page, "nccl/nccl-network</a>:")
	if i < 0 || j < 0 || i > j {
		t.Errorf("the masking setting (%d) does not come before the Socket fallback it explains (%d)", i, j)
	}
	if dir := os.Getenv("DOCTOR_HTML_OUT"); dir != "" {
		if err := os.WriteFile(dir+"/doctor-hang.html", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestShowDoctorReport(t *testing.T) {
	ev, err := doctor.Recorded("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	r := doctor.Diagnose(ev)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := ShowDoctorReport(r, dir, true, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stderr.String() != "commlab doctor: wrote "+filepath.Join(dir, "report.html")+"\n" || !strings.HasPrefix(stdout.String(), "{") {
		t.Errorf("stdout %.40q, stderr %q", stdout.String(), stderr.String())
	}
	stdout.Reset()
	if err := ShowDoctorReport(r, "", false, &stdout, io.Discard); err != nil || !strings.HasPrefix(stdout.String(), "commlab doctor: ") {
		t.Errorf("text report (%v): %.40q", err, stdout.String())
	}
}
