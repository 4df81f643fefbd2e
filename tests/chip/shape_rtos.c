// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * shape_rtos.c — a tiny preemptive round-robin scheduler on an
 * ATmega328P at 16 MHz whose tick is the watchdog in interrupt mode, as
 * small AVR kernels (FreeRTOS's port with the watchdog as its tick, the
 * Arduino "WDT scheduler" sketches) do it.
 *
 *  - The tick: WDIE = 1, WDE = 0, WDP = 0: a timeout every 2048 cycles of
 *    the 128 kHz oscillator = 16 ms = 2048 * 125 = 256,000 CPU cycles,
 *    counted from the write that starts the watchdog (the first of the
 *    timed sequence's two writes, WDCE | WDE).  Interrupt mode keeps
 *    WDIE set after each interrupt, so it ticks for good: in one second
 *    (16e6 cycles) 1000 / 16 = 62.5, i.e. 62 ticks, the k-th at start +
 *    256,000 k.
 *  - The ISR is naked: it pushes r0, SREG, r1..r31 on the running task's
 *    stack (FreeRTOS's portSAVE_CONTEXT), hands SP to switch_context(),
 *    which keeps it in the task's slot, picks the next task round-robin,
 *    writes WDTCSR as it finds it to PORTC (the tick's report: WDIE must
 *    still be set, 0x40), and returns the next task's SP; the ISR loads
 *    it, pops that task's registers and RETIs into it.
 *  - Three tasks: main is task 0; tasks 1 and 2 start from a stack made
 *    to look as if a tick had saved them at their first instruction.  Task
 *    i counts in its own counter and, whenever PORTB is not 1 << i, writes
 *    it: one PORTB write each time it is switched in (the other tasks
 *    wrote theirs in between) — 01 02 04 01 02 04 ...
 *  - Right after the timed sequence it writes PORTC = 0x3f, a marker 4
 *    cycles (two STS) after the watchdog's start.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

#define NTASKS 3
#define STACK 96

static uint8_t stacks[NTASKS - 1][STACK];
static uint16_t task_sp[NTASKS];
static uint8_t cur;
static volatile uint16_t count[NTASKS];

uint16_t switch_context(uint16_t sp) __attribute__((used, noinline));
uint16_t switch_context(uint16_t sp)
{
	task_sp[cur] = sp;
	cur = (uint8_t)(cur == NTASKS - 1 ? 0 : cur + 1);
	PORTC = WDTCSR;
	return task_sp[cur];
}

#define PUSH_ALL                                                                         \
	"push r0\n\tin r0, __SREG__\n\tpush r0\n\tpush r1\n\tclr r1\n\t"                     \
	"push r2\n\tpush r3\n\tpush r4\n\tpush r5\n\tpush r6\n\tpush r7\n\t"                 \
	"push r8\n\tpush r9\n\tpush r10\n\tpush r11\n\tpush r12\n\tpush r13\n\t"             \
	"push r14\n\tpush r15\n\tpush r16\n\tpush r17\n\tpush r18\n\tpush r19\n\t"           \
	"push r20\n\tpush r21\n\tpush r22\n\tpush r23\n\tpush r24\n\tpush r25\n\t"           \
	"push r26\n\tpush r27\n\tpush r28\n\tpush r29\n\tpush r30\n\tpush r31\n\t"
#define POP_ALL                                                                          \
	"pop r31\n\tpop r30\n\tpop r29\n\tpop r28\n\tpop r27\n\tpop r26\n\t"                 \
	"pop r25\n\tpop r24\n\tpop r23\n\tpop r22\n\tpop r21\n\tpop r20\n\t"                 \
	"pop r19\n\tpop r18\n\tpop r17\n\tpop r16\n\tpop r15\n\tpop r14\n\t"                 \
	"pop r13\n\tpop r12\n\tpop r11\n\tpop r10\n\tpop r9\n\tpop r8\n\t"                   \
	"pop r7\n\tpop r6\n\tpop r5\n\tpop r4\n\tpop r3\n\tpop r2\n\t"                       \
	"pop r1\n\tpop r0\n\tout __SREG__, r0\n\tpop r0\n\t"

ISR(WDT_vect, ISR_NAKED)
{
	__asm__ __volatile__(PUSH_ALL
			     "in r24, __SP_L__\n\t"
			     "in r25, __SP_H__\n\t"
			     "call switch_context\n\t"
			     "out __SP_L__, r24\n\t"
			     "out __SP_H__, r25\n\t"
			     POP_ALL
			     "reti" ::: "memory");
}

static void __attribute__((noreturn)) run(uint8_t me)
{
	uint8_t mine = (uint8_t)(1u << me);
	for (;;) {
		count[me]++;
		if (PORTB != mine)
			PORTB = mine;
	}
}

static void __attribute__((noreturn)) task1(void)
{
	run(1);
}

static void __attribute__((noreturn)) task2(void)
{
	run(2);
}

/* Task i's first context: its entry as the return address (low byte on
 * top, as CALL leaves it), r0 = 0, SREG with I set, r1..r31 = 0. */
static void task_init(uint8_t i, void (*fn)(void))
{
	uint8_t *sp = &stacks[i - 1][STACK - 1];
	uint16_t pc = (uint16_t)fn;
	*sp-- = (uint8_t)(pc & 0xff);
	*sp-- = (uint8_t)(pc >> 8);
	*sp-- = 0;
	*sp-- = 0x80;
	for (uint8_t r = 1; r < 32; r++)
		*sp-- = 0;
	task_sp[i] = (uint16_t)sp;
}

int main(void)
{
	DDRB = 0x07;
	DDRC = 0x3f;
	MCUSR = 0;
	task_init(1, task1);
	task_init(2, task2);
	cur = 0;
	__asm__ __volatile__("wdr\n\t"
			     "sts %[reg], %[open]\n\t"
			     "sts %[reg], %[mode]\n\t"
			     "out %[portc], %[mark]"
			     :
			     : [reg] "n"(_SFR_MEM_ADDR(WDTCSR)),
			       [open] "r"((uint8_t)(_BV(WDCE) | _BV(WDE))),
			       [mode] "r"((uint8_t)_BV(WDIE)), [portc] "I"(_SFR_IO_ADDR(PORTC)),
			       [mark] "r"((uint8_t)0x3f)
			     : "memory");
	sei();
	run(0);
}
