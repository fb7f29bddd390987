package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
)

// xnode is a generic XML element, for structural checks of the HTML page.
type xnode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xnode    `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n *xnode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *xnode) hasClass(c string) bool {
	for _, f := range strings.Fields(n.attr("class")) {
		if f == c {
			return true
		}
	}
	return false
}

// all returns every descendant of n (n included) for which keep is true.
func (n *xnode) all(keep func(*xnode) bool) []*xnode {
	var out []*xnode
	if keep(n) {
		out = append(out, n)
	}
	for i := range n.Nodes {
		out = append(out, n.Nodes[i].all(keep)...)
	}
	return out
}

func parsePage(t *testing.T, page []byte) *xnode {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	var root xnode
	if err := d.Decode(&root); err != nil {
		t.Fatalf("the page is not well-formed: %v", err)
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); err != nil || !ok || len(bytes.TrimSpace(cd)) > 0 {
			t.Fatalf("content after </html>: %v %v", tok, err)
		}
	}
	return &root
}

func TestHTMLStructure(t *testing.T) {
	base, head := loadFixture(t, "base.json"), loadFixture(t, "head.json")
	page := HTML(head, Compare(base, head))
	root := parsePage(t, page)
	if root.XMLName.Local != "html" {
		t.Fatalf("root element %s", root.XMLName.Local)
	}
	// Self-contained: no script, no external reference of any kind.
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`(?i)<script`), regexp.MustCompile(`(?i)(src|href)="(https?:)?//`),
		regexp.MustCompile(`(?i)url\(`), regexp.MustCompile(`(?i)@import`), regexp.MustCompile(`(?i)https?://`)} {
		if loc := bad.FindIndex(page); loc != nil {
			t.Errorf("external or scripted content %q at byte %d", page[loc[0]:loc[1]], loc[0])
		}
	}
	sections := root.all(func(n *xnode) bool { return n.XMLName.Local == "section" && n.hasClass("case") })
	if len(sections) != len(head.Scenarios.Cases) {
		t.Fatalf("%d case sections for %d cases", len(sections), len(head.Scenarios.Cases))
	}
	for i, sec := range sections {
		c := head.Scenarios.Cases[i]
		if sec.attr("data-case") != c.ID {
			t.Errorf("section %d is %q, want %q", i, sec.attr("data-case"), c.ID)
		}
		svgs := sec.all(func(n *xnode) bool { return n.XMLName.Local == "svg" })
		if len(svgs) != 1 {
			t.Errorf("%s: %d svg elements", c.ID, len(svgs))
			continue
		}
		lanes := map[string]bool{}
		for _, l := range svgs[0].all(func(n *xnode) bool { return n.hasClass("lane") }) {
			lanes[l.attr("data-lane")+":"+l.attr("data-name")] = true
		}
		// A lane per caller and a tool lane; the bridge slot when requests exist.
		for _, cs := range c.Calls {
			if !lanes["caller:"+cs.Caller] {
				t.Errorf("%s: no lane for caller %s (lanes %v)", c.ID, cs.Caller, lanes)
			}
		}
		if !lanes["tool:A"] {
			t.Errorf("%s: no tool lane", c.ID)
		}
		if len(c.BridgeReqs) > 0 && !lanes["bridge:"] {
			t.Errorf("%s: no bridge slot lane", c.ID)
		}
		// Deadline rules at every call's deadline; a reply mark per call.
		marks := map[string]int{}
		deadlines := map[string]bool{}
		for _, m := range svgs[0].all(func(n *xnode) bool { return n.hasClass("mark") }) {
			for _, cl := range []string{"deadline", "reply", "lostreply"} {
				if m.hasClass(cl) {
					marks[cl]++
					if cl == "deadline" {
						deadlines[m.attr("data-ms")] = true
					}
				}
			}
		}
		for _, ev := range c.ToolEvents {
			if ev.Kind == "start" && !deadlines[fmt.Sprint(ev.DeadlineMs)] {
				t.Errorf("%s: no deadline mark at %d ms", c.ID, ev.DeadlineMs)
			}
		}
		if marks["reply"]+marks["lostreply"] != len(c.Calls) {
			t.Errorf("%s: %d reply marks for %d calls", c.ID, marks["reply"]+marks["lostreply"], len(c.Calls))
		}
	}
	// Agents get lanes: the congested case has w1, w2 and w3 (w3 joins at 4000 ms).
	var congested *xnode
	for _, sec := range sections {
		if sec.attr("data-case") == "two-callers-congested" {
			congested = sec
		}
	}
	agents := map[string]bool{}
	for _, l := range congested.all(func(n *xnode) bool { return n.hasClass("lane-agent") }) {
		agents[l.attr("data-name")] = true
	}
	if len(agents) != 3 || !agents["w1"] || !agents["w2"] || !agents["w3"] {
		t.Errorf("agent lanes %v", agents)
	}
	var w3 []string
	for _, s := range congested.all(func(n *xnode) bool { return n.hasClass("span") && (n.hasClass("active") || n.hasClass("terminal")) }) {
		w3 = append(w3, s.attr("data-start")+"-"+s.attr("data-end"))
	}
	if !strings.Contains(strings.Join(w3, " "), "4000-15000") {
		t.Errorf("w3 runs from its join at 4000 to its completion at 15000; spans %v", w3)
	}
	// Each mutant has a row; each survivor (or timed-out mutant) its diff.
	rows := root.all(func(n *xnode) bool { return n.XMLName.Local == "tr" && strings.HasPrefix(n.attr("class"), "m-") })
	if len(rows) != len(head.Mutation.Mutants) {
		t.Errorf("%d mutant rows for %d mutants", len(rows), len(head.Mutation.Mutants))
	}
	if d := root.all(func(n *xnode) bool { return n.hasClass("diff") }); len(d) != 2 {
		t.Errorf("%d diffs, want 2 (survived and timed out)", len(d))
	}
	if !bytes.Contains(page, []byte(`class="verdict v-regressed"`)) {
		t.Error("the comparison's verdict is not on the page")
	}
	if again := HTML(loadFixture(t, "head.json"), Compare(loadFixture(t, "base.json"), loadFixture(t, "head.json"))); !bytes.Equal(page, again) {
		t.Error("two renders differ")
	}
}

func TestHTMLEscapes(t *testing.T) {
	r := smallRun()
	r.Scenarios.Cases[1].Protects = "<script>alert(1)</script> & \x01"
	page := HTML(r, nil)
	parsePage(t, page)
	if bytes.Contains(page, []byte("<script>")) {
		t.Error("text is not escaped")
	}
}
