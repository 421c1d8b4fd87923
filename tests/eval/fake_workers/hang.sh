#!/bin/sh
# Candidate host code that never returns: the worker goes silent.
cat > /dev/null
echo '{"type":"progress","phase":"correctness"}' >&3
exec sleep 60
