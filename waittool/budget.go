package waittool

// bound filters outs to the listed agents, in list order, and cuts them to the
// char budgets of in (contract §2 step 8): the most recent maxMessagesPerAgent
// messages, each at most maxCharsPerMessage characters, at most
// maxCharsPerAgent characters per agent and maxTotalChars over all. Characters
// are Unicode code points. It reports whether any budget cut something, and
// never returns nil.
func bound(outs []AgentOutput, agents []Agent, in Input) ([]AgentOutput, bool) {
	byID := make(map[string]AgentOutput, len(outs))
	for _, o := range outs {
		if _, dup := byID[o.SessionID]; !dup {
			byID[o.SessionID] = o
		}
	}
	result := make([]AgentOutput, 0, len(agents))
	truncated := false
	total := in.MaxTotalChars
	for _, a := range agents {
		o, ok := byID[a.SessionID]
		if !ok {
			continue
		}
		msgs := o.Messages
		if len(msgs) > in.MaxMessagesPerAgent {
			msgs = msgs[len(msgs)-in.MaxMessagesPerAgent:]
			truncated = true
		}
		perAgent := in.MaxCharsPerAgent
		kept := make([]string, 0, len(msgs))
		for _, m := range msgs {
			r := []rune(m)
			limit := min(in.MaxCharsPerMessage, perAgent, total)
			if limit <= 0 {
				truncated = true
				break
			}
			if len(r) > limit {
				r = r[:limit]
				truncated = true
			}
			perAgent -= len(r)
			total -= len(r)
			kept = append(kept, string(r))
		}
		result = append(result, AgentOutput{SessionID: a.SessionID, Messages: kept})
	}
	return result, truncated
}
