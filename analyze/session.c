/* session.c — the replay an analysis observes (see session.h). */
#include "analyze/session.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int an_open(const char *path, const rp_options *given, volatile int *interrupted, an_session *out,
	    avrr_err *err)
{
	memset(out, 0, sizeof *out);
	rp_options o = given ? *given : (rp_options){ .match = RP_MATCH_SEQUENCE };
	o.interrupted = interrupted;
	out->interrupted = interrupted;
	out->path = path;
	if (rp_open(path, &o, &out->r, err))
		return -1;
	out->s = rp_sim(out->r);
	out->fw = rp_firmware(out->r);
	if (lines_load(out->fw, &out->lines, err)) {
		an_close(out);
		return -1;
	}
	return 0;
}

void an_close(an_session *a)
{
	lines_free(a->lines);
	rp_close(a->r);
	memset(a, 0, sizeof *a);
}

int an_run(an_session *a, void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
	   avrr_err *err)
{
	rp_stop why = rp_run_reporting(a->r, rp_length(a->r), progress, ud);
	if (why == RP_STOPPED)
		return avrr_errf(err, "interrupted at icount %" PRIu64, rp_icount(a->r));
	const rp_divergence *d = rp_get_divergence(a->r);
	if (d)
		return avrr_errf(err, "the replay diverged at icount %" PRIu64 " (%s): expected %s, "
				 "got %s; an analysis of it would not be of the recorded run",
				 d->icount, d->where, d->expected, d->actual);
	if (why == RP_CPU_STOPPED)
		return avrr_errf(err, "the CPU stopped at icount %" PRIu64 ", before the recording's "
				 "end", rp_icount(a->r));
	if (rp_went_wrong(a->r))
		return avrr_errf(err, "the replay went wrong (a false or missed interrupt)");
	return 0;
}

void an_where(const an_session *a, uint32_t pc, char *buf, size_t n)
{
	const char *file;
	unsigned line;
	if (lines_at(a->lines, pc, &file, &line) == 0) {
		const char *slash = strrchr(file, '/');
		snprintf(buf, n, "%s:%u", slash ? slash + 1 : file, line);
		return;
	}
	fw_describe_pc(a->fw, pc, buf, n);
}

void an_context_name(const an_session *a, unsigned ctx, char *buf, size_t n)
{
	const char *v = ctx ? sim_vector_name(a->s, (uint8_t)ctx) : "main";
	if (v)
		snprintf(buf, n, "%s", v);
	else
		snprintf(buf, n, "vector %u", ctx);
}
