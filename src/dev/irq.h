/* irq.h - an interrupt line from a device to the interrupt controller.
 * A device holds one (or more) and drives its level; the board wires the
 * line to a PLIC source when it builds the machine. Level-triggered only:
 * a device keeps the line high while it has something to report. */
#ifndef THEMIS_IRQ_H
#define THEMIS_IRQ_H

#include <stdbool.h>

struct irq_line {
	void (*set)(void *ctl, int source, bool level);
	void *ctl;
	int source;
};

static inline void irq_set(const struct irq_line *l, bool level)
{
	if (l->set)
		l->set(l->ctl, l->source, level);
}

#endif
