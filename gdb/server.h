/*
 * server.h — a gdb remote server over the timeline (timeline.h): stock
 * avr-gdb, or an IDE driving it, debugs a recording forward and backward
 * (docs/gdb.md).
 *
 * avr-gdb's memory map: flash at 0, the data space at 0x800000, EEPROM at
 * 0x810000; registers r0..r31, SREG, SP (2 bytes), PC (4 bytes, a byte
 * address).  A replay cannot change the past: every write to registers or
 * memory is refused with an error reply.
 *
 * A session serves one client.  The timeline runs in a process tree of its
 * own (checkpoints are processes), every one of which holds the client's
 * connection, hosted by session/session.h; this process only waits for the
 * session to end and cleans up after it.
 */
#ifndef AVRR_GDB_SERVER_H
#define AVRR_GDB_SERVER_H

#include "replayer/replayer.h"
#include "util/err.h"
#include "session/session.h"

typedef struct gdb_session {
	session s;          /* the engine's process, pipes and directory */
	const char *who;    /* set before start: "serve" or "gdb", for messages;
			       serve ends on Ctrl-C, gdb leaves it to avr-gdb */
	int write_elf;      /* set before start: the recording's firmware goes to
			       DIR/firmware.elf, for the client's symbols */
	unsigned checkpoint_mb;  /* set before start: the checkpoints' memory cap
				    (0: TRAVEL_MEMORY_MB) */
	char warning[600];  /* after start: what a debugger will make of the
			       firmware's debug info (fw_debug_info_problem),
			       or "" — the front-end says it */
} gdb_session;

/* Opens the recording in a new engine process that will accept one
 * client on listen_fd.  Returns 0 once the recording is open and the
 * engine waits for its client, or -1 (err: why the recording cannot be
 * replayed). */
int gdb_session_start(gdb_session *gs, const char *db_path, const rp_options *o, int listen_fd,
		      avrr_err *err);

/* Waits until the client detaches, kills the program or goes away, then
 * ends every process of the session and removes its directory.  Returns
 * 0, or SESSION_DIED when the engine died (the host has said so). */
int gdb_session_wait(gdb_session *gs);

/* Ends the session now, whatever its engine is doing (its client never
 * came, or is gone). */
void gdb_session_stop(gdb_session *gs);

/* The checkpoints' directory, for files that should go with the session. */
static inline const char *gdb_session_dir(const gdb_session *gs)
{
	return gs->s.dir;
}

#endif
