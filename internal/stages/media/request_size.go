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
// bound of the provider request body. The size of messages that fit is
// proved for the contract's size check (env.RequestSize).
func RequestSize() stage.Stage {
	const name = "request_size"
	return stage.Stage{Name: name, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		limit := env.Policy.Contract.MaxRequestBytes
		if limit <= 0 {
			return nil
		}
		size := t.MessagesSize()
		if size <= limit {
			env.RequestSize = env.Prove(size)
			return nil
		}
		var scratch []byte
		images, documents := 0, 0
		for _, ref := range collectSized(t.Messages) {
			if size <= limit {
				break
			}
			m := t.Messages[ref.msg]
			blocks, _ := m.Blocks()
			b := blocks[ref.block]
			repl := transcript.TextBlock(StaleImageMarker)
			if b.Type() == transcript.BlockDocument {
				repl = transcript.TextBlock(b.MediaPlaceholder("the request is over its size limit"))
				documents++
			} else {
				images++
			}
			scratch = b.AppendJSON(scratch[:0])
			size -= len(scratch)
			scratch = repl.AppendJSON(scratch[:0])
			size += len(scratch)
			out := append([]*transcript.Block(nil), blocks...)
			out[ref.block] = repl
			m.SetBlocks(out)
		}
		env.Report.Images.Stale += images
		env.Report.Add(name, "stale_images", images)
		env.Report.Add(name, "replaced_"+transcript.MediaDocument, documents)
		what := fmt.Sprintf("%d images", images)
		if documents > 0 {
			what += fmt.Sprintf(" and %d documents", documents)
		}
		if size = t.MessagesSize(); size <= limit {
			env.RequestSize = env.Prove(size)
			return nil
		}
		return &stage.Reject{Code: deadletter.CodePayloadTooLarge, Msg: fmt.Sprintf(
			"messages: %d bytes after %s became placeholders, over the %d-byte (%d MiB) request limit of %s",
			size, what, limit, limit>>20, env.Policy.Contract.Family)}
	}}
}

// collectSized lists the blocks the request-size cap may replace, in
// message and block order: the image blocks collectImages finds, and the
// documents given by their bytes or text (the ones that weigh).
func collectSized(msgs []*transcript.Message) []imageRef {
	var refs []imageRef
	images := collectImages(msgs)
	for mi, m := range msgs {
		blocks, _ := m.Blocks()
		for bi, b := range blocks {
			for len(images) > 0 && (images[0].msg < mi || images[0].msg == mi && images[0].block < bi) {
				refs, images = append(refs, images[0]), images[1:]
			}
			if src := b.MediaSource(); b.Type() == transcript.BlockDocument && (src == transcript.SourceData || src == transcript.SourceText) {
				refs = append(refs, imageRef{msg: mi, block: bi})
			}
		}
	}
	return append(refs, images...)
}
