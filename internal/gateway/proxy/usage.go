package proxy

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// bodyUsage reads the usage of a whole upstream answer of endpoint ep.
func bodyUsage(ep providers.Endpoint, body []byte) (catalog.Usage, bool) {
	switch ep {
	case providers.EndpointMessages:
		u := gjson.GetBytes(body, "usage")
		if !u.IsObject() {
			return catalog.Usage{}, false
		}
		var m translate.MessagesUsage
		m.Merge(u)
		return m.Usage(), true
	case providers.EndpointResponses:
		return translate.ResponsesUsage(gjson.GetBytes(body, "usage"))
	case providers.EndpointSpeech:
		return catalog.Usage{}, false
	case providers.EndpointTranscriptions:
		// Token-billed models report tokens; the others a duration.
		if u := gjson.GetBytes(body, "usage"); u.Get("input_tokens").Exists() {
			return translate.ResponsesUsage(u)
		}
		return catalog.Usage{}, false
	case providers.EndpointCountTokens:
		return catalog.Usage{}, false
	default:
		return translate.ChatUsage(gjson.GetBytes(body, "usage"))
	}
}

// anyUsage reads the usage object of a JSON answer of unknown shape
// (passthrough): Chat Completions counts (prompt_tokens), Anthropic's
// (input_tokens on a Messages provider) or the Responses counts.
func anyUsage(body []byte, messages bool) (catalog.Usage, bool) {
	u := gjson.GetBytes(body, "usage")
	switch {
	case !u.IsObject():
		return catalog.Usage{}, false
	case u.Get("prompt_tokens").Exists():
		return translate.ChatUsage(u)
	case !u.Get("input_tokens").Exists():
		return catalog.Usage{}, false
	case messages:
		var m translate.MessagesUsage
		m.Merge(u)
		return m.Usage(), true
	}
	return translate.ResponsesUsage(u)
}

// speechCharacters is what a speech request is billed by: the characters
// (Unicode code points) of its input text, the raw JSON value of its
// "input" member. Anything but a string counts none.
func speechCharacters(input []byte) int64 {
	v := gjson.ParseBytes(input)
	if v.Type != gjson.String {
		return 0
	}
	return int64(utf8.RuneCountInString(v.Str))
}

// transcriptionSeconds reads the duration of the transcribed recording
// from a whole transcription answer: the usage object of a model billed by
// duration ({"type":"duration","seconds":n}), else the verbose answer's
// "duration". ok is false when the answer reports neither.
func transcriptionSeconds(body []byte) (seconds float64, ok bool) {
	r := gjson.GetManyBytes(body, "usage.type", "usage.seconds", "duration")
	switch {
	case r[0].Str == "duration" && r[1].Type == gjson.Number:
		seconds = r[1].Num
	case r[2].Type == gjson.Number:
		seconds = r[2].Num
	default:
		return 0, false
	}
	if seconds < 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return 0, false
	}
	return seconds, true
}

// recordUnits records what a whole successful answer of c consumed
// besides tokens: the characters of a speech input, the seconds of a
// transcribed recording.
func recordUnits(c *call, body []byte) {
	switch c.ep {
	case providers.EndpointSpeech:
		c.info.SetUnits(catalog.Consumption{Characters: c.characters})
	case providers.EndpointTranscriptions:
		if s, ok := transcriptionSeconds(body); ok {
			c.info.SetUnits(catalog.Consumption{InputSeconds: s})
		}
	}
}

// setUsage records usage u that c's upstream reported, as catalog.CheckUsage
// takes it: negative counts as 0; an absurd count refuses the usage of
// the whole answer, which then has none (and a later report on the same
// answer, such as a stream's next usage event, is ignored). A fault is
// logged and counted once per call.
func (c *call) setUsage(u catalog.Usage) {
	if c.usageRefused {
		return
	}
	u, fault, ok := catalog.CheckUsage(u)
	if fault != catalog.UsageFaultNone && fault != c.usageFault {
		c.usageFault = fault
		c.svc.usageFault(c.provider, c.model, fault)
	}
	if !ok {
		c.usageRefused = true
		c.info.DropUsage()
		return
	}
	c.info.SetUsage(u)
}

