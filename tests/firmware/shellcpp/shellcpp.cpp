// shellcpp.cpp — the shell's C++ test firmware: a class with a base, a
// struct with a reference member, a global reference, and a function
// taking a reference, whose values the tests expect from here.
#include <avr/io.h>

class Sensor {
public:
	Sensor(uint8_t id) : id_(id), reads_(0) {}
	virtual uint16_t read() { return ++reads_; }
	uint8_t id_;
protected:
	uint16_t reads_;
};

class Thermo : public Sensor {
public:
	Thermo() : Sensor(5), offset(-3) {}
	uint16_t read() { return Sensor::read() + (uint16_t)offset; }
	int8_t offset;
};

struct Probe {
	Thermo &t;
	uint8_t port;
};

Thermo thermo;
volatile uint16_t total = 1000;
volatile uint16_t &total_ref = total;
Probe probe = { thermo, 2 };

__attribute__((noinline)) void account(Sensor &s, volatile uint16_t &sum)
{
	sum += s.read();
	PORTB = s.id_;
}

int main()
{
	for (;;)
		account(thermo, total_ref);
}
