package cuda

import "testing"

func TestCheckCopyOps(t *testing.T) {
	if err := CheckCopyOps(AllCopyOps); err != nil {
		t.Errorf("every known operation: %v", err)
	}
	if err := CheckCopyOps([]string{AllCopyOps[0], "teleport"}); err == nil || err.Error()[:28] != `unknown operation "teleport"` {
		t.Errorf("an unknown operation: %v", err)
	}
}
