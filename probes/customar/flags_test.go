package customar

import (
	"strings"
	"testing"
	"time"
)

func TestCheckFlags(t *testing.T) {
	ok := Config{Ranks: 2, Iters: 20, Timeout: time.Second, MinBytes: 8, MaxBytes: 1 << 20, Algos: []string{"oneshot"}}
	if err := ok.CheckFlags(); err != nil {
		t.Fatalf("good settings: %v", err)
	}
	bad := ok
	bad.Iters = 0
	if err := bad.CheckFlags(); err == nil || !strings.HasPrefix(err.Error(), "--ranks, --iters and --timeout must be positive") {
		t.Errorf("no iterations: %v", err)
	}
	bad = ok
	bad.Ranks = 9
	if err := bad.CheckFlags(); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("nine ranks: %v", err)
	}
}
