-- results/fig10_states.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT f.firmware, sum(fingerprints) AS fingerprints,
		(SELECT count(DISTINCT input_key) FROM fp WHERE name = 'f10'
			AND fp.firmware = f.firmware) AS distinct_selector_states,
		count(*) AS hash_values_used, printf('%.3f', 100.0 * count(*) / 65536) AS pct_of_space,
		max(fingerprints) AS most_on_one_value
	FROM fig10 f GROUP BY f.firmware ORDER BY f.firmware;
