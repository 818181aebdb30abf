package hwtest

import "testing"

// fakeTB records what Skip did instead of ending the test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped = args[0].(string) }
func (f *fakeTB) Fatalf(format string, _ ...any) { f.failed = format }

func TestSkipOrFail(t *testing.T) {
	t.Setenv("COMMLAB_REQUIRE_GPU", "")
	f := &fakeTB{TB: t}
	Skip(f, GPU, "no GPU here")
	if f.skipped != "no GPU here" || f.failed != "" {
		t.Errorf("without the switch: %+v", f)
	}
	t.Setenv("COMMLAB_REQUIRE_GPU", "1")
	f = &fakeTB{TB: t}
	Skip(f, GPU, "no GPU here")
	if f.failed == "" {
		t.Errorf("with COMMLAB_REQUIRE_GPU=1 the test skipped: %+v", f)
	}
	if NVCC.Env() != "COMMLAB_REQUIRE_NVCC" || Torch.Env() != "COMMLAB_REQUIRE_TORCH" {
		t.Error("switch names")
	}
}
