package conn

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ErrBadInfo reports a connection file that cannot be used.
var ErrBadInfo = errors.New("conn: bad connection info")

// Info is the content of a Jupyter connection file.
type Info struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	Key             string `json:"key"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadInfo reads and checks the connection file at path.
func ReadInfo(path string) (Info, error) {
	var info Info
	data, err := os.ReadFile(path)
	if err != nil {
		return info, fmt.Errorf("conn: read connection file: %w", err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%w: %s: %w", ErrBadInfo, path, err)
	}
	if err := info.validate(); err != nil {
		return info, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}

func (i Info) validate() error {
	switch i.Transport {
	case "tcp", "ipc":
	default:
		return fmt.Errorf("%w: transport %q, want tcp or ipc", ErrBadInfo, i.Transport)
	}
	if i.IP == "" {
		return fmt.Errorf("%w: empty ip", ErrBadInfo)
	}
	for _, p := range []struct {
		name string
		port int
	}{{"shell_port", i.ShellPort}, {"control_port", i.ControlPort}, {"stdin_port", i.StdinPort}, {"iopub_port", i.IOPubPort}, {"hb_port", i.HBPort}} {
		if p.port < 0 || p.port > 65535 {
			return fmt.Errorf("%w: %s %d out of range", ErrBadInfo, p.name, p.port)
		}
	}
	switch i.SignatureScheme {
	case "", "hmac-sha256":
	default:
		if i.Key != "" {
			return fmt.Errorf("%w: signature_scheme %q, only hmac-sha256 is supported", ErrBadInfo, i.SignatureScheme)
		}
	}
	return nil
}
