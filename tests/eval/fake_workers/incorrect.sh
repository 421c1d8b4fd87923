#!/bin/sh
cat > /dev/null
echo '{"type":"failure","class":"incorrect","phase":"correctness","message":"output y: mismatch at 3"}' >&3
