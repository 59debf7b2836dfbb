#!/bin/sh
# dbhost place: per-node hugepage pools of 2048 kB for the plan.
# Growing a pool on a running host may fall short (fragmentation): run early at boot and check the value read back.
set -e
# node 0: 12288 pages planned; pool 0 with 0 free
echo 12288 > /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
