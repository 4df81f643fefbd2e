/* version.h — avrr's version, stored in every recording's metadata. */
#ifndef AVRR_VERSION_H
#define AVRR_VERSION_H
#define AVRR_VERSION "0.1.0"
#endif
