package kafka

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/hygiene-dev/hygiene/internal/transport"
	"github.com/hygiene-dev/hygiene/internal/transport/transporttest"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "valid", cfg: Config{Brokers: []string{"127.0.0.1:9092"}}},
		{name: "no brokers", cfg: Config{}, wantErr: "no brokers"},
		{name: "no port", cfg: Config{Brokers: []string{"localhost"}}, wantErr: "has no port"},
		{name: "scram-sha-512", cfg: Config{Brokers: []string{"b:1"}, SASL: SASLConfig{Mechanism: "SCRAM-SHA-512", Username: "u", Password: "p"}}},
		{name: "unknown SASL", cfg: Config{Brokers: []string{"b:1"}, SASL: SASLConfig{Mechanism: "gssapi"}}, wantErr: `SASL mechanism "gssapi"`},
		{name: "missing CA file", cfg: Config{Brokers: []string{"b:1"}, TLS: TLSConfig{Enabled: true, CAFile: "/nonexistent/ca.pem"}}, wantErr: "CA file"},
		{name: "cert without key", cfg: Config{Brokers: []string{"b:1"}, TLS: TLSConfig{Enabled: true, CertFile: "c.pem"}}, wantErr: "set together"},
		{name: "TLS settings ignored when disabled", cfg: Config{Brokers: []string{"b:1"}, TLS: TLSConfig{CAFile: "/nonexistent"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSourceAndSinkConfigValidate(t *testing.T) {
	base := Config{Brokers: []string{"127.0.0.1:9092"}}
	if _, err := NewSource(SourceConfig{Config: base, Topic: "jobs"}); err == nil || !strings.Contains(err.Error(), "group_id") {
		t.Fatalf("NewSource without group = %v", err)
	}
	if _, err := NewSource(SourceConfig{Config: base, GroupID: "g"}); err == nil || !strings.Contains(err.Error(), "topic") {
		t.Fatalf("NewSource without topic = %v", err)
	}
	if _, err := NewSink(SinkConfig{Config: base}); err == nil || !strings.Contains(err.Error(), "topic") {
		t.Fatalf("NewSink without topic = %v", err)
	}
	if _, err := NewSink(SinkConfig{Config: base, Topic: "t", BatchSize: -1}); err == nil {
		t.Fatal("NewSink with a negative batch size succeeded")
	}
}

// TestSASL writes and reads through a kfake broker that requires each SASL
// mechanism, and checks a wrong password is refused.
func TestSASL(t *testing.T) {
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		t.Run(mech, func(t *testing.T) {
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(mech, "hygiene", "s3cret"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cluster.Close)
			cfg := Config{Brokers: cluster.ListenAddrs(), SASL: SASLConfig{Mechanism: strings.ToLower(mech), Username: "hygiene", Password: "s3cret"}}
			roundTrip(t, cfg)

			bad := cfg
			bad.SASL.Password = "wrong"
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := bad.EnsureTopics(ctx, []string{"other"}, 1); err == nil {
				t.Fatal("EnsureTopics with a wrong password succeeded")
			}
		})
	}
}

// TestTLS writes and reads through a kfake broker listening with TLS, trusting
// its certificate through TLSConfig.CAFile.
func TestTLS(t *testing.T) {
	caFile, serverCfg := selfSignedTLS(t)
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(serverCfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	roundTrip(t, Config{Brokers: cluster.ListenAddrs(), TLS: TLSConfig{Enabled: true, CAFile: caFile, ServerName: "127.0.0.1"}})
}

// roundTrip creates a topic, writes one record and reads it back with cfg.
func roundTrip(t *testing.T, cfg Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	topic := transporttest.Name(t, "topic")
	if err := cfg.EnsureTopics(ctx, []string{topic}, 1); err != nil {
		t.Fatal(err)
	}
	sink, err := NewSink(SinkConfig{Config: cfg, Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close(ctx)
	if err := sink.Write(ctx, transport.Record{Key: []byte("k"), Value: []byte("secure")}); err != nil {
		t.Fatal(err)
	}
	scfg := testSourceConfig(cfg.Brokers, topic, transporttest.Name(t, "group"))
	scfg.Config = cfg
	src, err := NewSource(scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	rec, ack, err := src.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Value) != "secure" {
		t.Fatalf("read %q", rec.Value)
	}
	if err := ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// selfSignedTLS returns a CA file path and a server config whose certificate
// the CA signed, for 127.0.0.1.
func selfSignedTLS(t *testing.T) (string, *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "hygiene test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
}

// A Config that leaves the client id and dial timeout zero connects with
// DefaultConfig's, and one that sets them keeps its own.
func TestZeroFieldsTakeDefaultConfig(t *testing.T) {
	def := DefaultConfig()
	d, err := Config{Brokers: []string{"b:1"}}.dialer()
	if err != nil {
		t.Fatal(err)
	}
	if d.ClientID != def.ClientID || d.Timeout != def.DialTimeout {
		t.Fatalf("zero config dials as %q within %s, want %q within %s", d.ClientID, d.Timeout, def.ClientID, def.DialTimeout)
	}
	tr, err := Config{Brokers: []string{"b:1"}, ClientID: "svc", DialTimeout: 3 * time.Second}.transport()
	if err != nil {
		t.Fatal(err)
	}
	if tr.ClientID != "svc" || tr.DialTimeout != 3*time.Second {
		t.Fatalf("set config connects as %q within %s, want svc within 3s", tr.ClientID, tr.DialTimeout)
	}
}
