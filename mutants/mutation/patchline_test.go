package mutation

import "testing"

// A patch that adds an import and changes a line is at the changed line,
// not at the import (an annotation on the pull request pointed at the
// import); a patch that only inserts is at its first insertion.
func TestAppliedLine(t *testing.T) {
	src := []byte("package p\n\nimport \"fmt\"\n\nfunc f() {\n\tfmt.Println(1)\n}\n")
	both := `--- a/p.go
+++ b/p.go
@@ -2,2 +2,3 @@
 
 import "fmt"
+import "os"
@@ -5,3 +6,3 @@
 func f() {
-	fmt.Println(1)
+	fmt.Fprintln(os.Stdout, 1)
 }
`
	_, ap, err := ApplyPatch(src, both)
	if err != nil {
		t.Fatal(err)
	}
	if ap.Line != 6 {
		t.Errorf("an import and a changed line: Line %d (Lines %v), want 6, the changed line", ap.Line, ap.Lines)
	}
	insert := `--- a/p.go
+++ b/p.go
@@ -5,3 +5,4 @@
 func f() {
+	_ = 0
 	fmt.Println(1)
 }
`
	if _, ap, err = ApplyPatch(src, insert); err != nil {
		t.Fatal(err)
	}
	if ap.Line != 6 {
		t.Errorf("a pure insertion: Line %d (Lines %v), want 6, the line it goes before", ap.Line, ap.Lines)
	}
}
