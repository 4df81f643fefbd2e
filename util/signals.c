/* signals.c — holding and catching a session's signals (see signals.h). */
#include "util/signals.h"

#include <signal.h>
#include <string.h>

void util_hold_signals(int hold)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGINT);
	sigprocmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

void util_catch(int sig, void (*fn)(int), int restart)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}
