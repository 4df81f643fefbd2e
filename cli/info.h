/* info.h — the summary of a recording, shared by `info` and `record`. */
#ifndef AVRR_INFO_H
#define AVRR_INFO_H

/* Prints the summary of the recording at `path` (text, or JSON when
 * `json`); errors are reported as "avrr CMD: ...".  Returns an exit status.
 * `just_written`: this process has just recorded it (db_open_written). */
int info_print(const char *path, int json, const char *cmd, int just_written);

#endif
