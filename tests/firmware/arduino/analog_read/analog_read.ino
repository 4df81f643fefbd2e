// arduino-mk: BOARD_TAG=uno
// analog_read — Uno: reads A0 with analogRead (a polled conversion) and
// keeps the last value and a running maximum; Timer 0 ticks meanwhile.
volatile int last;
volatile int highest;
volatile unsigned long samples;

void setup() {
}

void loop() {
  int v = analogRead(A0);
  last = v;
  if (v > highest)
    highest = v;
  samples++;
}
