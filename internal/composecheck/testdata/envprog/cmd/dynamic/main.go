// Command dynamic reads a variable whose name only exists at run time.
package main

import "os"

func main() {
	for _, name := range os.Args[1:] {
		_ = os.Getenv(name)
	}
}
