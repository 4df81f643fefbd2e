# arduino.mk — builds one sketch of this directory with Debian's arduino-mk,
# for debugging: DWARF, no LTO.  Called by the top Makefile as
#   make -C tests/firmware/arduino/NAME -f ../arduino.mk BOARD_TAG=uno OBJDIR=...
# from the sketch's own directory (NAME/NAME.ino, the Arduino layout), so
# that arduino-mk finds the sketch as it would in a user's project.
# Debian's arduino-mk adds no -g, and with LTO avr-gcc 5.4 writes STABS and
# inlines setup/loop/millis into main: both would hide the sketch from avrr.
ARDUINO_DIR   = /usr/share/arduino
ARDMK_DIR     = /usr/share/arduino
AVR_TOOLS_DIR = /usr
ARDUINO_QUIET = 1
USER_LIB_PATH = /nonexistent
# avr-gcc 5.4's C++11 <float.h> lacks DECIMAL_DIG, which WString.cpp uses.
CPPFLAGS     += -DDECIMAL_DIG=__DECIMAL_DIG__ -gdwarf-4
CXXFLAGS_STD  = -std=gnu++11 -fno-threadsafe-statics
CFLAGS_STD    = -std=gnu11
TARGET        = $(notdir $(CURDIR))
include /usr/share/arduino/Arduino.mk
