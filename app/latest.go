package main

// latest numbers the requests of one kind that a component makes, so
// that only the answer to the newest is applied. Answers arrive in any
// order: a list read before a failure was injected can answer after the
// read that saw it, and must not paint over it.
type latest int

// next starts a request and returns its number.
func (l *latest) next() int {
	*l++
	return int(*l)
}

// is reports whether n is the newest request.
func (l *latest) is(n int) bool { return int(*l) == n }
