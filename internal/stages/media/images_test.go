package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

var openAIResponses = transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}

// imageSettings are the configured defaults (internal/config).
func imageSettings() stage.Settings {
	return stage.Settings{Images: settings.Images{
		MaxDimensionPx:           1200,
		MaxBytes:                 5 << 20,
		MaxInputPixels:           25_000_000,
		MaxBase64Bytes:           64 << 20,
		MaxFrames:                64,
		ManyImagesThreshold:      20,
		ManyImagesMaxDimensionPx: 2000,
		MaxImagesPerRequest:      100,
	}}
}

// TestImagesExact covers the cases whose output is known byte for byte.
func TestImagesExact(t *testing.T) {
	smallJPEG := b64(jpegBytes(t, 64, 48, 80))
	smallPNG := b64(pngBytes(t, 40, 30))
	smallGIF := b64(gifBytes(t, 20, 10))
	wrapped := smallPNG[:40] + `\n` + smallPNG[40:] + `\r\n`
	tests := []struct {
		name   string
		target transcript.Target
		in     string
		want   string
		report stage.ImageReport
	}{
		{
			name:   "V35 invalid base64",
			in:     `[{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"image","data":"not*base64","mimeType":"image/png"}],"isError":false}]`,
			want:   `[{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"[session:history] omitted image payload: invalid base64"}],"isError":false}]`,
			report: stage.ImageReport{Omitted: 1, BytesIn: 10},
		},
		{
			name:   "V36 empty",
			in:     `[{"role":"user","content":[{"type":"image","data":"   ","mimeType":"image/png"}]}]`,
			want:   `[{"role":"user","content":[{"type":"text","text":"[session:history] omitted empty image payload"}]}]`,
			report: stage.ImageReport{Omitted: 1, BytesIn: 3},
		},
		{
			name:   "V37 mime fix",
			in:     `[{"role":"user","content":[{"type":"image","data":"` + smallJPEG + `","mimeType":"image/png"}],"timestamp":1}]`,
			want:   `[{"role":"user","content":[{"type":"image","data":"` + smallJPEG + `","mimeType":"image/jpeg"}],"timestamp":1}]`,
			report: stage.ImageReport{BytesIn: int64(len(smallJPEG)), BytesOut: int64(len(smallJPEG))},
		},
		{
			name:   "fitting image is byte-identical, spacing kept",
			in:     `[{"role":"user", "content":[ {"type":"image", "mimeType":"image/png", "data":"` + smallPNG + `"} ]}]`,
			want:   `[{"role":"user", "content":[ {"type":"image", "mimeType":"image/png", "data":"` + smallPNG + `"} ]}]`,
			report: stage.ImageReport{BytesIn: int64(len(smallPNG)), BytesOut: int64(len(smallPNG))},
		},
		{
			name:   "missing mimeType gets the sniffed one",
			in:     `[{"role":"user","content":[{"type":"image","data":"` + smallGIF + `"}]}]`,
			want:   `[{"role":"user","content":[{"type":"image","data":"` + smallGIF + `","mimeType":"image/gif"}]}]`,
			report: stage.ImageReport{BytesIn: int64(len(smallGIF)), BytesOut: int64(len(smallGIF))},
		},
		{
			name:   "wrapped base64 is canonicalised, other members kept",
			in:     `[{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"shot"},{"type":"image","data":"` + wrapped + `","mimeType":"image/png","name":"a.png"}]}]`,
			want:   `[{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"shot"},{"type":"image","data":"` + smallPNG + `","mimeType":"image/png","name":"a.png"}]}]`,
			report: stage.ImageReport{BytesIn: int64(len(smallPNG) + 3), BytesOut: int64(len(smallPNG))},
		},
		{
			name:   "assistant error turn image",
			in:     `[{"role":"assistant","stopReason":"error","content":[{"type":"image","data":"","mimeType":"image/png"}]}]`,
			want:   `[{"role":"assistant","stopReason":"error","content":[{"type":"text","text":"[session:history] omitted empty image payload"}]}]`,
			report: stage.ImageReport{Omitted: 1},
		},
		{
			name: "not image blocks: other roles, string content, non-string data",
			in:   `[{"role":"custom","content":[{"type":"image","data":"not*base64","mimeType":"image/png"}]},{"role":"user","content":"[image]"},{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"x"}},{"type":"image","data":7}]},null]`,
			want: `[{"role":"custom","content":[{"type":"image","data":"not*base64","mimeType":"image/png"}]},{"role":"user","content":"[image]"},{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"x"}},{"type":"image","data":7}]},null]`,
		},
		{
			name: "per-request cap: oldest beyond it become stale (Anthropic)",
			in: `[{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"},{"type":"text","text":"a"}]},` +
				`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"shot","arguments":{}}]},` +
				`{"role":"toolResult","toolCallId":"c1","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]},` +
				`{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"[image data removed - already processed by model]"},{"type":"text","text":"a"}]},` +
				`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"shot","arguments":{}}]},` +
				`{"role":"toolResult","toolCallId":"c1","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]},` +
				`{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]}]`,
			report: stage.ImageReport{Stale: 1, BytesIn: 3 * int64(len(smallPNG)), BytesOut: 2 * int64(len(smallPNG))},
		},
		{
			name:   "per-request cap is Anthropic-only",
			target: openAIResponses,
			in:     `[{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]},{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]},{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]}]`,
			want:   `[{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]},{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]},{"role":"user","content":[{"type":"image","data":"` + smallPNG + `","mimeType":"image/png"}]}]`,
			report: stage.ImageReport{BytesIn: 3 * int64(len(smallPNG)), BytesOut: 3 * int64(len(smallPNG))},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if target == (transcript.Target{}) {
				target = stagetest.Anthropic
			}
			settings := imageSettings()
			settings.Images.MaxImagesPerRequest = 2
			c := stagetest.Case{Target: target, Settings: settings}
			res := c.Apply(t, tc.in, Images(testProcessor(t)))
			stagetest.Equal(t, res.JSON, tc.want)
			if res.Report.Images != tc.report {
				t.Errorf("report %+v, want %+v", res.Report.Images, tc.report)
			}
			again := c.Apply(t, string(res.JSON), Images(testProcessor(t)))
			if string(again.JSON) != string(res.JSON) {
				t.Errorf("second run changed the output:\n%s\n%s", res.JSON, again.JSON)
			}
		})
	}
}

