package limits

import (
	"io"

	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// scanYAML counts the structure of src on the tokens of the YAML library's
// scanner, the token stream its parser reads (parser.ParseBytes tokenizes
// the whole file, through its errors, before it parses), and returns the
// number of values, or an *Error at the token where src first goes over a
// limit of k. Scanning is linear in the size of src; it stops at the first
// limit passed.
//
// Block collections are told apart by the columns of their entries, as the
// parser's indentation does: a "- " entry, or a key (the first token of a
// line, or after a "- ", "? " or ": " on it, followed by ':'). Flow
// collections by their brackets: an entry is the first token after the
// opening bracket or after a ','. Nesting is block and flow levels together.
// The count never under-counts the parser's nesting; it may over-count it
// for odd but valid files (a complex key, "? ").
func scanYAML(src []byte, k Kind) (int, error) {
	type block struct {
		col     int
		seq     bool
		entries int
	}
	type flow struct {
		entries int
		expect  bool // the next token begins an entry
	}
	var blocks []block
	var flows []flow
	values := 0
	// The first token of a possible key: since the last block indicator
	// ("- ", "? ", ": ") on its line.
	keyLine, keyCol := 0, 0
	lastLine := 0
	// count counts an entry at line:col, the entries-th of its collection.
	count := func(line, col, entries int) error {
		if entries > k.MaxEntries {
			return k.over(line, col, "more than %d entries in one list or mapping", k.MaxEntries)
		}
		values++
		if values > k.MaxValues {
			return k.over(line, col, "more than %d values in one file", k.MaxValues)
		}
		return nil
	}
	// enter records a block entry at line:col: a "- " entry when seq, else
	// a key.
	enter := func(line, col int, seq bool) error {
		for len(blocks) > 0 && blocks[len(blocks)-1].col > col {
			blocks = blocks[:len(blocks)-1]
		}
		if n := len(blocks); n > 0 && blocks[n-1].col == col && blocks[n-1].seq && !seq {
			// A key at the column of a sequence that is a mapping's
			// value ("k:\n- a\nk2: b"): the sequence has ended.
			blocks = blocks[:n-1]
		}
		if n := len(blocks); n > 0 && blocks[n-1].col == col && blocks[n-1].seq == seq {
			blocks[n-1].entries++
			return count(line, col, blocks[n-1].entries)
		}
		// A new collection; a sequence at the column of its mapping's
		// key is that key's value.
		blocks = append(blocks, block{col: col, seq: seq, entries: 1})
		if len(blocks) > k.MaxDepth {
			return k.over(line, col, "nested more than %d levels deep", k.MaxDepth)
		}
		return count(line, col, 1)
	}
	var s scanner.Scanner
	s.Init(string(src))
	for {
		toks, err := s.Scan()
		if err == io.EOF {
			return values, nil
		}
		// Another error is an invalid token, which the parser refuses
		// before it parses anything; the scan goes on as the parser's
		// tokenizer does.
		for _, tk := range toks {
			if tk == nil || tk.Position == nil {
				continue
			}
			line, col := tk.Position.Line, tk.Position.Column
			if line != lastLine {
				lastLine, keyLine = line, 0
			}
			switch tk.Type {
			case token.CommentType:
				continue
			case token.AnchorType, token.AliasType:
				return 0, k.over(line, col, "anchors and aliases (&name, *name) are not supported in %s: an alias can make a small file a huge value", k.Name)
			case token.DocumentHeaderType, token.DocumentEndType:
				blocks, flows, keyLine = nil, nil, 0
				continue
			}
			if n := len(flows); n > 0 {
				switch tk.Type {
				case token.CollectEntryType:
					flows[n-1].expect = true
					continue
				case token.SequenceEndType, token.MappingEndType:
					flows = flows[:n-1]
					continue
				case token.MappingValueType:
					continue
				}
				if flows[n-1].expect {
					flows[n-1].expect = false
					flows[n-1].entries++
					if err := count(line, col, flows[n-1].entries); err != nil {
						return 0, err
					}
				}
			} else {
				switch tk.Type {
				case token.SequenceEntryType:
					keyLine = 0
					if err := enter(line, col, true); err != nil {
						return 0, err
					}
					continue
				case token.MappingKeyType:
					keyLine = 0
					if err := enter(line, col, false); err != nil {
						return 0, err
					}
					continue
				case token.MappingValueType:
					if keyLine == line {
						if err := enter(line, keyCol, false); err != nil {
							return 0, err
						}
					}
					// else the value of a "? " key, on a line of its own
					keyLine = 0
					continue
				case token.SequenceEndType, token.MappingEndType:
					continue // unbalanced: the parser refuses it
				}
				if keyLine != line {
					keyLine, keyCol = line, col
				}
			}
			if tk.Type == token.SequenceStartType || tk.Type == token.MappingStartType {
				flows = append(flows, flow{expect: true})
				if len(blocks)+len(flows) > k.MaxDepth {
					return 0, k.over(line, col, "nested more than %d levels deep", k.MaxDepth)
				}
			}
		}
	}
}
