// arduino-mk: BOARD_TAG=uno
// analog_write — Uno: ramps the PWM duty on pin 9 (Timer 1) and pin 3
// (Timer 2), both phase-correct PWM in Arduino's core, every 2 ms of
// millis().
volatile uint8_t duty;
unsigned long last;

void setup() {
  pinMode(9, OUTPUT);
  pinMode(3, OUTPUT);
}

void loop() {
  unsigned long now = millis();
  if (now - last >= 2) {
    last = now;
    duty++;
    analogWrite(9, duty);
    analogWrite(3, 255 - duty);
  }
}
