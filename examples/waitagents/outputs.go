package waitagents

// cutOutputs cuts the final read's result down (contract §2 step 8): one
// entry per agent of the list that the bridge returned something for, in the
// list's order (the first entry when an id comes twice, entries for ids not
// asked for dropped); per agent its most recent maxMessagesPerAgent messages,
// oldest first; each message cut to the smallest of maxCharsPerMessage and
// what is left of maxCharsPerAgent and of maxTotalChars, counted in Unicode
// code points. truncated reports whether a message or a character was cut.
func cutOutputs(agents []Agent, got []AgentOutput, in input) (outputs []AgentOutput, truncated bool) {
	first := make(map[string][]string, len(got))
	for _, o := range got {
		if _, ok := first[o.SessionID]; !ok {
			first[o.SessionID] = o.Messages
		}
	}
	outputs = []AgentOutput{}
	done := make(map[string]bool, len(agents))
	totalLeft := in.MaxTotalChars
	for _, a := range agents {
		msgs, ok := first[a.SessionID]
		if !ok || done[a.SessionID] {
			continue
		}
		done[a.SessionID] = true
		if n := in.MaxMessagesPerAgent; len(msgs) > n {
			msgs = msgs[len(msgs)-n:]
			truncated = true
		}
		agentLeft := in.MaxCharsPerAgent
		kept := make([]string, 0, len(msgs))
		for _, m := range msgs {
			limit := min(in.MaxCharsPerMessage, agentLeft, totalLeft)
			if limit <= 0 {
				truncated = true // this message and the ones after it are dropped
				break
			}
			head, n, cut := prefix(m, limit)
			if cut {
				truncated = true
			}
			kept = append(kept, head)
			agentLeft -= n
			totalLeft -= n
		}
		outputs = append(outputs, AgentOutput{SessionID: a.SessionID, Messages: kept})
	}
	return outputs, truncated
}

// prefix returns the first limit code points of s, how many code points that
// is, and whether anything was cut off. An invalid byte counts as one code
// point, as range over a string counts it.
func prefix(s string, limit int) (head string, n int, cut bool) {
	for i := range s {
		if n == limit {
			return s[:i], n, true
		}
		n++
	}
	return s, n, false
}
