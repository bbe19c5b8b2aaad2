package compression_test

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/compression"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
)

// base64Payload is a ready payload that is mostly base64 of incompressible
// bytes (what an image or binary tool output looks like), about n bytes.
func base64Payload(n int) []byte {
	raw := make([]byte, n*3/4)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	var b bytes.Buffer
	b.WriteString(`{"job_id":"b64","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"`)
	b.WriteString(base64.StdEncoding.EncodeToString(raw))
	b.WriteString(`"}}]}]}`)
	return b.Bytes()
}

// textPayload is a generated agent history (text and tool output) of about n bytes.
func textPayload(n int) []byte {
	g := sessiongen.New(sessiongen.Config{Seed: 3, Messages: 400, ToolResultChars: 4000})
	var b bytes.Buffer
	for b.Len() < n {
		b.Write(g.History())
	}
	return b.Bytes()[:n]
}

func TestLevelsRoundTripAndBetterCompressesBase64(t *testing.T) {
	value := base64Payload(1 << 20)
	sizes := map[compression.Level]int{}
	for _, l := range compression.Levels {
		packed := compression.EncodeAt(value, l)
		plain, err := compression.Decode(packed, nil, 2<<20)
		if err != nil || !bytes.Equal(plain, value) {
			t.Fatalf("level %s does not round-trip: %v", l, err)
		}
		sizes[l] = len(packed)
	}
	// The reason for the setting: base64 is 6 bits per byte, which the
	// default level's entropy stage leaves alone and "better" does not.
	if sizes[compression.LevelBetter] > len(value)*80/100 {
		t.Fatalf("level better packs %d bytes of base64 into %d, want at most 80%%", len(value), sizes[compression.LevelBetter])
	}
	if _, err := compression.ParseLevel("Better"); err != nil {
		t.Fatal(err)
	}
	if _, err := compression.ParseLevel("max"); err == nil {
		t.Fatal(`ParseLevel("max") succeeded`)
	}
}

// BenchmarkLevels compresses a base64-heavy and a text payload of 4 MiB at
// every level; it reports the ratio (compressed/original) and MB/s.
//
//	go test ./internal/compression -run '^$' -bench Levels -benchtime 3x
func BenchmarkLevels(b *testing.B) {
	payloads := []struct {
		name  string
		value []byte
	}{{"base64", base64Payload(4 << 20)}, {"text", textPayload(4 << 20)}}
	for _, p := range payloads {
		for _, l := range compression.Levels {
			b.Run(p.name+"/"+string(l), func(b *testing.B) {
				b.SetBytes(int64(len(p.value)))
				var n int
				for b.Loop() {
					n = len(compression.EncodeAt(p.value, l))
				}
				b.ReportMetric(float64(n)/float64(len(p.value)), "ratio")
			})
		}
	}
}
