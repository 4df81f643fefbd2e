// build: -mmcu=atmega16 -DF_CPU=8000000UL
/*
 * adcapp_tasks.c — traces/adcapp.c run as two cooperative tasks.
 *
 * The bundled adcapp moves its stack only by PUSH, POP, CALL and RET; the
 * paper's applications ran on EPOS, whose threads each have a stack that
 * a context switch saves and restores through SPL and SPH.  This is the
 * same code (included whole, its main renamed and left unused) with its
 * superloop split into two tasks that switch by yield(), which saves the
 * callee-saved registers, stores SP from SPL/SPH, loads the other task's
 * SP into SPL/SPH and returns into it.  make figures compares where
 * frequency-based selection (`avrr select`) ranks SPL and SPH here and in
 * the bundled firmware (results/fig4_tasks.csv).
 *   task 0  (main's stack)  serial commands and readings
 *   task 1  (its own 192 bytes)  the EEPROM writer
 */
#define main adcapp_main
#include "../../traces/adcapp.c"
#undef main

/* Each task's saved SP while the other runs; the current task's index. */
volatile uint16_t task_sp[2] __attribute__((used));
volatile uint8_t task_cur __attribute__((used));
static uint8_t task1_stack[192];

/*
 * Switch to the other task: push r2-r17 and r28-r29 (what a call must
 * preserve; r1 is 0 in both), store SP, load the other's, pop its
 * registers and return where it called yield.  Interrupts are off while
 * SP is half written; SREG's I flag comes back with it.
 */
void yield(void) __attribute__((naked, noinline));
void yield(void)
{
	__asm__ volatile(
		"push r2\n\tpush r3\n\tpush r4\n\tpush r5\n\tpush r6\n\tpush r7\n\t"
		"push r8\n\tpush r9\n\tpush r10\n\tpush r11\n\tpush r12\n\tpush r13\n\t"
		"push r14\n\tpush r15\n\tpush r16\n\tpush r17\n\tpush r28\n\tpush r29\n\t"
		"in r18, __SREG__\n\t"
		"cli\n\t"
		"lds r19, task_cur\n\t"
		"ldi r30, lo8(task_sp)\n\t"
		"ldi r31, hi8(task_sp)\n\t"
		"sbrc r19, 0\n\t"
		"adiw r30, 2\n\t"
		"in r24, __SP_L__\n\t"
		"in r25, __SP_H__\n\t"
		"st Z, r24\n\t"
		"std Z+1, r25\n\t"
		"ldi r24, 1\n\t"
		"eor r19, r24\n\t"
		"sts task_cur, r19\n\t"
		"ldi r30, lo8(task_sp)\n\t"
		"ldi r31, hi8(task_sp)\n\t"
		"sbrc r19, 0\n\t"
		"adiw r30, 2\n\t"
		"ld r24, Z\n\t"
		"ldd r25, Z+1\n\t"
		"out __SP_H__, r25\n\t"
		"out __SREG__, r18\n\t"
		"out __SP_L__, r24\n\t"
		"pop r29\n\tpop r28\n\tpop r17\n\tpop r16\n\tpop r15\n\tpop r14\n\t"
		"pop r13\n\tpop r12\n\tpop r11\n\tpop r10\n\tpop r9\n\tpop r8\n\t"
		"pop r7\n\tpop r6\n\tpop r5\n\tpop r4\n\tpop r3\n\tpop r2\n\t"
		"ret\n\t");
}

static void task1(void) __attribute__((noreturn, used));
static void task1(void)
{
	for (;;) {
		ee_poll();
		yield();
	}
}

/* Task 1's first frame: yield's 18 saved registers (zeros) below the
 * address of task1, high byte first as RET pops it. */
static void task1_create(void)
{
	uint8_t *top = task1_stack + sizeof task1_stack - 1;
	uint16_t pc = (uint16_t)(void *)task1;   /* a word address */
	*top-- = (uint8_t)pc;
	*top-- = (uint8_t)(pc >> 8);
	for (uint8_t i = 0; i < 18; i++)
		*top-- = 0;
	task_sp[1] = (uint16_t)top;
}

int main(void)
{
	init();
	task1_create();
	sei();
	send_line("adcapp ready\r\n", 14);

	for (;;) {
		if (rx_tail != rx_head) {
			uint8_t c = rx_buf[rx_tail];
			rx_tail = (rx_tail + 1) & 7;
			command(c);
		}
		if (sample_q_tail != sample_q_head) {
			struct sample s;
			cli();
			s = sample_q[sample_q_tail];
			sei();
			sample_q_tail = (sample_q_tail + 1) & 7;
			reading(&s);
		}
		yield();
	}
}
