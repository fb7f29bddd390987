//go:build !unix

package limits

import "os"

// open opens file for reading (Read has refused a file that is not a
// regular one).
func open(file string) (*os.File, error) { return os.Open(file) }
