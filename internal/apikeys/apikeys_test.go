package apikeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A keys file that turns bad keeps the keys already read in force, and
// says why.
func TestBadKeysFileKeepsTheKeysInForce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	const key = "hyg_live_3kT9vQ2xPzL8mW4nR7bY1cF6"
	if err := os.WriteFile(path, []byte("- {name: a, sha256: "+Hash(key)+", tenants: [acme]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Config{KeysFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("- {name: a, sha256: nothex, tenants: [acme]}\n- extra\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var authErr error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && s.Err() == nil; time.Sleep(100 * time.Millisecond) {
		_, authErr = s.Authenticate("Bearer " + key)
	}
	if s.Err() == nil {
		t.Fatal("a bad keys file was not reported")
	}
	if authErr != nil {
		t.Fatalf("the key read before the bad file was refused: %v", authErr)
	}
}

func TestAuthenticate(t *testing.T) {
	const key = "hyg_live_Q8wE2rT5yU7iO9pA1sD3fG4h"
	s, err := Load(Config{Keys: []Key{{Name: "acme-prod", SHA256: strings.ToUpper(Hash(key)), Tenants: []string{"acme", "acme-eu"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		header string
		err    error
	}{
		{"", ErrNoKey}, {"Bearer", ErrNoKey}, {"Bearer   ", ErrNoKey}, {"Basic " + key, ErrNoKey},
		{"Bearer " + key + "x", ErrUnknownKey}, {"Bearer " + key, nil}, {"bearer " + key, nil},
	} {
		caller, err := s.Authenticate(c.header)
		if err != c.err {
			t.Errorf("Authenticate(%q) = %v, want %v", c.header, err, c.err)
		}
		if err == nil && (caller.Name != "acme-prod" || !caller.May("acme-eu") || caller.May("globex")) {
			t.Errorf("Authenticate(%q) = %+v, want acme-prod bound to acme and acme-eu", c.header, caller)
		}
	}
}

func TestConfigProblems(t *testing.T) {
	good := Hash("k")
	for _, c := range []struct {
		keys []Key
		says string
	}{
		{[]Key{{Name: "", SHA256: good, Tenants: []string{"a"}}}, "name: must be set"},
		{[]Key{{Name: "a", SHA256: good, Tenants: []string{"a"}}, {Name: "a", SHA256: good, Tenants: []string{"a"}}}, "names two keys"},
		{[]Key{{Name: "a", SHA256: "k", Tenants: []string{"a"}}}, "sha256: must be the 64 hex digits"},
		{[]Key{{Name: "a", SHA256: good}}, "tenants: must name at least one"},
	} {
		p := Config{Keys: c.keys}.Problems("http.auth")
		if len(p) != 1 || !strings.Contains(p[0], c.says) {
			t.Errorf("Problems(%+v) = %q, want one saying %q", c.keys, p, c.says)
		}
	}
	if p := (Config{Keys: []Key{{Name: "a", SHA256: good, Tenants: []string{AnyTenant}}}}).Problems("http.auth"); len(p) != 0 {
		t.Errorf("a good key has problems: %q", p)
	}
}
