#!/bin/sh
# dbhost place: per-node hugepage pools of 2048 kB for the plan.
# Growing a pool on a running host may fall short (fragmentation): run early at boot and check the value read back.
set -e
# node 0: 10496 pages planned; pool 0 with 0 free
echo 10496 > /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
# node 1: 10496 pages planned; pool 0 with 0 free
echo 10496 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages
# node 2: 4352 pages planned; pool 0 with 0 free
echo 4352 > /sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages
# node 3: 256 pages planned; pool 0 with 0 free
echo 256 > /sys/devices/system/node/node3/hugepages/hugepages-2048kB/nr_hugepages
