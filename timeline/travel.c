/* travel.c — the checkpoint processes' directory and FIFOs (see travel.h). */
#include "timeline/travel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

#define CK_PREFIX "ck-"

/* A checkpoint's FIFO is "ck-ICOUNT-PID". */
static void ck_path(const travel *t, uint64_t k, int pid, char *buf, size_t n)
{
	snprintf(buf, n, "%s/" CK_PREFIX "%020" PRIu64 "-%d", t->dir, k, pid);
}

static int by_icount(const void *a, const void *b)
{
	uint64_t x = ((const travel_ck *)a)->icount, y = ((const travel_ck *)b)->icount;
	return (x > y) - (x < y);
}

size_t travel_list(const travel *t, travel_ck *cks, size_t cap)
{
	DIR *d = opendir(t->dir);
	size_t n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && n < cap;) {
		char *end;
		if (strncmp(e->d_name, CK_PREFIX, strlen(CK_PREFIX)))
			continue;
		cks[n].icount = strtoull(e->d_name + strlen(CK_PREFIX), &end, 10);
		cks[n].pid = *end == '-' ? atoi(end + 1) : 0;
		n++;
	}
	closedir(d);
	qsort(cks, n, sizeof *cks, by_icount);
	return n;
}

/* A process's resident and proportional set sizes in kB, from its
 * smaps_rollup (0 if it is gone). */
static void rollup(const char *path, uint64_t *rss, uint64_t *pss)
{
	char line[256];
	FILE *f = fopen(path, "r");
	*rss = *pss = 0;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "Rss:", 4))
			*rss = strtoull(line + 4, NULL, 10);
		else if (!strncmp(line, "Pss:", 4))
			*pss = strtoull(line + 4, NULL, 10);
	if (f)
		fclose(f);
}

uint64_t travel_memory_kb(const travel_ck *cks, size_t n)
{
	uint64_t sum = 0, rss, pss;
	for (size_t i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/smaps_rollup", cks[i].pid);
		rollup(path, &rss, &pss);
		sum += pss;
	}
	/* A page the engine shares with m checkpoints gives them m/(m+1) of
	 * it, and the engine's Rss - Pss is the sum of exactly those shares:
	 * pages the engine would hold without any checkpoint. */
	rollup("/proc/self/smaps_rollup", &rss, &pss);
	return sum > rss - pss ? sum - (rss - pss) : 0;
}

/* The FIFO of the checkpoint at icount k, whatever its pid. */
static int find_ck(const travel *t, uint64_t k, char *buf, size_t n)
{
	travel_ck cks[TRAVEL_MAX * 2];
	size_t m = travel_list(t, cks, sizeof cks / sizeof *cks);
	for (size_t i = 0; i < m; i++)
		if (cks[i].icount == k) {
			ck_path(t, k, cks[i].pid, buf, n);
			return 0;
		}
	return -1;
}

int travel_register(const travel *t, uint64_t k)
{
	char path[320];
	ck_path(t, k, (int)getpid(), path, sizeof path);
	if (mkfifo(path, 0600))
		return -1;
	/* Read-write: this process is then always a writer too, so the FIFO
	 * never reports end-of-file between requests. */
	return open(path, O_RDWR | O_CLOEXEC);
}

void travel_set_pid(const travel *t, uint64_t k, int pid)
{
	char from[320], to[320];
	ck_path(t, k, (int)getpid(), from, sizeof from);
	ck_path(t, k, pid, to, sizeof to);
	rename(from, to);
}

void travel_unregister(const travel *t, uint64_t k)
{
	char path[320];
	ck_path(t, k, (int)getpid(), path, sizeof path);
	unlink(path);
}

void travel_forget(const travel *t, const travel_ck *ck)
{
	char path[320];
	ck_path(t, ck->icount, ck->pid, path, sizeof path);
	unlink(path);
}

int travel_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int send_path(const char *path, const void *req, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = util_write_full(fd, req, len);
	close(fd);
	return rc;
}

int travel_send(const travel *t, uint64_t k, const void *req, size_t len)
{
	char path[320];
	if (find_ck(t, k, path, sizeof path))
		return -1;
	return send_path(path, req, len);
}

int travel_send_to(const travel *t, const travel_ck *ck, const void *req, size_t len)
{
	char path[320];
	ck_path(t, ck->icount, ck->pid, path, sizeof path);
	return send_path(path, req, len);
}

int travel_wait(const travel *t, int fd, void *req, size_t len)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = t->life_fd, .events = POLLIN } };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[1].revents)
			return -1;  /* the lifeline: nothing is ever written to it */
		if (p[0].revents & POLLIN)
			return travel_read_full(fd, req, len);
	}
}

static void result_path(const travel *t, char *buf, size_t n)
{
	snprintf(buf, n, "%s/result", t->dir);
}

int travel_result_open(const travel *t)
{
	char path[320];
	result_path(t, path, sizeof path);
	if (mkfifo(path, 0600) && errno != EEXIST)
		return -1;
	return open(path, O_RDWR | O_CLOEXEC);
}

int travel_result_write(const travel *t, const void *res, size_t len)
{
	char path[320];
	result_path(t, path, sizeof path);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = util_write_full(fd, res, len);
	close(fd);
	return rc;
}
