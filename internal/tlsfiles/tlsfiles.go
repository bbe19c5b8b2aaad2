// Package tlsfiles serves TLS from a PEM certificate and key in files,
// reloaded when they change, so a certificate renewed in its Secret (or by
// cert-manager) is served without a restart. The files are checked at
// most once per recheck, on a handshake; a pair that fails to load keeps
// the certificate already loaded.
//
// May import: no package of this module.
package tlsfiles

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"
)

// Certificate is a certificate and key pair read from two files.
type Certificate struct {
	certFile, keyFile string
	recheck           time.Duration

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   [2]stamp
	checked time.Time
	lastErr error
}

type stamp struct {
	mod  time.Time
	size int64
}

// Load reads the pair; it is an error when they do not load.
func Load(certFile, keyFile string) (*Certificate, error) {
	c := &Certificate{certFile: certFile, keyFile: keyFile, recheck: time.Second}
	if err := c.reload(); err != nil {
		return nil, err
	}
	c.checked = time.Now()
	return c, nil
}

// ServerConfig is a TLS server configuration (TLS 1.2 at least) that
// serves c.
func (c *Certificate) ServerConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: c.GetCertificate}
}

// GetCertificate is tls.Config.GetCertificate: the current pair, reloaded
// first when a file changed.
func (c *Certificate) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.checked) >= c.recheck {
		c.checked = time.Now()
		if st, err := c.stamps(); err != nil || st != c.stamp {
			c.lastErr = c.reloadLocked()
		}
	}
	return c.cert, nil
}

// Err is the error of the last reload (nil when it succeeded): the pair
// loaded before it is still served.
func (c *Certificate) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

func (c *Certificate) reload() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reloadLocked()
}

func (c *Certificate) reloadLocked() error {
	st, err := c.stamps()
	if err != nil {
		return err
	}
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("tls: loading %s and %s: %w", c.certFile, c.keyFile, err)
	}
	c.cert, c.stamp = &pair, st
	return nil
}

func (c *Certificate) stamps() ([2]stamp, error) {
	var out [2]stamp
	for i, path := range []string{c.certFile, c.keyFile} {
		fi, err := os.Stat(path)
		if err != nil {
			return out, fmt.Errorf("tls: %w", err)
		}
		out[i] = stamp{mod: fi.ModTime(), size: fi.Size()}
	}
	return out, nil
}
