// arduino-mk: BOARD_TAG=mega BOARD_SUB=atmega2560
// wire_master — Mega 2560: Wire (TWI) as master addressing a slave at 0x42
// that is not there, every 10 ms of millis(); the bus answers with no ACK,
// so endTransmission() returns 2 (address NACK, TWI status 0x20).
#include <Wire.h>

volatile uint8_t result = 0xff;
volatile unsigned int attempts;
unsigned long last;

void setup() {
  Wire.begin();
}

void loop() {
  unsigned long now = millis();
  if (now - last >= 10) {
    last = now;
    Wire.beginTransmission(0x42);
    Wire.write((uint8_t)attempts);
    result = Wire.endTransmission();
    attempts++;
  }
}
