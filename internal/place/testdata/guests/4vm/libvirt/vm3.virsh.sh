#!/bin/sh
# dbhost place: guest vm3, libvirt domain vm3: the persistent definition (--config; next start).
# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).
# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/vm3.xml
# ('virsh edit vm3') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.
set -e
virsh setvcpus vm3 14 --maximum --config
virsh setvcpus vm3 14 --config
virsh setmaxmem vm3 25165824KiB --config
virsh setmem vm3 25165824KiB --config
virsh vcpupin vm3 0 16 --config
virsh vcpupin vm3 1 48 --config
virsh vcpupin vm3 2 17 --config
virsh vcpupin vm3 3 49 --config
virsh vcpupin vm3 4 18 --config
virsh vcpupin vm3 5 50 --config
virsh vcpupin vm3 6 19 --config
virsh vcpupin vm3 7 51 --config
virsh vcpupin vm3 8 20 --config
virsh vcpupin vm3 9 52 --config
virsh vcpupin vm3 10 21 --config
virsh vcpupin vm3 11 53 --config
virsh vcpupin vm3 12 22 --config
virsh vcpupin vm3 13 54 --config
virsh emulatorpin vm3 23,55 --config
virsh numatune vm3 --mode strict --nodeset 2 --config
