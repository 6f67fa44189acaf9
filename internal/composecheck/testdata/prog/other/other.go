// Package other is imported for one function and one constant.
package other

import "os"

// EnvName is read by the main through this constant.
const EnvName = "OTHER_" + "NAME"

// Greeting reads nothing.
func Greeting() string { return "GET /hello" }

// Secret is not reached from the main.
func Secret() string { return os.Getenv("OTHER_SECRET") }
