// arduino-mk: BOARD_TAG=uno
// attach_interrupt — Uno: counts rising edges on pin 2 (INT0) with
// attachInterrupt, and mirrors the count's low bit on the LED from loop().
volatile unsigned int edges;

void onEdge() {
  edges++;
}

void setup() {
  pinMode(LED_BUILTIN, OUTPUT);
  pinMode(2, INPUT);
  attachInterrupt(digitalPinToInterrupt(2), onEdge, RISING);
}

void loop() {
  noInterrupts();
  unsigned int n = edges;
  interrupts();
  digitalWrite(LED_BUILTIN, n & 1);
}
