package launch

import (
	"strings"
	"sync"
	"testing"
)

func TestSyncBufferConcurrentWriters(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				b.Write([]byte("ab"))
				b.WriteString("c")
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if b.Len() != 4*100*3 || strings.Count(b.String(), "c") != 400 {
		t.Errorf("after 4 writers: %d bytes, want 1200", b.Len())
	}
}
