package anthropic

// sanitizeToolID makes id acceptable as an Anthropic tool_use id
// (^[a-zA-Z0-9_-]+$) by replacing every other byte with '_'. The mapping is
// deterministic, so an assistant tool call and the tool result answering it
// keep matching ids.
func sanitizeToolID(id string) string {
	ok := true
	for i := 0; i < len(id); i++ {
		if !isToolIDByte(id[i]) {
			ok = false
			break
		}
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !isToolIDByte(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

func isToolIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
