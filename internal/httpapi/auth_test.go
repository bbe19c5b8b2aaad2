package httpapi

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hygiene-dev/hygiene/internal/apikeys"
	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/metrics"
	"github.com/hygiene-dev/hygiene/internal/tlsfiles"
)

// testCA is a certificate authority made in the test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hygiene test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue writes a server certificate for 127.0.0.1 with serial, and its
// key, as PEM files in dir.
func (ca *testCA) issue(t *testing.T, dir string, serial int64) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "hygiene worker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	// Written aside and renamed, as a Secret's files are swapped.
	for path, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(path+".new", pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// jobFor is the example Anthropic job with its tenant set to tenant.
func jobFor(t *testing.T, tenant string) []byte {
	t.Helper()
	job, err := os.ReadFile("../../examples/anthropic-damaged.json")
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Replace(job, []byte(`"tenant": "acme"`), []byte(fmt.Sprintf(`"tenant": %q`, tenant)), 1)
	if bytes.Equal(out, job) && tenant != "acme" {
		t.Fatal(`examples/anthropic-damaged.json has no "tenant": "acme" to replace`)
	}
	return out
}

// TestHTTPSWithAPIKeys runs the endpoint over real HTTPS (a CA and a
// server certificate made here): no key and a wrong key are 401, a key for
// another tenant is 403 (zstd body included), the right key is 200; a
// client that does not trust the CA cannot connect; a renewed certificate
// and a key added to the keys file are taken without a restart.
func TestHTTPSWithAPIKeys(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	certFile, keyFile := ca.issue(t, dir, 100)
	cert, err := tlsfiles.Load(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	const acmeKey, opsKey, laterKey = "hyg_live_3kT9vQ2xPzL8mW4nR7bY1cF6", "hyg_live_Q8wE2rT5yU7iO9pA1sD3fG4h", "hyg_live_Z1xC3vB5nM7aS9dF2gH4jK6l"
	keysFile := filepath.Join(dir, "keys.yaml")
	writeKeys := func(keys string) {
		if err := os.WriteFile(keysFile+".new", []byte(keys), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(keysFile+".new", keysFile); err != nil {
			t.Fatal(err)
		}
	}
	writeKeys(fmt.Sprintf("- {name: ops, sha256: %s, tenants: ['*']}\n", apikeys.Hash(opsKey)))
	keys, err := apikeys.Load(apikeys.Config{
		Keys:     []apikeys.Key{{Name: "acme-prod", SHA256: apikeys.Hash(acmeKey), Tenants: []string{"acme"}}},
		KeysFile: keysFile,
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultCfg
	cfg.Keys, cfg.MaxJobBytes = keys, 1<<20
	g := newRigTLS(t, cfg, cert.ServerConfig())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}}}
	g.client = client
	post := func(body []byte, header http.Header) (*http.Response, []byte) {
		t.Helper()
		return g.post(t, body, header)
	}
	bearer := func(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }

	acme, globex := jobFor(t, "acme"), jobFor(t, "globex")
	cases := []struct {
		name   string
		body   []byte
		header http.Header
		status int
		code   string
	}{
		{"no key", acme, nil, http.StatusUnauthorized, CodeUnauthorized},
		{"not a bearer key", acme, http.Header{"Authorization": {"Basic " + acmeKey}}, http.StatusUnauthorized, CodeUnauthorized},
		{"a wrong key", acme, bearer(acmeKey + "x"), http.StatusUnauthorized, CodeUnauthorized},
		{"another tenant's job", globex, bearer(acmeKey), http.StatusForbidden, CodeForbidden},
		{"another tenant's job, zstd", compression.Encode(globex), http.Header{"Authorization": {"Bearer " + acmeKey}, "Content-Encoding": {"zstd"}}, http.StatusForbidden, CodeForbidden},
		{"its own tenant's job", acme, bearer(acmeKey), http.StatusOK, ""},
		{"a key for every tenant (from the keys file)", globex, bearer(opsKey), http.StatusOK, ""},
	}
	for _, c := range cases {
		resp, body := post(c.body, c.header)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, resp.StatusCode, c.status, body)
			continue
		}
		if c.code != "" {
			if p := problemOf(t, body); p.Code != c.code {
				t.Errorf("%s: problem code %q, want %q", c.name, p.Code, c.code)
			}
			if strings.Contains(string(body), acmeKey) {
				t.Errorf("%s: the answer holds the key", c.name)
			}
		}
		if c.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without a Bearer challenge", c.name)
		}
	}
	if got := testutil.ToFloat64(g.m.HTTPRejected.WithLabelValues(metrics.RejectUnauthorized)); got != 3 {
		t.Errorf("rejected{reason=unauthorized} = %v, want 3", got)
	}
	if got := testutil.ToFloat64(g.m.HTTPRejected.WithLabelValues(metrics.RejectForbidden)); got != 2 {
		t.Errorf("rejected{reason=forbidden} = %v, want 2", got)
	}

	// A client that does not trust the CA does not get through.
	if _, err := http.Post(g.url, "application/json", bytes.NewReader(acme)); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client without the CA connected (err %v)", err)
	}

	// A renewed certificate and a new key are served without a restart
	// (the files are checked at most once a second: poll).
	ca.issue(t, dir, 200)
	writeKeys(fmt.Sprintf("- {name: ops, sha256: %s, tenants: ['*']}\n- {name: later, sha256: %s, tenants: [globex]}\n", apikeys.Hash(opsKey), apikeys.Hash(laterKey)))
	var serial int64
	var status int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		client.CloseIdleConnections() // a new handshake each time
		resp, _ := post(globex, bearer(laterKey))
		status, serial = resp.StatusCode, resp.TLS.PeerCertificates[0].SerialNumber.Int64()
		if status == http.StatusOK && serial == 200 {
			break
		}
	}
	if serial != 200 || status != http.StatusOK {
		t.Fatalf("after renewing the certificate and adding a key: serial %d (want 200), status %d (want 200)", serial, status)
	}
}
