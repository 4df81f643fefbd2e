/*
 * log_sink.h — the device log's sink for tests and the cost table that
 * use `avrr tracer --log func` (docs/device.md): each byte to a register
 * the firmware does not use — GPIOR0 where the part has one, else TWAR
 * (the TWI is off) — where `avrr device --log-reg` captures it (on a
 * board: a logic analyser, or an SPI or a second UART).
 */
#include <avr/io.h>
#include <stdint.h>

void avrr_log_sink(uint8_t byte)
{
#ifdef GPIOR0
	GPIOR0 = byte;
#else
	TWAR = byte;
#endif
}