// TestImagesUntouchedMessagesKeepTheirBytes checks that a message without
// image work is written back as its input bytes.
func TestImagesUntouchedMessagesKeepTheirBytes(t *testing.T) {
	in := `[{"role":"user" ,"content":"hi"},{"role":"assistant","content":[{"type":"text","text":"x"}] }]`
	res := stagetest.Case{Target: stagetest.Anthropic, Settings: imageSettings()}.Apply(t, in, Images(testProcessor(t)))
	if string(res.JSON) != in {
		t.Errorf("output %s, want the input bytes", res.JSON)
	}
	if res.Report.Stages.Len() != 0 {
		t.Errorf("report %v, want nothing", res.Report.Stages)
	}
}

// outputBlock returns content block b of message m of a JSON output.
func outputBlock(tb testing.TB, out []byte, m, b int) map[string]any {
	tb.Helper()
	var msgs []struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(out, &msgs); err != nil {
		tb.Fatalf("output: %v", err)
	}
	return msgs[m].Content[b]
}

// TestImagesV34Resize is V34: a 3000x2000 PNG becomes a JPEG whose longest
// side is at most 1200, with the other block fields kept.
func TestImagesV34Resize(t *testing.T) {
	data := largeImage(t, 3000, 2000, "png")
	in := `[{"role":"user","content":[{"type":"image","data":"` + b64(data) + `","mimeType":"image/png","cache_control":{"type":"ephemeral"}}]}]`
	res := stagetest.Case{Target: stagetest.Anthropic, Settings: imageSettings()}.Apply(t, in, Images(testProcessor(t)))
	blk := outputBlock(t, res.JSON, 0, 0)
	if blk["type"] != "image" || blk["mimeType"] != "image/jpeg" {
		t.Fatalf("block %v, want an image/jpeg image block", blk["type"])
	}
	if cc, _ := json.Marshal(blk["cache_control"]); string(cc) != `{"type":"ephemeral"}` {
		t.Errorf("cache_control %s, want it kept", cc)
	}
	format, w, h := decodeImage(t, blk["data"].(string))
	if format != "jpeg" || max(w, h) > 1200 || w != 1200 || h != 800 {
		t.Errorf("output %s %dx%d, want jpeg 1200x800", format, w, h)
	}
	r := res.Report.Images
	if r.Resized != 1 || r.BytesIn != int64(len(b64(data))) || r.BytesOut != int64(len(blk["data"].(string))) || r.BytesOut >= r.BytesIn {
		t.Errorf("report %+v", r)
	}
	if got := res.Report.Stages.Get("images", "resized"); got != 1 {
		t.Errorf("stage report resized = %d, want 1", got)
	}
}

