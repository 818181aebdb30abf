package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"

	"github.com/commlab/commlab/atomicfile"
	"github.com/commlab/commlab/doctor"
)

// WriteFolder writes the report into dir as report.html (page: PageOf as
// the program draws it, package cells' DoctorPage), report.json and
// report.txt, and beside them the evidence the probes gathered
// (topology.json, pci.json), so that the run can be read again: doctor's
// recorded machines are such folders. Every file is written atomically.
func WriteFolder(dir string, r *doctor.Report, page []byte) error {
	var js, txt bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		return err
	}
	if err := r.WriteText(&txt); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"report.html": page, "report.json": js.Bytes(), "report.txt": txt.Bytes()} {
		if err := atomicfile.Write(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	ev := r.Evidence
	if ev == nil {
		return nil
	}
	for name, v := range map[string]any{"topology.json": ev.Topology, "pci.json": ev.PCI} {
		if reflect.ValueOf(v).IsNil() {
			continue
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
