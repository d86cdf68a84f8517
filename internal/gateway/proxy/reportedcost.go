package proxy

import (
	"bytes"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

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
