// arduino-mk: BOARD_TAG=uno
// flow_meter — Uno: a flow sensor's pulses on pin 2 (INT0) counted with
// attachInterrupt, a report over Serial every 100 ms of millis(), and 'r'
// on Serial to reset the total.  The shape of a small real sketch: state
// shared between an interrupt and loop(), helpers after their first use.
//
// arduino-mk compiles the .ino as C++ as it stands: unlike the IDE it
// writes no prototypes, so those of the functions used before their
// definitions are written out here.
void onPulse();
void report(unsigned long now);
void handleCommand(int c);

volatile unsigned long pulses;   // since the last report; onPulse writes it
unsigned long total;             // since the start or the last 'r'
unsigned long lastReport;
unsigned int resets;

void setup() {
  Serial.begin(9600);
  pinMode(2, INPUT);
  attachInterrupt(digitalPinToInterrupt(2), onPulse, RISING);
}

void loop() {
  while (Serial.available())
    handleCommand(Serial.read());
  unsigned long now = millis();
  if (now - lastReport >= 100) {
    lastReport = now;
    report(now);
  }
}

void onPulse() {
  pulses++;                      // flow: pulse
}

void report(unsigned long now) {
  noInterrupts();
  unsigned long n = pulses;
  pulses = 0;
  interrupts();
  total += n;                    // flow: total
  Serial.print("t=");
  Serial.print(now);
  Serial.print(" flow=");
  Serial.print(n);
  Serial.print(" total=");
  Serial.println(total);
}

void handleCommand(int c) {
  if (c == 'r') {
    total = 0;
    resets++;                    // flow: reset
  }
}
