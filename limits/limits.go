package limits

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// Format is the language of a kind of file.
type Format int

// The formats waitsim reads.
const (
	// YAML is counted on the tokens of the YAML library's scanner.
	YAML Format = iota
	// JSON is counted by a scanner of JSON's grammar.
	JSON
)

// String is the format's name ("YAML", "JSON").
func (f Format) String() string {
	if f == JSON {
		return "JSON"
	}
	return "YAML"
}

// Kind is a kind of file and its limits.
type Kind struct {
	// Name says what such a file is, for messages: "a scenario file".
	Name   string
	Format Format
	// MaxBytes is the size of a file, in bytes.
	MaxBytes int64
	// MaxDepth is how deeply collections may nest: block and flow
	// collections together.
	MaxDepth int
	// MaxEntries is the number of entries of one list or mapping.
	MaxEntries int
	// MaxValues is the number of entries of all lists and mappings of a
	// file together.
	MaxValues int
}

// Text states k's limits for people.
func (k Kind) Text() string {
	return fmt.Sprintf("at most %d bytes a file, %d levels of nesting, %d entries a list or mapping, %d values a file",
		k.MaxBytes, k.MaxDepth, k.MaxEntries, k.MaxValues)
}

// Error is a file refused before parsing: where (1-based; the column counts
// characters, as the YAML parser's do) and why. Field is "file" for the
// file as a whole (what it is, its size, its encoding), "yaml" or "json"
// for its structure.
type Error struct {
	Line, Column int
	Field        string
	Message      string
}

// Error renders e as "line:column: field: message"; a caller puts the
// file's name before it.
func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s: %s", e.Line, e.Column, e.Field, e.Message)
}

// Text is a file's text as its parser is to read it: Src, without a UTF-8
// byte order mark and with its line breaks written LF (a CRLF or a CR
// alone is one line break), and Values, the entries of lists and mappings
// counted in it.
type Text struct {
	Src    []byte
	Values int
}

// Read reads file as a file of kind k (ReadBytes) and checks it (Check).
// Refusals are *Error; the errors of the file system (no such file,
// permission) are returned as they are (os.IsNotExist holds for a missing
// file).
func Read(file string, k Kind) (Text, error) {
	b, err := ReadBytes(file, k)
	if err != nil {
		return Text{}, err
	}
	return Check(b, k)
}

// ReadBytes reads the bytes of file, a file of kind k, without checking
// what they hold. A file that is not a regular file is refused by what it
// is (a named pipe, a device, a directory…) before it is opened for
// reading, and a file larger than k.MaxBytes without reading more than
// that. Refusals are *Error; the errors of the file system are returned as
// they are.
func ReadBytes(file string, k Kind) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if err := k.regular(st.Mode()); err != nil {
		return nil, err
	}
	if st.Size() > k.MaxBytes {
		return nil, k.tooBig(st.Size())
	}
	// Opened without blocking (open.go), and checked again: a FIFO put in
	// the file's place after the Stat does not hang the open.
	f, err := open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := k.regular(st.Mode()); err != nil {
		return nil, err
	}
	b, err := readLimited(f, st.Size(), k.MaxBytes)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > k.MaxBytes {
		return nil, k.tooBig(max(st.Size(), int64(len(b))))
	}
	return b, nil
}

// readLimited reads r to its end, or to maxBytes+1 bytes when it holds
// more, into a buffer of the size hint says (the file's size, as os.ReadFile
// does: one allocation for a file that does not grow, where io.ReadAll's
// doubling from 512 bytes allocated and cleared about twice the size). The
// hint is bounded by maxBytes: a file that grew after its Stat gets no larger
// buffer than the limit; one that holds more goes on in larger buffers, up
// to maxBytes+1 bytes, which the caller refuses.
func readLimited(r io.Reader, hint, maxBytes int64) ([]byte, error) {
	b := make([]byte, 0, min(max(hint, 0), maxBytes)+1)
	for int64(len(b)) <= maxBytes {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):min(int64(cap(b)), maxBytes+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Check checks src, the bytes of a file of kind k, against k's limits
// without parsing it: its size, its encoding (UTF-8; a UTF-8 byte order
// mark opening it is dropped), then its structure (depth, entries, values;
// anchors and aliases in YAML). It returns the text to parse (its line
// breaks written LF), or an *Error at the first place the file goes over a
// limit.
func Check(src []byte, k Kind) (Text, error) {
	if int64(len(src)) > k.MaxBytes {
		return Text{}, k.tooBig(int64(len(src)))
	}
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if len(src) >= 2 && (src[0] == 0xff && src[1] == 0xfe || src[0] == 0xfe && src[1] == 0xff) {
		return Text{}, &Error{1, 1, "file", fmt.Sprintf("byte 0x%02x is not UTF-8 text: the file starts with a UTF-16 byte order mark; %s is %s, written in UTF-8", src[0], k.Name, k.Format)}
	}
	if line, col, b, bad := notUTF8(src); bad {
		return Text{}, &Error{line, col, "file", fmt.Sprintf("byte 0x%02x is not UTF-8 text: %s is %s, written in UTF-8", b, k.Name, k.Format)}
	}
	if bytes.IndexByte(src, '\r') >= 0 {
		src = lf(src)
	}
	var values int
	var err error
	if k.Format == JSON {
		values, err = scanJSON(src, k)
	} else {
		values, err = scanYAML(src, k)
	}
	if err != nil {
		return Text{}, err
	}
	return Text{Src: src, Values: values}, nil
}

// lf writes every line break of src as LF: CRLF and CR alone are each one
// line break, to YAML as to people's editors. YAML asks a processor to
// normalize line breaks so; the YAML library counts a CRLF after a comment
// as two lines, and written LF the file's lines are the ones its parser
// counts and its editor shows. (In JSON they are white space.)
func lf(src []byte) []byte {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		if src[i] != '\r' {
			out = append(out, src[i])
			continue
		}
		out = append(out, '\n')
		if i+1 < len(src) && src[i+1] == '\n' {
			i++
		}
	}
	return out
}

// regular refuses a file mode that is not a regular file's, by name.
func (k Kind) regular(m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeIrregular != 0:
		what = "an irregular file"
	}
	return &Error{1, 1, "file", fmt.Sprintf("is %s, not a regular file: %s is read only from a regular file (a pipe or a device may never end)", what, k.Name)}
}

// tooBig is the refusal of a file of size bytes.
func (k Kind) tooBig(size int64) error {
	return &Error{1, 1, "file", fmt.Sprintf("is %d bytes, more than the limit of %d for %s (%s)", size, k.MaxBytes, k.Name, Doc)}
}

// over is a refusal at line:column for going over one of k's limits.
func (k Kind) over(line, col int, format string, args ...any) error {
	return &Error{line, col, strings.ToLower(k.Format.String()), fmt.Sprintf(format, args...) + " (" + Doc + ")"}
}

// SplitLines splits s into its lines at every line break the YAML parser
// counts: LF, CRLF and CR alone. The line breaks are not part of the lines.
func SplitLines(s string) []string {
	var lines []string
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(lines, s)
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// notUTF8 finds the first byte of src that is not valid UTF-8 and returns
// its line and column (1-based; lines as SplitLines counts them, the column
// in characters) and the byte; bad is false when src is valid UTF-8.
func notUTF8(src []byte) (line, col int, b byte, bad bool) {
	if utf8.Valid(src) {
		return 0, 0, 0, false
	}
	i := 0 // src holds a bad byte (Valid said so): the loop stops there
	for {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	line, col = posOf(src, i)
	return line, col, src[i], true
}
