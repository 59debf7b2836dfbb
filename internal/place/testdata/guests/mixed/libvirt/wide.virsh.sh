#!/bin/sh
# dbhost place: guest wide, libvirt domain wide: the persistent definition (--config; next start).
# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).
# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/wide.xml
# ('virsh edit wide') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.
set -e
virsh setvcpus wide 24 --maximum --config
virsh setvcpus wide 24 --config
virsh vcpupin wide 0 0 --config
virsh vcpupin wide 1 32 --config
virsh vcpupin wide 2 1 --config
virsh vcpupin wide 3 33 --config
virsh vcpupin wide 4 2 --config
virsh vcpupin wide 5 34 --config
virsh vcpupin wide 6 3 --config
virsh vcpupin wide 7 35 --config
virsh vcpupin wide 8 4 --config
virsh vcpupin wide 9 36 --config
virsh vcpupin wide 10 5 --config
virsh vcpupin wide 11 37 --config
virsh vcpupin wide 12 8 --config
virsh vcpupin wide 13 40 --config
virsh vcpupin wide 14 9 --config
virsh vcpupin wide 15 41 --config
virsh vcpupin wide 16 10 --config
virsh vcpupin wide 17 42 --config
virsh vcpupin wide 18 11 --config
virsh vcpupin wide 19 43 --config
virsh vcpupin wide 20 12 --config
virsh vcpupin wide 21 44 --config
virsh vcpupin wide 22 13 --config
virsh vcpupin wide 23 45 --config
virsh emulatorpin wide 6,14,38,46 --config
virsh numatune wide --mode strict --nodeset 0-1 --config
