#!/bin/sh
# sweeps.sh KIND [FW]: one replay-time data step, `avrr sweep` (the oracle)
# on the recordings in $F, written to $F as a CSV.  SWEEP_SHARDS and
# SWEEP_LAUNCH spread it over a cluster (lib.sh, docs/sweep.md).
#   oracle FW  $F/sweep1-FW.csv: FW's paper selector over the design space
#              (4-16 bits, every split), set and sequence matching.
#   all        $F/sweep2.csv: the whole context (hashing 1,120 bytes at every
#              instruction is what costs) only along the 16-bit line, Fig. 9.
#   counters FW  $F/counters-FW.csv: the paper's selector, 8 ra and 8 hash
#              bits, plus K = 0..16 bits of sic or cycles, both matchings.
#   big        $F/sweep-funcsheap_big.csv: the size section's 16-bit line.
. figures/lib.sh
RAS=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
case $1 in
oracle)
	sweep sweep1-$2.csv $2.db --selector "$(paper_selector $2)" \
		--width 4,5,6,7,8,9,10,11,12,13,14,15,16 --ra $RAS --hash jenkins --match set,sequence ;;
all)
	sweep sweep2.csv adcapp.db funcsheap.db funcsheap_noloop.db --selector all --width 16 \
		--ra $RAS --hash jenkins --match set ;;
counters)
	# sel=PAPER+KIND:K,hash=jenkins,ra=8,width=16+K, which --hash-bits 8
	# spells.  The 33 selectors differ only in their counters, so the sweep
	# evaluates them all in one oracle pass per matching rule; K = 0 is
	# shared by both kinds.
	csel=$(paper_selector $2)
	csels=$csel
	for kind in sic cycles; do
		k=1
		while [ $k -le 16 ]; do
			csels="$csels;$csel+$kind:$k"
			k=$((k + 1))
		done
	done
	sweep counters-$2.csv $2.db --selector "$csels" --hash-bits 8 --ra 8 --hash jenkins \
		--match set,sequence ;;
big)
	sweep sweep-funcsheap_big.csv funcsheap_big.db --selector "$(paper_selector funcsheap_big)" \
		--width 16 --ra $RAS --hash jenkins --match set ;;
*)
	echo "sweeps.sh: unknown sweep '$1' (oracle FW, all, counters FW, big)" >&2
	exit 2 ;;
esac
