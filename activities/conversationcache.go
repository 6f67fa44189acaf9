package activities

import (
	"container/list"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/agentrun/agentrun/api"
)

// DefaultConversationCacheBytes bounds the verified conversations a worker
// keeps. At 1,000 messages of a pull request read a conversation is about
// 1.5 MB of canonical JSON, held twice (messages and their encoding), so
// 64 MiB keeps some twenty such runs, and hundreds of ordinary ones.
const DefaultConversationCacheBytes = 64 << 20

// minCachedConversationBytes is the smallest canonical conversation worth
// keeping. Asking again for one below it costs a fraction of a millisecond,
// while a run that waits for approval would hold it, twice over, for as
// long as it waits: in the bench's 2,000 waiting runs such prefixes were
// half the worker's heap.
const minCachedConversationBytes = 16 << 10

// conversationCache keeps, per run, the prefix of its conversation that this
// worker last verified against a reference, so that the run's next model call
// asks the run only for the messages after it. Without it every call fetched,
// decoded and canonicalized the whole conversation: the last steps of a long
// run cost twice the first. The digest of each new reference is still taken
// over the whole conversation, from the hash state the prefix left: a prefix
// the run no longer has cannot pass.
type conversationCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	lru      *list.List // of *verifiedPrefix, most recently used at the front
	byRun    map[string]*list.Element
}

// verifiedPrefix is a run's conversation as far as a reference proved it.
type verifiedPrefix struct {
	runID    string
	messages []api.Message
	// encoding holds the canonical JSON of each message.
	encoding api.ConversationEncoding
	// state is the sha256 state after the canonical JSON of messages without
	// its closing bracket, that is its first hashed bytes.
	state  []byte
	hashed int
	size   int
}

func newConversationCache(maxBytes int) *conversationCache {
	return &conversationCache{maxBytes: maxBytes, lru: list.New(), byRun: map[string]*list.Element{}}
}

// take removes and returns the run's prefix: while a call extends it, a
// concurrent call of the same run misses and fetches everything.
func (c *conversationCache) take(runID string) *verifiedPrefix {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byRun[runID]
	if !ok {
		return nil
	}
	c.remove(el)
	return el.Value.(*verifiedPrefix)
}

// put keeps p as its run's prefix, evicting the least recently used ones
// past the bound; a prefix smaller than minCachedConversationBytes, or
// larger than the whole bound, is not kept.
func (c *conversationCache) put(p *verifiedPrefix) {
	if c == nil || p.size < 2*minCachedConversationBytes || p.size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byRun[p.runID]; ok {
		c.remove(el)
	}
	c.byRun[p.runID] = c.lru.PushFront(p)
	c.bytes += p.size
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *conversationCache) remove(el *list.Element) {
	p := el.Value.(*verifiedPrefix)
	c.lru.Remove(el)
	delete(c.byRun, p.runID)
	c.bytes -= p.size
}

// extend verifies candidate, whose first len(p.messages) messages are p's,
// against ref, hashing only what p has not hashed yet. On success it returns
// the longer prefix; p itself is spent either way.
func (p *verifiedPrefix) extend(ref api.ConversationRef, candidate []api.Message) (*verifiedPrefix, error) {
	if len(candidate) != ref.Length {
		return nil, conversationMismatch(ref, fmt.Sprintf("%d messages instead of %d", len(candidate), ref.Length))
	}
	canonical, err := p.encoding.Canonical(candidate)
	if err != nil {
		return nil, conversationMismatch(ref, err.Error())
	}
	h := sha256.New()
	if p.state != nil {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(p.state); err != nil {
			return nil, fmt.Errorf("restore the conversation digest of run %s: %w", ref.RunID, err)
		}
	}
	// Everything but the closing bracket, which the next message's comma
	// replaces, is the state the next call starts from.
	h.Write(canonical[p.hashed : len(canonical)-1])
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("save the conversation digest of run %s: %w", ref.RunID, err)
	}
	h.Write(canonical[len(canonical)-1:])
	// api.ConversationDigest, taken from the state instead of from the start.
	if digest := hex.EncodeToString(h.Sum(nil)); digest != ref.Digest {
		return nil, conversationMismatch(ref, fmt.Sprintf("digest %s instead of %s", digest, ref.Digest))
	}
	return &verifiedPrefix{
		runID: ref.RunID, messages: candidate, encoding: p.encoding,
		state: state, hashed: len(canonical) - 1, size: 2 * len(canonical),
	}, nil
}

// verifiedFrom checks messages, the whole conversation ref names, from nothing.
func verifiedFrom(ref api.ConversationRef, messages []api.Message) (*verifiedPrefix, error) {
	return (&verifiedPrefix{runID: ref.RunID}).extend(ref, messages)
}

// forModel is what the model is handed: its own slice, so that an append
// to it never writes into the cached one.
func (p *verifiedPrefix) forModel() []api.Message {
	return cloneMessages(p.messages)
}