// usageFault logs and counts (UsageRejected) a fault of the usage that
// provider p reported for an answer of model.
func (s *Service) usageFault(p providers.Provider, model string, fault catalog.UsageFault) {
	if s == nil {
		return
	}
	name := ""
	if p != nil {
		name = p.Name()
	}
	s.logger().Warn("upstream usage corrected: "+fault.Consequence(), zap.String("provider", name), zap.String("model", catalog.RecordedModelID(model)),
		zap.String("reason", string(fault)), zap.Int64("max_count", catalog.MaxTokenCount))
	if s.UsageRejected != nil {
		s.UsageRejected(name, fault)
	}
}

// usdTicks is how many of xAI's cost ticks make one USD.
const usdTicks = 1e10

// costField is the member of a usage object in which providers of a type
// report the request's price, and how many of its units make one USD.
type costField struct {
	name    string
	perUSD  float64
	present []byte // the member's name, quoted, to skip events without it
}

// reportedCostFields lists the provider types that report their price
// in their usage objects: OpenRouter's usage.cost is in credits, one USD
// each; xAI's usage.cost_in_usd_ticks in ticks, 1e10 to the USD. Both
// arrive with the usage: in a whole answer's usage object and in a
// stream's last usage-carrying event (a chat chunk's usage, a Responses
// stream's response.completed response.usage).
var reportedCostFields = map[string]costField{
	"openrouter": {name: "cost", perUSD: 1, present: []byte(`"cost"`)},
	"xai":        {name: "cost_in_usd_ticks", perUSD: usdTicks, present: []byte(`"cost_in_usd_ticks"`)},
}

// reportedCost reads the price a provider of type providerType reported
// in usage object u; no report when the type reports none, u lacks it, or
// it is not a plausible price (catalog.ReportedUSD).
func reportedCost(providerType string, u gjson.Result) catalog.ReportedCost {
	f, ok := reportedCostFields[providerType]
	if !ok || !u.IsObject() {
		return catalog.ReportedCost{}
	}
	v := u.Get(f.name)
	if v.Type != gjson.Number {
		return catalog.ReportedCost{}
	}
	return catalog.ReportedUSD(v.Num / f.perUSD)
}

// noteCost records on the request the price c's provider reported in
// usage object u, when it reported one. A report without a price leaves
// an earlier one as it is; an answer whose usage was refused
// (usageRefused) has no price either.
func (c *call) noteCost(u gjson.Result) {
	if c.info == nil || c.provider == nil || c.usageRefused {
		return
	}
	if rc := reportedCost(c.provider.Type(), u); rc.OK {
		c.info.SetReportedCost(rc)
	}
}

// noteBodyCost records the price reported in the usage object of a whole
// upstream answer (Chat Completions, Responses or any other shape with a
// top-level usage object).
func (c *call) noteBodyCost(body []byte) {
	if c.reportsCost(body) {
		c.noteCost(gjson.GetBytes(body, "usage"))
	}
}

// noteEventCost records the price reported in an upstream stream event's
// data: a chat chunk's usage, or the usage of a Responses event's
// response (response.completed).
func (c *call) noteEventCost(data []byte) {
	if !c.reportsCost(data) {
		return
	}
	r := gjson.GetManyBytes(data, "usage", "response.usage")
	if r[0].IsObject() {
		c.noteCost(r[0])
		return
	}
	c.noteCost(r[1])
}

// reportsCost reports whether data may carry a price c's provider
// reports: the provider's type reports prices and data names the member
// they are in. It keeps the events of other providers, and most events
// of these, from being parsed.
func (c *call) reportsCost(data []byte) bool {
	if c.provider == nil {
		return false
	}
	f, ok := reportedCostFields[c.provider.Type()]
	return ok && bytes.Contains(data, f.present)
}
