package scenario

import (
	"errors"
	"fmt"

	"github.com/waitsim/waitsim/results"
)

// ReadYAML reads a YAML file of another of waitsim's loaders (the mutation
// gate's accepted survivors) through the scenario files' limits
// (limits.go): at most MaxFileBytes bytes, never reading more; UTF-8 text;
// at most MaxDepth levels, MaxEntries entries a list or mapping and
// MaxValues values, counted before any parser sees it. A file over a limit
// is a *results.FileError with one problem naming the file, the line, the
// column and the field; an error of the file system (no such file,
// permission) is returned as it is, so os.IsNotExist holds for a missing
// file.
func ReadYAML(file string) ([]byte, error) {
	src, err := readLimited(file)
	var pe *posError
	if errors.As(err, &pe) {
		return nil, &results.FileError{Problems: []results.Problem{yamlProblem(file, err)}}
	}
	if err != nil {
		return nil, err
	}
	if line, col, b, bad := notUTF8(src); bad {
		return nil, &results.FileError{Problems: []results.Problem{{File: file, Line: line, Column: col, Field: "file",
			Message: fmt.Sprintf("byte 0x%02x is not UTF-8 text: the file is YAML, written in UTF-8", b)}}}
	}
	if _, err := checkLimits(src); err != nil {
		return nil, &results.FileError{Problems: []results.Problem{yamlProblem(file, err)}}
	}
	return src, nil
}
