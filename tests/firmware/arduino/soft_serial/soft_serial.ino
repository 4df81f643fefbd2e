// arduino-mk: BOARD_TAG=mega BOARD_SUB=atmega2560
// soft_serial — Mega 2560: a SoftwareSerial port on pins 10 (RX, PCINT4)
// and 11 (TX) at 9600 baud that echoes what it receives, and says "tick"
// every 50 ms of millis(); bits are timed by busy loops with interrupts off.
#include <SoftwareSerial.h>

SoftwareSerial port(10, 11);
volatile unsigned int received;
unsigned long last;

void setup() {
  port.begin(9600);
}

void loop() {
  while (port.available()) {
    port.write(port.read());
    received++;
  }
  unsigned long now = millis();
  if (now - last >= 50) {
    last = now;
    port.print("tick\n");
  }
}
