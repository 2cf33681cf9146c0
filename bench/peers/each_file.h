/* each_file.h: the argument convention of the bench's C readers. An argument that names a
 * folder stands for the regular files in it whose names do not start with '.', in byte
 * order of their names (as mhtml_read and the Python reader do); any other argument is
 * read as a file. */
#ifndef MHTML_BENCH_EACH_FILE_H
#define MHTML_BENCH_EACH_FILE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int each_file_visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

static int each_file_order(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name); /* bytes, whatever the locale */
}

/* Calls read_one on ARG or on each file of the folder ARG; returns the OR of the results
 * (non-zero: something could not be read). */
static int each_file(const char *arg, int (*read_one)(const char *path))
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        perror(arg);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return read_one(arg);
    struct dirent **names;
    int n = scandir(arg, &names, each_file_visible, each_file_order);
    if (n < 0) {
        perror(arg);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(arg) + strlen(names[i]->d_name) + 2;
        char *path = malloc(len);
        snprintf(path, len, "%s/%s", arg, names[i]->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc |= read_one(path);
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

#endif
