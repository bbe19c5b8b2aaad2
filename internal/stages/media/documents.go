package media

import (
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// documentsStage names the stage "documents" and its report.
const documentsStage = "documents"

// Documents returns the stage "documents" (beyond OpenClaw, whose model has
// no documents): every document block and every image given by URL, file
// id or S3 location (transcript.Block.MediaKind) is sent as it is when the
// target's wire has a place for it (env.Policy.Contract.Documents.Carries)
// and within its limits; otherwise it becomes a text that names it
// (Block.MediaPlaceholder), and the report counts it as
// replaced_<kind> (document, image_url, file_id). A document given as plain
// text that the wire has no document place for becomes a text block of
// its text instead (Block.DocumentText, counted as_text): its content is
// kept. An assistant turn
// carries no file on any wire, so one there is always replaced. An image
// block whose bytes are declared a PDF or text is a document
// (image_as_document): no PDF goes to the image processor.
//
// The limits: beyond the contract's documents per request, the oldest are
// replaced; a document over its per-document size is replaced; while the
// documents of a request are over the per-request total, the oldest are
// replaced. No document is ever decoded: the size is the base64 length's
// (contract.DocumentBytes, as the contract check measures it).
// Images given by their bytes are the stage "images"'s; nothing here reads
// or changes them, and a PDF is never an image (package wire reads a
// non-image MIME type as a document).
func Documents() stage.Stage {
	return stage.Stage{Name: documentsStage, Needs: transcript.FactImage | transcript.FactDocument, Adds: transcript.FactDocument, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		applyDocuments(t.Messages, env.Policy.Contract, env.Report)
		return nil
	}}
}

// imageAsDocument returns the document block of an image block whose
// bytes are declared a PDF or text (mimeType application/pdf or text/*: a
// client that put a file in pi's image block), nil for any other block:
// the image processor would only omit it as an unsupported image.
func imageAsDocument(b *transcript.Block) *transcript.Block {
	if b.Type() != transcript.BlockImage || b.MediaSource() != transcript.SourceData {
		return nil
	}
	mime, _ := b.String("mimeType")
	if mime != "application/pdf" && !strings.HasPrefix(mime, "text/") {
		return nil
	}
	data, _ := b.Get(transcript.SourceData)
	return transcript.NewBlock(transcript.Field{Key: "type", Value: transcript.JSONString(transcript.BlockDocument)},
		transcript.Field{Key: transcript.SourceData, Value: data}, transcript.Field{Key: "mimeType", Value: transcript.JSONString(mime)})
}

// docRef is one document or image by reference of the transcript.
type docRef struct {
	msg, block int
	bytes      int // decoded size of a document given by its bytes
}

func applyDocuments(msgs []*transcript.Message, c contract.Contract, r *stage.Report) {
	l := c.Documents
	var kept []docRef // documents left in place, in message order
	for mi, m := range msgs {
		blocks, ok := m.Blocks()
		if !ok {
			continue
		}
		var out []*transcript.Block
		for bi, b := range blocks {
			if doc := imageAsDocument(b); doc != nil {
				if out == nil {
					out = append([]*transcript.Block(nil), blocks...)
				}
				out[bi], b = doc, doc
				r.Add(documentsStage, "image_as_document", 1)
			}
			kind := b.MediaKind()
			if kind == "" {
				continue
			}
			var repl *transcript.Block
			count := "replaced_" + kind
			switch {
			case m.Role() == transcript.RoleAssistant:
				repl = transcript.TextBlock(b.MediaPlaceholder("an assistant turn carries no file"))
			case !l.Carries(b) && b.MediaSource() == transcript.SourceText:
				repl, count = transcript.TextBlock(b.DocumentText()), "as_text"
			case !l.Carries(b):
				repl = transcript.TextBlock(b.MediaPlaceholder(string(c.Family) + " has no place for it"))
			case b.Type() == transcript.BlockDocument:
				kept = append(kept, docRef{msg: mi, block: bi, bytes: contract.DocumentBytes(b)})
			}
			if repl == nil {
				continue
			}
			if out == nil {
				out = append([]*transcript.Block(nil), blocks...)
			}
			out[bi] = repl
			r.Add(documentsStage, count, 1)
		}
		if out != nil {
			m.SetBlocks(out)
		}
	}
	replaceOverLimits(msgs, kept, l, r)
}

// replaceOverLimits replaces the documents kept beyond the per-request
// count (the oldest), over the per-document size, and, oldest first, while
// the request's total is over its limit.
func replaceOverLimits(msgs []*transcript.Message, kept []docRef, l contract.DocumentLimits, r *stage.Report) {
	gone := make([]bool, len(kept))
	if l.PerRequest > 0 {
		for i := 0; i < len(kept)-l.PerRequest; i++ {
			gone[i] = true
		}
	}
	total := 0
	for i, d := range kept {
		if !gone[i] && l.MaxDecodedBytes > 0 && d.bytes > l.MaxDecodedBytes {
			gone[i] = true
		}
		if !gone[i] {
			total += d.bytes
		}
	}
	for i := 0; l.TotalDecodedBytes > 0 && total > l.TotalDecodedBytes && i < len(kept); i++ {
		if !gone[i] && kept[i].bytes > 0 {
			gone[i] = true
			total -= kept[i].bytes
		}
	}
	for i, d := range kept {
		if !gone[i] {
			continue
		}
		m := msgs[d.msg]
		blocks, _ := m.Blocks()
		out := append([]*transcript.Block(nil), blocks...)
		out[d.block] = transcript.TextBlock(blocks[d.block].MediaPlaceholder("over the target's document limits"))
		m.SetBlocks(out)
		r.Add(documentsStage, "replaced_"+transcript.MediaDocument, 1)
	}
}
