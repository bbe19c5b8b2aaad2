package stages

import (
	"bytes"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/fanout"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestChainOutputEncodesInChunks runs the whole chain over generated
// histories for every target, then encodes the messages the rules left in
// up to 8 parts (transcript.EncodeMessages): the list is the sequential
// encoding byte for byte, and its measured size is its length. Under -race
// it also shows that no rule leaves one message or block in two places of
// the list, which parts encoded in parallel would both write.
func TestChainOutputEncodesInChunks(t *testing.T) {
	fan := fanout.New(7, 1)
	forGenerated(t, 3200, sessiongen.Config{Damage: sessiongen.Heavy()}, func(t *testing.T, tg transcript.Target, input []byte) {
		tr, _, _ := runChainFanout(t, tg, input, nil, stage.Settings{}, fan)
		msgs := tr.EncodeMessages(transcript.Parallel{Chunks: fan.Chunks(len(tr.Messages)), Run: fan.Run})
		payload := tr.AppendPayload(nil, msgs, nil)
		want := tr.MessagesJSON()
		if msgs.Size() != len(want) || !bytes.Contains(payload, append(append([]byte(`,"messages":`), want...), ',')) {
			t.Fatalf("chunked encode differs from the sequential list (size %d, list %d bytes)", msgs.Size(), len(want))
		}
	})
}
