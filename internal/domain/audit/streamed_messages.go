package audit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/reqbody"
)

// messageFromStream adds Anthropic Messages stream events up to the
// message they describe. The message is message_start's, its members
// merged as they come (a repeated member: the last counts), with
// message_delta's delta members over it, "content" the blocks in index
// order and "usage" the usage: message_start's, or a usage object that a
// message_delta's delta put in the message once a message_start reads it,
// with message_delta's non-null usage members over it. A message_start
// whose message is null drops the message so far, but not the usage or
// the blocks. A block is its content_block_start's object with its text
// and thinking deltas added to its "text" and "thinking", its last
// signature_delta as "signature" and its input_json_delta fragments,
// when together they are JSON, as "input". A delta or usage that is an
// array or a scalar sets its elements, or itself, under the empty name.
// Members keep their raw JSON values and an object's members are written
// in key order. The result is nil when no message is left, or when a
// message_start, content_block_start or message_delta event is not JSON.
//
// Each event is walked once, member by member, and a run of text deltas
// that differ only in their text adds each text without a walk (see
// textTemplate): it runs once per streamed Messages request.
func messageFromStream(stream []byte) json.RawMessage {
	if !utf8.Valid(stream) {
		// Raw values are kept as they are, and the record must be
		// UTF-8 text.
		stream = bytes.ToValidUTF8(stream, []byte("\uFFFD"))
	}
	var m messageSum
	sse.EachData(stream, m.add)
	return m.encode()
}

// messageSum is a Messages stream being added up.
type messageSum struct {
	// started reports that a message_start set msg and no later one
	// dropped it.
	started bool
	// msg is the message's members but "content", and but "usage" when
	// usageInMsg.
	msg rawObject
	// hasUsage reports that usage holds the message's usage. It is kept
	// apart from msg, as message_delta adds to it; usageInMsg reports
	// that msg's own "usage" member is this usage (read from it), not a
	// value set since.
	hasUsage, usageInMsg bool
	usage                rawObject
	// blocks are the content blocks in the order they started.
	blocks []*messageBlock
	// blockAt indexes blocks by index once there are more than a few.
	blockAt map[int64]int
	// tmpl adds the text of a run of text deltas without walking them.
	tmpl textTemplate
	// bad reports that an event whose values are kept is not JSON.
	bad bool
}

// messageBlock is a content block being added up.
type messageBlock struct {
	// index is the block's place in the message.
	index int64
	// members are its content_block_start's.
	members rawObject
	// text, thinking and input are what its deltas added: text and
	// thinking to the string members of those names, input the
	// fragments of the JSON that becomes its "input".
	text, thinking, input strings.Builder
}

// rawMember is a JSON object member: its name and raw value, both
// sharing the bytes of the stream they were read from.
type rawMember struct {
	name string
	raw  []byte
}

// rawObject is a JSON object being assembled.
type rawObject struct {
	// members are in the order they were first set.
	members []rawMember
	// at indexes members by name once there are more than a few, so that
	// an object of many members takes linear time.
	at map[string]int
}

// indexFrom is how many members an object has before they are indexed.
const indexFrom = 16

// find returns the position of the member name; -1 when there is none.
func (o *rawObject) find(name string) int {
	if o.at != nil {
		if i, ok := o.at[name]; ok {
			return i
		}
		return -1
	}
	for i := range o.members {
		if o.members[i].name == name {
			return i
		}
	}
	return -1
}

// set sets the member name to the raw value v.
func (o *rawObject) set(name string, v []byte) {
	if i := o.find(name); i >= 0 {
		o.members[i].raw = v
		return
	}
	if o.members == nil {
		o.members = make([]rawMember, 0, 8)
	}
	o.members = append(o.members, rawMember{name, v})
	switch n := len(o.members); {
	case o.at != nil:
		o.at[name] = n - 1
	case n > indexFrom:
		o.at = make(map[string]int, 2*n)
		for i, m := range o.members {
			o.at[m.name] = i
		}
	}
}

// get returns the raw value of the member name; nil when there is none.
func (o *rawObject) get(name string) []byte {
	if i := o.find(name); i >= 0 {
		return o.members[i].raw
	}
	return nil
}

// merge sets each member of the raw JSON object obj in turn.
func (o *rawObject) merge(obj []byte) {
	reqbody.Members(obj, func(k, v []byte) bool {
		o.set(reqbody.KeyName(k), v)
		return true
	})
}

// isNull reports whether raw is the JSON null.
func isNull(raw []byte) bool { return string(raw) == "null" }

