package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// pagesConfig is what the Pages project's wrangler.toml says.
type pagesConfig struct {
	Name              string            // the project's name
	Limiter           string            // the limiter Worker's name, bound as RL
	CompatibilityDate string            // YYYY-MM-DD
	Vars              map[string]string // plain-text vars; secrets are set with `wrangler pages secret put`
}

var (
	workerName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	dateRE     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	varName    = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// toml returns the configuration, or what is wrong with c.
func (c pagesConfig) toml() ([]byte, error) {
	switch {
	case !workerName.MatchString(c.Name):
		return nil, fmt.Errorf("project name %q: want 1 to 63 of a-z 0-9 -, not starting or ending with -", c.Name)
	case !workerName.MatchString(c.Limiter):
		return nil, fmt.Errorf("limiter name %q: want 1 to 63 of a-z 0-9 -, not starting or ending with -", c.Limiter)
	case !dateRE.MatchString(c.CompatibilityDate):
		return nil, fmt.Errorf("compatibility date %q: want YYYY-MM-DD (wrangler.toml's compatibility_date)", c.CompatibilityDate)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by cmd/pagesite (make pages): the workbench as a Cloudflare Pages\n")
	fmt.Fprintf(&b, "# project. Deploy from this directory with `wrangler pages deploy`, after\n")
	fmt.Fprintf(&b, "# the limiter Worker %s (make deploy-pages does both, in that order).\n", c.Limiter)
	fmt.Fprintf(&b, "name = %q\npages_build_output_dir = \"site\"\ncompatibility_date = %q\n", c.Name, c.CompatibilityDate)
	if len(c.Vars) > 0 {
		b.WriteString("\n[vars]\n")
		names := make([]string, 0, len(c.Vars))
		for k := range c.Vars {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if !varName.MatchString(k) {
				return nil, fmt.Errorf("var name %q: want A-Z 0-9 _, starting with a letter", k)
			}
			v, err := tomlString(c.Vars[k])
			if err != nil {
				return nil, fmt.Errorf("var %s: %w", k, err)
			}
			fmt.Fprintf(&b, "%s = %s\n", k, v)
		}
	}
	fmt.Fprintf(&b, "\n# The rate limit (docs/proxy.md, \"Rate limits\"): Pages cannot declare a\n")
	fmt.Fprintf(&b, "# rate-limiting binding, so RL is the limiter Worker, which holds one.\n")
	fmt.Fprintf(&b, "[[services]]\nbinding = \"RL\"\nservice = %q\n", c.Limiter)
	return []byte(b.String()), nil
}

// tomlString quotes s as a TOML basic string. Control characters are
// refused rather than escaped: no var needs one.
func tomlString(s string) (string, error) {
	for i, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("control character at offset %d", i)
		}
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`, nil
}
