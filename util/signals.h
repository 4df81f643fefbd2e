/*
 * signals.h — the signal helpers a front-end needs around its child
 * processes: holding the signals that end a session over a fork, and
 * catching one with or without restarting the read it interrupts.
 */
#ifndef AVRR_SIGNALS_H
#define AVRR_SIGNALS_H

/* Blocks (hold) or unblocks the signals that end a session, SIGTERM,
 * SIGHUP and SIGINT: a front-end holds them from before it forks the
 * engine until its handlers know the engine's process group, so that none
 * can leave the engine orphaned. */
void util_hold_signals(int hold);

/* Handles `sig` with fn; a signal that ends the session should interrupt
 * the read the front-end waits in (`restart` 0), others restart it. */
void util_catch(int sig, void (*fn)(int), int restart);

#endif
