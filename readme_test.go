package pairgossip

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeSnippetIsExample: the README's Go snippet is the body of
// Example (example_test.go), so the code a newcomer copies compiles and
// runs with the output that test checks.
func TestReadmeSnippetIsExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "```go\n")
	if i < 0 {
		t.Fatal("README has no Go snippet")
	}
	snippet := s[i+6:]
	snippet = snippet[:strings.Index(snippet, "```")]
	body := string(ex)
	body = body[strings.Index(body, "func Example() {\n")+len("func Example() {\n"):]
	body = body[:strings.Index(body, "\t// Output:")]
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	if norm(snippet) != norm(body) {
		t.Fatalf("README's snippet:\n%s\n\nis not Example's body:\n%s", norm(snippet), norm(body))
	}
}
