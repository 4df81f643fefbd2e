# avrr — record/replay debugger for interrupt-driven AVR firmware.
#
#   make               build ./avrr and the bundled firmware (traces/*.elf)
#   make test          unit + integration tests, then again under ASan+UBSan
#   make bench         side-by-side ratios against plain simavr
#   make bench-travel  travel (goto, continue, reverse-continue, reverse-stepi) against a replay;
#                      TRAVEL_INSTRUCTIONS=N (10^8) TRAVEL_SAMPLES=K (100)
#   make bench-scale   record, replay, oracle and shell travel of each bundled firmware at
#                      lengths SCALE="1M 10M 100M 1G" (the default; 10G is 10^10);
#                      SCALE_FIRMWARE=adcapp for one, SCALE_SAMPLES=K reverse-stepi (10)
#   make install PREFIX=/usr/local   (binary, manual page, bash completion, docs)
#   make man           regenerate docs/avrr.1 from the commands' --help
#   make deps          install the Debian packages the build and tests need
#
# Sources are found by directory: every .c under the module directories is
# part of the core library; cli/ holds the binary's entry point; each
# tests/{unit,integration}/test_*.c is its own cmocka test program.
# The front-ends (cli/) link only into the binary.

PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= cc
PKGS      := simavr libelf libdw sqlite3 readline libsodium libxxhash jansson

CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -Wall -Wextra -Werror -Wshadow -D_DEFAULT_SOURCE \
             $(shell pkg-config --cflags $(PKGS)) -I. -I$(BUILD)/gen -MMD -MP
# -lstdc++ for __cxa_demangle, the C++ demangler sim/firmware.c uses.
LDLIBS    += $(shell pkg-config --libs $(PKGS)) -lstdc++ -lm -pthread

ifeq ($(SAN),1)
BUILD     := build-san
CFLAGS    += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
endif

# libFuzzer harnesses (tests/fuzz/): the core built again with clang, for
# coverage-guided fuzzing under ASan and UBSan.
ifeq ($(FUZZ),1)
BUILD     := build-fuzz
CC        := clang
CFLAGS    += -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=fuzzer,address,undefined
# The simulator's loop compares its own state at every instruction:
# libFuzzer's comparison hooks there were 15% of a replaying input's time,
# and no operand is an input's bytes for it to learn from.  Its edges are
# still counted.
$(BUILD)/sim/sim.o: CFLAGS += -fno-sanitize-coverage=trace-cmp
# Likewise the traced registers' names (trace/log.c), matched against
# every register of the MCU's table at each replay's start: 2% of a
# replaying input in comparison hooks, whose operands are the table's.
$(BUILD)/trace/log.o: CFLAGS += -fno-sanitize-coverage=trace-cmp
endif
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(FUZZ_SRC:%.c=build-fuzz/%)
FUZZ_SECONDS ?= 60

