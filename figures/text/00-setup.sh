# text/00-setup.sh: results/README.md's section on the setup: how the recordings were made, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'
# Figures of Gracioli & Fischmeister, "Tracing Interrupts in Embedded Software" (LCTES 2009), reproduced with avrr

Written by `make figures` (the steps in `figures/`); do not edit by hand.  The
paper is Gracioli & Fischmeister, *Tracing Interrupts in Embedded Software*
(LCTES'09).  Each figure has its data (`figN.csv`) and plot (`figN.png`);
`sweep.csv` holds every oracle number behind Fig. 7, Fig. 9 and the
matching comparison.  [docs/sweep.md](../docs/sweep.md) explains the
measures.  Each figure closes with a verdict — agrees, partly or differs —
by the criterion stated beside it, computed from its CSV, and for each
difference the cause as measured here.  The paper's Table 1 is measured on
the device-side tracer by `make table1`: [table1.md](table1.md).  The
device log's cost — code, RAM, cycles per interrupt and per input read,
bytes per second and the baud it needs — is measured by `make
device-table` (run by `make figures`): [device_log.md](device_log.md)
([docs/device.md](../docs/device.md)).

## Setup

TEXT
echo "Each bundled firmware was recorded for $INSNS instructions with \`--seed $SEED\` and"
echo "its \`.stim\` file.  \"The paper's selector\" is SPL, SPH, SREG and the three GP"
echo "registers \`avrr select\` ranks first (§4.1), given explicitly to every command"
echo "that uses it; the recordings' own default configuration (a counter) is not used."
echo "In the CSVs it is the selector \`default\` (\`fig9.csv\`) and the series"
echo "\`default+io\` (\`fig5.csv\`), names kept from earlier runs."
echo
echo "| firmware | interrupts | distinct contexts | distinct return addresses | the paper's selector |"
echo "| --- | --- | --- | --- | --- |"
for fw in $FIRMWARE; do
	echo "| $fw | $(val "$F/$fw.db" "SELECT count(*) || ' | ' || count(DISTINCT digest) || ' | '
		|| count(DISTINCT ra) FROM interrupts") | $(paper_selector $fw) |"
done
echo
echo "\`make figures\` took $((elapsed / 60)) min $((elapsed % 60)) s on this machine ($(nproc) cores)."

