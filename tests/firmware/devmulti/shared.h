/* shared.h — what devmulti's three files share: the counters the two ISRs
 * keep and their set-up functions. */
#ifndef DEVMULTI_SHARED_H
#define DEVMULTI_SHARED_H
#include <stdint.h>

extern volatile uint16_t ticks;     /* tick.c: Timer2 compare matches */
extern volatile uint16_t presses;   /* button.c: rising edges on INT0 */
extern volatile uint8_t level;      /* button.c: PIND as the last press found it */

void tick_init(void);
void button_init(void);
#endif
