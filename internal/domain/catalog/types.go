package catalog

// Metadata describes one model, mirroring the "model metadata" object of the
// gateway specification. Every field is optional; absent fields are omitted
// from JSON.
type Metadata struct {
	// Capabilities maps a capability name (tools, vision, reasoning, ...)
	// to whether the model supports it.
	Capabilities map[string]bool `json:"capabilities,omitempty"`
	// Categories lists the model's categories (see ValidCategory); never "all".
	Categories []string `json:"categories,omitempty"`
	// ContextWindow is the maximum prompt plus completion size in tokens.
	ContextWindow int64 `json:"context_window,omitempty"`
	// Description is a one-line human description.
	Description string `json:"description,omitempty"`
	// DisplayName is the human name of the model.
	DisplayName string `json:"display_name,omitempty"`
	// Family groups related models (for example "gpt-5" or "claude-sonnet").
	Family string `json:"family,omitempty"`
	// MaxOutputTokens is the largest completion the model produces.
	MaxOutputTokens int64 `json:"max_output_tokens,omitempty"`
	// Modes lists the API modes the model serves (chat, embedding, ...).
	Modes []string `json:"modes,omitempty"`
	// Pricing holds the list prices; nil when unknown or not applicable.
	Pricing *Pricing `json:"pricing,omitempty"`
	// PricingSources names where the prices (and limits) were taken from.
	PricingSources map[string]string `json:"pricing_sources,omitempty"`
	// Rankings maps a leaderboard name to the model's position on it.
	Rankings map[string]Ranking `json:"rankings,omitempty"`
	// Tags are free-form labels such as "preview" or "deprecated".
	Tags []string `json:"tags,omitempty"`
}

// Pricing is the "pricing object" of the specification. Token prices are per
// million tokens; a nil field is unknown or not billed, which differs from an
// explicit zero (free).
type Pricing struct {
	// AudioInputPerMTok prices audio prompt tokens.
	AudioInputPerMTok *float64 `json:"audio_input_per_mtok,omitempty" yaml:"audio_input_per_mtok,omitempty"`
	// AudioOutputPerMTok prices audio completion tokens.
	AudioOutputPerMTok *float64 `json:"audio_output_per_mtok,omitempty" yaml:"audio_output_per_mtok,omitempty"`
	// BatchInputPerMTok prices uncached prompt tokens of batch requests.
	BatchInputPerMTok *float64 `json:"batch_input_per_mtok,omitempty" yaml:"batch_input_per_mtok,omitempty"`
	// BatchOutputPerMTok prices completion tokens of batch requests.
	BatchOutputPerMTok *float64 `json:"batch_output_per_mtok,omitempty" yaml:"batch_output_per_mtok,omitempty"`
	// CacheWritePerMTok prices prompt tokens written to the prompt cache.
	CacheWritePerMTok *float64 `json:"cache_write_per_mtok,omitempty" yaml:"cache_write_per_mtok,omitempty"`
	// CachedInputPerMTok prices prompt tokens read from the prompt cache.
	CachedInputPerMTok *float64 `json:"cached_input_per_mtok,omitempty" yaml:"cached_input_per_mtok,omitempty"`
	// Currency is the ISO 4217 code of every price; empty means USD.
	Currency string `json:"currency,omitempty" yaml:"currency,omitempty"`
	// InputPerImage prices each input image.
	InputPerImage *float64 `json:"input_per_image,omitempty" yaml:"input_per_image,omitempty"`
	// InputPerMTok prices uncached prompt tokens.
	InputPerMTok *float64 `json:"input_per_mtok,omitempty" yaml:"input_per_mtok,omitempty"`
	// OutputPerMTok prices completion tokens.
	OutputPerMTok *float64 `json:"output_per_mtok,omitempty" yaml:"output_per_mtok,omitempty"`
	// PerCharacterInput prices each input character (text to speech).
	PerCharacterInput *float64 `json:"per_character_input,omitempty" yaml:"per_character_input,omitempty"`
	// PerImage prices each generated image.
	PerImage *float64 `json:"per_image,omitempty" yaml:"per_image,omitempty"`
	// PerPage prices each processed document page.
	PerPage *float64 `json:"per_page,omitempty" yaml:"per_page,omitempty"`
	// PerRequest is a flat fee per request.
	PerRequest *float64 `json:"per_request,omitempty" yaml:"per_request,omitempty"`
	// PerSecondInput prices each second of input audio (transcription).
	PerSecondInput *float64 `json:"per_second_input,omitempty" yaml:"per_second_input,omitempty"`
	// PerSecondOutput prices each second of generated audio or video.
	PerSecondOutput *float64 `json:"per_second_output,omitempty" yaml:"per_second_output,omitempty"`
	// ReasoningOutputPerMTok prices reasoning tokens when they are billed
	// apart from other completion tokens.
	ReasoningOutputPerMTok *float64 `json:"reasoning_output_per_mtok,omitempty" yaml:"reasoning_output_per_mtok,omitempty"`
	// Tiers replace InputPerMTok and OutputPerMTok by prompt size; see Cost.
	Tiers []Tier `json:"tiers,omitempty" yaml:"tiers,omitempty"`
}

// Tier is one prompt-size band of a tiered price ("pricing tier" in the
// specification). A tier without UpToTokens and UpToMTok is unbounded.
type Tier struct {
	// InputPerMTok replaces Pricing.InputPerMTok inside the band.
	InputPerMTok *float64 `json:"input_per_mtok,omitempty" yaml:"input_per_mtok,omitempty"`
	// OutputPerMTok replaces Pricing.OutputPerMTok inside the band.
	OutputPerMTok *float64 `json:"output_per_mtok,omitempty" yaml:"output_per_mtok,omitempty"`
	// UpToMTok is the band's upper prompt bound in millions of tokens,
	// used when UpToTokens is absent.
	UpToMTok *float64 `json:"up_to_mtok,omitempty" yaml:"up_to_mtok,omitempty"`
	// UpToTokens is the band's inclusive upper prompt bound (minimum 1).
	UpToTokens *int64 `json:"up_to_tokens,omitempty" yaml:"up_to_tokens,omitempty"`
}

// Ranking is a model's position on one leaderboard.
type Ranking struct {
	// AsOf is the date of the leaderboard snapshot.
	AsOf string `json:"as_of"`
	// Elo is the model's rating.
	Elo float64 `json:"elo"`
	// Rank is the model's 1-based position.
	Rank int `json:"rank"`
}
