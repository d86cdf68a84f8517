package pricing

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Sources of an override row.
const (
	// SourceConfig marks a row declared in configuration: read-only to
	// the admin API, never stored.
	SourceConfig = "config"
	// SourceAdmin marks a row written through the admin API and stored.
	SourceAdmin = "admin"
)

// Override is an operator's price for one model on one provider.
type Override struct {
	// Provider is a provider instance's name or a provider type; a row
	// for the name wins over one for its type.
	Provider string `json:"provider"`
	// Model is the model id as sent upstream (exact, case-sensitive).
	Model string `json:"model"`
	// Pricing is the price, with the fields of the catalog's pricing
	// object (tiers included); its currency must be USD.
	Pricing catalog.Pricing `json:"pricing"`
	// Source is SourceConfig or SourceAdmin.
	Source string `json:"source"`
	// CreatedAt and UpdatedAt are when the row was first and last
	// stored, or for a configuration row when its configuration was
	// loaded.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Key returns the catalog key of o.
func (o Override) Key() catalog.OverrideKey {
	return catalog.OverrideKey{Provider: o.Provider, Model: o.Model}
}

// Errors of the service, matched with errors.Is.
var (
	// ErrInvalid: an override does not validate.
	ErrInvalid = errors.New("invalid")
	// ErrManaged: the row comes from configuration and is read-only.
	ErrManaged = errors.New("managed by configuration")
	// ErrNotFound: no stored row has the key.
	ErrNotFound = errors.New("not found")
)

// MaxPrice bounds every price of an override (USD per unit or per
// million tokens).
const MaxPrice = 1e6

// Validate checks o's key and prices: provider and model set, every
// price finite, not negative and at most MaxPrice, currency USD (or
// empty), tiers with at most one unbounded band and positive bounds.
// Errors wrap ErrInvalid and an apierr.FieldError naming the field.
func (o Override) Validate() error {
	bad := func(field, msg string) error {
		return fmt.Errorf("%w: %w", ErrInvalid, apierr.FieldMsg(field, msg))
	}
	switch {
	case o.Provider == "":
		return bad("provider", "is required")
	case o.Model == "":
		return bad("model", "is required")
	case len(o.Provider) > 256 || len(o.Model) > 512:
		return bad("model", "provider or model is too long")
	}
	p := o.Pricing
	if p.Currency != "" && p.Currency != "USD" {
		return bad("pricing.currency", "must be USD: spend is kept in USD")
	}
	v := reflect.ValueOf(p)
	t := v.Type()
	for i := range t.NumField() {
		f := v.Field(i)
		if fp, ok := f.Interface().(*float64); ok && fp != nil {
			if msg := priceProblem(*fp); msg != "" {
				return bad("pricing."+jsonName(t.Field(i)), msg)
			}
		}
	}
	unbounded := 0
	for i, tr := range p.Tiers {
		field := fmt.Sprintf("pricing.tiers[%d]", i)
		for name, fp := range map[string]*float64{"input_per_mtok": tr.InputPerMTok, "output_per_mtok": tr.OutputPerMTok} {
			if fp != nil {
				if msg := priceProblem(*fp); msg != "" {
					return bad(field+"."+name, msg)
				}
			}
		}
		switch {
		case tr.UpToTokens != nil && *tr.UpToTokens < 1:
			return bad(field+".up_to_tokens", "must be at least 1")
		case tr.UpToMTok != nil && (!(*tr.UpToMTok > 0) || math.IsInf(*tr.UpToMTok, 0)):
			return bad(field+".up_to_mtok", "must be a positive number")
		case tr.UpToTokens == nil && tr.UpToMTok == nil:
			unbounded++
		}
	}
	if unbounded > 1 {
		return bad("pricing.tiers", "at most one tier may be unbounded")
	}
	return nil
}

// priceProblem says what is wrong with a price, or "".
func priceProblem(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxPrice {
		return fmt.Sprintf("must be a number from 0 to %g", float64(MaxPrice))
	}
	return ""
}

// jsonName returns the JSON name of a struct field.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	for i := range len(tag) {
		if tag[i] == ',' {
			return tag[:i]
		}
	}
	return tag
}
