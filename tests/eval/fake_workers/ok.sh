#!/bin/sh
# A worker that answers like a healthy one (reads the request, reports, and prints to stdout).
cat > /dev/null
echo '{"type":"hello","protocol":"kp-worker/1","device":{"name":"Fake GPU"}}' >&3
echo '{"type":"progress","phase":"correctness"}' >&3
echo "candidate printed this"
echo '{"type":"result","correctness":{"passed":true},"timing":{"speedup":2.0}}' >&3
