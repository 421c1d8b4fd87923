#!/bin/sh
# What the filter does to a system call of another architecture (int 0x80): SIGSYS.
cat > /dev/null
kill -SYS $$