// add adds one event's data.
func (m *messageSum) add(data []byte) {
	if m.tmpl.add(data) {
		return
	}
	var typ, index, message, block, delta, usage []byte
	reqbody.Members(data, func(k, v []byte) bool {
		switch reqbody.KeyName(k) {
		case "type":
			firstRaw(&typ, v)
		case "index":
			firstRaw(&index, v)
		case "message":
			firstRaw(&message, v)
		case "content_block":
			firstRaw(&block, v)
		case "delta":
			firstRaw(&delta, v)
		case "usage":
			firstRaw(&usage, v)
		}
		return true
	})
	t := rawStr(typ)
	switch t {
	case "message_start", "content_block_start", "message_delta":
		// Their values are kept as they are; the walk skipped nested
		// ones without checking them.
		if !gjson.ValidBytes(data) {
			m.bad = true
			return
		}
	}
	switch t {
	case "message_start":
		m.start(message)
	case "content_block_start":
		b := &messageBlock{index: rawValue(index).Int()}
		if isObject(block) {
			b.members.merge(block)
		}
		m.setBlock(b)
	case "content_block_delta":
		if i := m.block(rawValue(index).Int()); i >= 0 {
			m.addDelta(data, m.blocks[i], delta)
		}
	case "message_delta":
		if !m.started {
			return
		}
		eachRawMember(delta, m.setMsg)
		if !m.hasUsage {
			m.usage, m.hasUsage, m.usageInMsg = rawObject{}, true, false
		}
		eachRawMember(usage, func(name string, v []byte) {
			if !isNull(v) {
				m.usage.set(name, v)
			}
		})
	}
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool { return len(raw) > 0 && raw[0] == '{' }

// start merges a message_start's message into the message: an object's
// members are merged, null drops the message, anything else changes
// nothing. Then the message's "usage", when it is an object it has not
// read yet, becomes the usage.
func (m *messageSum) start(message []byte) {
	switch {
	case isNull(message):
		m.started, m.msg, m.usageInMsg = false, rawObject{}, false
	case isObject(message):
		if !m.started {
			m.started, m.msg = true, rawObject{}
		}
		eachRawMember(message, m.setMsg)
	}
	if u := m.msg.get("usage"); m.started && !m.usageInMsg && isObject(u) {
		m.usage, m.hasUsage, m.usageInMsg = rawObject{}, true, true
		m.usage.merge(u)
	}
}

// setMsg sets the message's member name to v. A "usage" member set so is
// a value of its own, no longer the usage read from the message.
func (m *messageSum) setMsg(name string, v []byte) {
	m.msg.set(name, v)
	if name == "usage" {
		m.usageInMsg = false
	}
}

// block returns the position of the block of this index; -1 when none
// started.
func (m *messageSum) block(index int64) int {
	if m.blockAt != nil {
		if i, ok := m.blockAt[index]; ok {
			return i
		}
		return -1
	}
	return slices.IndexFunc(m.blocks, func(b *messageBlock) bool { return b.index == index })
}

// setBlock adds b, in place of an earlier block of its index.
func (m *messageSum) setBlock(b *messageBlock) {
	if i := m.block(b.index); i >= 0 {
		m.blocks[i] = b
		return
	}
	m.blocks = append(m.blocks, b)
	switch n := len(m.blocks); {
	case m.blockAt != nil:
		m.blockAt[b.index] = n - 1
	case n > indexFrom:
		m.blockAt = make(map[int64]int, 2*n)
		for i, b := range m.blocks {
			m.blockAt[b.index] = i
		}
	}
}

// addDelta adds a content_block_delta's delta to its block b; data is
// the event, which becomes the text template when the delta added a text.
func (m *messageSum) addDelta(data []byte, b *messageBlock, delta []byte) {
	var typ, text, thinking, signature, input []byte
	reqbody.Members(delta, func(k, v []byte) bool {
		switch reqbody.KeyName(k) {
		case "type":
			firstRaw(&typ, v)
		case "text":
			firstRaw(&text, v)
		case "thinking":
			firstRaw(&thinking, v)
		case "signature":
			firstRaw(&signature, v)
		case "partial_json":
			firstRaw(&input, v)
		}
		return true
	})
	var dst *strings.Builder
	var s []byte
	switch rawStr(typ) {
	case "text_delta":
		dst, s = &b.text, text
	case "thinking_delta":
		dst, s = &b.thinking, thinking
	case "input_json_delta":
		dst, s = &b.input, input
	case "signature_delta":
		b.members.set("signature", translate.AppendString(nil, rawStr(signature)))
		return
	default:
		return
	}
	dst.WriteString(rawStr(s))
	m.tmpl.learnText(data, s, dst, nil)
}

// encode writes the message; nil when no message is left or an event
// whose values are kept was not JSON.
func (m *messageSum) encode() json.RawMessage {
	if !m.started || m.bad {
		return nil
	}
	m.blockAt = nil
	slices.SortStableFunc(m.blocks, func(a, b *messageBlock) int { return cmp.Compare(a.index, b.index) })
	content := append(make([]byte, 0, 512), '[')
	for i, b := range m.blocks {
		if i > 0 {
			content = append(content, ',')
		}
		content = b.encode(content)
	}
	m.msg.set("content", append(content, ']'))
	if m.hasUsage {
		m.msg.set("usage", m.usage.encode(nil))
	}
	return m.msg.encode(make([]byte, 0, len(content)+512))
}

// encode appends the block as a JSON object to dst, setting its members
// from what its deltas added first.
func (b *messageBlock) encode(dst []byte) []byte {
	for _, f := range [...]struct {
		name string
		sb   *strings.Builder
	}{{"text", &b.text}, {"thinking", &b.thinking}} {
		if f.sb.Len() > 0 {
			b.members.set(f.name, translate.AppendString(nil, rawStr(b.members.get(f.name))+f.sb.String()))
		}
	}
	if b.input.Len() > 0 {
		if in := []byte(b.input.String()); json.Valid(in) {
			b.members.set("input", in)
		}
	}
	return b.members.encode(dst)
}

// encode appends o as a JSON object, its members in name order, to dst.
// It leaves o's members in that order.
func (o *rawObject) encode(dst []byte) []byte {
	slices.SortFunc(o.members, func(a, b rawMember) int { return strings.Compare(a.name, b.name) })
	o.at = nil
	dst = append(dst, '{')
	for i, mem := range o.members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = translate.AppendString(dst, mem.name)
		dst = append(dst, ':')
		dst = append(dst, mem.raw...)
	}
	return append(dst, '}')
}
