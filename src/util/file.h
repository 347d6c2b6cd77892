/* file.h - what kind of file a path names, for the commands that read or
 * write one: anything but a regular file (a FIFO, a socket, a device, a
 * directory) is refused before it is opened, since open(2) of a FIFO
 * blocks until a writer comes and a device may never end. */
#ifndef MBSIM_FILE_H
#define MBSIM_FILE_H

#include <sys/stat.h>

/* NULL when st describes a regular file, else what it describes ("a
 * directory", "a FIFO", "a socket", "a character device", "a block
 * device", "not a regular file"). */
const char *file_not_regular(const struct stat *st);

#endif
