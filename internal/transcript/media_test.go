package transcript

import "testing"

// TestMediaKind: documents and images by reference (the extension of spec
// §1.3) are told apart by their source member, and the placeholder names
// the file.
func TestMediaKind(t *testing.T) {
	tests := []struct {
		block, source, kind, placeholder string
	}{
		{`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`, SourceData, "", ""},
		{`{"type":"image","url":"https://upload.wikimedia.org/a.jpg"}`, SourceURL, MediaImageURL,
			"[image https://upload.wikimedia.org/a.jpg not sent: no place]"},
		{`{"type":"image","fileId":"file-6F2ksmvXxt4VdoqmHRw6kL","mimeType":"image/jpeg"}`, SourceFileID, MediaFileID,
			"[image file-6F2ksmvXxt4VdoqmHRw6kL (image/jpeg) not sent: no place]"},
		{`{"type":"document","data":"JVBERi0xLjQK","mimeType":"application/pdf","name":"invoice.pdf"}`, SourceData, MediaDocument,
			`[document "invoice.pdf" (application/pdf) not sent: no place]`},
		{`{"type":"document","text":"The grass is green.","mimeType":"text/plain"}`, SourceText, MediaDocument,
			"[document (text/plain) not sent: no place]"},
		{`{"type":"document","fileId":"file_011CNha8iCJcU1wXNR6q4V8w"}`, SourceFileID, MediaFileID,
			"[document file_011CNha8iCJcU1wXNR6q4V8w not sent: no place]"},
		{`{"type":"document","s3Uri":"s3://amzn-s3-demo-bucket/report.pdf","mimeType":"application/pdf"}`, SourceS3, MediaDocument,
			"[document s3://amzn-s3-demo-bucket/report.pdf (application/pdf) not sent: no place]"},
		{`{"type":"image","text":"x"}`, "", "", ""},
		{`{"type":"text","text":"x"}`, "", "", ""},
	}
	for _, tc := range tests {
		b := blockFromRaw([]byte(tc.block))
		if got := b.MediaSource(); got != tc.source {
			t.Errorf("%s: MediaSource = %q, want %q", tc.block, got, tc.source)
		}
		if got := b.MediaKind(); got != tc.kind {
			t.Errorf("%s: MediaKind = %q, want %q", tc.block, got, tc.kind)
		}
		if tc.placeholder != "" {
			if got := b.MediaPlaceholder("no place"); got != tc.placeholder {
				t.Errorf("%s: MediaPlaceholder = %q, want %q", tc.block, got, tc.placeholder)
			}
		}
	}
}
