package tokens

// Margins of the bound counters: the o200k_base count is multiplied by
// num/den (and capped at one token per byte).
//
// Calibration. Claude: Anthropic publishes no tokenizer; measured against
// GPT-4o's o200k_base on the same prompts, Claude 3.5 Sonnet's tokenizer
// gave 16% more tokens on English prose, 21% more on mathematics and 30%
// more on Python code (Vantage, "Hidden costs in AI deployment", 2024, by
// Anthropic's own count_tokens and usage figures). The margin 1.35 covers
// the worst of the three by 5 points. Opus 4.7 and later use a new
// tokenizer that gives "1.0-1.35x" the tokens of the earlier one
// (Anthropic's Opus 4.7 release notes), so their margin is 1.35 x 1.35,
// rounded up: 1.83. Anthropic's documented count_tokens example (system
// "You are a scientist", user "Hello, Claude": 14 input tokens) is a test
// fixture the bound must not undercut.
//
// The others (Gemini's SentencePiece, Mistral's tekken, and the BPEs of
// DeepSeek, Qwen, Kimi, GLM and MiniMax) have vocabularies of 128k to 262k
// entries, against o200k's 200k; the margin 1.25 is the ratio of
// cl100k_base (a 100k BPE, smaller than any of them) to o200k_base on this
// package's calibration corpus of English prose, Go code and JSON
// (calibration_test.go: at most 1.054 over 238 files), rounded up with room to
// spare. A model of no known family gets 1.5.
//
// Other scripts. The vocabularies differ most outside English: cl100k_base
// gives 1.53x and 1.59x o200k_base's tokens on this project's Ukrainian and
// Russian seed documents, and 2.03x on the pieces that are not ASCII of
// testdata/multilingual.txt (ten languages, Hindi, Arabic and Korean the
// worst; the same test). So the tokens of every piece that is not all
// ASCII are multiplied by otherScripts (2.5) on top of the family's margin.
// One token per byte stays the cap of every bound.
var margins = map[string][2]int{
	famClaude:     {135, 100},
	famClaudeNew:  {183, 100},
	famGemini2:    {125, 100},
	famGemini3:    {125, 100},
	famMistral:    {125, 100},
	famOpenWeight: {125, 100},
	famUnknown:    {150, 100},
}

// otherScripts is the extra margin, in hundredths, of the pieces that are
// not ASCII (see margins).
const otherScripts = 250

// Framing figures.
const (
	// openAIPerMessage and openAIPerRequest: OpenAI's cookbook "How to
	// count tokens with tiktoken" (num_tokens_from_messages): 3 tokens per
	// message (<|start|>role ... <|end|>), 1 more for a name, and every
	// reply primed with <|start|>assistant<|message|>, 3 tokens.
	openAIPerMessage = 4
	openAIPerRequest = 3
	// openAIToolFraming: the same cookbook's function counting for gpt-4o
	// (func_init 7, func_end 12): the tools' JSON text is counted on top.
	openAIToolFraming = 19
	// anthropicToolPrompt: the tool-use system prompt Anthropic adds when
	// tools are given (Anthropic "Tool use" pricing table): 346 tokens for
	// Claude 4.x and 3.7 Sonnet with tool_choice auto, 530 for Claude 3
	// Opus, the largest; for Opus 4.7 and later, 346 in the new tokens
	// (x 1.35).
	anthropicToolPrompt    = 530
	anthropicToolPromptNew = 468
	// boundPerMessage and boundPerRequest: the role markers and separators
	// of a chat template, for the families that publish no figure: 4 per
	// message, as OpenAI's 3 plus a name token, and 4 per request. With
	// them the Claude bound meets Anthropic's documented 14 tokens for its
	// count_tokens example.
	boundPerMessage = 4
	boundPerRequest = 4
)

// newCounter builds the counter of a counting family.
func newCounter(fam string) *Counter {
	c := &Counter{enc: o200k, num: 1, den: 1, perMessage: openAIPerMessage, perRequest: openAIPerRequest,
		toolPrompt: openAIToolFraming}
	switch fam {
	case famCl100k:
		c.enc = cl100k
		c.image = openAITiles(85, 170)
	case famO200k:
		c.image = openAITiles(85, 170)
	case famMini4o:
		c.image = openAITiles(2833, 5667)
	case famOSeries:
		c.image = openAITiles(75, 150)
	case famGPT5:
		c.image = openAITiles(70, 140)
	case famPatch162:
		c.image = openAIPatches(162)
	case famPatch246:
		c.image = openAIPatches(246)
	case famPatch172:
		c.image = openAIPatches(172)
	default:
		m := margins[fam]
		c.num, c.den = m[0], m[1]
		c.perMessage, c.perRequest, c.toolPrompt = boundPerMessage, boundPerRequest, 0
		switch fam {
		case famClaude:
			c.image, c.toolPrompt = anthropicImage(1568, 1568*784), anthropicToolPrompt
		case famClaudeNew:
			c.image, c.toolPrompt = anthropicImage(2576, 3_750_000), anthropicToolPromptNew
		case famGemini2:
			c.image = geminiTiles
		case famGemini3:
			c.image = gemini3Image
		default:
			// Mistral, the open-weight models (Qwen-VL: 28 px per
			// token, at most 1,280 by default; Kimi, GLM) and unknown
			// ones: the larger of Mistral's and Anthropic's at 3.75 MP,
			// at every size.
			c.image = largestImage
		}
	}
	c.imageMax = maxImage(c.image)
	c.name = c.enc.name
	if c.num != c.den {
		c.name = c.enc.name + "×" + ratio(c.num, c.den) + " (" + fam + " bound)"
	}
	return c
}

// ratio writes num/den with two decimals ("1.35").
func ratio(num, den int) string {
	h := num * 100 / den
	return string([]byte{byte('0' + h/100), '.', byte('0' + h/10%10), byte('0' + h%10)})
}
