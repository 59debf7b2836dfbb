//go:build linux

package facts

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// ethtool ABI (include/uapi/linux/ethtool.h, linux/sockios.h).
const (
	siocEthtool      = 0x8946
	ethtoolGCoalesce = 0x0000000e
)

// ethtoolCoalesce is struct ethtool_coalesce: 23 __u32.
type ethtoolCoalesce struct {
	Cmd                      uint32
	RxCoalesceUsecs          uint32
	RxMaxCoalescedFrames     uint32
	RxCoalesceUsecsIrq       uint32
	RxMaxCoalescedFramesIrq  uint32
	TxCoalesceUsecs          uint32
	TxMaxCoalescedFrames     uint32
	TxCoalesceUsecsIrq       uint32
	TxMaxCoalescedFramesIrq  uint32
	StatsBlockCoalesceUsecs  uint32
	UseAdaptiveRxCoalesce    uint32
	UseAdaptiveTxCoalesce    uint32
	PktRateLow               uint32
	RxCoalesceUsecsLow       uint32
	RxMaxCoalescedFramesLow  uint32
	TxCoalesceUsecsLow       uint32
	TxMaxCoalescedFramesLow  uint32
	PktRateHigh              uint32
	RxCoalesceUsecsHigh      uint32
	RxMaxCoalescedFramesHigh uint32
	TxCoalesceUsecsHigh      uint32
	TxMaxCoalescedFramesHigh uint32
	RateSampleInterval       uint32
}

// ifreqData is struct ifreq with the ifr_data member of its union (the
// union is 24 bytes on 64-bit, 16 on 32-bit: pad to the larger).
type ifreqData struct {
	Name [16]byte
	Data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte
}

// coalesceReader issues ETHTOOL_GCOALESCE on one datagram socket. It needs
// no privilege (the get commands are open to every user).
type coalesceReader struct {
	fd  int
	err error
}

func newCoalesceReader() *coalesceReader {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return &coalesceReader{fd: -1, err: fmt.Errorf("socket for ethtool: %w", err)}
	}
	return &coalesceReader{fd: fd}
}

func (r *coalesceReader) close() {
	if r.fd >= 0 {
		syscall.Close(r.fd)
		r.fd = -1
	}
}

func (r *coalesceReader) read(name string) (*snapshot.Coalesce, error) {
	if r.err != nil {
		return nil, r.err
	}
	if len(name) >= 16 {
		return nil, fmt.Errorf("interface name %q too long for ioctl", name)
	}
	ec := &ethtoolCoalesce{Cmd: ethtoolGCoalesce}
	var ifr ifreqData
	copy(ifr.Name[:], name)
	ifr.Data = unsafe.Pointer(ec)
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(r.fd), siocEthtool, uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(ec)
	switch errno {
	case 0:
	case syscall.EOPNOTSUPP:
		return nil, errors.New("not supported by the driver (ethtool -c fails too)")
	case syscall.EPERM, syscall.EACCES:
		return nil, fs.ErrPermission
	case syscall.ENODEV:
		return nil, fs.ErrNotExist
	default:
		return nil, fmt.Errorf("ioctl ETHTOOL_GCOALESCE: %w", errno)
	}
	return &snapshot.Coalesce{
		RxUsecs:    int64(ec.RxCoalesceUsecs),
		RxFrames:   int64(ec.RxMaxCoalescedFrames),
		TxUsecs:    int64(ec.TxCoalesceUsecs),
		AdaptiveRx: ec.UseAdaptiveRxCoalesce != 0,
		AdaptiveTx: ec.UseAdaptiveTxCoalesce != 0,
	}, nil
}
