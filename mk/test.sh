# `make test`: every test layer of DESIGN §11 in turn, stopping at the
# first that fails. Each layer's wall time is printed at the end and kept
# in build/test-times.txt.
#
# The Makefile runs this with MAKE set to the make that called it, so the
# layers run under its flags (`make -n test` prints what they would run).
# It is shell rather than a make recipe because part of it runs side by
# side: a background job whose status and output are collected after the
# foreground layers, which a recipe can only say in escaped one-liners.
#
# The order:
#   the npm packages    once, first: both sides below need them, and two
#   and Chromium        `npm ci` (or two apt-get installs) at once would race
#   native, wasm,       in the foreground, one after the other, while in the
#   interop             background the site is built and then the worker
#                       layer runs
#   e2e, smoke          once both sides are over
#
# Why the background, from the start: the worker layer spends most of its
# time waiting on wrangler dev's clocks, connections and browser sessions
# (a whole run of it keeps a fraction of one core busy), and it is the
# longest of the layers before e2e; started after native it left both
# cores nearly idle for a minute and a half while the foreground waited
# for it. Beside native, wasm and interop, its waiting is spent on their
# CPU. The site is built before the worker layer starts because wrangler
# dev serves it and reloads when its assets change; both are over before
# the e2e layer reads the site. The background's output goes to
# build/test-worker.log and is printed when it is over, so the two sides'
# lines do not interleave.

MAKE=${MAKE:-make}
times=build/test-times.txt
worker_log=build/test-worker.log

sub() { "$MAKE" --no-print-directory "$@"; }

# layer NAME [NOTE]: make test-layer-NAME, its wall time (and the note)
# appended to the times; the layer's exit status.
layer() {
	layer_start=$(date +%s)
	sub "test-layer-$1"
	layer_rc=$?
	echo "layer $1: $(( $(date +%s) - layer_start )) s$2" >> "$times"
	return $layer_rc
}

failed() {
	echo "make test: $1 failed"
	exit 1
}

# The site build, then the worker layer; run in the background.
site_then_worker() {
	site_start=$(date +%s)
	if sub build; then
		echo "site build: $(( $(date +%s) - site_start )) s (in the background, beside native, wasm and interop)" >> "$times"
		layer worker " (in the background, after the site build, beside native, wasm and interop)"
	else
		echo "the site build failed"
		false
	fi
}

mkdir -p build && : > "$times"
began=$(date +%s)

sub node-deps chromium || exit 1

site_then_worker > "$worker_log" 2>&1 &
background=$!

foreground=ok
layer native || foreground="layer native"
[ "$foreground" != ok ] || layer wasm || foreground="layer wasm"
[ "$foreground" != ok ] || layer interop || foreground="layer interop"

background_ok=yes
wait "$background" || background_ok=no
echo "--- the site build and the worker layer (in the background):"
cat "$worker_log"
[ "$foreground" = ok ] || failed "$foreground"
[ "$background_ok" = yes ] || failed "the site build or layer worker"

layer e2e || failed "layer e2e"
layer smoke || failed "layer smoke"

echo "all: $(( $(date +%s) - began )) s" >> "$times"
echo "make test: every layer passed"
cat "$times"
