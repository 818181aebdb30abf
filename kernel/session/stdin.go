package session

import (
	"io"
)

// inputReader asks the notebook user for a line when a cell reads stdin.
type inputReader struct{ s *Session }

func (r inputReader) Read(p []byte) (int, error) {
	if r.s.opts.Stdin == nil {
		return 0, io.EOF
	}
	if r.s.pending == "" {
		r.s.flush()
		line, err := r.s.opts.Stdin("", false)
		if err != nil {
			return 0, err
		}
		r.s.pending = line + "\n"
	}
	n := copy(p, r.s.pending)
	r.s.pending = r.s.pending[n:]
	return n, nil
}
