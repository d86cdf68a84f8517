package catalog

import "slices"

// Category values of the specification's category enum.
const (
	// CategoryAll is a filter value that matches every model; no model has it.
	CategoryAll = "all"
	// CategoryTextGeneration covers chat and completion models.
	CategoryTextGeneration = "text_generation"
	// CategoryEmbedding covers embedding models.
	CategoryEmbedding = "embedding"
	// CategoryImage covers image generation models.
	CategoryImage = "image"
	// CategoryAudio covers speech-to-text, text-to-speech and audio models.
	CategoryAudio = "audio"
	// CategoryVideo covers video generation models.
	CategoryVideo = "video"
	// CategoryUtility covers moderation, guard and other helper models.
	CategoryUtility = "utility"
)

// ValidCategory reports whether c is a value of the category enum, "all"
// included (it is a valid filter value).
func ValidCategory(c string) bool {
	switch c {
	case CategoryAll, CategoryTextGeneration, CategoryEmbedding, CategoryImage,
		CategoryAudio, CategoryVideo, CategoryUtility:
		return true
	}
	return false
}

// MatchesCategory reports whether m belongs to category. "" and "all" match
// every model, metadata-less ones included; an invalid category matches none.
func MatchesCategory(m Metadata, category string) bool {
	if category == "" || category == CategoryAll {
		return true
	}
	if !ValidCategory(category) {
		return false
	}
	return slices.Contains(m.Categories, category)
}
