#!/bin/sh
# A host-side crash in candidate code: the worker dies by SIGSEGV without a word.
cat > /dev/null
echo '{"type":"progress","phase":"correctness"}' >&3
kill -SEGV $$
