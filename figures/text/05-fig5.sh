# text/05-fig5.sh: results/README.md's section on Fig. 5, false input duplicates vs. GP registers, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Fig. 5 — false input duplicates vs. GP registers

SPL, SPH, SREG and the return address, plus the x GP registers that
frequency-based selection ranks first; y: distinct contexts whose selector
bytes and return address equal another's, in % of the interrupts
(`fig5.png`; the column `without_ra_pct` of `fig5.csv` is `avrr info`'s
measure, which leaves the return address out, and `total_duplicates_pct`
counts every distinct context whose whole fingerprint equals another's,
hash collisions included — dashed in the plot).

| firmware | series | x=0 | x=1 | x=2 | x=3 | x=8 | x=16 | first x under 5 % |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |', firmware,
	CASE series WHEN 'gp' THEN 'GP' ELSE 'GP + TIFR, PINB, TCNT1L, TCNT1H' END, p0, p1, p2, p3,
	p8, p16, coalesce(x5, 'none')) FROM f5_sum WHERE series != 'default+io'
	ORDER BY firmware, series"
echo
q "SELECT 'funcsheap_noloop with the paper''s selector: ' || (SELECT printf('%.1f', pct) FROM f5
	WHERE firmware = 'funcsheap_noloop' AND series = 'gp' AND x = 3) || ' %; adding, one by one, '
	|| group_concat(printf('%s: %.1f %%', replace(selector, rtrim(selector,
		'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), ''), pct), ', ') || '.'
	FROM (SELECT * FROM f5 WHERE series = 'default+io' ORDER BY x)"
echo
q "SELECT 'The paper cuts false input duplicates to about zero with 3 GP registers in ADCApp, to a '
	|| 'few percent with 1 in FuncsHeap, only by about half with 16 in FuncsHeapWithoutLoop, and '
	|| 'to zero there with TIFR, PINB, TCNT1L and TCNT1H; here adcapp '
	|| (SELECT CASE WHEN p3 < 5 THEN 'agrees' ELSE 'differs' END
		|| printf(' (%.1f %% at 3, %.1f %% at 16)', p3, p16) FROM f5_sum
		WHERE firmware = 'adcapp' AND series = 'gp')
	|| ', funcsheap ' || (SELECT CASE WHEN p1 < 10 THEN 'agrees' ELSE 'differs' END
		|| printf(' (%.1f %% at 1, under 5 %% from %s registers)', p1, coalesce(x5, 'no'))
		FROM f5_sum WHERE firmware = 'funcsheap' AND series = 'gp')
	|| ', funcsheap_noloop ' || (SELECT CASE WHEN p16 BETWEEN p0 / 4 AND p0 * 3 / 4
		THEN 'agrees' ELSE 'differs' END || printf(' (%.1f %% at 0, %.1f %% at 16)', p0, p16)
		FROM f5_sum WHERE firmware = 'funcsheap_noloop' AND series = 'gp')
	|| ', and the four I/O registers ' || (SELECT CASE WHEN io.p3 < 1 THEN 'agree' ELSE 'differ'
		END || printf(' (with the paper''s selector they cut %.1f %% to %.1f %%, not to zero)',
		gp.p3, io.p3) FROM f5_sum io JOIN f5_sum gp USING (firmware)
		WHERE firmware = 'funcsheap_noloop' AND io.series = 'gp+io' AND gp.series = 'gp') || '.'"
echo
q "WITH a AS (SELECT
	(SELECT p3 < 5 FROM f5_sum WHERE firmware = 'adcapp' AND series = 'gp') +
	(SELECT p1 < 10 FROM f5_sum WHERE firmware = 'funcsheap' AND series = 'gp') +
	(SELECT p16 BETWEEN p0 / 4 AND p0 * 3 / 4 FROM f5_sum WHERE firmware = 'funcsheap_noloop'
		AND series = 'gp') +
	(SELECT p3 < 1 FROM f5_sum WHERE firmware = 'funcsheap_noloop' AND series = 'gp+io') AS n),
	x3 AS (SELECT firmware, 100.0 * dup_with_ra / interrupts AS input,
		100.0 * dup_total / interrupts AS total FROM fig5 WHERE series = 'gp' AND x = 3),
	fs AS (SELECT * FROM x3 WHERE firmware = 'funcsheap')
	SELECT printf('**Verdict: %s.** %d of the 4 claims hold.', CASE n WHEN 4 THEN 'agrees'
		WHEN 0 THEN 'differs' ELSE 'partly' END, n)
	|| ' Measured causes: adcapp keeps '
	|| (SELECT printf('%.0f %%', p16) FROM f5_sum WHERE firmware = 'adcapp' AND series = 'gp')
	|| ' with all 16 registers because its interrupts land in a loop whose registers do not '
	|| 'change from turn to turn (the counters section below tells those turns apart); '
	|| 'funcsheap needs '
	|| (SELECT printf('%s registers, not 1 (%.1f %% at 1, %.1f %% at 2)', x5, p1, p2)
		FROM f5_sum WHERE firmware = 'funcsheap' AND series = 'gp')
	|| (SELECT printf(', and no single GP register does better than %.1f %% (%s; '
		|| '\`fig5_single.csv\`): ', 100.0 * dup / interrupts, register) FROM fig5s
		WHERE firmware = 'funcsheap' ORDER BY dup, rank LIMIT 1)
	|| (SELECT printf('at its busiest return address, 0x%04x, %d interrupts share %d state%s of '
		|| 'SPL+SPH+SREG, r24 splits them into only %d (a byte has at most 256 values in each '
		|| 'of those states) and r24 with r25 into %d (\`fig5_ra.csv\`), for there the delay loop holds its 16-bit '
		|| 'counter (a volatile at Y+1:Y+2) in r24:r25', ra, interrupts, states_x0,
		CASE WHEN states_x0 = 1 THEN '' ELSE 's' END, states_x1, states_x2) FROM fig5ra
		WHERE firmware = 'funcsheap' AND rk = 1)
	|| ' — why one register sufficed in the paper''s build is a hypothesis not tested here '
	|| '(its EPOS firmware may keep that counter elsewhere)'
	|| '; in funcsheap_noloop the input pin PINB, which the stimuli drive, tells apart most of '
	|| 'what the paper''s selector cannot ('
	|| (SELECT printf('%.1f %% with TIFR, %.1f %% with PINB too', f1.pct, f2.pct) FROM f5 f1, f5 f2
		WHERE f1.series = 'default+io' AND f1.selector LIKE '%+TIFR'
		AND f2.series = 'default+io' AND f2.selector LIKE '%+PINB')
	|| '), as in the paper, but its GP registers also hold loop state, so they reach '
	|| (SELECT printf('%.1f %% at 8 and %.1f %% at 16', p8, p16) FROM f5_sum
		WHERE firmware = 'funcsheap_noloop' AND series = 'gp')
	|| ' rather than halving.  All duplicate fingerprints (dashed, '
	|| '\`total_duplicates_pct\`) are input duplicates plus hash collisions: at 3 GP registers '
	|| (SELECT group_concat(printf('%s %.1f %% against %.1f %%', firmware, total, input), ', ')
		FROM x3)
	|| (SELECT printf('; collisions add little where the selector leaves states equal, and '
		|| 'dominate in funcsheap, whose %.1f %% input duplicates become %.1f %% when 8 hash '
		|| 'bits per return address take its states.', input, total) FROM fs) FROM a"