// TestImagesManyImages checks the provider limit on requests with many
// images: above the threshold, an Anthropic-family request is bounded to
// the smaller side; other targets, and requests at the threshold, are not.
func TestImagesManyImages(t *testing.T) {
	img := b64(jpegBytes(t, 300, 200, 85))
	var msgs []string
	for range 3 {
		msgs = append(msgs, `{"role":"user","content":[{"type":"image","data":"`+img+`","mimeType":"image/jpeg"}]}`)
	}
	in := "[" + strings.Join(msgs, ",") + "]"
	tests := []struct {
		name      string
		target    transcript.Target
		threshold int
		wantSide  int // 0: unchanged
	}{
		{"anthropic above threshold", stagetest.Anthropic, 2, 250},
		{"bedrock above threshold", transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4"}, 2, 250},
		{"anthropic at threshold", stagetest.Anthropic, 3, 0},
		{"openai above threshold", openAIResponses, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := imageSettings()
			s.Images.ManyImagesThreshold = tc.threshold
			s.Images.ManyImagesMaxDimensionPx = 250
			res := stagetest.Case{Target: tc.target, Settings: s}.Apply(t, in, Images(testProcessor(t)))
			if tc.wantSide == 0 {
				stagetest.Equal(t, res.JSON, in)
				return
			}
			for m := range 3 {
				_, w, h := decodeImage(t, outputBlock(t, res.JSON, m, 0)["data"].(string))
				if max(w, h) != tc.wantSide {
					t.Errorf("message %d: %dx%d, want longest side %d", m, w, h, tc.wantSide)
				}
			}
			if res.Report.Images.Resized != 3 {
				t.Errorf("resized %d, want 3", res.Report.Images.Resized)
			}
		})
	}
}

// TestImagesOrderIsDeterministic runs a job whose images mix every
// outcome, processed concurrently, and checks each lands in its own block.
func TestImagesOrderIsDeterministic(t *testing.T) {
	small := b64(pngBytes(t, 30, 20))
	big := b64(largeImage(t, 1600, 900, "jpeg"))
	var blocks []string
	var want []string
	for i := range 12 {
		switch i % 4 {
		case 0:
			blocks = append(blocks, `{"type":"image","data":"`+small+`","mimeType":"image/png","n":`+fmt.Sprint(i)+`}`)
			want = append(want, "keep")
		case 1:
			blocks = append(blocks, `{"type":"image","data":"`+big+`","mimeType":"image/jpeg","n":`+fmt.Sprint(i)+`}`)
			want = append(want, "resize")
		case 2:
			blocks = append(blocks, `{"type":"image","data":"bad*`+fmt.Sprint(i)+`","mimeType":"image/png"}`)
			want = append(want, "omit")
		case 3:
			blocks = append(blocks, `{"type":"text","text":"t`+fmt.Sprint(i)+`"}`)
			want = append(want, "text")
		}
	}
	in := `[{"role":"user","content":[` + strings.Join(blocks, ",") + `]}]`
	c := stagetest.Case{Target: openAIResponses, Settings: imageSettings()}
	first := c.Apply(t, in, Images(testProcessor(t)))
	for i, w := range want {
		blk := outputBlock(t, first.JSON, 0, i)
		switch w {
		case "keep", "resize":
			if blk["n"] != float64(i) {
				t.Errorf("block %d carries n=%v", i, blk["n"])
			}
			if _, bw, _ := decodeImage(t, blk["data"].(string)); (w == "keep") != (bw == 30) || (w == "resize") != (bw == 1200) {
				t.Errorf("block %d (%s) has width %d", i, w, bw)
			}
		case "omit":
			if blk["text"] != "[session:history] omitted image payload: invalid base64" {
				t.Errorf("block %d = %v, want the invalid-base64 text", i, blk)
			}
		case "text":
			if blk["text"] != fmt.Sprintf("t%d", i) {
				t.Errorf("block %d = %v", i, blk)
			}
		}
	}
	for range 3 {
		if again := c.Apply(t, in, Images(testProcessor(t))); string(again.JSON) != string(first.JSON) {
			t.Fatal("two runs over the same input differ")
		}
	}
}

