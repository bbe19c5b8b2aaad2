package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// Config is how to reach the cluster; it is shared by Sources, Sinks and
// EnsureTopics. Its TLS and SASL sections are the worker's kafka.tls and
// kafka.sasl as they are (internal/config composes them, with their yaml
// keys); DefaultConfig holds the defaults of every field.
type Config struct {
	// Brokers are the bootstrap addresses, host:port.
	Brokers []string
	// ClientID names this process to the brokers (their logs and quotas).
	ClientID string
	// DialTimeout bounds one connection attempt.
	DialTimeout time.Duration
	// TLS enables TLS when Enabled is true.
	TLS TLSConfig
	// SASL enables SASL authentication when Mechanism is set.
	SASL SASLConfig
}

// TLSConfig configures TLS to the brokers (the kafka.tls section).
type TLSConfig struct {
	// Enabled connects over TLS.
	Enabled bool `yaml:"enabled"`
	// CAFile is a PEM bundle of CAs to trust instead of the system pool.
	CAFile string `yaml:"ca_file"`
	// CertFile and KeyFile are a PEM client certificate and key (mutual TLS).
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// ServerName overrides the name checked in the broker certificates.
	ServerName string `yaml:"server_name"`
	// InsecureSkipVerify disables certificate verification (tests only).
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
}

// SASL mechanisms accepted in SASLConfig.Mechanism ("" disables SASL); the
// match ignores case.
const (
	SASLPlain       = "plain"
	SASLScramSHA256 = "scram-sha-256"
	SASLScramSHA512 = "scram-sha-512"
)

// SASLConfig configures SASL authentication (the kafka.sasl section).
type SASLConfig struct {
	// Mechanism is SASLPlain, SASLScramSHA256 or SASLScramSHA512; empty disables SASL.
	Mechanism string `yaml:"mechanism"`
	// Username and Password are the SASL credentials.
	Username string `yaml:"username"`
	Password string `yaml:"password"`
}

// DefaultConfig is a Config with every default set: no brokers, the client
// id "hygiene", a 10s dial timeout, neither TLS nor SASL. A zero ClientID or
// DialTimeout is read as its default.
func DefaultConfig() Config {
	return Config{Brokers: []string{}, ClientID: "hygiene", DialTimeout: 10 * time.Second}
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.ClientID == "" {
		c.ClientID = d.ClientID
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = d.DialTimeout
	}
	return c
}

// Validate reports the first problem with c.
func (c Config) Validate() error {
	if len(c.Brokers) == 0 {
		return errors.New("kafka: no brokers are configured")
	}
	for _, b := range c.Brokers {
		if !strings.Contains(b, ":") {
			return fmt.Errorf("kafka: broker address %q has no port", b)
		}
	}
	if _, err := c.SASL.mechanism(); err != nil {
		return err
	}
	if _, err := c.TLS.config(); err != nil {
		return err
	}
	return nil
}

// config builds the *tls.Config, or nil when TLS is disabled.
func (t TLSConfig) config() (*tls.Config, error) {
	if !t.Enabled {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kafka: reading the TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kafka: the TLS CA file %s holds no PEM certificate", t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, errors.New("kafka: TLS cert_file and key_file must be set together")
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("kafka: loading the TLS client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// mechanism builds the SASL mechanism, or nil when SASL is disabled.
func (s SASLConfig) mechanism() (sasl.Mechanism, error) {
	switch strings.ToLower(s.Mechanism) {
	case "":
		return nil, nil
	case SASLPlain:
		return plain.Mechanism{Username: s.Username, Password: s.Password}, nil
	case SASLScramSHA256:
		return scram.Mechanism(scram.SHA256, s.Username, s.Password)
	case SASLScramSHA512:
		return scram.Mechanism(scram.SHA512, s.Username, s.Password)
	default:
		return nil, fmt.Errorf("kafka: SASL mechanism %q is not supported (plain, scram-sha-256, scram-sha-512)", s.Mechanism)
	}
}

// dialer returns the kafka-go Dialer for Readers.
func (c Config) dialer() (*kafkago.Dialer, error) {
	c = c.withDefaults()
	tlsCfg, err := c.TLS.config()
	if err != nil {
		return nil, err
	}
	mech, err := c.SASL.mechanism()
	if err != nil {
		return nil, err
	}
	return &kafkago.Dialer{ClientID: c.ClientID, Timeout: c.DialTimeout, DualStack: true, TLS: tlsCfg, SASLMechanism: mech}, nil
}

// transport returns the kafka-go Transport for Writers and admin calls.
func (c Config) transport() (*kafkago.Transport, error) {
	c = c.withDefaults()
	tlsCfg, err := c.TLS.config()
	if err != nil {
		return nil, err
	}
	mech, err := c.SASL.mechanism()
	if err != nil {
		return nil, err
	}
	return &kafkago.Transport{ClientID: c.ClientID, DialTimeout: c.DialTimeout, TLS: tlsCfg, SASL: mech, IdleTimeout: 30 * time.Second}, nil
}
