// Package composecheck holds what the tests of docker-compose.yml and the
// Dockerfile need to compare them with the code: each program's settings
// table against the environment compose gives its service, the strings
// (routes) a program's code holds, the stages of a Dockerfile, and the
// search attributes the workflow declares. This machine has no Docker
// engine, so these tests are how the deployment files are kept true.
package composecheck
