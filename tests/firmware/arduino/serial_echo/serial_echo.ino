// arduino-mk: BOARD_TAG=uno
// serial_echo — Uno: echoes every byte the UART receives, from serialEvent,
// and counts them; the core's HardwareSerial ring buffer is the shared
// state between the RX interrupt and loop().
volatile unsigned long echoed;

void setup() {
  Serial.begin(9600);
}

void loop() {
}

void serialEvent() {
  while (Serial.available()) {
    int c = Serial.read();
    Serial.write((uint8_t)c);
    echoed++;
  }
}
