package nvidiasmi

import (
	"errors"
	"fmt"
	"strings"
)

// ErrRowsMissing is wrapped by the error ParseTopoMatrix returns when the
// matrix stops before every column has its row: text cut short, or an
// excerpt someone posted.
var ErrRowsMissing = errors.New("topo matrix: rows missing")

// ParseTopoMatrixExcerpt reads a `nvidia-smi topo -m` (or -mp) matrix that
// is known to be an excerpt: the header and the first rows, the rest left
// out. Missing rows are not an error; the matrix keeps the cells of the
// rows it has and a note naming the rows left out. Any other damage is
// reported as ParseTopoMatrix reports it.
func ParseTopoMatrixExcerpt(s string) (*TopoMatrix, error) {
	m, err := ParseTopoMatrixString(s)
	if !errors.Is(err, ErrRowsMissing) {
		return m, err
	}
	var missing []string
	for i, id := range m.Devices {
		if !rowPresent(m.Cells[i]) {
			missing = append(missing, id)
		}
	}
	m.Notes = append(m.Notes, fmt.Sprintf("excerpt: %d of %d rows; left out: %s",
		len(m.Devices)-len(missing), len(m.Devices), strings.Join(missing, ", ")))
	return m, nil
}

// rowPresent reports whether a row of the matrix was read: every row read
// has its own "X" on the diagonal, so a row of empty cells was not.
func rowPresent(row []string) bool {
	for _, c := range row {
		if c != "" {
			return true
		}
	}
	return false
}
