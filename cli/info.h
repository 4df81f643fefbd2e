/* info.h — the summary of a recording, shared by `info` and `record`. */
#ifndef AVRR_INFO_H
#define AVRR_INFO_H

#include "db/db.h"

/* Prints the summary of the recording d, opened from `path` (text, or JSON
 * when `json`); errors are reported as "avrr CMD: ...".  Returns an exit
 * status. */
int info_print(db *d, const char *path, int json, const char *cmd);

#endif
