// Package standalone is the part of the test kit that imports nothing of
// agentrun's, so that any package's own tests may use it. This file stands in for the process environment in tests: every
// config reader takes a getenv function, so a test hands it a map instead
// of setting variables that parallel tests would share.
package standalone

// Getenv answers from vars as os.Getenv answers from the environment: an
// unset variable is "".
func Getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}
