package composecheck

import (
	"fmt"
	"regexp"
	"strings"
)

// exactVersionTag is a tag naming one release (1.29.1, 16.4, 2.42.1, or one
// with a suffix such as 1.29.1-tctl-1.18.4-cli-1.5.0), not a moving one like
// latest, 16 or alpine.
var exactVersionTag = regexp.MustCompile(`^v?\d+\.\d+(\.\d+)*([-+_.][0-9A-Za-z.-]+)?$`)

// ImageRef is an image reference split into its parts.
type ImageRef struct {
	Repository string
	Tag        string
	Digest     string
}

// ParseImageRef splits name[:tag][@digest]; a registry port is not a tag.
func ParseImageRef(ref string) ImageRef {
	var r ImageRef
	ref, r.Digest, _ = strings.Cut(ref, "@")
	lastSlash := strings.LastIndex(ref, "/")
	if colon := strings.LastIndex(ref, ":"); colon > lastSlash {
		r.Repository, r.Tag = ref[:colon], ref[colon+1:]
	} else {
		r.Repository = ref
	}
	return r
}

// CheckPinned refuses a reference that can change under the same name: no
// tag, latest, or a tag that is not an exact version. A digest always pins.
func CheckPinned(ref string) error {
	r := ParseImageRef(ref)
	switch {
	case r.Digest != "":
		return nil
	case r.Tag == "":
		return fmt.Errorf("image %q has no tag: it means latest", ref)
	case r.Tag == "latest":
		return fmt.Errorf("image %q is latest", ref)
	case !exactVersionTag.MatchString(r.Tag):
		return fmt.Errorf("image %q: tag %q is not an exact version", ref, r.Tag)
	}
	return nil
}
