package config

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// located adds to each bad value of a loaded configuration the line of the
// file that set it: "images.max_dimension_px (line 3): must be at least 1,
// got 0". A value a HYGIENE_ variable set (the environment is applied after
// the file, so it wins; HYGIENE_TENANTS for the whole tenants map) names
// its variable's setting as it is, and so does a default or a sentence
// about several settings. It runs only on the error path, so the file is
// parsed again here rather than kept.
func located(err error, data []byte, environ []string) error {
	ve, ok := errors.AsType[*ValidationError](err)
	if !ok {
		return err
	}
	var doc yaml.Node
	if data != nil {
		_ = yaml.Unmarshal(data, &doc) // it decoded once already
	}
	fromEnv := map[string]string{}
	var probe Config
	for _, s := range leafSettings(&probe) {
		fromEnv[s.Path] = s.Env
	}
	set := map[string]bool{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	out := &ValidationError{Problems: make([]string, len(ve.Problems))}
	for i, p := range ve.Problems {
		out.Problems[i] = p
		path, msg, ok := strings.Cut(p, ": ")
		if !ok || strings.ContainsAny(path, ", ") {
			continue
		}
		field, _, _ := strings.Cut(path, "[")
		env := fromEnv[field]
		if strings.HasPrefix(field, "tenants.") {
			env = EnvPrefix + "TENANTS"
		}
		if line := lineOf(&doc, field); line > 0 && !set[env] {
			out.Problems[i] = fmt.Sprintf("%s (line %d): %s", path, line, msg)
		}
	}
	return out
}

// lineOf is the line of the key at a dotted path in a YAML document, or 0.
// A tenant's name may hold dots, so at each mapping the longest key that
// starts the rest of the path is taken.
func lineOf(doc *yaml.Node, path string) int {
	n := doc
	for n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	line := 0
	for path != "" {
		if n == nil || n.Kind != yaml.MappingNode {
			return 0
		}
		var next *yaml.Node
		best := -1
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if (path == k || strings.HasPrefix(path, k+".")) && len(k) > best {
				best, next, line = len(k), n.Content[i+1], n.Content[i].Line
			}
		}
		if next == nil {
			return 0
		}
		path = strings.TrimPrefix(strings.TrimPrefix(path, path[:best]), ".")
		n = next
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
	}
	return line
}
