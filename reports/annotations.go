package reports

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/reports/model"
)

// GitHub annotations of a mutation result (issue 21 item 4): `waitsim report
// --annotations` prints them as workflow commands on stdout, where a GitHub
// Actions step turns each into an annotation on its file and line.
//
//   - every new survivor (one the accepted file does not list; every survivor
//     when the result has no ratchet) is a ::warning on its mutated line: its
//     intent, and, when `--suggest` found one, the path of the case that
//     kills it;
//   - every accepted survivor that is killed now, and every stale entry, is a
//     ::notice on its entry of the accepted file.
//
// GitHub shows at most 10 warnings and 10 notices of one step: past
// MaxAnnotations of a kind, the last one says how many more there are.

// MaxAnnotations is how many annotations of one kind GitHub shows for a step.
const MaxAnnotations = 10

// Annotations writes m's annotations to w, one workflow command a line, and
// returns how many it wrote. prefix is the module root's path inside the
// repository ("" at its top, else slash-separated and ending in "/"), so that
// each file is named as GitHub names it.
func Annotations(w io.Writer, m *verdict.Result, prefix string) (int, error) {
	if m == nil || m.Baseline != nil {
		return 0, nil
	}
	var warnings, notices []string
	r := m.Ratchet
	isNew := map[string]bool{}
	if r != nil {
		for _, id := range r.New {
			isNew[id] = true
		}
	}
	for _, mu := range model.Survivors(&Run{Mutation: m}) {
		if r != nil && !isNew[mu.ID] {
			continue
		}
		props := []string{}
		if mu.File != "" {
			props = append(props, "file="+escapeProperty(path.Join(prefix, mu.File)))
			if mu.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", mu.Line))
			}
		}
		title := fmt.Sprintf("waitsim: survivor %s (%s)", mu.ID, mu.Status)
		if r != nil {
			title = fmt.Sprintf("waitsim: new survivor %s (%s)", mu.ID, mu.Status)
		}
		props = append(props, "title="+escapeProperty(title))
		msg := mu.Intent
		if msg == "" {
			msg = mu.ID
		}
		if mu.SuggestedFile != "" {
			msg += "\nA case that kills it (waitsim mutate --suggest): " + path.Join(prefix, mu.SuggestedFile)
		}
		if r != nil {
			msg += fmt.Sprintf("\nNew survivor: not in %s. Add a case that kills it, or accept it there with a reason.", path.Join(prefix, r.File))
		}
		warnings = append(warnings, command("warning", props, msg))
	}
	if r != nil {
		entry := func(id string) []string {
			props := []string{"file=" + escapeProperty(path.Join(prefix, r.File))}
			for _, a := range r.Accepted {
				if a.ID == id && a.Line > 0 {
					props = append(props, fmt.Sprintf("line=%d", a.Line))
				}
			}
			return props
		}
		for _, x := range r.Resolved {
			notices = append(notices, command("notice", append(entry(x.ID), "title="+escapeProperty("waitsim: accepted survivor "+x.ID+" is "+x.Status+" now")),
				fmt.Sprintf("The accepted survivor %s is %s now: its entry can go.", x.ID, x.Status)))
		}
		for _, id := range r.Stale {
			notices = append(notices, command("notice", append(entry(id), "title="+escapeProperty("waitsim: stale accepted entry "+id)),
				fmt.Sprintf("No mutant has the id %s any more (its line moved, or it is gone): remove the entry.", id)))
		}
	}
	n := 0
	for _, kind := range []struct {
		name  string
		lines []string
		what  string
	}{{"warning", warnings, "new survivors"}, {"notice", notices, "accepted entries that can go"}} {
		lines := kind.lines
		if len(lines) > MaxAnnotations {
			more := len(lines) - (MaxAnnotations - 1)
			lines = append(lines[:MaxAnnotations-1:MaxAnnotations-1], command(kind.name, []string{"title=" + escapeProperty("waitsim: more "+kind.what)},
				fmt.Sprintf("… and %d more %s (GitHub shows %d annotations of a kind a step): see the job summary or out/mutation.json.", more, kind.what, MaxAnnotations)))
		}
		for _, l := range lines {
			if _, err := io.WriteString(w, l+"\n"); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// command is one workflow command: ::name props::message, escaped.
func command(name string, props []string, msg string) string {
	p := ""
	if len(props) > 0 {
		p = " " + strings.Join(props, ",")
	}
	return "::" + name + p + "::" + escapeData(msg)
}

// escapeData escapes a workflow command's message as GitHub's toolkit does
// (@actions/core escapeData): %, CR and LF, so that the message is one line
// and reads back as written.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value
// (@actions/core escapeProperty): escapeData's, and the : and , that end a
// property.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
