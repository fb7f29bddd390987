//go:build unix

package limits

import (
	"os"
	"syscall"
)

// open opens file for reading without blocking: opening a FIFO for reading
// blocks until a writer opens it, unless O_NONBLOCK is set (Read refuses
// the FIFO once it is open). Reading a regular file ignores the flag.
func open(file string) (*os.File, error) {
	return os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
