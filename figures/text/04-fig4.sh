# text/04-fig4.sh: results/README.md's section on Fig. 4, frequently used registers, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Fig. 4 — frequently used registers (adcapp)

How often the code of adcapp names each register, in % of its instructions
(`avrr select`, the counts behind frequency-based selection, §4.1;
`fig4.png` shows the ten most named of each kind).

| kind | 1st | 2nd | 3rd | 4th | 5th |
| --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %s |', CASE kind WHEN 'gp' THEN 'general purpose' ELSE 'I/O' END,
	group_concat(printf('%s (%.1f %%)', register, pct), ' | ')) FROM (SELECT * FROM fig4
	WHERE rank <= 5 ORDER BY kind, rank) GROUP BY kind ORDER BY kind"
echo
q "WITH g AS (SELECT register, rank FROM fig4 WHERE kind = 'gp'),
	i AS (SELECT register, rank FROM fig4 WHERE kind = 'io'),
	v AS (SELECT (SELECT register FROM g WHERE rank = 1) = 'r24' AND
		(SELECT register FROM i WHERE rank = 1) = 'SREG' AS top,
		(SELECT register FROM g WHERE rank = 2) = 'r25' AND
		(SELECT count(*) FROM i WHERE register IN ('SPL', 'SPH') AND rank <= 3) = 2 AS rest)
	SELECT '**Verdict: ' || CASE WHEN top AND rest THEN 'agrees' WHEN top THEN 'partly'
		ELSE 'differs' END || '.** The paper ranks r24, r25, r30, r31, r28 and, among I/O '
	|| 'registers, SREG, SPL, SPH; here ' || (SELECT group_concat(register, ', ') FROM
		(SELECT register FROM g WHERE rank <= 5 ORDER BY rank)) || ' and '
	|| (SELECT group_concat(register, ', ') FROM (SELECT register FROM i WHERE rank <= 3
		ORDER BY rank)) || '.'
	|| printf(' The code names SPL and SPH %d times: adcapp moves its stack only by PUSH, POP, '
		|| 'CALL and RET, for it runs no operating system that switches stacks, as EPOS does '
		|| 'under the paper''s applications.',
		(SELECT coalesce(sum(uses), 0) FROM fig4 WHERE register IN ('SPL', 'SPH')))
	|| (SELECT printf('  Measured (\`fig4_tasks.csv\`): the same code run as two cooperative '
		|| 'tasks whose switch saves and restores SP through SPL and SPH '
		|| '(tests/firmware/adcapp_tasks.c) ranks SPL %d and SPH %d among its I/O registers '
		|| '(%d and %d uses), against %d and %d (%d and %d uses) in adcapp; ',
		t1.rank, t2.rank, t1.uses, t2.uses, a1.rank, a2.rank, a1.uses, a2.uses)
		FROM fig4t t1, fig4t t2, fig4t a1, fig4t a2
		WHERE t1.firmware = 'adcapp_tasks' AND t1.register = 'SPL'
		AND t2.firmware = 'adcapp_tasks' AND t2.register = 'SPH'
		AND a1.firmware = 'adcapp' AND a1.register = 'SPL'
		AND a2.firmware = 'adcapp' AND a2.register = 'SPH')
	|| (SELECT 'so one stack switch is enough to move them ' || CASE WHEN max(rank) <= 3
			THEN 'into the top three, as in the paper' ELSE 'up, though not into the top three'
			END || '.  That EPOS names them as often is not measured (its code is not here).'
		FROM fig4t WHERE firmware = 'adcapp_tasks' AND register IN ('SPL', 'SPH')) FROM v"

