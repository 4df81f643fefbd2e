/*
 * test_cluster.c — docs/sweep.md's cluster recipes on a real Slurm and with
 * GNU parallel.
 *
 * tests/cluster/slurm.sh starts MUNGE, slurmctld and slurmd on this machine
 * (one node, everything in the test's directory), submits the docs' job
 * script as a 4-task array with the docs' `sbatch --wait` line, which merges
 * the parts, then runs the docs' `parallel` line and its merge.  This test
 * checks what it leaves:
 *  - the unsharded sweep has one header and 70 configurations x 2 matching
 *    modes x 9 metrics rows;
 *  - both merges equal it byte for byte;
 *  - each part K of 4 opens with "# avrr sweep shard K/4 grid KEY", one KEY;
 *  - Slurm ran the 4 array tasks, each COMPLETED with exit code 0:0 on the
 *    2 CPUs of this host (slurmctld's job completion log), each with its
 *    output file.
 * Not root, or a program missing (the Debian packages scripts/install-deps.sh
 * installs): skipped, with the reason — never passed.  The script's
 * transcript goes to stderr as "# | ..." lines, which tests/run.sh shows.
 */
#include "tests/testlib.h"

#include <unistd.h>

#define SHARDS 4
/* --width 8,16: ra 0,2,...,8 at width 8 and 0,2,...,16 at width 16, under
 * each of the five hashes; times set and sequence matching, 9 metrics. */
#define CONFIGS ((5 + 9) * 5)
#define ROWS (CONFIGS * 2 * 9)

typedef test_scratch scratch;

/* The file `name` under dir, as test_slurp. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return test_slurp(path, len);
}

/* The parts of one merge: shard K of SHARDS each, all of the grid `key`
 * (taken from the first part seen when empty). */
static void check_parts(const char *dir, const char *sub, char key[17])
{
	for (int k = 1; k <= SHARDS; k++) {
		char name[64], head[64];
		snprintf(name, sizeof name, "%s/part-%d.csv", sub, k);
		char *t = slurp(dir, name, NULL);
		int n = snprintf(head, sizeof head, "# avrr sweep shard %d/%d grid ", k, SHARDS);
		if (strncmp(t, head, (size_t)n) || strlen(t) < (size_t)n + 17 || t[n + 16] != '\n')
			fail_msg("%s does not open with '%sKEY': %.60s", name, head, t);
		if (!key[0])
			memcpy(key, t + n, 16);
		if (memcmp(key, t + n, 16))
			fail_msg("%s is of grid %.16s, not %s", name, t + n, key);
		free(t);
	}
}

static void test_recipes_on_slurm_and_parallel(void **state)
{
	scratch *s = *state;
	static char out[65536];
	int rc = test_run(out, sizeof out, "sh tests/cluster/slurm.sh '%s' '%s'", test_avrr(),
			  s->dir);
	if (rc == 77) {
		fprintf(stderr, "%s", out);
		skip();
	}
	for (char *line = out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		fprintf(stderr, "# | %.*s\n", (int)(nl - line), line);
	}
	if (rc)
		fail_msg("tests/cluster/slurm.sh exited with status %d", rc);

	size_t whole_len;
	char *whole = slurp(s->dir, "whole.csv", &whole_len);
	assert_int_equal(test_count_lines(whole), 1 + ROWS);
	assert_memory_equal(whole, "recording,config,selector,hash,ra,width,match,metric,value\n", 58);

	char key[17] = "";
	const char *subs[] = { "slurm", "parallel" };
	for (size_t i = 0; i < 2; i++) {
		char name[64];
		size_t len;
		snprintf(name, sizeof name, "%s/results.csv", subs[i]);
		char *merged = slurp(s->dir, name, &len);
		assert_int_equal(len, whole_len);
		assert_memory_equal(merged, whole, whole_len);
		free(merged);
		check_parts(s->dir, subs[i], key);
	}
	free(whole);

	/* The array's tasks as slurmctld logged them, one line each in task
	 * order: "JOB_K JobId=ID JobState=COMPLETED ExitCode=0:0 ProcCnt=2
	 * StartTime=.. EndTime=.. NodeList=HOST". */
	char host[256];
	assert_int_equal(gethostname(host, sizeof host), 0);
	host[strcspn(host, ".")] = 0;
	char *tasks = slurp(s->dir, "slurm/tasks.txt", NULL);
	assert_int_equal(test_count_lines(tasks), SHARDS);
	long job = strtol(tasks, NULL, 10);
	assert_true(job > 0);
	char *line = tasks;
	for (int k = 1; k <= SHARDS; k++) {
		char want[64], outfile[256];
		snprintf(want, sizeof want, "%ld_%d JobId=", job, k);
		if (strncmp(line, want, strlen(want)))
			fail_msg("task line %d is not of task %s: %.80s", k, want, line);
		char *nl = strchr(line, '\n');
		*nl = 0;
		char node[300];
		snprintf(node, sizeof node, " NodeList=%s", host);
		if (!strstr(line, " JobState=COMPLETED ") || !strstr(line, " ExitCode=0:0 ") ||
		    !strstr(line, " ProcCnt=2 ") ||
		    strcmp(line + strlen(line) - strlen(node), node))
			fail_msg("task %d did not complete with 0:0 on %s: %s", k, host, line);
		line = nl + 1;
		snprintf(outfile, sizeof outfile, "%s/slurm/slurm-%ld_%d.out", s->dir, job, k);
		if (access(outfile, F_OK))
			fail_msg("no output file %s from task %d", outfile, k);
	}
	free(tasks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recipes_on_slurm_and_parallel,
						test_scratch_setup, test_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
