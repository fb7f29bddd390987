package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/mutants/mutation"
	"github.com/waitsim/waitsim/mutants/verdict"
	"github.com/waitsim/waitsim/workspace"
)

// shardSet builds the n shard results of a campaign of total operator
// mutants "m00"…, all killed, each shard exactly its share.
func shardSet(t *testing.T, n, total int, opts string) []*verdict.Result {
	t.Helper()
	var ids []string
	for i := 0; i < total; i++ {
		ids = append(ids, string([]byte{'m', byte('0' + i/10), byte('0' + i%10)}))
	}
	camp := &verdict.Campaign{Total: total, IDsHash: verdict.IDsHash(ids)}
	var out []*verdict.Result
	for k := 1; k <= n; k++ {
		sh := verdict.Shard{K: k, N: n}
		r := &verdict.Result{Version: verdict.ResultVersion, Shard: sh.String(), Threshold: 100, Options: opts, Commit: "abc", Campaign: camp,
			Mutants: []verdict.MutantResult{{ID: "sanity", Source: verdict.SourceSanity, Status: verdict.StatusKilled}}}
		for i, id := range ids {
			if sh.Has(i) {
				r.Mutants = append(r.Mutants, verdict.MutantResult{ID: id, Source: verdict.SourceGremlins, Status: verdict.StatusKilled})
			}
		}
		verdict.Evaluate(r)
		out = append(out, r)
	}
	return out
}

func baselineFailed(r *verdict.Result) {
	r.Mutants, r.Campaign = nil, nil
	r.Gate = "baseline failed: the unmutated suite fails (TestTable/a)"
	r.Baseline = &verdict.BaselineFailure{Failed: []string{"TestTable/a"}, Repro: "go test ./scenarios/"}
	r.ExitCode = verdict.ExitUntrusted
}

var names4 = []string{"sh1.json", "sh2.json", "sh3.json", "sh4.json"}

