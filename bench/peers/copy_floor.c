/* copy_floor: what bringing an input's bytes into memory costs, with no parsing at all;
 * the floor under every reader (the limit: rows of bench/run_readers.py).
 *
 *   copy_floor fresh|reused|read FILE|DIR...      prints parts=0 bytes=N (N input octets)
 *
 *   fresh   map the file and copy it into a new buffer of its size, as a reader that
 *           decodes every body into new memory does (each 4 KiB of it is a page fault)
 *   reused  map the file and copy it through one 1 MiB buffer used again and again, as a
 *           reader that decodes into a reused buffer does
 *   read    read(2) the file through one 1 MiB buffer: the page cache, nothing else
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "each_file.h"

#define WINDOW (1u << 20)

enum mode { FRESH, REUSED, READ };
static enum mode mode;
static unsigned char *window;
static unsigned long long total;

/* Tells the compiler the buffer's contents are used, so no copy is optimised away. */
static void keep(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static int copy_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        perror(path);
        close(fd);
        return 1;
    }
    size_t size = (size_t)st.st_size;
    if (mode == READ) {
        ssize_t got;
        while ((got = read(fd, window, WINDOW)) > 0) {
            keep(window);
            total += (size_t)got;
        }
        close(fd);
        return got < 0;
    }
    if (size == 0) {
        close(fd);
        return 0;
    }
    unsigned char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        perror(path);
        return 1;
    }
    if (mode == FRESH) {
        unsigned char *copy = malloc(size);
        if (!copy) {
            munmap(map, size);
            return 1;
        }
        memcpy(copy, map, size);
        keep(copy);
        free(copy);
    } else {
        for (size_t at = 0; at < size; at += WINDOW) {
            size_t n = size - at < WINDOW ? size - at : WINDOW;
            memcpy(window, map + at, n);
            keep(window);
        }
    }
    total += size;
    munmap(map, size);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: copy_floor fresh|reused|read FILE|DIR...\n");
        return 2;
    }
    if (strcmp(argv[1], "fresh") == 0)
        mode = FRESH;
    else if (strcmp(argv[1], "reused") == 0)
        mode = REUSED;
    else if (strcmp(argv[1], "read") == 0)
        mode = READ;
    else {
        fprintf(stderr, "copy_floor: unknown mode %s\n", argv[1]);
        return 2;
    }
    window = malloc(WINDOW);
    memset(window, 0, WINDOW); /* fault it in before the clock matters */
    int rc = 0;
    for (int i = 2; i < argc; i++)
        rc |= each_file(argv[i], copy_file);
    printf("parts=0 bytes=%llu\n", total);
    free(window);
    return rc;
}
