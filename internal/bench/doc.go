// Package bench holds measurements that need a real Temporal dev server, such
// as how many history bytes a run spends per model call. Its tests print
// figures for the README; they assert sizes, never timings.
package bench
