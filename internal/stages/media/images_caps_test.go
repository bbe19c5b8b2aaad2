package media

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

var bedrockConverse = transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4-5"}

// userImages is a user message holding n copies of the image data.
func userImages(n int, data string) string {
	blocks := make([]string, n)
	for i := range blocks {
		blocks[i] = `{"type":"image","data":"` + data + `","mimeType":"image/png"}`
	}
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

// countBlocks counts the image blocks and the stale placeholders of each
// message of an output array.
func countBlocks(t *testing.T, tr *transcript.Transcript) (images, stale []int) {
	t.Helper()
	for _, m := range tr.Messages {
		bs, _ := m.Blocks()
		var im, st int
		for _, b := range bs {
			switch {
			case b.Type() == transcript.BlockImage:
				im++
			case b.Type() == transcript.BlockText:
				if s, _ := b.Text(); s == StaleImageMarker {
					st++
				}
			}
		}
		images, stale = append(images, im), append(stale, st)
	}
	return images, stale
}

// TestImagesBedrockPerMessageCap: Converse takes at most 20 images per
// message (Bedrock API reference, Message); the oldest of a message beyond
// it become the placeholder, other messages are untouched.
func TestImagesBedrockPerMessageCap(t *testing.T) {
	png := b64(pngBytes(t, 40, 30))
	in := `[` + userImages(25, png) + `,{"role":"assistant","content":[{"type":"text","text":"ok"}]},` + userImages(3, png) + `]`
	c := stagetest.Case{Target: bedrockConverse, Settings: imageSettings()}
	res := c.Apply(t, in, Images(testProcessor(t)))
	imgs, stale := countBlocks(t, res.Transcript)
	if imgs[0] != 20 || stale[0] != 5 || imgs[2] != 3 || stale[2] != 0 {
		t.Fatalf("images per message %v, placeholders %v; want 20+5 stale, then 3", imgs, stale)
	}
	bs, _ := res.Transcript.Messages[0].Blocks()
	for i, b := range bs {
		if stale := b.Type() == transcript.BlockText; stale != (i < 5) {
			t.Fatalf("block %d: the oldest five must be the placeholders", i)
		}
	}
	// Anthropic's own API has no per-message cap: 25 in one message stay.
	res = stagetest.Case{Target: stagetest.Anthropic, Settings: imageSettings()}.Apply(t, in, Images(testProcessor(t)))
	if imgs, _ := countBlocks(t, res.Transcript); imgs[0] != 25 {
		t.Fatalf("anthropic kept %d of 25 images in one message", imgs[0])
	}
}

// TestImagesRequestCapByContextWindow: Anthropic allows 600 images per
// request, 100 for models with a 200k-token context window (vision guide).
func TestImagesRequestCapByContextWindow(t *testing.T) {
	png := b64(pngBytes(t, 40, 30))
	msgs := make([]string, 150)
	for i := range msgs {
		msgs[i] = userImages(1, png)
	}
	in := `[` + strings.Join(msgs, ",") + `]`
	tests := []struct {
		name          string
		contextTokens int
		setting       int
		kept          int
	}{
		{"1M context: 600, all kept", 1_000_000, 0, 150},
		{"200k context: 100", 200_000, 0, 100},
		{"unknown context: 100", 0, 0, 100},
		{"setting lowers the cap", 1_000_000, 40, 40},
		{"setting above the cap does not raise it", 200_000, 500, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := imageSettings()
			s.Request.ContextWindowTokens = new(tc.contextTokens)
			s.Images.MaxImagesPerRequest = tc.setting
			res := stagetest.Case{Target: stagetest.Anthropic, Settings: s}.Apply(t, in, Images(testProcessor(t)))
			imgs, stale := countBlocks(t, res.Transcript)
			kept := 0
			for i := range imgs {
				kept += imgs[i]
				if i < 150-tc.kept && stale[i] != 1 {
					t.Fatalf("message %d is not a placeholder; the oldest go first", i)
				}
			}
			if kept != tc.kept || res.Report.Images.Stale != 150-tc.kept {
				t.Fatalf("kept %d images (%d stale), want %d", kept, res.Report.Images.Stale, tc.kept)
			}
		})
	}
}

// withRequestLimit is a test stage that lowers the target's request-size
// cap, so that small fixtures can exceed it.
func withRequestLimit(n int) stage.Stage {
	return stage.Stage{Name: "limit", Apply: func(_ context.Context, _ *transcript.Transcript, env *stage.Env) error {
		env.Policy.Contract.MaxRequestBytes = n
		return nil
	}}
}

// TestRequestSize: over the target's request cap the oldest images become
// placeholders until the messages fit; if they cannot, payload_too_large.
func TestRequestSize(t *testing.T) {
	png := b64(pngBytes(t, 200, 150))
	in := `[` + userImages(1, png) + `,` + userImages(1, png) + `,` + userImages(1, png) + `,{"role":"user","content":"` + strings.Repeat("x", 100) + `"}]`
	c := stagetest.Case{Target: stagetest.Anthropic}
	full := len(in)

	res := c.Apply(t, in, withRequestLimit(full), RequestSize())
	if string(res.JSON) != in {
		t.Fatal("a request within the cap changed")
	}
	res = c.Apply(t, in, withRequestLimit(full-len(png)/2), RequestSize())
	imgs, stale := countBlocks(t, res.Transcript)
	if stale[0] != 1 || imgs[1] != 1 || imgs[2] != 1 || res.Report.Stages.Get("request_size", "stale_images") != 1 {
		t.Fatalf("images %v, placeholders %v: want only the oldest replaced", imgs, stale)
	}
	if n := res.Transcript.MessagesSize(); n > full-len(png)/2 {
		t.Fatalf("still %d bytes, over the cap %d", n, full-len(png)/2)
	}
	again := c.Apply(t, string(res.JSON), withRequestLimit(full-len(png)/2), RequestSize())
	if string(again.JSON) != string(res.JSON) {
		t.Fatal("not idempotent")
	}

	tr, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		t.Fatal(err)
	}
	env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Report: stage.NewReport()}
	env.Policy.Contract.MaxRequestBytes = 200
	err = RequestSize().Apply(context.Background(), tr, env)
	var rej *stage.Reject
	if !errors.As(err, &rej) || rej.Code != deadletter.CodePayloadTooLarge ||
		!strings.Contains(rej.Msg, "after 3 images became placeholders, over the 200-byte") || !strings.Contains(rej.Msg, "anthropic-messages") {
		t.Fatalf("error %v, want payload_too_large naming the limit and the family", err)
	}
}