// TestImagesCorruptImageIsOmitted checks that valid base64 of a broken
// image becomes the omission text with the reason, not a dropped block.
func TestImagesCorruptImageIsOmitted(t *testing.T) {
	data := largeImage(t, 2000, 1500, "jpeg")
	in := `[{"role":"user","content":[{"type":"image","data":"` + b64(data[:len(data)/2]) + `","mimeType":"image/jpeg"}]}]`
	res := stagetest.Case{Target: stagetest.Anthropic, Settings: imageSettings()}.Apply(t, in, Images(testProcessor(t)))
	blk := outputBlock(t, res.JSON, 0, 0)
	text, _ := blk["text"].(string)
	if blk["type"] != "text" || !strings.HasPrefix(text, "[session:history] omitted image payload: ") {
		t.Errorf("block %v, want the omission text", blk)
	}
	if res.Report.Images.Omitted != 1 {
		t.Errorf("omitted %d, want 1", res.Report.Images.Omitted)
	}
}

// TestImagesCancelled checks that a cancelled job returns the context's
// error and leaves the transcript as it was.
func TestImagesCancelled(t *testing.T) {
	in := `[{"role":"user","content":[{"type":"image","data":"` + b64(largeImage(t, 1600, 1200, "jpeg")) + `","mimeType":"image/jpeg"}]}]`
	tr, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := &stage.Env{Policy: policy.Resolve(stagetest.Anthropic), Settings: imageSettings(), Report: stage.NewReport()}
	if err := Images(testProcessor(t)).Apply(ctx, tr, env); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if string(tr.MessagesJSON()) != in {
		t.Error("a cancelled run changed the transcript")
	}
}

// TestImageLimits checks how the side and size limits are chosen: the
// target's contract, lowered by a setting where that is stricter.
func TestImageLimits(t *testing.T) {
	anth := policy.Resolve(stagetest.Anthropic)
	oai := policy.Resolve(openAIResponses)
	bedrock := policy.Resolve(transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-sonnet-4"})
	s := settings.Images{MaxDimensionPx: 1200, ManyImagesThreshold: 20, ManyImagesMaxDimensionPx: 800, MaxBytes: 1000}
	tests := []struct {
		name      string
		s         settings.Images
		p         policy.Policy
		count     int
		side, max int
	}{
		{"few images", s, anth, 20, 1200, 1000},
		{"many images", s, anth, 21, 800, 1000},
		{"many images, not anthropic", s, oai, 21, 1200, 1000},
		{"many-images side larger than the contract's 2000", settings.Images{MaxDimensionPx: 2400, ManyImagesThreshold: 1, ManyImagesMaxDimensionPx: 3000}, anth, 5, 2000, 5 << 20},
		{"many-images settings unset: the contract's 20 and 2000", settings.Images{MaxDimensionPx: 2400}, anth, 21, 2000, 5 << 20},
		{"many-images settings unset, 20 images", settings.Images{MaxDimensionPx: 2400}, anth, 20, 2400, 5 << 20},
		{"side over the contract's 8000", settings.Images{MaxDimensionPx: 9000}, anth, 1, 8000, 5 << 20},
		{"side over 8000, no contract side", settings.Images{MaxDimensionPx: 9000}, oai, 1, 9000, 0},
		{"bytes over anthropic's 5 MB", settings.Images{MaxBytes: 9 << 20}, anth, 1, 1200, 5 << 20},
		{"bytes over bedrock's 3.75 MB decoded", settings.Images{MaxBytes: 9 << 20}, bedrock, 1, 1200, 5 << 20},
		{"bedrock side over 8000", settings.Images{MaxDimensionPx: 8400}, bedrock, 1, 8000, 5 << 20},
		{"side unset", settings.Images{}, oai, 1, 1200, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := imageLimits(tc.s, tc.p, tc.count)
			if lim.MaxDimensionPx != tc.side || lim.MaxBytes != tc.max {
				t.Errorf("limits %+v, want side %d and bytes %d", lim, tc.side, tc.max)
			}
		})
	}
}

