// Package apikeys authenticates the callers of the HTTP endpoint: bearer
// API keys, stored as their SHA-256 (in the configuration, or in a file
// mounted from a Secret and re-read when it changes), each bound to the
// tenants it may post jobs for. A key itself is never stored, logged or
// returned; a caller is named by its key's Name.
//
// API keys are long random strings, not passwords, so one SHA-256 is the
// right hash: it cannot be reversed, and looking a presented key's hash up
// in a map leaks nothing about the stored ones.
//
// May import: no package of this module.
package apikeys

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// AnyTenant in a Key's Tenants binds the key to every tenant.
const AnyTenant = "*"

// Key is one caller's API key: its name, the SHA-256 of the key (64 hex
// digits, `printf %s "$KEY" | sha256sum`) and the tenants it may post jobs
// for.
type Key struct {
	// Name names the caller in metrics and logs (never the key).
	Name string `yaml:"name" json:"name"`
	// SHA256 is the hex SHA-256 of the key.
	SHA256 string `yaml:"sha256" json:"sha256"`
	// Tenants are the tenants the key may post jobs for; "*" is every one.
	Tenants []string `yaml:"tenants" json:"tenants"`
}

// Config is the http.auth section.
type Config struct {
	// Required refuses every request without a valid key, even when no key
	// is configured (then every request is refused). Keys or a KeysFile
	// turn authentication on as well.
	Required bool `yaml:"required"`
	// KeysFile is a YAML list of Keys (the chart mounts it from a Secret),
	// re-read when it changes.
	KeysFile string `yaml:"keys_file"`
	// Keys are keys written in the configuration itself.
	Keys []Key `yaml:"keys"`
}

// Enabled reports whether requests must carry a key.
func (c Config) Enabled() bool { return c.Required || c.KeysFile != "" || len(c.Keys) > 0 }

// Problems lists what is wrong with c's keys, each naming the key by its
// position under at (e.g. "http.auth").
func (c Config) Problems(at string) []string {
	return checkKeys(at+".keys", c.Keys)
}

func checkKeys(at string, keys []Key) []string {
	var out []string
	names := map[string]bool{}
	for i, k := range keys {
		where := fmt.Sprintf("%s[%d]", at, i)
		if k.Name == "" {
			out = append(out, where+".name: must be set (it names the caller in metrics and logs)")
		} else if names[k.Name] {
			out = append(out, fmt.Sprintf("%s.name: %q names two keys", where, k.Name))
		}
		names[k.Name] = true
		if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != sha256.Size {
			out = append(out, where+".sha256: must be the 64 hex digits of the key's SHA-256 (printf %s \"$KEY\" | sha256sum)")
		}
		if len(k.Tenants) == 0 {
			out = append(out, where+".tenants: must name at least one tenant (or \"*\")")
		}
	}
	return out
}

// Hash returns the hex SHA-256 of key, the form a Key stores.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Caller is an authenticated key.
type Caller struct {
	// Name is the key's name.
	Name    string
	tenants []string
}

// May reports whether the caller may post jobs for tenant.
func (c Caller) May(tenant string) bool {
	return slices.Contains(c.tenants, AnyTenant) || slices.Contains(c.tenants, tenant)
}

// Errors of Store.Authenticate.
var (
	// ErrNoKey: the request carries no bearer key.
	ErrNoKey = errors.New("the request has no API key (Authorization: Bearer <key>)")
	// ErrUnknownKey: the key is not one of the configured ones.
	ErrUnknownKey = errors.New("the API key is not valid")
)

// Store holds the keys of a Config, re-reading its KeysFile when the file
// changes (checked at most once per recheck).
type Store struct {
	cfg     Config
	recheck time.Duration
	now     func() time.Time

	mu      sync.Mutex
	byHash  map[string]Caller
	stamp   fileStamp // of KeysFile when last read
	checked time.Time
	lastErr error
}

// fileStamp tells whether a file changed: a Secret update replaces the
// file, which changes its modification time or size.
type fileStamp struct {
	mod  time.Time
	size int64
}

// Load reads c's keys (the file's included). A file that cannot be read or
// parsed is an error here; later, a bad re-read keeps the keys already
// loaded and is reported by Err.
func Load(c Config) (*Store, error) {
	if p := c.Problems("http.auth"); len(p) > 0 {
		return nil, errors.New(strings.Join(p, "; "))
	}
	s := &Store{cfg: c, recheck: time.Second, now: time.Now}
	if err := s.reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Authenticate returns the caller whose key the Authorization header
// value carries ("Bearer <key>").
func (s *Store) Authenticate(header string) (Caller, error) {
	scheme, key, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
		return Caller{}, ErrNoKey
	}
	hash := Hash(strings.TrimSpace(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.KeysFile != "" && s.now().Sub(s.checked) >= s.recheck {
		s.checked = s.now()
		if st, err := stampOf(s.cfg.KeysFile); err != nil || st != s.stamp {
			s.lastErr = s.reloadLocked()
		}
	}
	c, ok := s.byHash[hash]
	if !ok {
		return Caller{}, ErrUnknownKey
	}
	return c, nil
}

// Err is the error of the last re-read of the keys file (nil when it
// succeeded): the keys loaded before it stay in force.
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *Store) reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked = s.now()
	return s.reloadLocked()
}

// reloadLocked builds the key table from the configuration and the file;
// on an error the table is left as it was. The caller holds s.mu.
func (s *Store) reloadLocked() error {
	keys := slices.Clone(s.cfg.Keys)
	var st fileStamp
	if s.cfg.KeysFile != "" {
		var err error
		if st, err = stampOf(s.cfg.KeysFile); err != nil {
			return fmt.Errorf("http.auth.keys_file: %w", err)
		}
		raw, err := os.ReadFile(s.cfg.KeysFile)
		if err != nil {
			return fmt.Errorf("http.auth.keys_file: %w", err)
		}
		var fromFile []Key
		if err := yaml.Unmarshal(raw, &fromFile); err != nil {
			return fmt.Errorf("http.auth.keys_file %s: not a YAML list of keys: %w", s.cfg.KeysFile, err)
		}
		if p := checkKeys(s.cfg.KeysFile, fromFile); len(p) > 0 {
			return fmt.Errorf("http.auth.keys_file: %s", strings.Join(p, "; "))
		}
		keys = append(keys, fromFile...)
	}
	byHash := make(map[string]Caller, len(keys))
	for _, k := range keys {
		byHash[strings.ToLower(k.SHA256)] = Caller{Name: k.Name, tenants: slices.Clone(k.Tenants)}
	}
	s.byHash, s.stamp = byHash, st
	return nil
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{mod: fi.ModTime(), size: fi.Size()}, nil
}
