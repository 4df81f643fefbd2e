# figures.mk — `make figures`: the figures of Gracioli & Fischmeister,
# "Tracing Interrupts in Embedded Software" (LCTES 2009), reproduced with
# avrr on the bundled firmware, as one make rule per output
# (figures/README.md says how to add one).  Included by the Makefile.
#
# Three layers, each its own rules, so that a figure is redrawn without
# rerunning what it is drawn from:
#   data     avrr record / select / fingerprint / sweep  -> $(FIG)/  (minutes)
#   tables   figures/tables.sh gathers them in $(FIG)/figures.db   (seconds)
#   outputs  results/NAME.csv   from figures/csv/NAME.sql
#            results/NAME.png   from figures/plot/NAME.py (matplotlib)
#            results/README.md  from figures/text/*.sh, one section each
# Everything but the elapsed time in results/README.md is deterministic.

FIG       := build/figures
FIG_OUT   := results
FIG_FW    := adcapp funcsheap funcsheap_noloop
FIG_INSNS := 10M
FIG_SEED  := 1
# Debian's python3, where python3-matplotlib lives (not a pyenv's).
FIG_PYTHON := /usr/bin/python3
FIG_ENV = F=$(FIG) AVRR=$(abspath $(AVRR))

FIG_CSV  := $(patsubst figures/csv/%.sql,$(FIG_OUT)/%.csv,$(wildcard figures/csv/*.sql)) $(FIG_OUT)/sweep.csv
FIG_PNG  := $(patsubst figures/plot/%.py,$(FIG_OUT)/%.png,$(filter-out figures/plot/common.py,$(wildcard figures/plot/*.py)))
FIG_TEXT := $(patsubst figures/text/%.sh,$(FIG)/text/%.md,$(sort $(wildcard figures/text/*.sh)))

.PHONY: figures figures-outputs
# START stamps the run, for the elapsed time results/README.md states.
figures: device-table
	@mkdir -p $(FIG)
	$(MAKE) --no-print-directory figures-outputs START=$$(date +%s)
figures-outputs: $(FIG_CSV) $(FIG_PNG) $(FIG_OUT)/README.md

# ---- data: the avrr runs ------------------------------------------------

# Without --contexts: `avrr fingerprint` and the sweeps re-run the
# recording, which is quick and keeps the files small.
$(FIG)/%.rec.db: traces/%.elf traces/%.stim $(AVRR)
	@mkdir -p $(FIG)
	$(AVRR) record $< --stimuli traces/$*.stim --seed $(FIG_SEED) \
		--instructions $(FIG_INSNS) --quiet -o $@.tmp > /dev/null
	mv $@.tmp $@
# funcsheap_noloop grown to ~14 KB, with funcsheap's stimuli.
$(FIG)/funcsheap_big.rec.db: tests/firmware/funcsheap_big.elf traces/funcsheap.stim $(AVRR)
	@mkdir -p $(FIG)
	$(AVRR) record $< --stimuli traces/funcsheap.stim --seed $(FIG_SEED) \
		--instructions $(FIG_INSNS) --quiet -o $@.tmp > /dev/null
	mv $@.tmp $@

# The paper's selector of each firmware (figures/selector.sh).
$(FIG)/%.sel: traces/%.elf figures/selector.sh $(AVRR)
	@mkdir -p $(FIG)
	$(FIG_ENV) sh figures/selector.sh $* $<
$(FIG)/funcsheap_big.sel: tests/firmware/funcsheap_big.elf figures/selector.sh $(AVRR)
	@mkdir -p $(FIG)
	$(FIG_ENV) sh figures/selector.sh funcsheap_big $<

# How often each firmware's code names each register (Fig. 4).
$(FIG)/%.select.json: traces/%.elf $(AVRR)
	@mkdir -p $(FIG)
	$(AVRR) select $< --gp 32 --io 64 --json > $@.tmp
	mv $@.tmp $@
$(FIG)/adcapp_tasks.select.json: tests/firmware/adcapp_tasks.elf $(AVRR)
	@mkdir -p $(FIG)
	$(AVRR) select $< --gp 32 --io 64 --json > $@.tmp
	mv $@.tmp $@

# The record-time configurations, stored in $(FIG)/FW.db.
$(FIG)/%.db $(FIG)/%.fp.db $(FIG)/%.catalog.sql: $(FIG)/%.rec.db $(FIG)/%.sel \
		figures/fingerprints.sh
	$(FIG_ENV) sh figures/fingerprints.sh $*
$(FIG)/funcsheap_big.db $(FIG)/funcsheap_big.fp.db &: $(FIG)/funcsheap_big.rec.db \
		$(FIG)/funcsheap_big.sel figures/fingerprints-big.sh
	$(FIG_ENV) sh figures/fingerprints-big.sh

# The oracle (figures/sweeps.sh).  The sweeps run after the fingerprints,
# on the recordings that hold them.
$(FIG)/sweep1-%.csv: $(FIG)/%.db figures/sweeps.sh
	$(FIG_ENV) sh figures/sweeps.sh oracle $*
$(FIG)/sweep2.csv: $(FIG_FW:%=$(FIG)/%.db) figures/sweeps.sh
	$(FIG_ENV) sh figures/sweeps.sh all
$(FIG)/counters-%.csv: $(FIG)/%.db figures/sweeps.sh
	$(FIG_ENV) sh figures/sweeps.sh counters $*
$(FIG)/sweep-funcsheap_big.csv: $(FIG)/funcsheap_big.db figures/sweeps.sh
	$(FIG_ENV) sh figures/sweeps.sh big
# One table of every oracle number, in the order one sweep over the three
# recordings would write it; the counters' sweeps likewise.
$(FIG)/sweep.csv: $(FIG)/sweep2.csv $(FIG_FW:%=$(FIG)/sweep1-%.csv)
	{ head -n 1 $<; for f in $(FIG_FW:%=$(FIG)/sweep1-%.csv) $<; do tail -n +2 $$f; done; } \
		> $@.tmp
	mv $@.tmp $@
$(FIG)/counters-sweep.csv: $(FIG_FW:%=$(FIG)/counters-%.csv)
	{ head -n 1 $<; for f in $^; do tail -n +2 $$f; done; } > $@.tmp
	mv $@.tmp $@

# Kept between runs (make would delete them as mere steps of a chain).
.SECONDARY: $(foreach f,$(FIG_FW) funcsheap_big,$(FIG)/$(f).rec.db $(FIG)/$(f).sel)

# ---- tables: every number in one database ----------------------------------

$(FIG)/figures.db: figures/tables.sh figures/lib.sh \
		$(foreach f,$(FIG_FW),$(FIG)/$(f).db $(FIG)/$(f).fp.db $(FIG)/$(f).catalog.sql) \
		$(foreach f,$(FIG_FW) adcapp_tasks,$(FIG)/$(f).select.json) \
		$(FIG)/funcsheap_big.db $(FIG)/funcsheap_big.fp.db $(FIG)/sweep-funcsheap_big.csv \
		$(FIG)/sweep.csv $(FIG)/counters-sweep.csv traces/funcsheap_noloop.elf \
		tests/firmware/funcsheap_big.elf
	$(FIG_ENV) sh figures/tables.sh

# ---- outputs: one rule each -------------------------------------------------

$(FIG_OUT)/%.csv: figures/csv/%.sql $(FIG)/figures.db
	sqlite3 -bail -csv -header $(FIG)/figures.db < $< > $@.tmp
	mv $@.tmp $@
$(FIG_OUT)/sweep.csv: $(FIG)/sweep.csv
	cp $< $@

# A plot reads the CSV of its name (and any other it names).
$(FIG_OUT)/%.png: figures/plot/%.py figures/plot/common.py $(FIG_OUT)/%.csv
	$(FIG_PYTHON) $< $(FIG_OUT) $@.tmp.png
	mv $@.tmp.png $@

$(FIG)/text/%.md: figures/text/%.sh figures/text.sh $(FIG)/figures.db
	@mkdir -p $(FIG)/text
	$(FIG_ENV) FIRMWARE="$(FIG_FW)" INSNS=$(FIG_INSNS) SEED=$(FIG_SEED) START=$(START) \
		sh figures/text.sh $< > $@.tmp
	mv $@.tmp $@
$(FIG_OUT)/README.md: $(FIG_TEXT)
	cat $^ > $@.tmp
	mv $@.tmp $@