MODULES   := util sim trace db rerun recorder fingerprint replayer sweep timeline analyze session shell gdb device dwarf report
CORE_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/ioregs.o
CLI_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard cli/*.c))
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
INTEG_SRC := $(wildcard tests/integration/test_*.c)
TEST_BIN  := $(UNIT_SRC:%.c=$(BUILD)/%) $(INTEG_SRC:%.c=$(BUILD)/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:%.c=$(BUILD)/%)

# Bundled firmware: ATmega16 at 8 MHz, built with DWARF debug info: Debian's
# avr-gcc 5.4 writes stabs for a plain -g, which avr-gdb misreads (32-bit
# variables, backtraces through an ISR) and avrr warns about.
AVR_CC    := avr-gcc
AVR_MCU   := atmega16
AVR_FREQ  := 8000000
AVR_FLAGS := -mmcu=$(AVR_MCU) -DF_CPU=$(AVR_FREQ)UL -Os -gdwarf-4 -std=gnu11 -Wall \
             -Wextra -Werror -I/usr/include/simavr \
             -Wl,--section-start=.mmcu=0x910000
FIRMWARE  := $(patsubst %.c,%.elf,$(wildcard traces/*.c))

# I/O register and vector names, generated from avr-libc, for every MCU the
# installed libsimavr simulates, by each of its names: IOREG_MCUS lists
# simavr's cores one a line, printed at build time from libsimavr's own
# avr_kind table by scripts/simavr-mcus.c; scripts/gen-ioregs.sh keeps the
# names avr-gcc knows (a simavr alias it does not know, such as atmega128L,
# gets the tables of another name of the same core).
IOREG_MCUS := $(BUILD)/gen/simavr-mcus.txt

AVRR := ./avrr
ifeq ($(SAN),1)
AVRR := $(BUILD)/avrr
endif

.PHONY: all test test-plain test-san test-fuzz fuzz fuzz-bins bench bench-scale bench-travel install uninstall \
	deps clean firmware arduino figures table1 device-table man
all: $(AVRR) firmware

firmware: $(FIRMWARE)

$(AVRR): $(CLI_OBJ) $(CORE_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | $(BUILD)/gen/ioregs_gen.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/simavr-mcus: scripts/simavr-mcus.c
	@mkdir -p $(BUILD)/gen
	$(CC) -std=c11 -Wall -Wextra -Werror $(shell pkg-config --cflags simavr) -o $@ $< \
		$(shell pkg-config --libs simavr)

$(IOREG_MCUS): $(BUILD)/gen/simavr-mcus
	$(BUILD)/gen/simavr-mcus > $@.tmp
	mv $@.tmp $@

$(BUILD)/gen/ioregs.c $(BUILD)/gen/ioregs_gen.h &: scripts/gen-ioregs.sh $(IOREG_MCUS)
	sh scripts/gen-ioregs.sh $(BUILD)/gen $(IOREG_MCUS)

$(BUILD)/gen/ioregs.o: $(BUILD)/gen/ioregs.c
	$(CC) $(CFLAGS) -c -o $@ $<

# gdb/avrr.gdb (the monitor commands as gdb commands), shipped as a file for
# IDEs and built into avrr, which hands it to the avr-gdb it starts.
$(BUILD)/gen/avrr_gdb.h: gdb/avrr.gdb
	@mkdir -p $(BUILD)/gen
	{ echo '/* Generated from gdb/avrr.gdb by the Makefile. */'; \
	  echo 'static const char AVRR_GDB_SCRIPT[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp
	mv $@.tmp $@
$(BUILD)/cli/cmd_gdb.o: $(BUILD)/gen/avrr_gdb.h

$(BUILD)/tests/%: tests/%.c $(CORE_OBJ) tests/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS) -lcmocka
# The docs runner (tests/docs/): every command block of README.md and
# docs/*.md run and its output compared, counted by tests/run.sh as an
# integration suite; a link, so that it finds the pages from the tree.
# Not under SAN=1: it checks what the commands print, which the plain
# build has checked, and the suites check the sanitized code paths.
ifneq ($(SAN),1)
TEST_BIN  += $(BUILD)/tests/integration/test_docs
endif
$(BUILD)/tests/integration/test_docs: tests/docs/test_docs
	@mkdir -p $(dir $@)
	ln -sf $(abspath $<) $@

$(BUILD)/tests/fuzz/%: tests/fuzz/%.c $(CORE_OBJ) $(wildcard tests/fuzz/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS)

traces/%.elf: traces/%.c Makefile
	$(AVR_CC) $(AVR_FLAGS) -o $@ $<

traces/funcsheap_noloop.elf: traces/funcsheap.c

