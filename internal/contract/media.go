package contract

import (
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// MediaSources is a set of the ways a document or an image is given: the
// transcript.Source members.
type MediaSources uint8

// The sources of a MediaSources set.
const (
	ByData   MediaSources = 1 << iota // transcript.SourceData: base64 bytes
	ByText                            // transcript.SourceText: a document's plain text
	ByURL                             // transcript.SourceURL
	ByFileID                          // transcript.SourceFileID
	ByS3                              // transcript.SourceS3
)

// sourceBits maps a transcript.Source member to its bit.
var sourceBits = map[string]MediaSources{
	transcript.SourceData: ByData, transcript.SourceText: ByText, transcript.SourceURL: ByURL,
	transcript.SourceFileID: ByFileID, transcript.SourceS3: ByS3,
}

// Has reports whether the set holds the source member src.
func (s MediaSources) Has(src string) bool { return s&sourceBits[src] != 0 }

// DocumentLimits say how a family's wire carries documents and images by
// reference (transcript.BlockDocument, an image block with a url, fileId or
// s3Uri), and bound the documents of a request. A zero number means no
// documented limit.
type DocumentLimits struct {
	// Documents are the sources a document may be given by; Images those
	// an image may be given by besides its base64 bytes.
	Documents, Images MediaSources
	// MIMETypes are the types a document given by its bytes may have,
	// separated by spaces ("": any). A string, so that a Contract stays
	// comparable.
	MIMETypes string
	// FileIDs are the ids of the provider's own Files API (Anthropic
	// file_…, OpenAI file-…, Mistral a UUID): a file id is the provider's
	// own, so an id of another provider's has no place (the API would not
	// find the file).
	FileIDs IDLimits
	// PerRequest documents at most.
	PerRequest int
	// MaxDecodedBytes bounds one document's decoded bytes; TotalDecodedBytes
	// all of a request's.
	MaxDecodedBytes, TotalDecodedBytes int
	// MaxPages is the documented page limit of a request's PDFs. It is
	// documentation only: the check does not parse PDFs.
	MaxPages int
}

// Carries reports whether the wire has a place for a document or image
// block b as it is given (its source, and for a document given by its
// bytes its MIME type, which it must have, as an image by S3 location). A block that is neither a document nor an image by
// reference is not this type's to judge: true.
func (d DocumentLimits) Carries(b *transcript.Block) bool {
	src := b.MediaSource()
	mime, hasMime := b.String("mimeType")
	switch {
	case src == "":
		return b.Type() != transcript.BlockDocument
	case b.Type() == transcript.BlockImage:
		// an image by S3 location names its format (Bedrock's ImageBlock.format)
		return src == transcript.SourceData || d.Images.Has(src) && (src != transcript.SourceS3 || hasMime && !transcript.IsBlank(mime)) &&
			(src != transcript.SourceFileID || d.ownFile(b))
	case src == transcript.SourceFileID && !d.ownFile(b):
		return false
	case !d.Documents.Has(src):
		return false
	case src == transcript.SourceData && (!hasMime || transcript.IsBlank(mime)):
		return false // bytes of no known type
	case src == transcript.SourceData && d.MIMETypes != "":
		return slices.Contains(strings.Fields(d.MIMETypes), mime)
	}
	return true
}

// ownFile reports whether b's file id is one of the provider's own.
func (d DocumentLimits) ownFile(b *transcript.Block) bool {
	id, _ := b.String(transcript.SourceFileID)
	return d.FileIDs.Valid(id)
}

// DocumentBytes is the decoded size of a document given by its bytes,
// from its base64's length (nothing is decoded); 0 for any other block.
func DocumentBytes(b *transcript.Block) int {
	if b.Type() != transcript.BlockDocument || b.MediaSource() != transcript.SourceData {
		return 0
	}
	raw, _ := b.Get(transcript.SourceData)
	return decodedLen(raw[1 : len(raw)-1])
}

// Media is what a body of format f carries of documents and images by
// reference: the DocumentLimits of the family the format is named after.
// A family rendered in f carries the same or less (its own Documents).
func (f BodyFormat) Media() DocumentLimits { return Of(f.family()).Documents }

// The document facts shared by several rows, each with its source.
var (
	// anthropicDocuments: Anthropic PDF support guide
	// (platform.claude.com/docs/en/build-with-claude/pdf-support): a
	// document block takes a PDF as base64, by URL or by Files API id,
	// and plain text as a text source; images take base64, url and file
	// sources (vision guide). Requests are bounded by the 32 MB request
	// size and at most 100 PDF pages (also on Bedrock: "Claude requires
	// PDF documents to be a maximum of 100 pages per request",
	// docs.aws.amazon.com/bedrock/latest/userguide/inference-api-restrictions.html).
	anthropicDocuments = DocumentLimits{
		Documents: ByData | ByText | ByURL | ByFileID, Images: ByURL | ByFileID,
		MIMETypes: "application/pdf", MaxPages: 100, FileIDs: anthropicFileIDs,
	}
	// openAIDocuments: OpenAI file inputs guide
	// (developers.openai.com/api/docs/guides/file-inputs): Chat
	// Completions takes PDF files only, as file_data or file_id, and no
	// file URL; images by URL (image_url). The PDF guide bounds a request
	// at 100 pages and 32 MB of file content in all.
	openAIDocuments = DocumentLimits{
		Documents: ByData | ByText | ByFileID, Images: ByURL,
		MIMETypes: "application/pdf", MaxPages: 100, TotalDecodedBytes: 32 << 20, FileIDs: openAIFileIDs,
	}
	// responsesDocuments: the same guide: Responses input_file takes
	// file_data, file_id or file_url of any supported type; input_image
	// an image_url or a file_id.
	responsesDocuments = DocumentLimits{
		Documents: ByData | ByText | ByURL | ByFileID, Images: ByURL | ByFileID,
		MaxPages: 100, TotalDecodedBytes: 32 << 20, FileIDs: openAIFileIDs,
	}
	// bedrockDocuments: Bedrock API reference, DocumentBlock (format pdf,
	// csv, doc, docx, xls, xlsx, html, txt, md; DocumentSource bytes,
	// s3Location or text) and ImageSource (bytes or s3Location); the
	// Converse request page: up to 5 documents, each at most 4.5 MB
	// (docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html).
	bedrockDocuments = DocumentLimits{
		Documents: ByData | ByText | ByS3, Images: ByS3,
		MIMETypes: "application/pdf text/csv application/msword " +
			"application/vnd.openxmlformats-officedocument.wordprocessingml.document application/vnd.ms-excel " +
			"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet text/html text/plain text/markdown",
		PerRequest: 5, MaxDecodedBytes: 4608 << 10,
	}
	// geminiDocuments: Gemini document processing guide
	// (ai.google.dev/gemini-api/docs/document-processing): PDFs and text
	// types inline (inlineData) or by URI (fileData), up to 50 MB and
	// 1000 pages per file; images by URI too (fileData).
	geminiDocuments = DocumentLimits{
		Documents: ByData | ByText | ByURL, Images: ByURL,
		MIMETypes: "application/pdf text/plain text/html text/css text/csv text/md text/markdown text/xml text/rtf " +
			"text/javascript application/x-javascript text/x-python application/x-python",
		MaxDecodedBytes: 50 << 20, MaxPages: 1000,
	}
	// mistralDocuments: Mistral document QnA (docs.mistral.ai, document
	// understanding): a document_url chunk takes a PDF by URL or as a
	// base64 data URL, a file chunk an uploaded file's id (mistralai's
	// FileChunk: {type: "file", file_id}, ids are UUIDs); image_url an
	// image URL. Mistral's OCR bounds a document at 50 MB and 1,000 pages.
	mistralDocuments = DocumentLimits{
		Documents: ByData | ByText | ByURL | ByFileID, Images: ByURL,
		MIMETypes: "application/pdf", MaxDecodedBytes: 50 << 20, MaxPages: 1000,
		FileIDs: mistralFileIDs,
	}
	// The Files API ids: Anthropic's are file_011 and 21 base62 characters
	// (file_011CNha8iCJcU1wXNR6q4V8w in its Files API guide), OpenAI's
	// file- and base62 (file-6F2ksmvXxt4VdoqmHRw6kL in its file inputs
	// guide), Mistral's UUIDs (its files API reference).
	anthropicFileIDs = IDLimits{Pattern: `^file_[A-Za-z0-9]+$`}
	openAIFileIDs    = IDLimits{Pattern: `^file-[A-Za-z0-9]+$`}
	mistralFileIDs   = IDLimits{Pattern: `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`}
)
