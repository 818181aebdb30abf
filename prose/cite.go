package prose

import "strings"

// GitHubRef names a GitHub page the short way a citation does:
// "owner/repo#N" for an issue or pull request, "owner/repo@abcdef0" (the
// commit's first seven digits) for a file at a commit. Any other address
// comes back as given.
func GitHubRef(url string) string {
	parts := strings.Split(strings.TrimPrefix(url, "https://github.com/"), "/")
	switch {
	case !strings.HasPrefix(url, "https://github.com/"):
		return url
	case len(parts) >= 4 && (parts[2] == "issues" || parts[2] == "pull"):
		return parts[0] + "/" + parts[1] + "#" + parts[3]
	case len(parts) >= 4 && parts[2] == "blob" && len(parts[3]) >= 7:
		return parts[0] + "/" + parts[1] + "@" + parts[3][:7]
	}
	return url
}
