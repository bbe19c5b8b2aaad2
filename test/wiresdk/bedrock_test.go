package wiresdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/auth/bearer"
)

// The Bedrock SDK's types have no JSON form of their own (unions are Go
// interfaces), so the body is read strictly (unknown members are errors)
// into these mirrors of the Converse REST shape, converted member by member
// into bedrockruntime.ConverseInput, and written back by the SDK's own
// serializer. A member the conversion does not carry over is missing from
// the SDK's JSON and fails the comparison.
type converseBody struct {
	System     []struct{ Text string }    `json:"system,omitempty"`
	Messages   []converseMessage          `json:"messages"`
	ToolConfig *struct{ Tools []toolRef } `json:"toolConfig,omitempty"`
}

type toolRef struct {
	ToolSpec struct {
		Name        string  `json:"name"`
		Description *string `json:"description"`
		InputSchema struct {
			JSON map[string]any `json:"json"`
		} `json:"inputSchema"`
	} `json:"toolSpec"`
}

type converseMessage struct {
	Role    string          `json:"role"`
	Content []converseBlock `json:"content"`
}

type converseImage struct {
	Format string `json:"format"`
	Source struct {
		Bytes []byte `json:"bytes"`
	} `json:"source"`
}

type converseBlock struct {
	Text    *string        `json:"text"`
	Image   *converseImage `json:"image"`
	ToolUse *struct {
		ToolUseID string         `json:"toolUseId"`
		Name      string         `json:"name"`
		Input     map[string]any `json:"input"`
	} `json:"toolUse"`
	ToolResult *struct {
		ToolUseID string          `json:"toolUseId"`
		Content   []converseBlock `json:"content"`
		Status    string          `json:"status"`
	} `json:"toolResult"`
	ReasoningContent *struct {
		ReasoningText *struct {
			Text      string  `json:"text"`
			Signature *string `json:"signature"`
		} `json:"reasoningText"`
		RedactedContent []byte `json:"redactedContent"`
	} `json:"reasoningContent"`
}

func viaBedrock(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b converseBody
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("unmarshal into the Converse shape: %w", err)
	}
	in := &bedrockruntime.ConverseInput{ModelId: aws.String("anthropic.claude-sonnet-4-20250514-v1:0")}
	for _, s := range b.System {
		in.System = append(in.System, &types.SystemContentBlockMemberText{Value: s.Text})
	}
	for i, m := range b.Messages {
		msg := types.Message{Role: types.ConversationRole(m.Role)}
		for j, c := range m.Content {
			block, err := contentBlock(c)
			if err != nil {
				return nil, fmt.Errorf("messages[%d].content[%d]: %w", i, j, err)
			}
			msg.Content = append(msg.Content, block)
		}
		in.Messages = append(in.Messages, msg)
	}
	if b.ToolConfig != nil {
		in.ToolConfig = &types.ToolConfiguration{}
		for _, t := range b.ToolConfig.Tools {
			in.ToolConfig.Tools = append(in.ToolConfig.Tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
				Name: aws.String(t.ToolSpec.Name), Description: t.ToolSpec.Description,
				InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(t.ToolSpec.InputSchema.JSON)},
			}})
		}
	}
	capture := &captureClient{}
	client := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, HTTPClient: capture,
		BearerAuthTokenProvider: bearer.StaticTokenProvider{Token: bearer.Token{Value: "test"}},
		BaseEndpoint:            aws.String("https://bedrock.invalid"), RetryMaxAttempts: 1,
	})
	if _, err := client.Converse(context.Background(), in); !errors.Is(err, errCaptured) {
		return nil, fmt.Errorf("the SDK refused the input: %w", err)
	}
	return capture.body, nil
}

func contentBlock(c converseBlock) (types.ContentBlock, error) {
	n := 0
	var out types.ContentBlock
	if c.Text != nil {
		n++
		out = &types.ContentBlockMemberText{Value: *c.Text}
	}
	if c.Image != nil {
		n++
		out = &types.ContentBlockMemberImage{Value: imageBlock(c.Image)}
	}
	if u := c.ToolUse; u != nil {
		n++
		out = &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String(u.ToolUseID), Name: aws.String(u.Name), Input: document.NewLazyDocument(u.Input)}}
	}
	if r := c.ToolResult; r != nil {
		n++
		res := types.ToolResultBlock{ToolUseId: aws.String(r.ToolUseID), Status: types.ToolResultStatus(r.Status), Content: []types.ToolResultContentBlock{}}
		for _, rc := range r.Content {
			switch {
			case rc.Text != nil && rc.Image == nil:
				res.Content = append(res.Content, &types.ToolResultContentBlockMemberText{Value: *rc.Text})
			case rc.Image != nil && rc.Text == nil:
				res.Content = append(res.Content, &types.ToolResultContentBlockMemberImage{Value: imageBlock(rc.Image)})
			default:
				return nil, fmt.Errorf("a toolResult content block must be one text or one image")
			}
		}
		out = &types.ContentBlockMemberToolResult{Value: res}
	}
	if rc := c.ReasoningContent; rc != nil {
		n++
		switch {
		case rc.ReasoningText != nil && rc.RedactedContent == nil:
			out = &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{
				Value: types.ReasoningTextBlock{Text: aws.String(rc.ReasoningText.Text), Signature: rc.ReasoningText.Signature}}}
		case rc.RedactedContent != nil && rc.ReasoningText == nil:
			out = &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: rc.RedactedContent}}
		default:
			return nil, fmt.Errorf("reasoningContent must be one reasoningText or one redactedContent")
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("a content block must have exactly one member, has %d", n)
	}
	return out, nil
}

func imageBlock(img *converseImage) types.ImageBlock {
	return types.ImageBlock{Format: types.ImageFormat(img.Format), Source: &types.ImageSourceMemberBytes{Value: img.Source.Bytes}}
}
