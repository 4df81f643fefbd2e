// build: -mmcu=atmega328p -DF_CPU=16000000UL
/*
 * bus_devices.c — a firmware talking to sensors on both buses, the
 * stimuli's `i2c` and `spi` devices (docs/stimuli.md), for
 * test_stimuli_devices.c.  On the TWI at 400 kHz: an MPU-6050 at 0x68
 * (WHO_AM_I, a 6-byte burst, registers written then read back, a read
 * from the pointer alone), an HMC5883L at 0x1e (its three ID registers),
 * and address 0x50, where nobody answers.  On the SPI at fosc/4: a BMP280
 * selected by PB2 (bit 7 set reads) and a DS3234 by PB1 (bit 7 set
 * writes), each read, written and read back.
 *
 * Every byte a device gives goes out on PORTD — an output, so a recording
 * logs it and a replay checks it — the byte shifted back during an SPI
 * address or write byte too; every TWI status (TWSR & 0xF8) goes to
 * GPIOR1; GPIOR0 = 1 marks the end.  Timer0 overflows every 2048 cycles
 * meanwhile, so that a replay has interrupts to put in among the bus's
 * bytes.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#define MPU 0x68
#define MAG 0x1e
#define ABSENT 0x50
#define BMP _BV(PB2)
#define RTC _BV(PB1)

ISR(TIMER0_OVF_vect)
{
	GPIOR2++;
}

/* Writes TWCR, waits for TWINT, reports and returns the status. */
static uint8_t twi(uint8_t twcr)
{
	TWCR = twcr;
	while (!(TWCR & _BV(TWINT)))
		;
	uint8_t st = TWSR & 0xf8;
	GPIOR1 = st;
	return st;
}

static void start(void)
{
	twi(_BV(TWINT) | _BV(TWSTA) | _BV(TWEN));
}

static void stop(void)
{
	TWCR = _BV(TWINT) | _BV(TWSTO) | _BV(TWEN);
}

static void send(uint8_t b)
{
	TWDR = b;
	twi(_BV(TWINT) | _BV(TWEN));
}

/* A byte from the slave, acknowledged unless it is the last. */
static uint8_t receive(uint8_t more)
{
	twi(_BV(TWINT) | _BV(TWEN) | (more ? _BV(TWEA) : 0));
	return TWDR;
}

/* n registers from reg on, as a sensor's driver reads them: the pointer
 * written, then a repeated START. */
static void i2c_read(uint8_t sla, uint8_t reg, uint8_t n)
{
	start();
	send(sla << 1);
	send(reg);
	start();
	send(sla << 1 | 1);
	while (n--)
		PORTD = receive(n != 0);
	stop();
}

static void i2c_write(uint8_t sla, uint8_t reg, uint8_t a, uint8_t b, uint8_t n)
{
	start();
	send(sla << 1);
	send(reg);
	send(a);
	if (n > 1)
		send(b);
	stop();
}

static uint8_t spi(uint8_t b)
{
	SPDR = b;
	while (!(SPSR & _BV(SPIF)))
		;
	return SPDR;
}

/* One SPI transfer: select, the address byte and n more, deselect. */
static void spi_xfer(uint8_t cs, uint8_t addr, uint8_t n, uint8_t data)
{
	PORTB &= ~cs;
	PORTD = spi(addr);
	while (n--)
		PORTD = spi(data);
	PORTB |= cs;
}

int main(void)
{
	DDRD = 0xff;
	TCCR0B = _BV(CS01);             /* clk/8 */
	TIMSK0 = _BV(TOIE0);
	sei();

	/* ---- I2C ---- */
	TWSR = 0;
	TWBR = 12;                      /* 400 kHz: 16 + 2 * 12 cycles an SCL period */
	i2c_read(MPU, 0x75, 1);         /* WHO_AM_I */
	i2c_read(MPU, 0x3b, 6);         /* ACCEL_XOUT_H .. ACCEL_ZOUT_L */
	i2c_write(MPU, 0x6b, 0x01, 0, 1);   /* PWR_MGMT_1: wake, PLL clock */
	i2c_read(MPU, 0x6b, 1);
	i2c_write(MPU, 0x19, 0x07, 0x03, 2); /* SMPLRT_DIV, CONFIG: auto-increment */
	i2c_read(MPU, 0x19, 2);
	/* SLA+R alone: the pointer is where the last read left it, 0x1b. */
	start();
	send(MPU << 1 | 1);
	PORTD = receive(0);
	stop();
	i2c_read(MAG, 0x0a, 3);         /* identification A, B, C */
	start();
	send(ABSENT << 1);              /* SLA+W: NACK, 0x20 */
	stop();
	start();
	send(ABSENT << 1 | 1);          /* SLA+R: NACK, 0x48 */
	stop();

	/* ---- SPI ---- */
	PORTB = BMP | RTC;              /* both deselected before they are outputs */
	DDRB = BMP | RTC | _BV(PB3) | _BV(PB5);
	SPCR = _BV(SPE) | _BV(MSTR);
	spi_xfer(BMP, 0xd0, 1, 0);      /* id */
	spi_xfer(BMP, 0x88, 6, 0);      /* dig_T1 .. dig_T3 */
	spi_xfer(BMP, 0x74, 1, 0x27);   /* ctrl_meas (0xf4) written */
	spi_xfer(BMP, 0xf4, 1, 0);      /* and read back */
	/* Deselecting ends a transfer: the next byte is an address again. */
	spi_xfer(BMP, 0xd0, 0, 0);
	spi_xfer(BMP, 0xf4, 1, 0);
	spi_xfer(RTC, 0x0f, 1, 0);      /* control/status */
	spi_xfer(RTC, 0x80, 1, 0x45);   /* seconds written */
	spi_xfer(RTC, 0x00, 1, 0);      /* and read back */

	GPIOR0 = 1;
	for (;;)
		;
}
