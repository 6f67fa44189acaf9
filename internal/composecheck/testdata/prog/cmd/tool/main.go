// Command tool is a fixture of LoadProgram's tests.
package main

import (
	"fmt"
	"os"

	"example.com/prog/config"
	"example.com/prog/other"
)

const prefix = "TOOL_"

func main() {
	cfg := config.Load(os.Getenv)
	if _, debug := os.LookupEnv(prefix + "DEBUG"); debug {
		fmt.Println(cfg, os.Getenv(other.EnvName), other.Greeting())
	}
}
