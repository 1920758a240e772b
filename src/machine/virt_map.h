/* virt_map.h - the memory map and interrupt numbers of the Linux board, the
 * same as QEMU's `virt` machine so one kernel and one device tree layout
 * serve both. */
#ifndef THEMIS_VIRT_MAP_H
#define THEMIS_VIRT_MAP_H

#define VIRT_TEST_BASE	  0x00100000ULL /* sifive,test1 syscon: poweroff/reboot */
#define VIRT_TEST_SIZE	  0x1000ULL
#define VIRT_RTC_BASE	  0x00101000ULL
#define VIRT_RTC_SIZE	  0x1000ULL
#define VIRT_PLIC_BASE	  0x0c000000ULL
#define VIRT_PLIC_SIZE	  0x600000ULL
#define VIRT_UART_BASE	  0x10000000ULL
#define VIRT_UART_SIZE	  0x100ULL
#define VIRT_VIRTIO_BASE  0x10001000ULL
#define VIRT_VIRTIO_SIZE  0x1000ULL
#define VIRT_VIRTIO_SLOTS 8
#define VIRT_DRAM_BASE	  0x80000000ULL

#define VIRT_IRQ_VIRTIO0 1 /* slot i uses 1 + i */
#define VIRT_IRQ_UART	 10
#define VIRT_IRQ_RTC	 11
#define VIRT_PLIC_NDEV	 95

#define VIRT_TIMEBASE_HZ 10000000ULL /* ticks of `time` per guest second */

#endif
