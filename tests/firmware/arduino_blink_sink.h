/*
 * arduino_blink_sink.h — the device log's sink for tests that use
 * `avrr tracer --log func` (docs/device.md): each byte to GPIOR0, a
 * general-purpose register the firmware does not use, where `avrr device
 * --log-reg GPIOR0` captures it (on a board: a logic analyser, or SPI).
 */
#include <avr/io.h>
#include <stdint.h>

void avrr_log_sink(uint8_t byte)
{
	GPIOR0 = byte;
}
