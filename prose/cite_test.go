package prose_test

import (
	"fmt"
	"testing"

	"github.com/commlab/commlab/prose"
)

func TestGitHubRef(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"https://github.com/NVIDIA/nccl/issues/1259", "NVIDIA/nccl#1259"},
		{"https://github.com/NVIDIA/nccl-tests/issues/309#issuecomment-123", "NVIDIA/nccl-tests#309#issuecomment-123"},
		{"https://github.com/NVIDIA/nccl/pull/42", "NVIDIA/nccl#42"},
		{"https://github.com/NVIDIA/nccl/blob/0123456789abcdef/src/graph/tuning.cc", "NVIDIA/nccl@0123456"},
		{"https://github.com/NVIDIA/nccl/blob/v2.28/src/graph/tuning.cc", "https://github.com/NVIDIA/nccl/blob/v2.28/src/graph/tuning.cc"},
		{"https://github.com/NVIDIA/nccl", "https://github.com/NVIDIA/nccl"},
		{"https://docs.nvidia.com/deeplearning/nccl/", "https://docs.nvidia.com/deeplearning/nccl/"},
		{"", ""},
	} {
		if got := prose.GitHubRef(c.url); got != c.want {
			t.Errorf("GitHubRef(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}

func ExampleGitHubRef() {
	fmt.Println(prose.GitHubRef("https://github.com/NVIDIA/nccl-tests/issues/212"))
	fmt.Println(prose.GitHubRef("https://github.com/NVIDIA/nccl/blob/f4ee9ee1cd3b76e0fba4f7cd3a5ef9e5e2c4d4a5/src/graph/topo.h"))
	fmt.Println(prose.GitHubRef("https://docs.nvidia.com/deeplearning/nccl/"))
	// Output:
	// NVIDIA/nccl-tests#212
	// NVIDIA/nccl@f4ee9ee
	// https://docs.nvidia.com/deeplearning/nccl/
}
