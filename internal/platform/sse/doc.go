// Package sse is the server-sent-events wire format: reading raw events
// from a byte stream with a size cap (Reader), parsing an event's name and
// data (Parse, Split, EachData, FirstData), and writing events (Append,
// AppendStart, AppendEnd).
//
// The parsers differ on purpose, each keeping what its callers rely on
// (see TestParsersEdgeCases): Parse and Split keep an event's data
// as sent, [DONE] and empty data included; EachData skips [DONE] and
// events whose data is empty, and drops empty data lines ahead of the
// first non-empty one; FirstData looks at the first data line only and
// says where it starts, so that a caller may edit the event in place.
// None treats a lone carriage return as a line break.
//
// It imports nothing from the project: proxy, translation, audit and the
// test kit all use it.
package sse
