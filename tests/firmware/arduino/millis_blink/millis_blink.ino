// arduino-mk: BOARD_TAG=uno
// millis_blink — Uno: toggles the LED every 25 ms of millis() (Timer 0's
// overflow interrupt, every 1024 us at 16 MHz), without delay(): the
// polling superloop the Arduino examples teach.
volatile unsigned long toggles;
unsigned long last;

void setup() {
  pinMode(LED_BUILTIN, OUTPUT);
}

void loop() {
  unsigned long now = millis();
  if (now - last >= 25) {
    last = now;
    digitalWrite(LED_BUILTIN, !digitalRead(LED_BUILTIN));
    toggles++;
  }
}
