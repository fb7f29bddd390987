// Package limits is the one gate every YAML or JSON file waitsim reads goes
// through before a parser sees it: scenario files, catalog entries, the
// equivalents file, the gremlins config, the params and results files
// (each a Kind, kinds.go). Read opens a file, Check checks bytes already in
// memory; either returns the text to parse or an *Error naming the
// line:column, the field and what is wrong. ReadBytes is Read's reading
// alone, for bytes that are only compared, never parsed (a hot process's
// kept scenario files).
//
// Rules:
//   - Only a regular file is read: a FIFO, a device, a socket or a
//     directory is refused by what it is before anything is read from it
//     (a FIFO would block the reader, /dev/zero never ends).
//   - Bytes, nesting depth, entries of one list or mapping and values of the
//     whole file are counted before parsing and bounded, so a parser's time
//     and memory are bounded by the file's size.
//   - A YAML file is counted on the tokens of the YAML library's own scanner,
//     the one its parser reads (linear in the file's size): the lines,
//     columns, quotes, comments, block scalars and flow collections it
//     counts are the parser's (a line break is LF, CRLF or CR alone), never
//     a second reading of YAML that a file could make disagree with the
//     parser. A JSON file is counted by a scanner of JSON's grammar.
//   - Anchors and aliases are refused in YAML: expanding aliases can make a
//     small file a huge value.
//   - Text is UTF-8: a UTF-8 byte order mark opening a file is read as YAML
//     and RFC 8259 allow, as nothing (an editor may write one); any other
//     byte that is not UTF-8 is named with its place.
//   - It imports nothing of waitsim: every loader may import it.
package limits
