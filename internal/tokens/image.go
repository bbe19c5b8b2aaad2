package tokens

import "math"

// imageFormula is a provider's documented count for an image of w x h px.
type imageFormula func(w, h int) int

// Image returns the tokens an image of width x height pixels takes, by the
// target's documented formula. A side of 0 or less (an image whose header
// could not be read) counts as ImageMax.
func (c *Counter) Image(width, height int) int {
	if width <= 0 || height <= 0 {
		return c.imageMax
	}
	return c.image(width, height)
}

// ImageMax is the most tokens one image can take for the target: the
// largest the formula gives over the sides providers accept (up to 8000
// px, Anthropic's and Bedrock's limit), at the sizes where each formula
// peaks (every side a formula rounds to, in every aspect).
func (c *Counter) ImageMax() int { return c.imageMax }

// maxImage computes ImageMax for a formula.
func maxImage(f imageFormula) int {
	sides := []int{1, 384, 385, 512, 768, 784, 1024, 1092, 1536, 1568, 2048, 2576, 3072, 4096, 6000, 8000}
	m := 0
	for _, w := range sides {
		for _, h := range sides {
			m = max(m, f(w, h))
		}
	}
	return m
}

// fit scales w x h down (never up) so that it is at most maxSide on its
// long side and at most maxPixels in area (0: no area limit), keeping the
// aspect ratio; the sides are floored, as resizers do.
func fit(w, h, maxSide, maxPixels int) (int, int) {
	s := 1.0
	if long := max(w, h); long > maxSide {
		s = float64(maxSide) / float64(long)
	}
	if area := float64(w) * float64(h) * s * s; maxPixels > 0 && area > float64(maxPixels) {
		s *= math.Sqrt(float64(maxPixels) / area)
	}
	if s >= 1 {
		return w, h
	}
	return max(int(float64(w)*s), 1), max(int(float64(h)*s), 1)
}

// anthropicImage is Anthropic's formula (vision guide, "Calculate image
// costs"): tokens = width x height / 750, after the image is scaled down to
// at most maxSide px on its long edge and maxPixels in area. Up to Claude
// Opus 4.6: 1568 px and the largest size the guide lists as not resized,
// 784 x 1568 (1.23 MP, ~1,600 tokens; 1092 x 1092 is 1,590). Opus 4.7 and
// later take up to 2576 px and 3.75 MP.
func anthropicImage(maxSide, maxPixels int) imageFormula {
	return func(w, h int) int {
		w, h = fit(w, h, maxSide, maxPixels)
		return (w*h + 749) / 750
	}
}

// openAITiles is OpenAI's high-detail formula for gpt-4o, gpt-4.1, gpt-5,
// o1 and o3 (platform.openai.com/docs/guides/images-vision, "Calculating
// costs"): scale to fit 2048 x 2048, then so that the shortest side is 768
// px (down only), count the 512 px tiles, and take base + tile x tiles
// (gpt-4o and gpt-4.1: 85 + 170; gpt-4o-mini: 2833 + 5667; o1 and o3: 75 +
// 150; gpt-5: 70 + 140). "auto" detail may choose high, so high is counted.
func openAITiles(base, tile int) imageFormula {
	return func(w, h int) int {
		w, h = fit(w, h, 2048, 0)
		if short := min(w, h); short > 768 {
			s := 768 / float64(short)
			w, h = int(float64(w)*s), int(float64(h)*s)
		}
		tiles := ((w + 511) / 512) * ((h + 511) / 512)
		return base + tile*tiles
	}
}

// openAIPatches is OpenAI's patch formula for gpt-4.1-mini, gpt-4.1-nano,
// o4-mini, gpt-5-mini and gpt-5-nano (the same guide): the image is cut into
// 32 px patches; over 1536 patches it is scaled down so that it fits 1536,
// then to whole patches on its tighter side; the tokens are the patches
// times a per-model multiplier (1.62, 2.46, 1.72), here in hundredths.
func openAIPatches(multiplier int) imageFormula {
	return func(w, h int) int {
		patches := ((w + 31) / 32) * ((h + 31) / 32)
		if patches > 1536 {
			fw, fh := float64(w), float64(h)
			r := math.Sqrt(32 * 32 * 1536 / (fw * fh))
			r *= min(math.Floor(fw*r/32)/(fw*r/32), math.Floor(fh*r/32)/(fh*r/32))
			patches = min(int(math.Ceil(fw*r/32))*int(math.Ceil(fh*r/32)), 1536)
		}
		return (patches*multiplier + 99) / 100
	}
}

// geminiTiles is Gemini 1.5 and 2.x's count (ai.google.dev/gemini-api/docs/
// tokens, "Multimodal tokens"): an image with both sides at most 384 px is
// 258 tokens; a larger one is cropped and scaled into 768 x 768 tiles of 258
// tokens each.
func geminiTiles(w, h int) int {
	if w <= 384 && h <= 384 {
		return 258
	}
	return 258 * ((w + 767) / 768) * ((h + 767) / 768)
}

// gemini3Image is Gemini 3's count (ai.google.dev/gemini-api/docs/
// media-resolution, "Token counts"): an image costs at most its
// media_resolution's tokens, and the default for images is high, 1120; a
// request cannot name ultra high (2240) for a part a runner replays
// without it.
func gemini3Image(_, _ int) int { return 1120 }

// mistralImage is Mistral's count (mistral-common's image encoder, the
// tokenizer of Pixtral and of every Mistral vision model): the image is
// fitted into 1024 x 1024 (Pixtral 12B; later models take up to 1540 px but
// merge 2 x 2 patches of 14 px, which gives fewer tokens) and cut into
// 16 px patches, one token each, plus one break token per row of patches
// (the last one is the end token).
func mistralImage(w, h int) int {
	w, h = fit(w, h, 1024, 0)
	cols, rows := (w+15)/16, (h+15)/16
	return rows * (cols + 1)
}

// largestImage is, for a family with no formula of its own, the largest of
// Mistral's and Anthropic's at 3.75 MP for each size.
func largestImage(w, h int) int {
	return max(mistralImage(w, h), anthropicImage(2576, 3_750_000)(w, h))
}
