package media

import (
	"context"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// RequestSize returns the stage "request_size": the target's request-size
// cap (env.Policy.Contract.MaxRequestBytes: 32 MB on Anthropic's Messages
// API, 20 MB on Bedrock and Vertex AI). When the sanitized messages are
// larger, the oldest images become the stale-image placeholder, one by one,
// until the messages fit; when they still do not fit with every image
// replaced, the job is rejected as payload_too_large with a sentence naming
// the target's limit. It runs after every rule that changes sizes. The
// messages are measured as they will be written (MessagesSize), a lower
// bound of the provider request body.
func RequestSize() stage.Stage {
	const name = "request_size"
	return stage.Stage{Name: name, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		limit := env.Policy.Contract.MaxRequestBytes
		if limit <= 0 {
			return nil
		}
		size := t.MessagesSize()
		if size <= limit {
			return nil
		}
		marker := len(transcript.TextBlock(StaleImageMarker).AppendJSON(nil))
		var scratch []byte
		replaced := 0
		for _, ref := range collectImages(t.Messages) {
			if size <= limit {
				break
			}
			m := t.Messages[ref.msg]
			blocks, _ := m.Blocks()
			scratch = blocks[ref.block].AppendJSON(scratch[:0])
			out := append([]*transcript.Block(nil), blocks...)
			out[ref.block] = transcript.TextBlock(StaleImageMarker)
			m.SetBlocks(out)
			size -= len(scratch) - marker
			replaced++
		}
		env.Report.Images.Stale += replaced
		env.Report.Add(name, "stale_images", replaced)
		if size = t.MessagesSize(); size <= limit {
			return nil
		}
		return &stage.Reject{Code: deadletter.CodePayloadTooLarge, Msg: fmt.Sprintf(
			"messages: %d bytes after %d images became placeholders, over the %d-byte (%d MiB) request limit of %s",
			size, replaced, limit, limit>>20, env.Policy.Contract.Family)}
	}}
}
