/*
 * funcsheap_noloop.c — nested calls and the heap under interrupts, no delay.
 *
 * Models the FuncsHeapWithoutLoop application of "Tracing Interrupts in
 * Embedded Software" (LCTES'09, §5): FuncsHeap (funcsheap.c, whose comment
 * describes the program) without the 0..0xffff delay loop, i.e. a plain
 * background/foreground system as found in control applications: the
 * interrupt handlers (foreground) sample and count, and the super-loop
 * (background) toggles LEDs and calls func_a back to back.  The same source
 * is compiled, so the two differ in exactly that loop.
 */
#define FUNCSHEAP_NOLOOP
#include "funcsheap.c"