// TestMergeRefuses: P1-a. A failed shard baseline propagates as exit 3
// (also when every shard failed); an incomplete or inconsistent set of
// shards is a usage error naming the shard file.
func TestMergeRefuses(t *testing.T) {
	if m, err := verdict.Merge(shardSet(t, 4, 10, "o"), names4...); err != nil || m.ExitCode != verdict.ExitPass {
		t.Fatalf("a good set: %v, %+v", err, m)
	}
	s := shardSet(t, 4, 10, "o")
	baselineFailed(s[2])
	m, err := verdict.Merge(s, names4...)
	if err != nil || m.ExitCode != verdict.ExitUntrusted || !strings.Contains(m.Gate, "sh3.json") {
		t.Fatalf("one shard's baseline failed: err %v, exit %d, gate %q; want exit 3 naming sh3.json", err, m.ExitCode, m.Gate)
	}
	s = shardSet(t, 4, 10, "o")
	for _, r := range s {
		baselineFailed(r)
	}
	if m, err := verdict.Merge(s, names4...); err != nil || m.ExitCode != verdict.ExitUntrusted {
		t.Fatalf("every baseline failed: err %v, exit %d; want 3", err, m.ExitCode)
	}
	s = shardSet(t, 4, 10, "o")
	setSanity(s[0], verdict.StatusSurvived)
	if m, err := verdict.Merge(s, names4...); err != nil || m.ExitCode != verdict.ExitUntrusted || !strings.Contains(m.Gate, "sh1.json") {
		t.Fatalf("sanity survived in a shard: err %v, exit %d %q", err, m.ExitCode, m.Gate)
	}

	for _, c := range []struct {
		name   string
		mangle func(s []*verdict.Result) []*verdict.Result
		want   []string
	}{
		{"missing shard", func(s []*verdict.Result) []*verdict.Result { return s[:3] }, []string{"4/4 is missing"}},
		{"--only on one shard", func(s []*verdict.Result) []*verdict.Result {
			s[1].Mutants = s[1].Mutants[:2]
			return s
		}, []string{"sh2.json", "share"}},
		{"different options", func(s []*verdict.Result) []*verdict.Result {
			s[3] = shardSet(t, 4, 7, "no-operators")[3]
			return s
		}, []string{"sh4.json", "options"}},
		{"different n", func(s []*verdict.Result) []*verdict.Result {
			s[1] = shardSet(t, 3, 10, "o")[1]
			return s
		}, []string{"sh2.json", "split"}},
		{"different commit", func(s []*verdict.Result) []*verdict.Result {
			s[2].Commit = "abc-dirty"
			return s
		}, []string{"sh3.json", "commit"}},
		{"different tree of one dirty commit", func(s []*verdict.Result) []*verdict.Result {
			for i, r := range s {
				r.Commit, r.Tree = "abc-dirty", "t1"
				if i == 2 {
					r.Tree = "t2"
				}
			}
			return s
		}, []string{"sh3.json", "tree"}},
		{"different suite", func(s []*verdict.Result) []*verdict.Result {
			s[1].Suite = verdict.Suite{Pkg: "./waittool/"}
			return s
		}, []string{"sh2.json", "suite"}},
		{"different suite pattern", func(s []*verdict.Result) []*verdict.Result {
			s[1].Suite.Run = "^TestOther$"
			return s
		}, []string{"sh2.json", "suite"}},
		{"different threshold", func(s []*verdict.Result) []*verdict.Result {
			s[3].Threshold = 90
			return s
		}, []string{"sh4.json", "threshold"}},
		{"different version", func(s []*verdict.Result) []*verdict.Result {
			s[0].Version = verdict.ResultVersion + 1
			return s
		}, []string{"sh1.json", "version"}},
		{"unknown status", func(s []*verdict.Result) []*verdict.Result {
			s[1].Mutants[1].Status = "bogus"
			return s
		}, []string{"sh2.json", s10id(), "bogus"}},
		{"result file escapes", func(s []*verdict.Result) []*verdict.Result {
			s[1].Mutants[1].File = "../../etc/passwd"
			return s
		}, []string{"sh2.json", "file"}},
		{"different campaign", func(s []*verdict.Result) []*verdict.Result {
			s[2] = shardSet(t, 4, 11, "o")[2]
			return s
		}, []string{"sh3.json", "campaigns"}},
		{"wrong share", func(s []*verdict.Result) []*verdict.Result {
			s[0].Mutants[1].ID, s[1].Mutants[1].ID = s[1].Mutants[1].ID, s[0].Mutants[1].ID
			return s
		}, []string{"not in its share"}},
	} {
		_, err := verdict.Merge(c.mangle(shardSet(t, 4, 10, "o")), names4...)
		if err == nil {
			t.Errorf("%s: merged", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

// s10id is the id of the second mutant of shard 2/4 in shardSet(4, 10).
func s10id() string { return "m01" }

// setSanity sets the status of r's sanity mutant and re-evaluates r.
func setSanity(r *verdict.Result, st string) {
	r.Mutants[0].Status = st
	verdict.Evaluate(r)
}

// TestMergeCommandExit: the merge sub-command exits 2 on an inconsistent
// set, 3 on a failed baseline, 0 on -h (listing the exit codes).
func TestMergeCommandExit(t *testing.T) {
	dir := t.TempDir()
	write := func(s []*verdict.Result) []string {
		var ps []string
		for i, r := range s {
			p := filepath.Join(dir, names4[i])
			b, _ := json.Marshal(r)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		return ps
	}
	out := filepath.Join(dir, "m.json")
	s := shardSet(t, 4, 10, "o")
	baselineFailed(s[1])
	var so, se bytes.Buffer
	if code := Command(context.Background(), append([]string{"merge", "-o", out}, write(s)...), &so, &se); code != verdict.ExitUntrusted {
		t.Fatalf("baseline failed in a shard: exit %d\n%s%s", code, so.String(), se.String())
	}
	s = shardSet(t, 4, 10, "o")
	s[1].Mutants = s[1].Mutants[:1]
	se.Reset()
	if code := Command(context.Background(), append([]string{"merge", "-o", out}, write(s)...), &so, &se); code != verdict.ExitUsage || !strings.Contains(se.String(), "sh2.json") {
		t.Fatalf("a short shard: exit %d, stderr %q", code, se.String())
	}
	// Issue 11 item 10: an unknown status is exit 2 naming the file and
	// the mutant (it was exit 1).
	s = shardSet(t, 4, 10, "o")
	s[1].Mutants[1].Status = "bogus"
	se.Reset()
	if code := Command(context.Background(), append([]string{"merge", "-o", out}, write(s)...), &so, &se); code != verdict.ExitUsage ||
		!strings.Contains(se.String(), "sh2.json") || !strings.Contains(se.String(), "mutant m01") || !strings.Contains(se.String(), "bogus") {
		t.Fatalf("an unknown status: exit %d, stderr %q; want %d naming sh2.json and mutant m01", code, se.String(), verdict.ExitUsage)
	}
	se.Reset()
	if code := Command(context.Background(), []string{"merge", "-h"}, &so, &se); code != verdict.ExitPass || !strings.Contains(se.String(), "exit codes") {
		t.Fatalf("merge -h: exit %d\n%s", code, se.String())
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("%s: %v, mode %v; want 0644", out, err, st.Mode())
	}
}

// TestWrongPaths: P1-b and P3. A missing catalog or config, a bad
// efficacy, a bad flag: exit 2 naming the problem, before any work.
func TestWrongPaths(t *testing.T) {
	root, _ := filepath.Abs("testdata/fixture")
	dir := t.TempDir()
	cfg150 := filepath.Join(dir, "150.yaml")
	os.WriteFile(cfg150, []byte("unleash:\n  threshold:\n    efficacy: 150\n"), 0o644)
	cfgNeg := filepath.Join(dir, "neg.yaml")
	os.WriteFile(cfgNeg, []byte("unleash:\n  threshold:\n    efficacy: -5\n"), 0o644)
	cfgNone := filepath.Join(dir, "none.yaml")
	os.WriteFile(cfgNone, []byte("unleash: {}\n"), 0o644)
	base := []string{"--root", root, "--pkg", "./calc/", "--target", "./calc/", "--catalog", "catalog", "--config", "gremlins.yaml", "--no-operators", "--out", filepath.Join(dir, "o.json"), "--no-cache"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--catalog", "/tmp/nope_dir"}, "/tmp/nope_dir"},
		{[]string{"--config", "/tmp/nope.yaml"}, "/tmp/nope.yaml"},
		{[]string{"--config", cfg150}, "150"},
		{[]string{"--config", cfgNeg}, "-5"},
		{[]string{"--config", cfgNone}, "efficacy"},
		{[]string{"--workers", "-1"}, "--workers"},
		{[]string{"--timeout-factor", "0"}, "--timeout-factor"},
		{[]string{"--timeout-floor", "0s"}, "--timeout-floor"},
	} {
		var so, se bytes.Buffer
		code := Command(context.Background(), append(append([]string{}, base...), c.args...), &so, &se)
		if code != verdict.ExitUsage || !strings.Contains(se.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %q", c.args, code, se.String(), verdict.ExitUsage, c.want)
		}
	}
	var so, se bytes.Buffer
	if code := Command(context.Background(), []string{"-h"}, &so, &se); code != verdict.ExitPass || strings.Contains(se.String(), "-shard waitsim") {
		t.Errorf("-h: exit %d\n%s", code, se.String())
	}
}

// TestCatalogYml: a *.yml catalog file is loaded like *.yaml; a missing
// directory is an error; one id in two files is an error.
func TestCatalogYml(t *testing.T) {
	dir := t.TempDir()
	entry := "intent: x\nspec: y\nfile: p.go\npatch: |\n" + indent(patchB)
	os.WriteFile(filepath.Join(dir, "p.go"), []byte("package p\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(entry), 0o644)
	os.WriteFile(filepath.Join(dir, "b.yml"), []byte(entry), 0o644)
	cat, err := mutation.LoadCatalog(dir, ".")
	if err != nil || len(cat) != 2 || cat[1].ID != "b" {
		t.Fatalf("got %+v, %v; want a and b", cat, err)
	}
	if _, err := mutation.LoadCatalog(dir, "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a missing directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "a.yml"), []byte(entry), 0o644)
	if _, err := mutation.LoadCatalog(dir, "."); err == nil {
		t.Fatal("a.yaml and a.yml both loaded")
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

// TestNoOpPatch: P2-d. A catalog patch that changes nothing is an error
// naming the mutant, not a survivor.
func TestNoOpPatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	// Independent of the other campaigns (own copies, temp dirs and
	// processes): run beside them on the second core.
	t.Parallel()
	cfg := fixtureConfig(t, campaign.ModeSchemata)
	dir := t.TempDir()
	for _, n := range []string{"add-subtracts.yaml"} {
		b, _ := os.ReadFile(filepath.Join(cfg.Root, "catalog", n))
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	src, _ := os.ReadFile(filepath.Join(cfg.Root, "calc", "calc.go"))
	line := strings.Split(string(src), "\n")[2]
	noop := "intent: changes nothing\nspec: test\nfile: calc/calc.go\npatch: |\n  --- a/calc/calc.go\n  +++ b/calc/calc.go\n  @@ -3,1 +3,1 @@\n  -" + line + "\n  +" + line + "\n"
	os.WriteFile(filepath.Join(dir, "noop.yaml"), []byte(noop), 0o644)
	cfg.CatalogDir = dir
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(res)["noop"]
	if m.Status != verdict.StatusNoApply || !strings.Contains(m.Detail, "noop") || !strings.Contains(m.Detail, "changes nothing") || res.ExitCode != verdict.ExitGateFailed {
		t.Fatalf("noop: %q %q, exit %d", m.Status, m.Detail, res.ExitCode)
	}
}

// TestCommitDirty: P2-e. A modified tracked file or an untracked (not
// ignored) file makes the commit "-dirty"; an ignored one does not. The tree
// hash tells two dirty trees of one commit apart (issue 11 item 5), and
// changes back when the edit is undone.
func TestCommitDirty(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("ignored\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "x")
	ctx := context.Background()
	state := func() (string, string) {
		t.Helper()
		c, tree, err := workspace.TreeState(ctx, dir)
		if err != nil || c == "" || tree == "" {
			t.Fatalf("TreeState: %q %q %v", c, tree, err)
		}
		return c, tree
	}
	c, clean := state()
	if strings.HasSuffix(c, "-dirty") {
		t.Fatalf("clean tree: %q", c)
	}
	os.WriteFile(filepath.Join(dir, "ignored"), []byte("x\n"), 0o644)
	if c, tree := state(); strings.HasSuffix(c, "-dirty") || tree != clean {
		t.Fatalf("an ignored file made it dirty: %q (tree changed: %t)", c, tree != clean)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("edit one\n"), 0o644)
	c1, tree1 := state()
	if !strings.HasSuffix(c1, "-dirty") || tree1 == clean {
		t.Fatalf("a modified tracked file: %q, tree changed %t; want -dirty and a new tree", c1, tree1 != clean)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("edit two\n"), 0o644)
	if c2, tree2 := state(); c2 != c1 || tree2 == tree1 {
		t.Fatalf("two edits of one commit: %q %q, trees equal %t; want the same commit string and different trees", c1, c2, tree1 == tree2)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644)
	if c, tree := state(); strings.HasSuffix(c, "-dirty") || tree != clean {
		t.Fatalf("edit undone: %q, tree back %t", c, tree == clean)
	}
	os.WriteFile(filepath.Join(dir, "new"), []byte("x\n"), 0o644)
	if c, tree := state(); !strings.HasSuffix(c, "-dirty") || tree == clean {
		t.Fatalf("an untracked file: %q, want -dirty and a new tree", c)
	}
}
