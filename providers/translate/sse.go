package translate

// Event is one server-sent event as read from an upstream stream. Name is
// the value of the event: line ("" when the event had none) and Data the
// payload of its data: line(s), without the "data: " prefix.
type Event struct {
	Name string
	Data []byte
}

// AppendEvent appends one server-sent event to dst and returns the extended
// slice: "event: NAME\n" (left out when name is ""), "data: DATA\n" and the
// blank line that ends the event. data must not contain a newline (compact
// JSON never does).
func AppendEvent(dst []byte, name string, data []byte) []byte {
	if name != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, name...)
		dst = append(dst, '\n')
	}
	dst = append(dst, "data: "...)
	dst = append(dst, data...)
	return append(dst, '\n', '\n')
}