// FuzzImages checks the stage properties on image blocks made of small
// real images and junk.
func FuzzImages(f *testing.F) {
	seeds := []string{
		`[{"role":"user","content":[{"type":"image","data":"` + b64(pngBytes(f, 8, 6)) + `","mimeType":"image/jpeg"}]}]`,
		`[{"role":"toolResult","content":[{"type":"image","data":"` + b64(jpegBytes(f, 9, 5, 70)) + `","mimeType":"image/png"},{"type":"image","data":"` + b64(gifBytes(f, 4, 4)) + `"}]}]`,
		`[{"role":"user","content":[{"type":"image","data":"not*base64","mimeType":"image/png"},{"type":"image","data":"   "}]}]`,
		`[{"role":"assistant","content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}]`,
		`[{"role":"user","content":[{"type":"image","data":"/9j/4AAQSkZJRgABAQ==","mimeType":"image/png"}]}]`,
		`[{"role":"user","content":[{"type":"image","data":"R0lGODlhAQABAAAAACw=\n","mimeType":"image/gif"}]},{"role":"user","content":[{"type":"image","data":"` + b64(pngBytes(f, 3, 3))[:20] + `"}]}]`,
		`[{"role":"user","content":[{"type":"image","data":"data:image/png;base64,` + b64(pngBytes(f, 2, 2)) + `"}]}]`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	settings := imageSettings()
	settings.Images.MaxImagesPerRequest = 3
	settings.Images.ManyImagesThreshold = 1
	settings.Images.ManyImagesMaxDimensionPx = 4
	c := stagetest.Case{Target: stagetest.Anthropic, Settings: settings}
	st := Images(testProcessor(f))
	f.Fuzz(func(t *testing.T, in []byte) {
		c.CheckProperties(t, in, st)
	})
}

// TestImagesRepeatedPayloadProcessedOnce checks that a payload repeated in
// several blocks of a job goes to the processor once and every block gets
// the result.
func TestImagesRepeatedPayloadProcessedOnce(t *testing.T) {
	data := b64(largeImage(t, 1300, 700, "jpeg"))
	other := b64(pngBytes(t, 20, 20))
	in := msgs(
		user(`[{"type":"image","data":"`+data+`","mimeType":"image/jpeg"},{"type":"image","data":"`+other+`","mimeType":"image/jpeg"}]`),
		asst,
		user(`[{"type":"image","data":"`+data+`","mimeType":"image/png"},{"type":"image","data":"`+other+`","mimeType":"image/png"}]`))
	p := testProcessor(t)
	before := p.Stats()
	res := stagetest.Case{Target: openAIResponses, Settings: imageSettings()}.Apply(t, in, Images(p))
	after := p.Stats()
	calls := (after.Rewritten + after.Unchanged + after.Omitted) - (before.Rewritten + before.Unchanged + before.Omitted)
	if calls != 2 {
		t.Errorf("%d processor calls for 2 distinct payloads", calls)
	}
	a, b := outputBlock(t, res.JSON, 0, 0), outputBlock(t, res.JSON, 2, 0)
	if a["data"] != b["data"] || a["mimeType"] != "image/jpeg" || b["mimeType"] != "image/jpeg" {
		t.Error("the repeated payload's blocks differ")
	}
	if _, w, _ := decodeImage(t, a["data"].(string)); w != 1200 {
		t.Errorf("width %d, want 1200", w)
	}
	if m0, m2 := outputBlock(t, res.JSON, 0, 1)["mimeType"], outputBlock(t, res.JSON, 2, 1)["mimeType"]; m0 != "image/png" || m2 != "image/png" {
		t.Errorf("mime types %v %v, want image/png for both", m0, m2)
	}
	if r := res.Report.Images; r.Resized != 2 || r.BytesIn != 2*int64(len(data)+len(other)) {
		t.Errorf("report %+v, want both copies counted", r)
	}
	if got := res.Report.Stages.Get("images", "mime_fixed"); got != 1 {
		t.Errorf("mime_fixed %d, want 1 (only the block declared image/jpeg)", got)
	}
}