# Test firmware for several MCUs: each tests/firmware/NAME.c names its
# -mmcu and F_CPU on a first line "// build: -mmcu=... -DF_CPU=...".
TEST_FIRMWARE := $(patsubst %.c,%.elf,$(wildcard tests/firmware/*.c))
TEST_FW_FLAGS := -Os -gdwarf-4 -std=gnu11 -Wall -Wextra -Werror -I/usr/include/simavr \
                 -Wl,--section-start=.mmcu=0x910000

tests/firmware/%.elf: tests/firmware/%.c Makefile
	$(AVR_CC) $$(sed -n '1s|^// build: ||p' $<) $(TEST_FW_FLAGS) -o $@ $<
# The chip conformance suite's firmware (tests/chip/, test_conformance):
# built the same way, without simavr's section (MCU and clock are given
# to sim_open), as most real builds are.
CHIP_FIRMWARE := $(patsubst %.c,%.elf,$(wildcard tests/chip/*.c))
TEST_FIRMWARE += $(CHIP_FIRMWARE)
tests/chip/%.elf: tests/chip/%.c Makefile
	$(AVR_CC) $$(sed -n '1s|^// build: ||p' $<) -Os -gdwarf-4 -std=gnu11 -Wall -Wextra -Werror \
		-o $@ $<

# adcapp's code as two cooperative tasks (Fig. 4 of make figures).
tests/firmware/adcapp_tasks.elf: traces/adcapp.c
# funcsheap_noloop grown to ~14 KB (the size section of make figures).
tests/firmware/funcsheap_big.elf: traces/funcsheap.c

# funcsheap with DWARF debug info, whose call frame information lets gdb
# unwind an interrupt frame (stabs, avr-gcc's -g, has none).  The bundled
# build is DWARF now too; test_gdb keeps its own name for it.
TEST_FIRMWARE += tests/firmware/funcsheap_dwarf.elf
tests/firmware/funcsheap_dwarf.elf: traces/funcsheap.c Makefile
	$(AVR_CC) $(AVR_FLAGS) -o $@ $<

# adcapp and funcsheap as avr-gcc's plain -g builds them, with stabs: what
# the line table reads from stabs (test_lines), what the debug-info warning
# names (test_console), and how the shell prints without DWARF types
# (test_expr, test_shell, test_tty).
TEST_FIRMWARE += tests/firmware/adcapp_stabs.elf tests/firmware/funcsheap_stabs.elf
tests/firmware/%_stabs.elf: traces/%.c Makefile
	$(AVR_CC) $(subst -gdwarf-4,-g,$(AVR_FLAGS)) -o $@ $<

# The debugging walk-through's firmware (docs/gdb.md, docs/shell.md), with
# DWARF so that gdb and the shell see its types, frames and locals.
tests/firmware/sensors.elf: tests/firmware/sensors.c Makefile
	$(AVR_CC) -mmcu=atmega328p -DF_CPU=16000000UL -Os -gdwarf-4 -std=gnu11 -Wall -Wextra \
		-Werror -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000 -o $@ $<

# The pump controller (tests/firmware/multi/): a project of several units
# built by its own plain Makefile, as a user's is, with no simulator
# section (MCU and clock are given to record), for two parts; the objects
# go under build/multi/MCU, the ELF beside the sources.
MULTI_MCUS := atmega328p atmega2560
MULTI_ELF  := $(MULTI_MCUS:%=tests/firmware/multi/pump_%.elf)
TEST_FIRMWARE += $(MULTI_ELF)
tests/firmware/multi/pump_%.elf: $(wildcard tests/firmware/multi/*.[ch]) tests/firmware/multi/Makefile
	$(MAKE) -s -C tests/firmware/multi MCU=$* F_CPU=16000000 OBJDIR=$(abspath build/multi/$*) >/dev/null
	cp build/multi/$*/pump.elf $@

# The shell's multi-file firmware: globals defined in one unit and declared
# extern in another, statics of one name in two units (test_expr).
TEST_FIRMWARE += tests/firmware/shellmulti.elf
SHELLMULTI_SRC := $(wildcard tests/firmware/shellmulti/*.c tests/firmware/shellmulti/*.S)
tests/firmware/shellmulti.elf: $(SHELLMULTI_SRC) tests/firmware/shellmulti/tank.h Makefile
	$(AVR_CC) -mmcu=atmega328p -DF_CPU=16000000UL $(TEST_FW_FLAGS) -o $@ $(SHELLMULTI_SRC)
# C++ for the shell: a class with a base, references (test_scope); no
# simavr section (C++ cannot compile its initializer): --mcu and --freq.
TEST_FIRMWARE += tests/firmware/shellcpp.elf
tests/firmware/shellcpp.elf: tests/firmware/shellcpp/shellcpp.cpp Makefile
	avr-g++ -mmcu=atmega328p -DF_CPU=16000000UL -Os -gdwarf-4 -Wall -Wextra -Werror -o $@ $<
# The same as DWARF 2, whose member offsets are DW_OP_plus_uconst expressions.
TEST_FIRMWARE += tests/firmware/shellmulti_dwarf2.elf
tests/firmware/shellmulti_dwarf2.elf: $(SHELLMULTI_SRC) tests/firmware/shellmulti/tank.h Makefile
	$(AVR_CC) -mmcu=atmega328p -DF_CPU=16000000UL $(subst -gdwarf-4,-gdwarf-2,$(TEST_FW_FLAGS)) \
		-o $@ $(SHELLMULTI_SRC)

# Arduino sketches (tests/firmware/arduino/NAME/NAME.ino), built as a user
# would with Debian's arduino-mk through tests/firmware/arduino/arduino.mk
# (DWARF, no LTO); each sketch's first line names its board's arduino-mk
# variables, "// arduino-mk: BOARD_TAG=uno".  The objects go under
# $(BUILD)/arduino/NAME, the ELF next to the sketch directory.
ARDUINO_INO := $(wildcard tests/firmware/arduino/*/*.ino)
ARDUINO_ELF := $(foreach d,$(ARDUINO_INO),tests/firmware/arduino/$(notdir $(patsubst %/,%,$(dir $(d)))).elf)
TEST_FIRMWARE += $(ARDUINO_ELF)
arduino: $(ARDUINO_ELF)

define ARDUINO_RULE
tests/firmware/arduino/$(1).elf: tests/firmware/arduino/$(1)/$(1).ino tests/firmware/arduino/arduino.mk
	$$(MAKE) -s -C tests/firmware/arduino/$(1) -f ../arduino.mk \
		$$$$(sed -n '1s|^// arduino-mk: ||p' $$<) OBJDIR=$(abspath build/arduino/$(1)) >/dev/null
	cp build/arduino/$(1)/$(1).elf $$@
endef
$(foreach e,$(ARDUINO_ELF),$(eval $(call ARDUINO_RULE,$(basename $(notdir $(e))))))

# The test suite runs twice: as built, and under AddressSanitizer + UBSan;
# first, every fuzz harness runs its corpus and a few seconds more.
test: test-fuzz test-plain test-san

fuzz-bins:
	$(MAKE) --no-print-directory FUZZ=1 $(FUZZ_BIN)

# A small valid recording, the recording harnesses' seed: 1 KiB pages
# rather than avrr's 16 KiB, so mutations land on a file of ~30 KiB.
build-fuzz/seed/recording/small.db: $(AVRR) traces/funcsheap.elf
	@mkdir -p $(dir $@)
	$(AVRR) record traces/funcsheap.elf --stimuli traces/funcsheap.stim \
		--instructions 3000 --quiet -o $@.tmp > /dev/null
	sqlite3 $@.tmp "PRAGMA page_size = 1024; VACUUM"
	mv $@.tmp $@

# funcsheap with a sic:K tracer, linked with its relocations: the ELF
# harness's way into the software instruction counter's rewrite.
build-fuzz/seed/elf/sic.elf: $(AVRR) traces/funcsheap.c
	@mkdir -p $(dir $@)
	$(AVRR) tracer traces/funcsheap.elf --fp 'sel=SREG+r24+sic:16,hash=modular,ra=8,width=32' \
		-o $(dir $@)tracer.h
	$(AVR_CC) $(AVR_FLAGS) -Wl,--emit-relocs \
		-include $(dir $@)tracer.h -o $@ traces/funcsheap.c
	rm $(dir $@)tracer.h

fuzz: fuzz-bins build-fuzz/seed/recording/small.db build-fuzz/seed/elf/sic.elf $(FIRMWARE) \
		$(TEST_FIRMWARE)
	sh scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

test-fuzz:
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=5

test-plain: $(AVRR) $(TEST_BIN) $(FIRMWARE) $(TEST_FIRMWARE)
	sh tests/run.sh $(BUILD) $(AVRR)

test-san:
	$(MAKE) --no-print-directory SAN=1 test-plain

bench: $(AVRR) $(BENCH_BIN) $(FIRMWARE)
	sh bench/run.sh $(BUILD)

# How record, replay, the oracle and travel grow with the run's length.
bench-scale: $(AVRR) $(BENCH_BIN) $(FIRMWARE)
	$(BUILD)/bench/bench $(AVRR) --scale $(SCALE)

bench-travel: $(AVRR) $(BENCH_BIN) $(FIRMWARE)
	$(BUILD)/bench/bench $(AVRR) --travel $(TRAVEL_INSTRUCTIONS) $(TRAVEL_SAMPLES)

install: $(AVRR)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/avrr/traces \
		$(DESTDIR)$(PREFIX)/share/doc/avrr
	install -m 755 $(AVRR) $(DESTDIR)$(PREFIX)/bin/avrr
	install -m 644 $(FIRMWARE) $(wildcard traces/*.stim) $(wildcard traces/*.c) \
		$(DESTDIR)$(PREFIX)/share/avrr/traces
	install -m 644 gdb/avrr.gdb $(DESTDIR)$(PREFIX)/share/avrr/avrr.gdb
	install -m 644 README.md $(wildcard docs/*.md) $(DESTDIR)$(PREFIX)/share/doc/avrr
	install -d $(DESTDIR)$(PREFIX)/share/doc/avrr/json $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(wildcard docs/json/*.schema.json) $(DESTDIR)$(PREFIX)/share/doc/avrr/json
	sed 's|/usr/local/|$(PREFIX)/|g' docs/avrr.1 > $(DESTDIR)$(PREFIX)/share/man/man1/avrr.1
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/avrr.1
	install -m 644 scripts/avrr.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/avrr

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/avrr $(DESTDIR)$(PREFIX)/share/avrr \
		$(DESTDIR)$(PREFIX)/share/doc/avrr $(DESTDIR)$(PREFIX)/share/man/man1/avrr.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/avrr

# The manual page, from the commands' --help (run after changing one).
man: $(AVRR)
	python3 scripts/gen-man.py $(AVRR) > docs/avrr.1.tmp
	mv docs/avrr.1.tmp docs/avrr.1

deps:
	@sh scripts/install-deps.sh

# The paper's figures, results/fig*.{csv,png} and results/README.md: one
# rule per output, in figures/figures.mk (figures/README.md).
include figures/figures.mk

# The device log's cost (docs/device.md): results/device_log.{csv,md}.
device-table: $(AVRR) $(FIRMWARE) tests/firmware/arduino_blink.elf
	sh scripts/device_table.sh $(AVRR) results

# The paper's Table 1 measured on the device-side tracer (docs/tracer.md).
table1: $(AVRR) $(FIRMWARE)
	sh scripts/table1.sh $(AVRR) results

clean:
	rm -rf build build-san build-fuzz avrr traces/*.elf tests/firmware/*.elf tests/chip/*.elf \
		tests/firmware/multi/*.elf

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
